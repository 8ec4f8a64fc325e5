/**
 * Default paths of the data files committed under `data/` (see `data/README.md` for licenses and
 * quirks). Tests and benches import these instead of spelling a path; benches take `--data <file>`
 * to read another copy.
 */
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The `data/` folder of the repository. */
export const DATA_DIR = dirname(fileURLToPath(import.meta.url));

/** 7 LoCoMo conversations (CC BY-NC 4.0, Maharana et al., ACL 2024). */
export const LOCOMO_PATH = resolve(DATA_DIR, "locomo/locomo-dev.json");

/** 150 tau-bench airline runs in OpenAI chat format (MIT, Sierra 2024). */
export const TAU_AIRLINE_PATH = resolve(DATA_DIR, "tau-bench-airline/airline-dev.json");
