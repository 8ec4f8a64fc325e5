import { ThreadwiseConfigError } from "./errors.js";

/**
 * Reads a positive integer from env `name`. Returns `undefined` when unset or empty.
 * @throws ThreadwiseConfigError naming the variable when set to anything but a positive integer.
 */
export function envPositiveInt(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value <= 0)
    throw new ThreadwiseConfigError(name, `expected a positive integer, got ${JSON.stringify(raw)}`);
  return value;
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
  throw new ThreadwiseConfigError(name, `expected true or false, got ${JSON.stringify(raw)}`);
}
