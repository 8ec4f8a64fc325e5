/**
 * LangGraph's checkpoint-validation suite against `ThreadwiseSaver` on PostgreSQL (a real server in
 * CI, which requires THREADWISE_TEST_POSTGRES_URL there; else PGlite), with the deviations by design
 * asserted (test/support/saver-validation.ts). In the slow project: ~700 checks of database round
 * trips, ~20 s; in_memory and SQLite run in the fast one (threadwise-saver.validation.test.ts).
 */
import { validateThreadwiseSaver } from "./support/saver-validation.js";

await validateThreadwiseSaver(["postgres"]);
