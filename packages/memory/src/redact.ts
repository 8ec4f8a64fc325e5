/** What replaces a secret in anything threadwise prints. */
export const REDACTED = "***";

/**
 * Returns the DSN with its password replaced by `***` (spec R25). Handles URLs
 * (`postgresql://user:pw@host/db`, `?password=pw`) and key/value DSNs (`password=pw host=...`).
 * A string that cannot be parsed is returned with anything between `:` and `@` masked.
 *
 * @example
 * redactDsn("postgresql://app:s3cret@db:5432/app_memory") // "postgresql://app:***@db:5432/app_memory"
 */
export function redactDsn(dsn: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(dsn)) {
    try {
      const url = new URL(dsn);
      if (url.password !== "") url.password = REDACTED;
      for (const key of [...url.searchParams.keys()]) {
        if (/pass|secret|key/i.test(key)) url.searchParams.set(key, REDACTED);
      }
      return url.toString();
    } catch {
      return dsn.replace(/(\/\/[^:/@]*:)[^@]*@/, `$1${REDACTED}@`);
    }
  }
  return dsn.replace(/(password\s*=\s*)('[^']*'|\S+)/gi, `$1${REDACTED}`);
}

/** Passwords found in DSN strings, for {@link redactSecrets}. */
export function dsnSecrets(dsn: string | undefined): string[] {
  if (!dsn) return [];
  const secrets: string[] = [];
  try {
    const url = new URL(dsn);
    if (url.password) secrets.push(url.password, decodeURIComponent(url.password));
    for (const [key, value] of url.searchParams) if (/pass|secret|key/i.test(key) && value) secrets.push(value);
  } catch {
    for (const match of dsn.matchAll(/password\s*=\s*('([^']*)'|(\S+))/gi)) secrets.push(match[2] ?? match[3] ?? "");
  }
  return secrets.filter((secret) => secret.length > 0);
}

/**
 * Replaces every occurrence of each secret in `text` with `***`. Used on error messages and
 * stacks from drivers, which may quote a connection string.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * A copy of a config object safe to print: DSN-like fields redacted with {@link redactDsn},
 * fields named like secrets or keys replaced by `***`, functions and objects such as models
 * reduced to their class name.
 */
export function redactConfig(config: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(config)) {
    if (typeof value === "string" && /dsn|url/i.test(key)) out[key] = redactDsn(value);
    else if (/password|secret|apikey|api_key|token$/i.test(key) && value !== undefined) out[key] = REDACTED;
    else if (value !== null && typeof value === "object" && !Array.isArray(value))
      out[key] =
        Object.getPrototypeOf(value) === Object.prototype
          ? redactConfig(value as Record<string, unknown>)
          : `[${value.constructor?.name ?? "object"}]`;
    else if (typeof value === "function") out[key] = "[function]";
    else out[key] = value;
  }
  return out;
}

/** Node's `util.inspect.custom` (a registered symbol, so no `node:util` import is needed). */
const INSPECT_CUSTOM = Symbol.for("nodejs.util.inspect.custom");

/**
 * Makes `target` print as `view()` in `JSON.stringify` (`toJSON`) and `util.inspect` /
 * `console.log` (`util.inspect.custom`), so a DSN password or key material it holds never shows.
 * Both are non-enumerable: spreading `target` (`createAgent({ ...memoryStack() })`) or walking
 * its keys does not see them. Returns `target`.
 */
export function withRedactedView<T extends object>(target: T, view: () => unknown): T {
  Object.defineProperty(target, "toJSON", { value: view, enumerable: false, configurable: true, writable: true });
  Object.defineProperty(target, INSPECT_CUSTOM, {
    value: (_depth: number, options: object, inspect: (value: unknown, options: object) => string) => inspect(view(), options),
    enumerable: false,
    configurable: true,
    writable: true,
  });
  return target;
}
