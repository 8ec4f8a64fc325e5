/**
 * LangGraph's checkpoint-validation suite against `ThreadwiseSaver` on in_memory and SQLite (the
 * deviations by design asserted: test/support/saver-validation.ts). PostgreSQL, whose ~700 checks
 * cost ~20 s of round trips: threadwise-saver.validation.slow.test.ts.
 */
import { validateThreadwiseSaver } from "./support/saver-validation.js";

await validateThreadwiseSaver(["in_memory", "sqlite"]);
