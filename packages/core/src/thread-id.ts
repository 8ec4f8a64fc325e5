import { setBounded } from "./bounded-map.js";
import { ThreadwiseError } from "./errors.js";
import { loneSurrogateAt } from "./unicode.js";

/**
 * Longest thread id (and user id) threadwise stores, in UTF-8 bytes. Thread ids are primary-key
 * columns on PostgreSQL and SQLite (a btree entry must stay far below PostgreSQL's ~2,700-byte
 * limit) and appear in every checkpoint, blob and write row; user ids are part of every store
 * namespace of user memory. Both are kept short.
 */
export const MAX_THREAD_ID_BYTES = 256;

/** What is wrong with an id: its `limit` names the rule (see {@link normalizeThreadId}). */
export type ThreadIdLimit = "type" | "empty" | "nul" | "utf16" | "length";

/**
 * A `thread_id` threadwise cannot store. `limit` names the rule it breaks; the message says how
 * (type found, byte length against {@link MAX_THREAD_ID_BYTES}, position of a lone surrogate or NUL).
 * `field` names where the id came from: `thread_id` (a run's config, a saver call), or an
 * operation's option (`prune.threadId`, `eraseTenant.threadIds[2]`); the message starts with it.
 */
export class ThreadwiseThreadIdError extends ThreadwiseError {
  readonly limit: ThreadIdLimit;
  readonly field: string;
  constructor(limit: ThreadIdLimit, message: string, field = "thread_id") {
    super("THREADWISE_INVALID_THREAD_ID", `${field}: ${message}`);
    this.limit = limit;
    this.field = field;
  }
  static override isInstance(error: unknown): error is ThreadwiseThreadIdError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_INVALID_THREAD_ID";
  }
}

/**
 * A user id (user memory's `user_id`) threadwise cannot store: the same rules as a thread id
 * ({@link normalizeThreadId}). `field` names where it came from (`context.user_id`).
 */
export class ThreadwiseUserIdError extends ThreadwiseError {
  readonly limit: ThreadIdLimit;
  readonly field: string;
  constructor(limit: ThreadIdLimit, field: string, message: string) {
    super("THREADWISE_INVALID_USER_ID", `${field}: ${message}`);
    this.limit = limit;
    this.field = field;
  }
  static override isInstance(error: unknown): error is ThreadwiseUserIdError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_INVALID_USER_ID";
  }
}

/** The broken rule and its message, or `undefined` when `value` is a storable id. */
function idProblem(value: unknown): { limit: ThreadIdLimit; message: string } | undefined {
  if (typeof value !== "string")
    return {
      limit: "type",
      message: `expected a string, got ${value === null ? "null" : typeof value}${typeof value === "number" ? ` (${value}); pass String(id)` : ""}`,
    };
  if (value === "") return { limit: "empty", message: "expected a non-empty string" };
  const nul = value.indexOf("\u0000");
  if (nul >= 0) return { limit: "nul", message: `holds a NUL character at index ${nul}` };
  const lone = loneSurrogateAt(value);
  if (lone >= 0) return { limit: "utf16", message: `holds a lone UTF-16 surrogate at index ${lone} (not well-formed Unicode)` };
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > MAX_THREAD_ID_BYTES)
    return { limit: "length", message: `is ${bytes} bytes of UTF-8; the limit is ${MAX_THREAD_ID_BYTES} bytes` };
  return undefined;
}

/**
 * The one check every backend, `ThreadwiseSaver` method and CLI command runs on a thread id
 * before it reaches a store (spec R24), so that one thread has exactly one stored form:
 *
 * - **type**: a string. Numbers are refused, not converted: SQLite binds a JS number as REAL
 *   (`4242` became `"4242.0"`), PostgreSQL as text (`"4242"`), and a registry keyed by strings
 *   would miss both. Pass `String(id)` yourself if your ids are numeric.
 * - **empty**: at least one character.
 * - **nul**: no U+0000 (PostgreSQL `text` cannot hold it; drivers fail with a raw error).
 * - **utf16**: well-formed UTF-16 (no lone surrogate): PostgreSQL stores UTF-8, where every lone
 *   surrogate becomes U+FFFD, so two ids differing only in one would share rows.
 * - **length**: at most {@link MAX_THREAD_ID_BYTES} bytes of UTF-8.
 *
 * The id is returned unchanged (no trimming or Unicode normalization: `"a"` and `"a "` are two threads).
 *
 * @param field Where the id came from, named in the error (`prune.threadId`). @default "thread_id"
 * @throws ThreadwiseThreadIdError naming the broken rule in `limit` and `field`.
 * @example
 * normalizeThreadId("user-42");   // "user-42"
 * normalizeThreadId(42);          // throws, limit "type"
 */
export function normalizeThreadId(value: unknown, field = "thread_id"): string {
  // Every put, write and read of a thread checks its id, several times per agent step: an id that
  // passed once passes again (the rules read the string only).
  if (typeof value === "string" && checkedIds.has(value)) return value;
  const problem = idProblem(value);
  // A run without a thread id is the usual first mistake: say where the id goes.
  if (problem && value === undefined && field === "thread_id")
    throw new ThreadwiseThreadIdError(problem.limit, `${problem.message}; ${MISSING_THREAD_ID_HINT}`);
  if (problem) throw new ThreadwiseThreadIdError(problem.limit, problem.message, field);
  setBounded(checkedIds, value as string, true, CHECKED_ID_ENTRIES);
  return value as string;
}

/** What the error for a missing thread id tells the caller to do. */
const MISSING_THREAD_ID_HINT =
  'a checkpointer keeps a thread per thread_id: pass one in each run\'s config, agent.invoke(input, { configurable: { thread_id: "..." } }) (the same for stream, getState and getStateHistory)';

/** Thread ids that passed {@link normalizeThreadId} recently (a bounded memo; the rules are pure). */
const checkedIds = new Map<string, true>();
/** Most ids {@link checkedIds} remembers; the oldest go first. */
const CHECKED_ID_ENTRIES = 1024;

/**
 * The same rules as {@link normalizeThreadId}, for a user (resource) id of user memory (spec
 * R40): one user has exactly one stored form, and `42` and `"42"` are never two users.
 *
 * @param field Where the id came from, named in the error (`context.user_id`). @default "user_id"
 * @throws ThreadwiseUserIdError naming the field and the broken rule in `limit`.
 */
export function normalizeUserId(value: unknown, field = "user_id"): string {
  const problem = idProblem(value);
  if (problem) throw new ThreadwiseUserIdError(problem.limit, field, problem.message);
  return value as string;
}
