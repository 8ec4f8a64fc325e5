import { z } from "zod/v4";

/** Base class of every error threadwise throws. `code` is stable across releases. */
export class ThreadwiseError extends Error {
  readonly code: string;
  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
  /** `true` for any threadwise error, also across duplicate copies of the package. */
  static isInstance(error: unknown): error is ThreadwiseError {
    const code = (error as { code?: unknown } | null)?.code;
    return error instanceof Error && typeof code === "string" && code.startsWith("THREADWISE_");
  }
  /**
   * The error of this class (by its `isInstance`) in `error` or its `cause` chain, else
   * `undefined`. LangChain wraps an error thrown in a middleware's `wrapModelCall` or
   * `wrapToolCall` in a `MiddlewareError` (once per middleware it passes on the way out, whose
   * `name` and `message` are copied from it but not its `code`), so what `agent.invoke` rejects
   * with is not the threadwise error itself (and when parallel tasks of one step fail, LangGraph
   * throws an `AggregateError` of them, searched too): `ThreadwiseTokenBudgetError.find(error)`,
   * `ThreadwiseUserIdError.find(error)`, `ThreadwiseError.find(error)` for any.
   * @example
   * try { await agent.invoke(input, config); }
   * catch (error) { const budget = ThreadwiseTokenBudgetError.find(error); if (!budget) throw error; }
   */
  static find<T>(this: { isInstance(error: unknown): error is T }, error: unknown): T | undefined {
    // Breadth first through `cause` and, for an `AggregateError` (LangGraph's "Multiple errors
    // occurred during superstep", when parallel tasks of one step fail, e.g. each tool call of a
    // refused run), its `errors`.
    const seen = new Set<unknown>();
    const queue: unknown[] = [error];
    for (let next = 0; next < queue.length; next += 1) {
      const current = queue[next];
      if (current === null || current === undefined || seen.has(current)) continue;
      // biome-ignore lint/complexity/noThisInStatic: on purpose: `this` is the subclass `find` is called on, whose isInstance applies.
      if (this.isInstance(current)) return current;
      seen.add(current);
      queue.push((current as { cause?: unknown }).cause);
      if (current instanceof AggregateError) queue.push(...current.errors);
    }
    return undefined;
  }
}

/**
 * An option or environment variable has a value threadwise cannot use. `option` names it
 * (`windowTrim.maxMessages`, `MEMORY_WINDOW_SIZE`); the message says what is accepted.
 */
export class ThreadwiseConfigError extends ThreadwiseError {
  readonly option: string;
  constructor(option: string, message: string, options?: { cause?: unknown }) {
    super("THREADWISE_INVALID_OPTION", `${option}: ${message}`, options);
    this.option = option;
  }
  static override isInstance(error: unknown): error is ThreadwiseConfigError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_INVALID_OPTION";
  }
}

/**
 * An options object holds a key the factory does not know (a misspelling such as `maxMessage`).
 * `option` is the key's full name (`windowTrim.maxMessage`), `key` the key alone, `suggestion`
 * the closest accepted key when one is close (`maxMessages`), and `accepted` every accepted key.
 * Its `code` is `THREADWISE_INVALID_OPTION`, like every {@link ThreadwiseConfigError}.
 */
export class ThreadwiseUnknownOptionError extends ThreadwiseConfigError {
  readonly key: string;
  readonly suggestion: string | undefined;
  readonly accepted: readonly string[];
  constructor(option: string, key: string, accepted: readonly string[], options?: { cause?: unknown }) {
    const suggestion = closestKey(key, accepted);
    const hint = suggestion ? `did you mean "${suggestion}"? ` : "";
    super(option, `unknown option "${key}"; ${hint}accepted: ${accepted.join(", ") || "none"}`, options);
    this.key = key;
    this.suggestion = suggestion;
    this.accepted = accepted;
  }
  static override isInstance(error: unknown): error is ThreadwiseUnknownOptionError {
    return ThreadwiseConfigError.isInstance(error) && typeof (error as { key?: unknown }).key === "string";
  }
}

/** Levenshtein distance, bounded: options are short words, so a plain two-row table is enough. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min((previous[j] as number) + 1, (current[j - 1] as number) + 1, (previous[j - 1] as number) + cost);
    }
    previous = current;
  }
  return previous[b.length] as number;
}

/**
 * The accepted key closest to `key`: same letters ignoring case, `_` and `-`, or within an edit
 * distance of a third of its length (at least 2). `undefined` when none is that close.
 */
export function closestKey(key: string, accepted: readonly string[]): string | undefined {
  const fold = (text: string) => text.toLowerCase().replace(/[-_]/g, "");
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of accepted) {
    const distance = fold(candidate) === fold(key) ? 0 : editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(key.length / 3)) ? best : undefined;
}

