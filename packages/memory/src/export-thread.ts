import { type BaseMessage, mapChatMessagesToStoredMessages, type StoredMessage } from "@langchain/core/messages";
import { optionNames, parseOptions, ThreadwiseConfigError } from "@threadwise/core";
import { loadKeyring } from "@threadwise/encryption";
import { createCheckpointer } from "./backends.js";
import { MEMORY_ENV, resolveMemoryConfig } from "./config.js";
import { openExistingSqliteFile } from "./optional-peers.js";
import { OPS_TARGET_NAMES, type OpsTarget } from "./prune.js";
import { ThreadwiseTenantMismatchError } from "./tenant-mismatch-error.js";
import { normalizeThreadId } from "./thread-id.js";
import type { ThreadwiseSaver } from "./threadwise-saver.js";

/** Options of {@link exportThread}: a store (`dsn` or `sqlitePath`), the thread, and the identity its records were sealed for. */
export interface ExportThreadOptions extends Omit<OpsTarget, "registry"> {
  /** The thread to export (the thread-id rule). */
  threadId: string;
  /** A checkpoint of the thread to export as of (its branch's archived messages, then its own); the head by default. */
  checkpointId?: string;
  /** Path of the keyring the thread's records were sealed with; none: the store must be plaintext (env `THREADWISE_MEMORY_KEYRING` is not read). */
  keyring?: string;
  /** Tenant the thread was written as (the stack's `encryption.tenantId`; archived messages are keyed under it). @default env THREADWISE_MEMORY_TENANT_ID, else "default" */
  tenantId?: string;
  /** Agent id the records were sealed for (the stack's `encryption.agentId`). @default "default" */
  agentId?: string;
  /** Principal id the records were sealed for. @default env THREADWISE_MEMORY_PRINCIPAL_ID, else "default" */
  principalId?: string;
  /** Env for the identity defaults. @default process.env */
  env?: NodeJS.ProcessEnv;
}

const EXPORT_THREAD_NAMES = optionNames([
  ...OPS_TARGET_NAMES.filter((name) => name !== "registry"),
  "threadId",
  "checkpointId",
  "keyring",
  "tenantId",
  "agentId",
  "principalId",
  "env",
]);

/** What {@link exportThread} returns (and `threadwise export` prints as JSON). */
export interface ThreadExport {
  threadId: string;
  /** The checkpoint exported: `checkpointId` when given, else the thread's head. */
  checkpointId: string;
  /**
   * The whole thread in order, each message once (`ThreadwiseSaver.readThread`: archived messages,
   * then the checkpoint's), in LangChain's stored-message shape (`mapChatMessagesToStoredMessages`;
   * `mapStoredMessagesToChatMessages` turns them back into messages).
   */
  messages: StoredMessage[];
}

/**
 * Reads one whole thread of a SQLite or PostgreSQL memory store (`readThread`: archived and hot
 * messages, in order) for export; `threadwise export` prints it. Runs no write and no DDL.
 * @throws ThreadwiseConfigError (`THREADWISE_INVALID_OPTION`) naming `--sqlite` (no such file),
 *   `--dsn` (no store given), `--thread-id` (no such thread, or deleted: its tombstone's time) or
 *   `--checkpoint-id` (no such checkpoint on the thread) or `--tenant-id` (the checkpoint's archive
 *   holds messages, none under this tenant: the export would miss them); ThreadwiseThreadIdError for a bad id;
 *   ThreadwiseSealedStoreError (sealed records, no keyring); the keyring's errors naming `--keyring`;
 *   a decryption error (`THREADWISE_DECRYPTION_FAILED`) for another keyring or identity;
 *   ThreadwiseSchemaVersionError; ThreadwiseUnknownOptionError for a misspelt option (`checkpointID`:
 *   was ignored, and the head was exported), before anything is opened.
 */
export async function exportThread(options: ExportThreadOptions): Promise<ThreadExport> {
  parseOptions("exportThread", EXPORT_THREAD_NAMES, options);
  const env = options.env ?? process.env;
  const threadId = normalizeThreadId(options.threadId, "exportThread.threadId");
  // Checked here, naming the flag (the saver loads it again from its path).
  if (options.keyring !== undefined) loadKeyring(options.keyring, env, "--keyring");
  // A mistyped path is refused, never created (createCheckpointer would create it).
  if (options.sqlitePath) openExistingSqliteFile(options.sqlitePath).close();
  else if (!options.dsn)
    throw new ThreadwiseConfigError("--dsn", `give a PostgreSQL DSN (--dsn or ${MEMORY_ENV.postgresDsn}) or a SQLite file (--sqlite)`);
  const config = resolveMemoryConfig(
    {
      ...(options.sqlitePath
        ? { backend: "sqlite", sqlitePath: options.sqlitePath }
        : { backend: "postgres", postgresDsn: options.dsn, postgresSchema: options.schema, pgPoolMode: options.poolMode, pgPoolMax: 2 }),
      keyringPath: options.keyring,
      allowPlaintext: options.keyring === undefined,
    },
    // The keyring is this call's, never one env names.
    { ...env, [MEMORY_ENV.keyringPath]: undefined },
  );
  const checkpointerOptions = {
    env,
    logger: false as const,
    encryption: {
      ...(options.tenantId !== undefined ? { tenantId: options.tenantId } : {}),
      ...(options.agentId !== undefined ? { agentId: options.agentId } : {}),
      ...(options.principalId !== undefined ? { principalId: options.principalId } : {}),
    },
  };
  const saver = createCheckpointer(config, checkpointerOptions) as ThreadwiseSaver;
  try {
    const configurable = {
      thread_id: threadId,
      ...(options.checkpointId !== undefined ? { checkpoint_ns: "", checkpoint_id: options.checkpointId } : {}),
    };
    const tuple = await saver.getTuple({ configurable });
    if (!tuple) {
      const tombstone = await saver.registry.tombstone(threadId);
      if (tombstone)
        throw new ThreadwiseConfigError(
          "--thread-id",
          `thread ${JSON.stringify(threadId)} was deleted at ${tombstone.deletedAt.toISOString()} (${tombstone.reason}; its tombstone stays): nothing to export`,
        );
      if (options.checkpointId !== undefined && (await saver.registry.head(threadId)))
        throw new ThreadwiseConfigError(
          "--checkpoint-id",
          `thread ${JSON.stringify(threadId)} has no checkpoint ${JSON.stringify(options.checkpointId)}; give one of its checkpoint ids, or none for its head`,
        );
      throw new ThreadwiseConfigError(
        "--thread-id",
        `thread ${JSON.stringify(threadId)} was not found (no checkpoint and no tombstone under that id)`,
      );
    }
    // The checkpoint found, read by its id: a write to the thread in between moves its head, not
    // what is exported. readThread refuses a tenant its archive holds nothing under.
    const checkpointId = String(tuple.config.configurable?.checkpoint_id);
    let messages: BaseMessage[];
    try {
      messages = await saver.readThread({ configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: checkpointId } });
    } catch (error) {
      if (ThreadwiseTenantMismatchError.isInstance(error))
        throw new ThreadwiseTenantMismatchError(error.threadId, error.tenantId, "--tenant-id", { cause: error });
      throw error;
    }
    return {
      threadId,
      checkpointId,
      messages: mapChatMessagesToStoredMessages(messages),
    };
  } finally {
    await saver.close();
  }
}
