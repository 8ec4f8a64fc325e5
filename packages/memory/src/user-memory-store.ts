import { type BaseStore, InMemoryStore } from "@langchain/langgraph-checkpoint";
import type { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import { resolveLogger, type ThreadwiseLogger } from "@threadwise/core";
import { STORE_METHODS } from "@threadwise/user-memory";
import type pg from "pg";
import { ThreadwiseClosedError } from "./closed-error.js";
import type { MemoryConfig } from "./config.js";
import { loadPostgresStore } from "./optional-peers.js";
import { createMemoryPool } from "./pg-pool.js";

/**
 * Tables of PostgresStore in `schema` (created by `threadwise migrate` through its `setup()`);
 * `store_vectors` only exists when a vector index was configured.
 */
export function storeTables(schema: string) {
  const q = (table: string) => `"${schema}".${table}`;
  return { store: q("store"), storeMigrations: q("store_migrations"), storeVectors: q("store_vectors") };
}

/**
 * A PostgresStore on `pool` (a pool from `createMemoryPool`, so the store is pooled like the saver:
 * the same connection profile, PgBouncer's transaction mode included), never creating tables
 * (`ensureTables: false`: `threadwise migrate` does, spec R21). PostgresStore 1.0.x builds its own
 * `pg.Pool` from `connectionOptions` and keeps it as `core.pool`; that pool (still unconnected)
 * is ended and replaced with `pool`. If a later release keeps it elsewhere, the store keeps its
 * own pool, built from the same DSN with the same `max`.
 *
 * @throws ThreadwiseMissingPeerError when `@langchain/langgraph-checkpoint-postgres` is not installed.
 */
export function postgresUserStore(pool: pg.Pool, options: { schema: string; dsn: string; max: number }): PostgresStore {
  const PostgresStore = loadPostgresStore();
  const store = new PostgresStore({
    connectionOptions: { connectionString: options.dsn, max: options.max, min: 0, allowExitOnIdle: true, application_name: "threadwise" },
    schema: options.schema,
    ensureTables: false,
  });
  const core = (store as unknown as { core?: { pool?: pg.Pool } }).core;
  if (core?.pool && typeof core.pool.end === "function") {
    void core.pool.end().catch(() => undefined);
    core.pool = pool;
  }
  return store;
}

/**
 * The store of user memory for a resolved config (spec R40): PostgresStore on the memory database
 * for `postgres` (tables from `threadwise migrate`), else an `InMemoryStore` (lost on restart:
 * pass your own `store` for a durable one on other backends).
 */
export function createUserMemoryStore(
  config: MemoryConfig,
  options: { pool?: pg.Pool; logger?: ThreadwiseLogger | false; env?: NodeJS.ProcessEnv } = {},
): BaseStore {
  if (config.backend !== "postgres") return new InMemoryStore();
  const dsn = config.postgresDsn as string;
  const pool =
    options.pool ??
    createMemoryPool(dsn, {
      mode: config.pgPoolMode,
      max: config.pgPoolMax,
      logger: resolveLogger(options.logger, options.env),
    });
  return postgresUserStore(pool, { schema: config.postgresSchema, dsn, max: config.pgPoolMax });
}

/** The calls of a `BaseStore` (and PostgresStore's `start`) refused once {@link ownedUserMemoryStore}'s store is closed. */
const STORE_CALLS = [...STORE_METHODS, "start"] as const;

/**
 * The user-memory store memoryStack makes when none is given ({@link createUserMemoryStore}),
 * with the `close` the stack's checkpointer calls from its own `close()`: it ends the store's pool
 * (PostgresStore, the pool made for it; a `pool` you passed stays open) and from then on every
 * call of the store (`get`, `put`, `search`, `delete`, `listNamespaces`, `batch`, `start`) fails
 * with {@link ThreadwiseClosedError}, `resource` `memory.store (<backend>)`, as the checkpointer's
 * do. The store keeps its class (`InMemoryStore`, `PostgresStore`); its own methods are guarded.
 */
export function ownedUserMemoryStore(
  config: MemoryConfig,
  options: { pool?: pg.Pool; logger?: ThreadwiseLogger | false; env?: NodeJS.ProcessEnv } = {},
): { store: BaseStore; close: () => Promise<void> } {
  const store = createUserMemoryStore(config, options);
  const resource = `memory.store (${config.backend})`;
  let closed = false;
  const methods = store as unknown as Record<string, ((...args: unknown[]) => Promise<unknown>) | undefined>;
  for (const name of STORE_CALLS) {
    const call = methods[name];
    if (typeof call !== "function") continue;
    methods[name] = (...args: unknown[]) => (closed ? Promise.reject(new ThreadwiseClosedError(resource, name)) : call.apply(store, args));
  }
  return {
    store,
    close: async () => {
      if (closed) return;
      closed = true;
      // PostgresStore.stop() ends its pool: only the one made for it, never a pool passed in.
      const stop = (store as { stop?: () => Promise<void> }).stop;
      if (config.backend === "postgres" && !options.pool && typeof stop === "function") await stop.call(store);
    },
  };
}
