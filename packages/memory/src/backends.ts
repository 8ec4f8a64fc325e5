import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type BaseCheckpointSaver, JsonPlusSerializer, MemorySaver, type SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { envString, optionNames, parseOptions, resolveLogger, ThreadwiseConfigError, type ThreadwiseLogger } from "@threadwise/core";
import {
  DEFAULT_IDENTITY,
  type EncryptionOptions,
  encryptCheckpointer,
  KEYRING_ENV,
  type Keyring,
  loadKeyring,
  TENANT_ENV,
} from "@threadwise/encryption";
import type pg from "pg";
import { assertResolvedConfig, MEMORY_ENV, type MemoryConfig } from "./config.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { loadBetterSqlite3, loadPostgresSaver, loadSqliteSaver } from "./optional-peers.js";
import { assertSchemaVersion } from "./pg-migrations.js";
import { createMemoryPool } from "./pg-pool.js";
import { PgThreadRegistry } from "./pg-thread-registry.js";
import { PgTransactionScope } from "./pg-transaction-scope.js";
import { redactDsn, withRedactedView } from "./redact.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

/** Code-only inputs of {@link createCheckpointer}. */
export interface CheckpointerOptions {
  /** Serializer for the saver (e.g. an encrypting one); the saver's default when unset. */
  serde?: SerializerProtocol;
  /** An existing pool for PostgreSQL (not ended by `close()`); one is made from the DSN otherwise. */
  pool?: pg.Pool;
  /** Identity the data keys are derived for (`agentId`, `tenantId`, `principalId`); the keyring comes from the config. */
  encryption?: Omit<EncryptionOptions, "keyring">;
  /** Env for the encryption identity twins (`THREADWISE_MEMORY_TENANT_ID`, ...) and `THREADWISE_LOG`. @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Where the PostgreSQL pool's warnings go; `false` for none. @default core's default logger (from `env`) */
  logger?: ThreadwiseLogger | false;
  /**
   * Released by the checkpointer's `close()` after its own pool or file (memoryStack passes the
   * user-memory store it made, never one you gave it).
   */
  closeAlso?: () => Promise<void>;
}

/** {@link CheckpointerOptions} by name: values are the code's own (a serde, a pool), keys are checked. */
const CHECKPOINTER_OPTIONS = optionNames(["serde", "pool", "encryption", "env", "logger", "closeAlso"]);

/**
 * The config's keyring, loaded and checked now (spec R26, fail closed); `undefined` without
 * `keyringPath`. Its errors name where the path came from: `THREADWISE_MEMORY_KEYRING` when env
 * holds that path, else `memory.keyringPath`.
 * @throws ThreadwiseKeyringError (`source` set) for a missing or bad keyring.
 */
export function loadConfigKeyring(config: MemoryConfig, env: NodeJS.ProcessEnv = process.env): Keyring | undefined {
  if (!config.keyringPath) return undefined;
  const fromEnv = envString(KEYRING_ENV, env) === config.keyringPath.trim();
  return loadKeyring(config.keyringPath, env, fromEnv ? KEYRING_ENV : "memory.keyringPath");
}

/**
 * Spec R26-R28. `encryption` names who seals (`agentId`, `tenantId`, `principalId`); only a keyring
 * seals. Given without one, the stack stored every checkpoint and user-memory item in plaintext
 * without a word (newuser39 left it): a user who wrote `encryption: { agentId }` believed their
 * data sealed. Running without a keyring on purpose is stated with `allowPlaintext`
 * (`MEMORY_ALLOW_PLAINTEXT=true`, e.g. a development env whose production env sets
 * `THREADWISE_MEMORY_KEYRING`), in code or env; then the identity is kept (its `tenantId` still keys
 * the archive and user memory) and nothing is refused.
 * The same rule for `createCheckpointer(config, { encryption })` (`option`
 * `createCheckpointer.encryption`), which took the identity and sealed nothing.
 * @throws ThreadwiseConfigError naming `option` (`memory.encryption`) when it has a field set, no
 *   keyring is configured (`keyringPath`, `THREADWISE_MEMORY_KEYRING`) and `allowPlaintext` is off.
 * @internal
 */
