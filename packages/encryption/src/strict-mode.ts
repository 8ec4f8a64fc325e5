import {
  envBoolean,
  envPositiveInt,
  envString,
  optionNames,
  parseOptions,
  THREADWISE_ENV,
  ThreadwiseConfigError,
  ThreadwiseError,
} from "@threadwise/core";
import { type StrictModeRequirement, ThreadwiseStrictModeError } from "./errors.js";
import { isKeyring, KEYRING_ENV, type Keyring, loadKeyring } from "./keyring.js";

/** Env switch of strict mode (R30). */
export const STRICT_MODE_ENV = THREADWISE_ENV.strictMode;
/** Env variable with the retention period in days (R23, R30). */
export const RETENTION_DAYS_ENV = THREADWISE_ENV.retentionDays;
/** Env variable choosing the memory backend (R20). */
export const BACKEND_ENV = THREADWISE_ENV.backend;

/** What {@link checkStrictMode} looks at. Values given in code win over env. */
export interface StrictModeInput {
  /** Environment to read; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Strict mode on or off; default env `MEMORY_STRICT_MODE` (`true|false|1|0|yes|no|on|off`), else off. */
  strict?: boolean;
  /** Backend chosen in code (`off | in_memory | sqlite | postgres`); default env `MEMORY_BACKEND`. */
  backend?: string;
  /** Keyring chosen in code: a path or a loaded `Keyring`; default env `THREADWISE_MEMORY_KEYRING`. */
  keyring?: string | Keyring;
  /** Retention in days chosen in code; default env `MEMORY_RETENTION_DAYS`. */
  retentionDays?: number;
}

/**
 * {@link StrictModeInput} by name: `{ stric: true }` was ignored, so strict mode stayed off and a
 * deployment started without the keyring and retention it asked for.
 */
const STRICT_MODE_INPUT_NAMES = optionNames(["env", "strict", "backend", "keyring", "retentionDays"]);

/** Result of {@link checkStrictMode}. */
export interface StrictModeReport {
  /** Whether strict mode is on. */
  strict: boolean;
  /** Backend in effect, `undefined` when none was chosen. */
  backend: string | undefined;
  /** The loaded keyring when one is configured and valid. */
  keyring: Keyring | undefined;
  /** Retention in days when configured and valid. */
  retentionDays: number | undefined;
  /** Every unmet requirement, in the order postgres, keyring, retention. Empty when all is well. */
  missing: StrictModeRequirement[];
  /** One sentence per missing requirement saying what is wrong and how to fix it. No key material. */
  problems: string[];
}

/**
 * Checks the start-up requirements of R30 without throwing:
 * - `MEMORY_STRICT_MODE=true`: backend `postgres`, a valid keyring and a positive
 *   `MEMORY_RETENTION_DAYS` are all required;
 * - an explicit `postgres` backend (strict or not) requires a valid keyring.
 *
 * @throws ThreadwiseConfigError only when `MEMORY_STRICT_MODE` itself is not a boolean;
 *   ThreadwiseUnknownOptionError for a misspelt option (`stric`: was ignored, strict mode stayed off).
 * @example
 * const report = checkStrictMode({ backend: "postgres" });
 * if (report.missing.length) console.error(report.problems.join("\n"));
 */
export function checkStrictMode(input: StrictModeInput = {}): StrictModeReport {
  parseOptions("checkStrictMode", STRICT_MODE_INPUT_NAMES, input);
  const env = input.env ?? process.env;
  const strict = input.strict ?? envBoolean(STRICT_MODE_ENV, env) ?? false;
  const rawBackend = input.backend ?? envString(BACKEND_ENV, env);
  const backend = rawBackend === undefined || rawBackend.trim() === "" ? undefined : rawBackend.trim();
  const missing: StrictModeRequirement[] = [];
  const problems: string[] = [];

  if (strict && backend !== "postgres") {
    missing.push("postgres");
    problems.push(
      `postgres: strict mode needs the postgres backend (set ${BACKEND_ENV}=postgres), got ${backend === undefined ? "none" : JSON.stringify(backend)}`,
    );
  }

  let keyring: Keyring | undefined;
  let keyringProblem: string | undefined;
  if (isKeyring(input.keyring)) keyring = input.keyring;
  else {
    try {
      keyring = loadKeyring(typeof input.keyring === "string" ? input.keyring : undefined, env, "checkStrictMode.keyring");
    } catch (error) {
      if (!ThreadwiseError.isInstance(error)) throw error;
      keyringProblem = error.message;
    }
  }
  if (keyring === undefined && (strict || backend === "postgres")) {
    missing.push("keyring");
    const why = strict ? "strict mode" : "the postgres backend";
    problems.push(`keyring: ${why} needs an encryption keyring (${KEYRING_ENV}); ${keyringProblem}`);
  }

  let retentionDays = input.retentionDays;
  let retentionProblem = `${RETENTION_DAYS_ENV} is unset`;
  if (retentionDays === undefined) {
    try {
      retentionDays = envPositiveInt(RETENTION_DAYS_ENV, env);
    } catch (error) {
      if (!ThreadwiseError.isInstance(error)) throw error;
      retentionProblem = error.message;
    }
  } else if (!Number.isFinite(retentionDays) || retentionDays <= 0) {
    retentionProblem = `retentionDays is ${retentionDays}`;
    retentionDays = undefined;
  }
  if (strict && retentionDays === undefined) {
    missing.push("retention");
    problems.push(`retention: strict mode needs a positive ${RETENTION_DAYS_ENV} (days); ${retentionProblem}`);
  }
  return { strict, backend, keyring, retentionDays, missing, problems };
}

/**
 * {@link checkStrictMode}, throwing when anything is missing. Call at start-up (the `memoryStack`
 * preset does), before opening any store.
 *
 * @throws ThreadwiseStrictModeError in strict mode, with `missing` naming every unmet requirement (R30).
 * @throws ThreadwiseUnknownOptionError for a misspelt option (`stric: true`: was ignored, strict mode stayed off).
 * @throws ThreadwiseConfigError (`option` = `THREADWISE_MEMORY_KEYRING`) outside strict mode, when
 *   the postgres backend has no keyring.
 * @example
 * assertStrictMode(); // reads MEMORY_STRICT_MODE, MEMORY_BACKEND, THREADWISE_MEMORY_KEYRING, MEMORY_RETENTION_DAYS
 */
export function assertStrictMode(input: StrictModeInput = {}): StrictModeReport {
  parseOptions("assertStrictMode", STRICT_MODE_INPUT_NAMES, input);
  const report = checkStrictMode(input);
  if (report.missing.length > 0 && !report.strict) {
    // Outside strict mode the one requirement is postgres's keyring: a setting to give, not strict mode's.
    throw new ThreadwiseConfigError(KEYRING_ENV, `the postgres backend cannot start without a keyring:\n- ${report.problems.join("\n- ")}`);
  }
  if (report.missing.length > 0) {
    throw new ThreadwiseStrictModeError(
      report.missing,
      `strict mode (${STRICT_MODE_ENV}=true) cannot start; missing ${report.missing.join(", ")}:\n- ${report.problems.join("\n- ")}`,
    );
  }
  return report;
}
