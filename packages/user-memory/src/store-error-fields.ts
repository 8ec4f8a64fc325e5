import { ThreadwiseError } from "@threadwise/core";

/**
 * Fields of an error that name where and why a store call failed without carrying data: the
 * error's class and code, PostgreSQL's (`pg`) identifiers of the failing object (schema, table,
 * column, constraint, routine, severity, SQLSTATE), Node's system-call fields (syscall, errno,
 * address, port), and the same two of its `cause`. Never the error's message or `detail`, which
 * may quote stored values (a user's messages, facts).
 */
const SAFE_FIELDS = [
  "code",
  "severity",
  "routine",
  "schema",
  "table",
  "column",
  "constraint",
  "dataType",
  "syscall",
  "errno",
  "address",
  "port",
] as const;

/** What an operator does about a store error, by its code (SQLSTATE, Node's, threadwise's). */
function hintOf(code: string | undefined, timeoutMs: number | undefined): string | undefined {
  if (code === undefined) return undefined;
  if (code === "THREADWISE_TIMEOUT")
    return `the store answered slower than timeoutMs (${timeoutMs ?? "?"} ms): check its load, or raise timeoutMs`;
  if (code === "THREADWISE_DECRYPTION_FAILED")
    return "a sealed item did not open: the keyring, agentId or principalId differ from those it was sealed with, or it was altered";
  if (code === "42P01" || code === "3F000") return "the store's tables are missing: run `threadwise migrate` on this database and schema";
  if (code === "42501") return "the runtime role lacks rights on the store's tables: `threadwise migrate --grant-to <role>`";
  if (code === "53300" || code === "53400") return "the database refused a connection (too many): lower pool sizes or raise its limit";
  if (code.startsWith("08") || ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "ENOTFOUND", "EHOSTUNREACH", "EPIPE"].includes(code))
    return "the store is unreachable: check its address, network and server";
  if (code === "SQLITE_BUSY" || code === "40P01" || code === "40001")
    return "the store was busy with other writers (lock timeout, deadlock, serialization): the next turn tries again";
  return undefined;
}

function pick(source: Record<string, unknown>, into: Record<string, string | number>, prefix = ""): void {
  for (const field of SAFE_FIELDS) {
    const value = source[field];
    if (typeof value === "string" || typeof value === "number") into[`${prefix}${field}`] = value;
  }
}

/**
 * The fields user memory logs with a failed store call (see {@link SAFE_FIELDS}): `operation`
 * (`read`/`write`), `store` (the store's class), `error` (the error's class), its data-free fields,
 * `cause_error`/`cause_code` when it has a cause, `timeout_ms` for a timeout, and a `hint` saying
 * what to do when the code is a known one (tables missing, rights, unreachable, timeout, a sealed
 * item that does not open).
 */
export function storeErrorFields(
  error: unknown,
  context: { operation: "read" | "write"; store?: object; threadId?: string },
): Record<string, string | number> {
  const fields: Record<string, string | number> = { operation: context.operation };
  if (context.store) fields.store = context.store.constructor?.name ?? "unknown";
  if (context.threadId) fields.thread_id = context.threadId;
  fields.error = error instanceof Error ? error.name : typeof error;
  if (error !== null && typeof error === "object") {
    pick(error as Record<string, unknown>, fields);
    const cause = (error as { cause?: unknown }).cause;
    if (cause !== null && typeof cause === "object") {
      fields.cause_error = cause instanceof Error ? cause.name : typeof cause;
      pick(cause as Record<string, unknown>, fields, "cause_");
    }
  }
  fields.code ??= "unknown";
  const timeoutMs = ThreadwiseError.isInstance(error) ? (error as { timeoutMs?: unknown }).timeoutMs : undefined;
  if (typeof timeoutMs === "number") fields.timeout_ms = timeoutMs;
  const hint =
    hintOf(String(fields.code), typeof timeoutMs === "number" ? timeoutMs : undefined) ??
    (typeof fields.cause_code === "string" ? hintOf(fields.cause_code, undefined) : undefined);
  if (hint) fields.hint = hint;
  return fields;
}
