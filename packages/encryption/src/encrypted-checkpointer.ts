import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  TASKS,
} from "@langchain/langgraph-checkpoint";
import { ThreadwiseConfigError } from "@threadwise/core";
import { EncryptedSerializer } from "./encrypted-serializer.js";
import { type EncryptionOptions, resolveCipher } from "./encryption-options.js";
import { ThreadwiseDecryptionError } from "./errors.js";
import type { RecordCipher } from "./record-cipher.js";
import { channelValueRecordId, metadataRecordId, pendingWriteRecordId } from "./record-ids.js";
import { checkpointManifest, metadataMatches, openMetadata, sealMetadata, splitMetadataFilter } from "./sealed-metadata.js";

/**
 * A checkpointer that stores ciphertext in any LangGraph saver (R27, R28). It delegates to the
 * `inner` saver and seals on the way in (`put`, `putWrites`) and opens on the way out (`getTuple`,
 * `list`), where the thread id and record id are known, so each record's AAD binds principal,
 * thread, record id and codec version.
 *
 * What the inner saver receives: the checkpoint skeleton (`id`, `ts`, `v`, channel versions,
 * versions seen: ids, channel and node names only), every channel value and pending write as one
 * sealed string, and metadata reduced to `source`, `step` and a sealed copy. See ARCHITECTURE.md.
 *
 * Reads fail whole: a record that does not open throws (`ThreadwiseDecryptionError`,
 * `ThreadwiseAgentMismatchError`); nothing is skipped or returned in plaintext.
 */
export class EncryptedCheckpointSaver<S extends BaseCheckpointSaver = BaseCheckpointSaver> extends BaseCheckpointSaver {
  /** The saver that stores the sealed records. Never hand it plaintext. */
  readonly inner: S;
  /** Seals and opens values with the inner saver's own serializer. */
  readonly serializer: EncryptedSerializer;

  constructor(inner: S, cipher: RecordCipher) {
    const serializer = new EncryptedSerializer(cipher, inner.serde);
    super(serializer);
    this.inner = inner;
    this.serializer = serializer;
  }

  /** Kid new records are sealed with. */
  get activeKid(): string {
    return this.serializer.cipher.activeKid;
  }

  /** Runs the inner saver's `setup()` when it has one (PostgresSaver, SqliteSaver). */
  async setup(): Promise<void> {
    await (this.inner as unknown as { setup?: () => unknown }).setup?.();
  }

  /** Runs the inner saver's `end()` when it has one (PostgresSaver: ends its pool). */
  async end(): Promise<void> {
    await (this.inner as unknown as { end?: () => unknown }).end?.();
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    const tuple = await this.inner.getTuple(config);
    return tuple === undefined ? undefined : this.openTuple(tuple);
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    const { pushdown, postFilter } = splitMetadataFilter(options?.filter);
    // Filters on sealed metadata fields are checked after decryption, so the limit is too.
    const innerOptions: CheckpointListOptions = { ...options, filter: pushdown, limit: postFilter ? undefined : options?.limit };
    let remaining = options?.limit;
    for await (const stored of this.inner.list(config, innerOptions)) {
      const tuple = await this.openTuple(stored);
      if (!metadataMatches(tuple.metadata, options?.filter)) continue;
      if (remaining !== undefined) {
        if (remaining <= 0) return;
        remaining -= 1;
      }
      yield tuple;
    }
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = requireThreadId(config, "put");
    const checkpointNs = String(config.configurable?.checkpoint_ns ?? "");
    const channelValues: Record<string, unknown> = {};
    for (const [channel, value] of Object.entries(checkpoint.channel_values ?? {})) {
      channelValues[channel] = await this.serializer.sealTyped(value, "channel-value", {
        threadId,
        recordId: channelValueRecordId(checkpointNs, channel, checkpoint.channel_versions?.[channel]),
      });
    }
    const manifest = checkpointManifest(checkpoint.id, config.configurable?.checkpoint_id, checkpoint.channel_versions);
    const sealedMetadata = await sealMetadata(this.serializer, metadata, { threadId, checkpointNs, checkpointId: checkpoint.id }, manifest);
    return this.inner.put(config, { ...checkpoint, channel_values: channelValues }, sealedMetadata, newVersions);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = requireThreadId(config, "putWrites");
    const checkpointNs = String(config.configurable?.checkpoint_ns ?? "");
    const checkpointId = config.configurable?.checkpoint_id;
    if (typeof checkpointId !== "string" || checkpointId === "")
      throw new ThreadwiseConfigError("configurable.checkpoint_id", "putWrites needs the checkpoint id the writes belong to");
    const sealed: PendingWrite[] = [];
    for (const [channel, value] of writes) {
      sealed.push([
        channel,
        await this.serializer.sealTyped(value, "pending-write", {
          threadId,
          recordId: pendingWriteRecordId(checkpointNs, checkpointId, taskId, String(channel)),
        }),
      ]);
    }
    return this.inner.putWrites(config, sealed, taskId, taskPath);
  }

