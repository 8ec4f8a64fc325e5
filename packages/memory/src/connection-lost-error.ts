import { ThreadwiseError } from "@threadwise/core";

/** Node socket codes and SQLSTATEs (class 08, 57P01-57P03) of a connection that went away. */
const LOST_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNREFUSED", "ETIMEDOUT", "57P01", "57P02", "57P03"]);
/** pg's messages for a socket that closed without a code. */
const LOST_MESSAGE = /Connection terminated|Client has encountered a connection error|Client was closed and is not queryable/i;
/** pg-pool's message when no connection was free or could be opened within `connectionTimeoutMillis` (it has no code). */
const POOL_TIMEOUT_MESSAGE = /^timeout exceeded when trying to connect$/i;

/**
 * Why `error` is a lost connection to PostgreSQL (its code: `ECONNRESET`, `57P01`, ...;
 * `connection-terminated` when pg gives none; `connect-timeout` when the pool had no connection
 * for it within `connectionTimeoutMillis`), or `undefined` when it is anything else (a SQL error,
 * missing rights, a bad DSN).
 */
export function connectionLostReason(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (LOST_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return code;
  if (typeof message === "string" && LOST_MESSAGE.test(message)) return "connection-terminated";
  if (typeof message === "string" && POOL_TIMEOUT_MESSAGE.test(message.trim())) return "connect-timeout";
  return undefined;
}

/**
 * The connection to PostgreSQL was lost (reset, server restart, PgBouncer closing it), or the pool
 * had none for the operation within `connectionTimeoutMillis` (`reason` `connect-timeout`: every
 * connection busy, or the server not answering). `operation` names what failed (`migrate`, or a
 * checkpointer's `put`, `putWrites`, `getTuple`, `list`, `turnCall`, `archiveMessages`, ... during
 * a run), `attempts` how many were made, `reason` the last loss (`ECONNRESET`, `57P01`,
 * `connection-terminated`, `connect-timeout`); the message says what to do. `retryable`: doing
 * what it says once PostgreSQL answers is safe. For a run, what the thread stored before the
 * failure is kept (each write is one transaction): when `getState` shows the turn's user message,
 * resume with `invoke(null, config)` (sending it again would store it twice), else send the turn
 * again. The last error is the `cause`.
 */
export class ThreadwiseConnectionLostError extends ThreadwiseError {
  readonly operation: string;
  readonly attempts: number;
  readonly reason: string;
  readonly retryable = true;
  constructor(operation: string, attempts: number, reason: string, rerun: string, options?: { cause?: unknown }) {
    const what =
      reason === "connect-timeout"
        ? "no connection to PostgreSQL was free or could be opened within the pool's connectionTimeoutMillis"
        : `the connection to PostgreSQL was lost (${reason})`;
    super(
      "THREADWISE_CONNECTION_LOST",
      `${operation}: ${what}${attempts > 1 ? ` on each of ${attempts} attempts` : ""}; ${rerun}`,
      options,
    );
    this.operation = operation;
    this.attempts = attempts;
    this.reason = reason;
  }
  static override isInstance(error: unknown): error is ThreadwiseConnectionLostError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_CONNECTION_LOST";
  }
}

/** What to do after a checkpointer operation of a run lost its connection. */
const RUN_RERUN =
  "what the thread stored is kept: once PostgreSQL answers, read the thread (getState); when it holds the turn's user message, resume the run with invoke(null, config), else send the turn again";

/**
 * `error` as a {@link ThreadwiseConnectionLostError} of `operation` (one attempt, `error` its
 * cause) when it is a lost connection ({@link connectionLostReason}) and not already a threadwise
 * error; else `error` itself. For a checkpointer's operations during a run, whose callers
 * (LangGraph, a middleware) pass the error on as it is.
 */
export function connectionLostDuring(operation: string, error: unknown): unknown {
  if (ThreadwiseError.isInstance(error)) return error;
  const reason = connectionLostReason(error);
  return reason === undefined ? error : new ThreadwiseConnectionLostError(operation, 1, reason, RUN_RERUN, { cause: error });
}
