import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { MemorySaver, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import type pg from "pg";
import type { MemoryConfig } from "./config.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { assertSchemaVersion } from "./pg-migrations.js";
import { createMemoryPool } from "./pg-pool.js";
import { PgThreadRegistry } from "./pg-thread-registry.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

/** Code-only inputs of {@link createCheckpointer}. */
export interface CheckpointerOptions {
  /** Serializer for the saver (e.g. an encrypting one); the saver's default when unset. */
  serde?: SerializerProtocol;
  /** An existing pool for PostgreSQL (not ended by `close()`); one is made from the DSN otherwise. */
  pool?: pg.Pool;
}

/**
 * Builds the checkpointer of a resolved config (spec R20), wrapped in {@link ThreadwiseSaver}:
 * - `off`: `undefined` (no persistence at all; every call is a fresh thread).
 * - `in_memory`: MemorySaver. Lost when the process exits.
 * - `sqlite`: SqliteSaver on `sqlitePath` (directories created), WAL mode.
 * - `postgres`: PostgresSaver on a pool from {@link createMemoryPool}. Never runs DDL: the first
 *   use checks the schema version and refuses with `ThreadwiseSchemaVersionError` (spec R21).
 */
export function createCheckpointer(config: MemoryConfig, options: CheckpointerOptions = {}): ThreadwiseSaver | undefined {
  switch (config.backend) {
    case "off":
      return undefined;
    case "in_memory": {
      const saver = new MemorySaver(options.serde);
      return new ThreadwiseSaver(saver, new MemoryThreadRegistry(saver));
    }
    case "sqlite": {
      const path = config.sqlitePath === ":memory:" ? ":memory:" : resolve(config.sqlitePath as string);
      if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
      const db = new Database(path);
      const registry = new SqliteThreadRegistry(db);
      const saver = new SqliteSaver(db, options.serde);
      return new ThreadwiseSaver(saver, registry, { close: async () => void db.close() });
    }
    case "postgres": {
      const pool =
        options.pool ?? createMemoryPool(config.postgresDsn as string, { mode: config.pgPoolMode, max: config.pgPoolMax });
      const schema = config.postgresSchema;
      const saver = new PostgresSaver(pool, options.serde, { schema });
      return new ThreadwiseSaver(saver, new PgThreadRegistry(pool, schema), {
        ready: () => assertSchemaVersion(pool, schema),
        close: options.pool ? undefined : () => pool.end(),
      });
    }
  }
}
