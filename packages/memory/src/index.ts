// What an app on @threadwise/memory alone needs beside the stack: hideMemoryState and the errors
// memoryStack throws at construction (bad or misspelt options, strict mode, a keyring it cannot use)
// or from a turn (outside history its historySeed rejects, records of another keyring or agent id,
// a user_id user memory refuses), with ThreadwiseError.find.
export {
  hideMemoryState,
  ThreadwiseConfigError,
  ThreadwiseError,
  ThreadwiseUnknownOptionError,
  ThreadwiseUserIdError,
} from "@threadwise/core";
export {
  ThreadwiseAgentMismatchError,
  ThreadwiseDecryptionError,
  ThreadwiseKeyringError,
  ThreadwiseStrictModeError,
} from "@threadwise/encryption";
export { HistorySeedError, type HistorySeedErrorReason } from "@threadwise/history-seed";
export { archiveCheckpointerCheck, archiveSplitReason, threadwiseSaverOf } from "./archive-checkpointer-check.js";
export { ARCHIVE_CACHE_THREADS, archivedMessageRecordId, clearedMarkerRecord } from "./archive-records.js";
export { type ArchivedMessageReason, ThreadwiseArchivedMessageError } from "./archived-message-error.js";
export { type CheckpointerOptions, createCheckpointer } from "./backends.js";
export { CLI_USAGE_EXIT_CODE, type CliIo, createCli, runCli } from "./cli.js";
export { ThreadwiseClosedError } from "./closed-error.js";
export { type ConcurrentTurnDetails, type ConcurrentTurnReason, ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";
export {
  assertStrictMode,
  DEFAULT_PG_POOL_MAX,
  DEFAULT_RECALL_MAX_TOKENS,
  defaultProjectName,
  dsnNamesDatabase,
  FACTS_MODES,
  MEMORY_BACKENDS,
  MEMORY_ENV,
  type MemoryBackend,
  type MemoryConfig,
  type MemoryConfigInput,
  MIGRATION_DSN_ENV,
  memoryConfigFromEnv,
  memoryConfigSchema,
  PG_POOL_MODES,
  type PgPoolMode,
  resolveMemoryConfig,
  withDefaultDatabase,
} from "./config.js";
export { connectionLostReason, ThreadwiseConnectionLostError } from "./connection-lost-error.js";
export { DEFAULT_ERASE_BATCH_SIZE, type EraseTenantOptions, type EraseTenantReport, eraseTenant } from "./erase-tenant.js";
export {
  type EraseUserOptions,
  type EraseUserReport,
  eraseUser,
  type UserMemoryRetentionOptions,
  userMemoryRetention,
} from "./erase-user.js";
export { type ExportThreadOptions, exportThread, type ThreadExport } from "./export-thread.js";
export { buildMemoryStack, type MemoryStack, type MemoryStackOptions, memoryStack } from "./memory-stack.js";
export { MemoryThreadRegistry } from "./memory-thread-registry.js";
export {
  alignedBatch,
  DEFAULT_ARCHIVE_BATCH_MESSAGES,
  DEFAULT_ARCHIVE_KEEP_GROUPS,
  MESSAGE_ARCHIVE_MIDDLEWARE_NAME,
  type MessageArchiveOptions,
  messageArchive,
  messageArchiveOptionsSchema,
  messagesToArchive,
  nextArchivedWindow,
} from "./message-archive.js";
export {
  ARCHIVE_MARGIN_GROUPS,
  type CacheBreakpointsOptions,
  cacheBreakpoints,
  cacheBreakpointsOptionsSchema,
  type MemoryMiddlewareOptions,
  memoryMiddleware,
  placementMode,
} from "./middleware-stack.js";
export { BACKEND_PEERS, type PeerBackend, ThreadwiseMissingPeerError } from "./optional-peers.js";
export {
  assertSchemaVersion,
  EXPECTED_SCHEMA,
  MIGRATE_RETRY_DELAYS_MS,
  type MigrateOptions,
  type MigrateResult,
  migrate,
  migrateOptionsSchema,
  readVersions,
} from "./pg-migrations.js";
export { createMemoryPool, keepClientErrors, type MemoryPoolOptions, memoryPoolOptionsSchema } from "./pg-pool.js";
export { assertSchemaName, PgThreadRegistry, pgTables } from "./pg-thread-registry.js";
export { PgTransactionScope } from "./pg-transaction-scope.js";
export { type OpsTarget, openRegistry, type PruneOptions, type PruneReport, prune, type RetentionOptions, retention } from "./prune.js";
export { dsnSecrets, REDACTED, redactConfig, redactDsn, redactSecrets } from "./redact.js";
export {
  type ArchiveReencryptResult,
  type ReencryptArchiveOptions,
  reencryptArchive,
} from "./reencrypt-archive.js";
export { ThreadwiseSchemaVersionError } from "./schema-version-error.js";
export { ThreadwiseSealedStoreError } from "./sealed-store-error.js";
export { SQLITE_SCHEMA_VERSION, SqliteThreadRegistry } from "./sqlite-thread-registry.js";
export { ThreadwiseTenantMismatchError } from "./tenant-mismatch-error.js";
export { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
export { MAX_THREAD_ID_BYTES, normalizeThreadId, type ThreadIdLimit, ThreadwiseThreadIdError } from "./thread-id.js";
export {
  type ArchiveMark,
  type ArchiveRow,
  assertCommit,
  type CheckpointCommit,
  type CommitState,
  NO_ROWS,
  type ThreadDeleteOptions,
  type ThreadDeleteOutcome,
  type ThreadHead,
  type ThreadInfo,
  type ThreadRegistry,
  type ThreadRowCounts,
} from "./thread-registry.js";
export {
  ARCHIVE_MARK_METADATA_KEY,
  DEFAULT_TURN_LEASE_MS,
  OPERATION_ID_KEY,
  ThreadwiseSaver,
  type ThreadwiseSaverOptions,
} from "./threadwise-saver.js";
export { turnAdmission } from "./turn-admission.js";
export { ThreadwiseTurnEndHandler, type TurnEndInterruptEvent, turnEndCallbacks } from "./turn-end-handler.js";
export { concurrentTurnErrorOf, type TurnRetryOptions, withTurnRetry } from "./turn-retry.js";
export { createUserMemoryStore, postgresUserStore, storeTables } from "./user-memory-store.js";