  async deleteThread(threadId: string): Promise<void> {
    return this.inner.deleteThread(threadId);
  }

  override getNextVersion(current: number | undefined): number {
    return this.inner.getNextVersion(current);
  }

  /** Opens every sealed part of a tuple read from the inner saver. */
  protected async openTuple(stored: CheckpointTuple): Promise<CheckpointTuple> {
    const threadId = String(stored.config.configurable?.thread_id ?? "");
    const checkpointNs = String(stored.config.configurable?.checkpoint_ns ?? "");
    const checkpointId = stored.checkpoint.id;
    // The row is keyed by its checkpoint id; the checkpoint it holds must be that one (a row copied over another is not).
    const rowId = stored.config.configurable?.checkpoint_id;
    if (typeof rowId === "string" && rowId !== checkpointId)
      throw new ThreadwiseDecryptionError(
        "checkpoint-mismatch",
        { threadId, recordId: metadataRecordId(checkpointNs, rowId) },
        `row ${rowId} holds checkpoint ${checkpointId}; refusing to read another checkpoint's history`,
      );
    // Checkpoints older than format 4 get their pending sends from the parent's writes: the inner
    // saver copies those (still sealed, without their task ids) into TASKS; rebuild them decrypted.
    const migrated =
      stored.checkpoint.v < 4 && stored.parentConfig !== undefined && Array.isArray(stored.checkpoint.channel_values?.[TASKS]);
    const channelValues: Record<string, unknown> = {};
    for (const [channel, value] of Object.entries(stored.checkpoint.channel_values ?? {})) {
      if (migrated && channel === TASKS) continue;
      channelValues[channel] = await this.serializer.openTyped(value, "channel-value", {
        threadId,
        recordId: channelValueRecordId(checkpointNs, channel, stored.checkpoint.channel_versions?.[channel]),
      });
    }
    if (migrated) {
      const parent = await this.getTuple(stored.parentConfig as RunnableConfig);
      channelValues[TASKS] = (parent?.pendingWrites ?? []).filter(([, channel]) => channel === TASKS).map(([, , value]) => value);
    }
    const pendingWrites: CheckpointPendingWrite[] = [];
    for (const [taskId, channel, value] of stored.pendingWrites ?? []) {
      pendingWrites.push([
        taskId,
        channel,
        await this.serializer.openTyped(value, "pending-write", {
          threadId,
          recordId: pendingWriteRecordId(checkpointNs, checkpointId, taskId, String(channel)),
        }),
      ]);
    }
    const tuple: CheckpointTuple = {
      ...stored,
      checkpoint: { ...stored.checkpoint, channel_values: channelValues },
      metadata: await openMetadata(
        this.serializer,
        stored.metadata,
        { threadId, checkpointNs, checkpointId },
        checkpointManifest(checkpointId, stored.parentConfig?.configurable?.checkpoint_id, stored.checkpoint.channel_versions),
      ),
    };
    if (stored.pendingWrites !== undefined) tuple.pendingWrites = pendingWrites;
    return tuple;
  }
}

/**
 * Wraps `saver` so everything it stores is encrypted (R26-R29): `MemorySaver`, `SqliteSaver`,
 * `PostgresSaver` or any other `BaseCheckpointSaver`. Loads the keyring at construction.
 *
 * @param saver The saver that will hold the ciphertext; keep using the returned wrapper only.
 * @param options Keyring (path or `Keyring`), `agentId`, `tenantId`, `principalId`.
 * @throws ThreadwiseKeyringError when the keyring is missing or bad (fail-closed, R26).
 * @throws ThreadwiseConfigError for bad options or when `saver` is already encrypted.
 * @example
 * const checkpointer = encryptCheckpointer(SqliteSaver.fromConnString("memory.db"), { keyring: "keyring.json", agentId: "support" });
 * const agent = createAgent({ model, tools, checkpointer });
 */
export function encryptCheckpointer<S extends BaseCheckpointSaver>(
  saver: S,
  options?: EncryptionOptions,
  env: NodeJS.ProcessEnv = process.env,
): EncryptedCheckpointSaver<S> {
  if (saver instanceof EncryptedCheckpointSaver)
    throw new ThreadwiseConfigError("encryptCheckpointer.saver", "the saver is already encrypted");
  if (!(saver instanceof BaseCheckpointSaver) && typeof (saver as { getTuple?: unknown })?.getTuple !== "function")
    throw new ThreadwiseConfigError("encryptCheckpointer.saver", "expected a LangGraph checkpoint saver");
  return new EncryptedCheckpointSaver(saver, resolveCipher("encryptCheckpointer", options, env));
}

function requireThreadId(config: RunnableConfig, method: string): string {
  const threadId = config.configurable?.thread_id;
  if (threadId === undefined || threadId === null || threadId === "")
    throw new ThreadwiseConfigError("configurable.thread_id", `${method} needs a thread id: records are bound to their thread`);
  return String(threadId);
}
