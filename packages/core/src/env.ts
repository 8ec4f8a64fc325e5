import { z } from "zod/v4";
import { LOG_LEVELS, THREADWISE_ENV, THREADWISE_TOOLING_ENV_PREFIXES } from "./env-names.js";
import { closestKey, ThreadwiseConfigError } from "./errors.js";
import { resolveLogger, type ThreadwiseLogger } from "./logger.js";

const DECIMAL = /^[0-9]+$/;

const KNOWN_NAMES: readonly string[] = Object.values(THREADWISE_ENV);
const KNOWN = new Set(KNOWN_NAMES);
/** Prefixes stripped before comparing a misspelt name with the known ones (`THREADWISE_ARCHIVE` -> `ARCHIVE`). */
const NAME_PREFIXES = ["THREADWISE_MEMORY_", "THREADWISE_", "MEMORY_", "POSTGRES_", "A2A_"];
/** Env objects already checked by {@link checkEnvNames} (`process.env`: once per process). */
const checkedEnvs = new WeakSet<object>();

const stem = (name: string) => {
  const upper = name.toUpperCase();
  const prefix = NAME_PREFIXES.find((p) => upper.startsWith(p));
  return prefix ? upper.slice(prefix.length) : upper;
};
const firstWord = (name: string) => name.split("_")[0]?.toUpperCase() ?? "";
const KNOWN_FIRST_WORDS = new Set(KNOWN_NAMES.map(firstWord));

const KNOWN_STEMS = KNOWN_NAMES.map(stem);

/**
 * The known variable `name` most likely means, compared by the part after the prefix, since the
 * prefix is what users get wrong (`THREADWISE_ARCHIVE`, `THREADWISE_ARCHVE` -> `MEMORY_ARCHIVE`;
 * `THREADWISE_MEMORY_KEYRNG` -> `THREADWISE_MEMORY_KEYRING`). `undefined` when none is close.
 */
export function closestEnvName(name: string): string | undefined {
  const match = closestKey(stem(name), KNOWN_STEMS);
  return match === undefined ? undefined : KNOWN_NAMES[KNOWN_STEMS.indexOf(match)];
}

/**
 * Checks the variable names in `env` once per env object (`process.env`: at the first read of
 * any threadwise variable, so at construction). Every env read of threadwise's packages runs it.
 * - A `THREADWISE_*` name threadwise does not read throws: the prefix is threadwise's own, and a
 *   misspelt one is a setting silently not applied (`THREADWISE_MEMORY_KEYRNG` would store
 *   plaintext). Names under `THREADWISE_TEST_` and `THREADWISE_BENCH_` (threadwise's own tests
 *   and benches) pass.
 * - Any other name close to a known one (`MEMORY_BACKND`, `memory_archive`, `MAX_HISTORY_TOKEN`)
 *   is reported once through `logger.warn` (other software may own such names, so it is not refused).
 * - `THREADWISE_LOG` must be one of {@link LOG_LEVELS} (any case).
 *
 * @param logger where near misses are reported. @default core's resolveLogger() at the level of
 *   `env`'s `THREADWISE_LOG` (never `process.env`'s when another env is given)
 * @throws ThreadwiseConfigError naming the variable (`option`), with the closest known name when
 *   there is one.
 * @example
 * checkEnvNames({ THREADWISE_ARCHIVE: "true" }); // throws: did you mean MEMORY_ARCHIVE?
 */
