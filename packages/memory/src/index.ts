export { buildMemoryStack, type MemoryStack, type MemoryStackOptions, memoryStack } from "./memory-stack.js";
export { type MemoryMiddlewareOptions, memoryMiddleware, placementMode } from "./middleware-stack.js";
export {
  assertStrictMode,
  DEFAULT_PG_POOL_MAX,
  defaultProjectName,
  FACTS_MODES,
  MEMORY_BACKENDS,
  MEMORY_ENV,
  type MemoryBackend,
  type MemoryConfig,
  type MemoryConfigInput,
  memoryConfigFromEnv,
  memoryConfigSchema,
  MIGRATION_DSN_ENV,
  PG_POOL_MODES,
  type PgPoolMode,
  resolveMemoryConfig,
  withDefaultDatabase,
} from "./config.js";
export { type CheckpointerOptions, createCheckpointer } from "./backends.js";
export { ThreadwiseSaver, type ThreadwiseSaverOptions } from "./threadwise-saver.js";
export {
  NO_ROWS,
  type ThreadDeleteOptions,
  type ThreadDeleteOutcome,
  type ThreadInfo,
  type ThreadRegistry,
  type ThreadRowCounts,
} from "./thread-registry.js";
export { PgThreadRegistry, pgTables } from "./pg-thread-registry.js";
export { SQLITE_SCHEMA_VERSION, SqliteThreadRegistry } from "./sqlite-thread-registry.js";
export { MemoryThreadRegistry } from "./memory-thread-registry.js";
export { assertSchemaVersion, EXPECTED_SCHEMA, type MigrateOptions, type MigrateResult, migrate, readVersions } from "./pg-migrations.js";
export { createMemoryPool, type MemoryPoolOptions } from "./pg-pool.js";
export { type OpsTarget, openRegistry, type PruneOptions, type PruneReport, prune, type RetentionOptions, retention } from "./prune.js";
export { dsnSecrets, REDACTED, redactConfig, redactDsn, redactSecrets } from "./redact.js";
export { ThreadwiseSchemaVersionError } from "./schema-version-error.js";
export { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
export { type CliIo, createCli, runCli } from "./cli.js";