export function assertEncryptionKeyring(
  config: MemoryConfig,
  encryption: Omit<EncryptionOptions, "keyring"> | undefined,
  option = "memory.encryption",
): void {
  const fields = Object.entries(encryption ?? {}).filter(([, value]) => value !== undefined);
  if (fields.length === 0 || config.keyringPath !== undefined || config.allowPlaintext) return;
  throw new ThreadwiseConfigError(
    option,
    `(${fields.map(([key]) => key).join(", ")}) is the identity a keyring seals with, and no keyring is configured, so nothing would be sealed: every checkpoint and user-memory item would be stored in plaintext. Add keyringPath (or env ${MEMORY_ENV.keyringPath}; create one with \`threadwise keyring create <path>\`), or set allowPlaintext: true (env ${MEMORY_ENV.allowPlaintext}=true) to run without encryption on purpose`,
  );
}

/**
 * Wraps `saver` in `@threadwise/encryption`'s encrypting checkpointer when the config names a
 * keyring (spec R26-R28); loads and checks the keyring now, failing closed.
 */
function maybeEncrypt(saver: BaseCheckpointSaver, config: MemoryConfig, options: CheckpointerOptions): BaseCheckpointSaver {
  const env = options.env ?? process.env;
  const keyring = loadConfigKeyring(config, env);
  if (!keyring) return saver;
  return encryptCheckpointer(saver, { ...options.encryption, keyring }, env);
}

/**
 * Builds the checkpointer of a resolved config (spec R20), wrapped in {@link ThreadwiseSaver}:
 * - `off`: `undefined` (no persistence at all; every call is a fresh thread).
 * - `in_memory`: MemorySaver. Lost when the process exits.
 * - `sqlite`: SqliteSaver on `sqlitePath` (directories created), WAL mode.
 * - any backend with `keyringPath`: records encrypted at rest (`@threadwise/encryption`).
 * - `postgres`: PostgresSaver on a pool from {@link createMemoryPool}. Never runs DDL: the first
 *   use checks the schema version and refuses with `ThreadwiseSchemaVersionError` (spec R21).
 *
 * The savers and drivers are optional peer dependencies, loaded only for the chosen backend:
 * `sqlite` needs `better-sqlite3` and `@langchain/langgraph-checkpoint-sqlite`, `postgres` needs
 * `pg` and `@langchain/langgraph-checkpoint-postgres`.
 *
 * @throws ThreadwiseMissingPeerError naming the package to install when one is missing;
 *   ThreadwiseConfigError naming `createCheckpointer.config` when `config` is not a resolved config,
 *   and `createCheckpointer.encryption` when an identity is given with no keyring configured and
 *   `allowPlaintext` off (nothing would be sealed; the rule of `memoryStack`); ThreadwiseUnknownOptionError
 *   for a misspelt option (`encrypton`: was ignored). All before a file or pool is opened.
 */
export function createCheckpointer(config: MemoryConfig, options: CheckpointerOptions = {}): ThreadwiseSaver | undefined {
  assertResolvedConfig(config, "createCheckpointer.config");
  parseOptions("createCheckpointer", CHECKPOINTER_OPTIONS, options);
  // Before a file or pool is opened.
  if (config.backend !== "off") assertEncryptionKeyring(config, options.encryption, "createCheckpointer.encryption");
  const saver = buildCheckpointer(config, options);
  // The saver holds the pool (its DSN) and, when encrypted, the keyring: print a description instead.
  return saver && withRedactedView(saver, () => describeCheckpointer(config, saver));
}