interface ZodDefLike {
  type?: string;
  shape?: Record<string, unknown>;
  innerType?: unknown;
  in?: unknown;
  options?: unknown[];
}

/** The object keys a schema accepts at `path` (through optional, default, pipe and union wrappers). */
function acceptedKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  let current: unknown = schema;
  for (let depth = 0; depth <= path.length; depth += 1) {
    // Unwrap to the object schema.
    for (let guard = 0; guard < 16; guard += 1) {
      const def = (current as { _zod?: { def?: ZodDefLike } } | undefined)?._zod?.def;
      if (!def) return [];
      if (def.type === "object") break;
      if (def.type === "union" && Array.isArray(def.options)) {
        current = def.options.find((option) => (option as { _zod?: { def?: ZodDefLike } })._zod?.def?.type === "object");
      } else current = def.innerType ?? def.in;
    }
    const shape = (current as { _zod?: { def?: ZodDefLike } } | undefined)?._zod?.def?.shape;
    if (!shape) return [];
    if (depth === path.length) return Object.keys(shape);
    current = shape[String(path[depth])];
  }
  return [];
}

/**
 * The options a factory was given, as an object: `undefined` means no options (`{}`, every
 * option at its documented default).
 *
 * @throws ThreadwiseConfigError naming `scope` when `value` is not a plain object: `null` (a
 *   config lookup that found nothing is not "no options": `windowTrim(null)` used to build a
 *   window of 20 messages silently), a string, a number, a boolean, an array or a function
 *   (`memoryStack("sqlite")` names `memory`).
 */
export function optionsObject<T extends object = Record<string, unknown>>(scope: string, value: unknown): T {
  if (value === undefined) return {} as T;
  if (value === null || typeof value !== "object" || Array.isArray(value))
    throw new ThreadwiseConfigError(
      scope,
      `expected an options object or undefined, received ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`,
    );
  return value as T;
}

/**
 * Parses options with a zod schema and throws {@link ThreadwiseConfigError} naming the first bad
 * field as `<scope>.<field>`. Returns the parsed value with defaults applied. With a strict
 * object schema (`z.strictObject`, as every threadwise factory uses), a key the schema does not
 * know throws {@link ThreadwiseUnknownOptionError} naming the key and the closest accepted key.
 *
 * @throws ThreadwiseUnknownOptionError for an unknown key (checked first: a misspelt key usually
 *   also leaves a required field missing, and the misspelling is the real cause).
 * @param fromEnv the top-level fields whose value was read from an env twin, by the variable's
 *   name (`{ maxTokens: "MEMORY_RECALL_MAX_TOKENS" }`): a value the schema refuses there names the
 *   variable the user set, not an option they never gave.
 * @throws ThreadwiseConfigError when a value does not match the schema.
 */
export function parseOptions<S extends z.ZodType>(
  scope: string,
  schema: S,
  value: unknown,
  fromEnv: Readonly<Record<string, string>> = {},
): z.output<S> {
  const result = schema.safeParse(optionsObject(scope, value));
  if (result.success) return result.data;
  const issues = result.error.issues;
  const unknown = issues.find((issue) => issue.code === "unrecognized_keys");
  if (unknown && unknown.code === "unrecognized_keys") {
    const key = unknown.keys[0] as string;
    const option = [scope, ...unknown.path.map(String), key].join(".");
    throw new ThreadwiseUnknownOptionError(option, key, acceptedKeysAt(schema, unknown.path), { cause: result.error });
  }
  const issue = issues[0];
  const top = issue?.path.length ? String(issue.path[0]) : undefined;
  const variable = top !== undefined && Object.hasOwn(fromEnv, top) ? fromEnv[top] : undefined;
  const field = variable ?? (issue && issue.path.length > 0 ? `${scope}.${issue.path.join(".")}` : scope);
  throw new ThreadwiseConfigError(field, issue?.message ?? "invalid value", { cause: result.error });
}

/**
 * A strict schema of these option names that leaves their values to the code that reads them,
 * for {@link parseOptions} at the top of a function whose options are not data (a store, a pool,
 * a clock, a registry): a misspelt key (`aply`, `tenantID`, `threadID`, `stric`) throws
 * `ThreadwiseUnknownOptionError` naming it and the closest name, before anything is opened.
 * Ignored, `aply` made an erase a dry run, `threadID` made `prune` delete every idle thread,
 * `dryRun` made `retention` delete, and `stric` left strict mode off.
 * @example
 * parseOptions("prune", optionNames(["dsn", "threadId", "apply"]), options);
 */
export const optionNames = (names: readonly string[]) =>
  z.strictObject(Object.fromEntries(names.map((name) => [name, z.unknown().optional()])));
