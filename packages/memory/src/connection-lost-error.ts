import { ThreadwiseError } from "@threadwise/core";

/** Node socket codes and SQLSTATEs (class 08, 57P01-57P03) of a connection that went away. */
const LOST_CODES = new Set(["ECONNRESET", "EPIPE", "ECONNREFUSED", "ETIMEDOUT", "57P01", "57P02", "57P03"]);
/** pg's messages for a socket that closed without a code. */
const LOST_MESSAGE = /Connection terminated|Client has encountered a connection error|Client was closed and is not queryable/i;

/**
 * Why `error` is a lost connection to PostgreSQL (its code: `ECONNRESET`, `57P01`, ...;
 * `connection-terminated` when pg gives none), or `undefined` when it is anything else (a SQL
 * error, missing rights, a bad DSN).
 */
export function connectionLostReason(error: unknown): string | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === "string" && (LOST_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return code;
  if (typeof message === "string" && LOST_MESSAGE.test(message)) return "connection-terminated";
  return undefined;
}

/**
 * The connection to PostgreSQL was lost (reset, server restart, PgBouncer closing it) on every
 * attempt of an operation that is safe to run again (`migrate`). `operation` names it,
 * `attempts` how many were made, `reason` the last loss (`ECONNRESET`, `57P01`,
 * `connection-terminated`); the message says what to re-run. The last error is the `cause`.
 */
export class ThreadwiseConnectionLostError extends ThreadwiseError {
  readonly operation: string;
  readonly attempts: number;
  readonly reason: string;
  constructor(operation: string, attempts: number, reason: string, rerun: string, options?: { cause?: unknown }) {
    super(
      "THREADWISE_CONNECTION_LOST",
      `${operation}: the connection to PostgreSQL was lost (${reason}) on each of ${attempts} attempt(s); ${rerun}`,
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
