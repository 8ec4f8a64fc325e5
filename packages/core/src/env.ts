import { ThreadwiseConfigError } from "./errors.js";

const DECIMAL = /^[0-9]+$/;

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
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = raw.trim();
  if (!DECIMAL.test(value) || !(Number.isSafeInteger(Number(value)) && Number(value) > 0))
    throw new ThreadwiseConfigError(name, `expected a positive integer (decimal digits), got ${JSON.stringify(raw)}`);
  return Number(value);
}

/**
 * Reads one of `accepted` from env `name`. Returns `undefined` when unset or empty.
 * @throws ThreadwiseConfigError naming the variable and the accepted values otherwise.
 */
export function envChoice<T extends string>(name: string, accepted: readonly T[], env: NodeJS.ProcessEnv = process.env): T | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = raw.trim() as T;
  if (!accepted.includes(value))
    throw new ThreadwiseConfigError(name, `expected one of ${accepted.join(" | ")}, got ${JSON.stringify(raw)}`);
  return value;
}

/**
 * Reads a boolean (`true|false|1|0|yes|no|on|off`) from env `name`; `undefined` when unset.
 * @throws ThreadwiseConfigError naming the variable otherwise.
 */
export function envBoolean(name: string, env: NodeJS.ProcessEnv = process.env): boolean | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = raw.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(value)) return true;
  if (["false", "0", "no", "off"].includes(value)) return false;
  throw new ThreadwiseConfigError(name, `expected true or false (also 1/0, yes/no, on/off), got ${JSON.stringify(raw)}`);
}