export function checkEnvNames(env: NodeJS.ProcessEnv = process.env, logger?: ThreadwiseLogger | false): void {
  if (checkedEnvs.has(env)) return;
  const nearMisses: string[] = [];
  for (const name of Object.keys(env)) {
    if (KNOWN.has(name) || THREADWISE_TOOLING_ENV_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    if (name.toUpperCase().startsWith("THREADWISE_")) {
      const suggestion = closestEnvName(name);
      throw new ThreadwiseConfigError(
        name,
        `is not a variable threadwise reads${suggestion ? `; did you mean ${suggestion}?` : ""} (the README's "Environment variables" lists them; unset it or fix its name)`,
      );
    }
    if (!KNOWN_FIRST_WORDS.has(firstWord(name))) continue;
    const suggestion = closestKey(name, KNOWN_NAMES);
    if (suggestion) nearMisses.push(`${name} (did you mean ${suggestion}?)`);
  }
  const level = env[THREADWISE_ENV.log];
  if (level !== undefined && level.trim() !== "" && !(LOG_LEVELS as readonly string[]).includes(level.trim().toLowerCase()))
    throw new ThreadwiseConfigError(THREADWISE_ENV.log, `expected one of ${LOG_LEVELS.join(" | ")}, got ${JSON.stringify(level)}`);
  checkedEnvs.add(env);
  if (nearMisses.length > 0)
    resolveLogger(logger, env).warn(`threadwise: ignored env variable(s) threadwise does not read: ${nearMisses.join(", ")}`, {
      variables: nearMisses.length,
    });
}

/**
 * The trimmed value of env `name`, `undefined` when unset or blank. The one place threadwise's
 * packages read a variable: it runs {@link checkEnvNames} on `env` first.
 * @throws ThreadwiseConfigError from {@link checkEnvNames}.
 */
export function envString(name: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  checkEnvNames(env);
  const raw = env[name];
  return raw === undefined || raw.trim() === "" ? undefined : raw.trim();
}

/**
 * Parses a whole number written in plain decimal digits (an env value or CLI argument). `Number()`
 * is not used on its own because it reads `""` as 0 and accepts `0x10`, `1e3`, `0b1` and `" 7 "`.
 *
 * @param name the option or variable, named in the error (`--older-than-days`, `MEMORY_WINDOW_SIZE`).
 * @param range inclusive bounds. @default { min: 0, max: Number.MAX_SAFE_INTEGER }
 * @throws ThreadwiseConfigError naming `name` for anything but digits, or a value out of range.
 * @example
 * parseWholeNumber("30", "--older-than-days", { min: 1 }); // 30
 * parseWholeNumber("1e3", "--older-than-days");              // throws
 */
export function parseWholeNumber(raw: string, name: string, range: { min?: number; max?: number } = {}): number {
  const min = range.min ?? 0;
  const max = range.max ?? Number.MAX_SAFE_INTEGER;
  if (!DECIMAL.test(raw)) throw new ThreadwiseConfigError(name, `expected a whole number in decimal digits, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw new ThreadwiseConfigError(name, `expected a whole number from ${min} to ${max}, got ${raw}`);
  return value;
}

/**
 * Reads a positive integer (decimal digits, see {@link parseWholeNumber}) from env `name`.
 * Returns `undefined` when unset or empty.
 * @throws ThreadwiseConfigError naming the variable when set to anything but a positive integer.
 */
export function envPositiveInt(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const value = envString(name, env);
  if (value === undefined) return undefined;
  if (!DECIMAL.test(value) || !(Number.isSafeInteger(Number(value)) && Number(value) > 0))
    throw new ThreadwiseConfigError(name, `expected a positive integer (decimal digits), got ${JSON.stringify(env[name])}`);
  return Number(value);
}

/**
 * Reads one of `accepted` from env `name`. Returns `undefined` when unset or empty.
 * @throws ThreadwiseConfigError naming the variable and the accepted values otherwise.
 */
export function envChoice<T extends string>(name: string, accepted: readonly T[], env: NodeJS.ProcessEnv = process.env): T | undefined {
  const value = envString(name, env) as T | undefined;
  if (value === undefined) return undefined;
  if (!accepted.includes(value))
    throw new ThreadwiseConfigError(name, `expected one of ${accepted.join(" | ")}, got ${JSON.stringify(env[name])}`);
  return value;
}

/**
 * Reads a boolean (`true|false|1|0|yes|no|on|off`) from env `name`; `undefined` when unset.
 * @throws ThreadwiseConfigError naming the variable otherwise.
 */
export function envBoolean(name: string, env: NodeJS.ProcessEnv = process.env): boolean | undefined {
  const value = envString(name, env)?.toLowerCase();
  if (value === undefined) return undefined;
  if (["true", "1", "yes", "on"].includes(value)) return true;
  if (["false", "0", "no", "off"].includes(value)) return false;
  throw new ThreadwiseConfigError(name, `expected true or false (also 1/0, yes/no, on/off), got ${JSON.stringify(env[name])}`);
}

/**
 * Reads env `name` whose `0` turns a feature off (`MEMORY_WINDOW_SIZE=0`: no window): `false` for
 * `0`, else a whole number of at least `min` (decimal digits); `undefined` when unset or blank.
 * Its error says both what is accepted and what `0` does, since a user who writes `-1` or a value
 * below `min` usually means one of the two.
 *
 * @param rule `unit` of the value (`messages`, `tokens`), `off`: what `0` does (`no window`),
 *   `min`: the smallest value but 0 (@default 1).
 * @throws ThreadwiseConfigError naming the variable, the accepted range and what 0 does.
 * @example
 * envCountOrOff("MEMORY_WINDOW_SIZE", { MEMORY_WINDOW_SIZE: "0" }, { unit: "messages", off: "no window" }); // false
 */
export function envCountOrOff(
  name: string,
  env: NodeJS.ProcessEnv,
  rule: { unit: string; off: string; min?: number },
): number | false | undefined {
  const value = envString(name, env);
  if (value === undefined) return undefined;
  const min = rule.min ?? 1;
  const count = DECIMAL.test(value) ? Number(value) : Number.NaN;
  if (count === 0) return false;
  if (!Number.isSafeInteger(count) || count < min)
    throw new ThreadwiseConfigError(
      name,
      `expected a whole number of ${rule.unit} from ${min} (decimal digits), or 0 for ${rule.off}; got ${JSON.stringify(env[name])}`,
    );
  return count;
}

/**
 * Reads a whole number from 0 (decimal digits) from env `name`; `undefined` when unset or blank.
 * @param max the largest accepted value. @default Number.MAX_SAFE_INTEGER
 * @throws ThreadwiseConfigError naming the variable otherwise.
 */
export function envWholeNumber(name: string, env: NodeJS.ProcessEnv = process.env, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const value = envString(name, env);
  return value === undefined ? undefined : parseWholeNumber(value, name, { min: 0, max });
}

/**
 * The zod schema of every factory's `env` option: the object its env twins (and `THREADWISE_LOG`)
 * are read from instead of `process.env`, as `memoryStack({ env })` passes its own. It is the
 * whole environment the factory reads (by design, so a test or a tenant gets exactly the settings
 * it states): `process.env` is not merged in, so `THREADWISE_LOG` set there is not read either.
 * Add to the process's with `{ ...process.env, MEMORY_WINDOW_SIZE: "8" }`; set the log level in
 * code with the `logger` option (`false` for none, any `{ info, warn }` such as `console` for info
 * lines too). Optional; the error names the option through `parseOptions`.
 */
export const envOptionSchema = z
  .custom<NodeJS.ProcessEnv>((value) => typeof value === "object" && value !== null && !Array.isArray(value), {
    message: "expected an env object such as process.env",
  })
  .optional();
