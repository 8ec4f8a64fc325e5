/**
 * Every environment variable threadwise's packages read, by the option it stands for (one copy:
 * each package's `*_ENV` constant is one of these). The root README's env table and the packages'
 * READMEs document each one; `checkEnvNames` (env.ts) refuses any other `THREADWISE_*` name and
 * warns about near misses of these.
 */
export const THREADWISE_ENV = {
  /** core: the default logger's level (`silent`, `off`, `warn`, `info`, `debug`). */
  log: "THREADWISE_LOG",
  /** core: placement of memory in the prompt. */
  promptContextMode: "THREADWISE_PROMPT_CONTEXT_MODE",
  /** core: language of the labels and notes the middlewares add to a prompt (`auto`, `en`, `ko`). */
  promptLanguage: "THREADWISE_PROMPT_LANGUAGE",
  /** memory: project name (default database and SQLite file). */
  project: "THREADWISE_PROJECT",
  /** encryption: keyring file path. */
  keyring: "THREADWISE_MEMORY_KEYRING",
  /** encryption: tenant the data keys are derived for. */
  tenantId: "THREADWISE_MEMORY_TENANT_ID",
  /** encryption: principal bound into every record. */
  principalId: "THREADWISE_MEMORY_PRINCIPAL_ID",
  backend: "MEMORY_BACKEND",
  windowSize: "MEMORY_WINDOW_SIZE",
  startOn: "MEMORY_START_ON",
  maxHistoryTokens: "MAX_HISTORY_TOKENS",
  maxHistoryTokensOverflow: "MAX_HISTORY_TOKENS_OVERFLOW",
  summarize: "MEMORY_SUMMARIZE",
  summarizeThreshold: "MEMORY_SUMMARIZE_THRESHOLD",
  summarizeMaxInputTokens: "MEMORY_SUMMARIZE_MAX_INPUT_TOKENS",
  summarizeMaxPasses: "MEMORY_SUMMARIZE_MAX_PASSES",
  summarizeTimeoutMs: "MEMORY_SUMMARIZE_TIMEOUT_MS",
  summarizeTriggerTokens: "MEMORY_SUMMARIZE_TRIGGER_TOKENS",
  summarizeTriggerMessages: "MEMORY_SUMMARIZE_TRIGGER_MESSAGES",
  summarizeTriggerFraction: "MEMORY_SUMMARIZE_TRIGGER_FRACTION",
  summarizeKeepTokens: "MEMORY_SUMMARIZE_KEEP_TOKENS",
  summarizeKeepMessages: "MEMORY_SUMMARIZE_KEEP_MESSAGES",
  summarizeKeepFraction: "MEMORY_SUMMARIZE_KEEP_FRACTION",
  summarizeModelMaxInputTokens: "MEMORY_SUMMARIZE_MODEL_MAX_INPUT_TOKENS",
  factsMode: "MEMORY_FACTS_MODE",
  factRecallMaxItems: "MEMORY_FACT_RECALL_MAX_ITEMS",
  recallMaxTokens: "MEMORY_RECALL_MAX_TOKENS",
  historyAware: "MEMORY_HISTORY_AWARE",
  persistTrimKeepGroups: "MEMORY_PERSIST_TRIM_KEEP_GROUPS",
  archive: "MEMORY_ARCHIVE",
  workMemory: "MEMORY_WORK_MEMORY",
  userMemory: "MEMORY_USER_MEMORY",
  userMemoryMaxTokens: "MEMORY_USER_MEMORY_MAX_TOKENS",
  userMemoryMaxItems: "MEMORY_USER_MEMORY_MAX_ITEMS",
  userMemoryKeepMessages: "MEMORY_USER_MEMORY_KEEP_MESSAGES",
  historySeedMaxMessages: "A2A_HISTORY_MAX_MESSAGES",
  sqlitePath: "MEMORY_SQLITE_PATH",
  postgresDsn: "POSTGRES_MEMORY_DSN",
  migrationDsn: "POSTGRES_MIGRATION_DSN",
  postgresSchema: "MEMORY_PG_SCHEMA",
  pgPoolMode: "MEMORY_PG_POOL_MODE",
  pgPoolMax: "MEMORY_PG_POOL_MAX",
  retentionDays: "MEMORY_RETENTION_DAYS",
  strictMode: "MEMORY_STRICT_MODE",
  allowPlaintext: "MEMORY_ALLOW_PLAINTEXT",
  turnLeaseMs: "MEMORY_TURN_LEASE_MS",
} as const;

/** One of {@link THREADWISE_ENV}'s names. */
export type ThreadwiseEnvName = (typeof THREADWISE_ENV)[keyof typeof THREADWISE_ENV];

/**
 * Prefixes of `THREADWISE_*` variables that threadwise's own tests and benches use
 * (`THREADWISE_TEST_POSTGRES_URL`, `THREADWISE_BENCH_POSTGRES_URL`): the packages never read them,
 * and `checkEnvNames` lets them pass.
 */
export const THREADWISE_TOOLING_ENV_PREFIXES = ["THREADWISE_TEST_", "THREADWISE_BENCH_"] as const;

/** Levels of the default logger, env {@link THREADWISE_ENV}`.log` (any case). */
export const LOG_LEVELS = ["silent", "off", "warn", "info", "debug"] as const;