/** What a checkpointer prints as: its backend and classes, the DSN redacted, never keys. */
function describeCheckpointer(config: MemoryConfig, saver: ThreadwiseSaver): Record<string, unknown> {
  const encrypted = config.keyringPath !== undefined;
  const inner = encrypted ? (saver.inner as { inner?: object }).inner : saver.inner;
  return {
    checkpointer: "ThreadwiseSaver",
    backend: config.backend,
    saver: inner?.constructor?.name ?? "unknown",
    encrypted,
    ...(config.backend === "sqlite" ? { sqlitePath: config.sqlitePath } : {}),
    ...(config.backend === "postgres"
      ? { postgresDsn: redactDsn(config.postgresDsn as string), postgresSchema: config.postgresSchema }
      : {}),
    ...(encrypted ? { keyringPath: config.keyringPath } : {}),
  };
}

/** The tenant archived messages are keyed under: the encryption identity's (R27), else env, else "default". */
export function tenantOf(options: CheckpointerOptions): string {
  return options.encryption?.tenantId ?? envString(TENANT_ENV, options.env) ?? DEFAULT_IDENTITY;
}

/** The saver's `close`: its own resource, then `closeAlso`. */
function closing(own: (() => Promise<void>) | undefined, { closeAlso }: CheckpointerOptions): (() => Promise<void>) | undefined {
  if (!closeAlso) return own;
  return async () => {
    try {
      await own?.();
    } finally {
      await closeAlso();
    }
  };
}

function buildCheckpointer(config: MemoryConfig, options: CheckpointerOptions): ThreadwiseSaver | undefined {
  const tenantId = tenantOf(options);
  switch (config.backend) {
    case "off":
      return undefined;
    case "in_memory": {
      const saver = new MemorySaver(options.serde);
      return new ThreadwiseSaver(maybeEncrypt(saver, config, options), new MemoryThreadRegistry(saver), {
        close: closing(undefined, options),
        label: `memory.checkpointer (${config.backend})`,
        turnLeaseMs: config.turnLeaseMs,
        plaintext: !config.keyringPath && !options.serde,
        tenantId,
        archive: config.archive,
      });
    }
    case "sqlite": {
      const path = config.sqlitePath === ":memory:" ? ":memory:" : resolve(config.sqlitePath as string);
      if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
      const Database = loadBetterSqlite3();
      const SqliteSaver = loadSqliteSaver();
      const db = new Database(path);
      const registry = new SqliteThreadRegistry(db);
      // This package's serializer, not the one the peer would bring: one @langchain/core for messages.
      // On the registry's view of the handle: the saver's write statements stay prepared.
      const saver = maybeEncrypt(new SqliteSaver(registry.saverDatabase(), options.serde ?? new JsonPlusSerializer()), config, options);
      return new ThreadwiseSaver(saver, registry, {
        close: closing(async () => void db.close(), options),
        label: `memory.checkpointer (${config.backend})`,
        turnLeaseMs: config.turnLeaseMs,
        plaintext: !config.keyringPath && !options.serde,
        tenantId,
        archive: config.archive,
      });
    }
    case "postgres": {
      const PostgresSaver = loadPostgresSaver();
      const pool =
        options.pool ??
        createMemoryPool(config.postgresDsn as string, {
          mode: config.pgPoolMode,
          max: config.pgPoolMax,
          logger: resolveLogger(options.logger, options.env),
        });
      const schema = config.postgresSchema;
      // The saver's statements join the registry's write transaction (tombstone check, compare-and-set).
      const scope = new PgTransactionScope();
      const saver = maybeEncrypt(
        new PostgresSaver(scope.pool(pool), options.serde ?? new JsonPlusSerializer(), { schema }),
        config,
        options,
      );
      return new ThreadwiseSaver(saver, new PgThreadRegistry(pool, schema, scope), {
        ready: () => assertSchemaVersion(pool, schema),
        label: `memory.checkpointer (${config.backend})`,
        turnLeaseMs: config.turnLeaseMs,
        // Blobs are keyed by channel version: forks must not share one (langgraphjs #1812).
        uniqueChannelVersions: true,
        plaintext: !config.keyringPath && !options.serde,
        tenantId,
        archive: config.archive,
        close: closing(options.pool ? undefined : () => pool.end(), options),
      });
    }
  }
}
