import {
  loggerOptionSchema,
  parseOptions,
  resolveLogger,
  ThreadwiseConfigError,
  type ThreadwiseLogger,
  timerMsSchema,
} from "@threadwise/core";
import type pg from "pg";
import { z } from "zod/v4";
import { DEFAULT_PG_POOL_MAX, PG_POOL_MODES, type PgPoolMode } from "./config.js";
import { loadPg } from "./optional-peers.js";
import { memoryPoolTypes } from "./pg-bytea-array.js";

/** Options of {@link createMemoryPool}. */
export interface MemoryPoolOptions {
  /** Connection profile (spec R22). @default "direct" */
  mode?: PgPoolMode;
  /** Connections per process, at most. @default 5 */
  max?: number;
  /** Milliseconds an idle connection is kept before it is closed. @default 10000 (direct), 5000 (session), 10000 (transaction) */
  idleTimeoutMillis?: number;
  /**
   * Milliseconds an operation waits for a connection (a free one of the pool's `max`, or a new one
   * opened), after which it fails with `ThreadwiseConnectionLostError` (`reason`
   * `connect-timeout`, `retryable`). 30 s as HikariCP's and SQLAlchemy's pools: a burst of turns
   * waits its turn for the pool's few connections rather than failing mid-turn (10 s did under
   * load), and a server that does not answer is still reported.
   * @default 30000
   */
  connectionTimeoutMillis?: number;
  /** Where a dropped idle connection is reported (a warning without DSN). @default the threadwise default logger */
  logger?: ThreadwiseLogger | false;
}

/** {@link MemoryPoolOptions} as a strict schema; the timers are limited to Node's range (1..2147483647 ms). */
export const memoryPoolOptionsSchema = z.strictObject({
  mode: z.enum(PG_POOL_MODES).optional(),
  max: z.number().int().positive().optional(),
  idleTimeoutMillis: timerMsSchema.optional(),
  connectionTimeoutMillis: timerMsSchema.optional(),
  logger: loggerOptionSchema,
});

const IDLE_MS: Record<PgPoolMode, number> = { direct: 10_000, session: 5_000, transaction: 10_000 };

/** {@link MemoryPoolOptions.connectionTimeoutMillis}'s default: 30 s. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 30_000;

/**
 * Builds the `pg.Pool` the memory backend uses (spec R22): at most `max` connections (5), minimum
 * 0 (idle connections close after `idleTimeoutMillis`, so an idle agent holds none), and the
 * process may exit while connections are idle. Text `bytea[]` values (PostgresSaver reads every
 * checkpoint's blobs and pending writes as one) are parsed by `memoryPoolTypes`'s one-pass parser
 * instead of pg-types' per-character one; the values are the same, other types use pg's parsers.
 *
 * Profiles:
 * - `direct`: straight to PostgreSQL.
 * - `session`: through PgBouncer in session mode; idle connections are given back sooner because
 *   each one pins a server connection.
 * - `transaction`: through PgBouncer in transaction mode. Server connections change between
 *   transactions, so only unnamed statements are allowed (pg's default for parameterized
 *   queries); a query carrying a `name` (a named prepared statement, reused across
 *   transactions) is refused with a {@link ThreadwiseConfigError} before it is sent. threadwise
 *   itself uses no session state (no `SET`, no session advisory locks).
 *
 * An idle connection closed by the server (restart, PgBouncer, network) is dropped with a warning
 * instead of crashing the process; a connection reset while a query runs fails that query
 * ({@link keepClientErrors}), never the process. The DSN is never logged; pg's errors do not include it.
 *
 * @example
 * const pool = createMemoryPool(process.env.POSTGRES_MEMORY_DSN!, { mode: "transaction" });
 * @throws ThreadwiseConfigError naming the option (`createMemoryPool.idleTimeoutMillis`) when an
 *   option is unknown or out of range.
 * @throws ThreadwiseMissingPeerError when `pg` is not installed.
 */
export function createMemoryPool(dsn: string, given: MemoryPoolOptions = {}): pg.Pool {
  const options = parseOptions("createMemoryPool", memoryPoolOptionsSchema, given);
  const mode = options.mode ?? "direct";
  const pgModule = loadPg();
  const pool = new pgModule.Pool({
    connectionString: dsn,
    max: options.max ?? DEFAULT_PG_POOL_MAX,
    min: 0,
    idleTimeoutMillis: options.idleTimeoutMillis ?? IDLE_MS[mode],
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    allowExitOnIdle: true,
    application_name: "threadwise",
    // PostgresSaver reads every checkpoint's blobs as bytea[]: parsed in one pass (same values).
    types: memoryPoolTypes(pgModule.types),
  });
  // An idle connection closed by the server, PgBouncer or the network emits `error` on the pool;
  // unhandled, that would crash the process. The pool drops the client and opens a new one later.
  const logger = resolveLogger(options.logger);
  pool.on("error", (error: Error & { code?: string }) => {
    logger.warn("threadwise memory: an idle PostgreSQL connection was closed; it will be replaced", { code: error.code ?? "unknown" });
  });
  keepClientErrors(pool);
  if (mode === "transaction") guardUnnamedOnly(pool);
  return pool;
}

/**
 * Gives every client of `pool` an `error` listener, and returns `pool`. pg-pool removes its own
 * while a client is lent (`pool.connect()`, as PostgresSaver, PostgresStore and the registries
 * do), and pg emits `error` on a client whose connection is reset (`ECONNRESET`) even while a
 * query runs: unhandled, that event ends the process. The query in progress rejects with the same
 * error, which is what the caller sees, so the listener adds nothing else.
 */
export function keepClientErrors(pool: pg.Pool): pg.Pool {
  pool.on("connect", (client) => {
    client.on("error", () => undefined);
  });
  return pool;
}

function hasName(config: unknown): boolean {
  return typeof config === "object" && config !== null && typeof (config as { name?: unknown }).name === "string";
}

function refuse(): never {
  throw new ThreadwiseConfigError(
    "MEMORY_PG_POOL_MODE",
    "transaction mode (PgBouncer) does not allow named prepared statements; drop the query's `name`",
  );
}

/** Makes every query of the pool and of its clients refuse a `name` (named prepared statement). */
function guardUnnamedOnly(pool: pg.Pool): void {
  const poolQuery = pool.query.bind(pool) as (...args: unknown[]) => unknown;
  (pool as unknown as { query: unknown }).query = (...args: unknown[]) => {
    if (hasName(args[0])) refuse();
    return poolQuery(...args);
  };
  pool.on("connect", (client) => {
    const clientQuery = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
      if (hasName(args[0])) refuse();
      return clientQuery(...args);
    };
  });
}
