import type { SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { parseOptions } from "@threadwise/core";
import { z } from "zod";
import { EncryptedCheckpointSaver } from "./encrypted-checkpointer.js";
import { ThreadwiseReencryptError } from "./errors.js";
import { type RecordCipher, sealedKid } from "./record-cipher.js";
import { channelValueRecordId, metadataRecordId, pendingWriteRecordId } from "./record-ids.js";
import { memoryStore, postgresStore, sqliteStore } from "./reencrypt-stores.js";
import { SEALED_METADATA_KEY } from "./sealed-metadata.js";

/** Progress after each batch of {@link reencrypt}. */
export interface ReencryptProgress {
  /** Table (or MemorySaver map) being rewritten: `checkpoints`, `writes`, `checkpoint_blobs`, ... */
  table: string;
  /** Rows of this table read so far. */
  scanned: number;
  /** Rows of this table rewritten so far. */
  rewritten: number;
  /** Rows of this table at the start. */
  total: number;
}

/** What {@link reencrypt} did. */
export interface ReencryptResult {
  /** Kid every record is sealed with afterwards (unless `dryRun`). */
  activeKid: string;
  /** Rows read, over all tables. */
  scanned: number;
  /** Rows rewritten (would be, with `dryRun`), over all tables. */
  rewritten: number;
  /** Sealed records per kid as found before rewriting. */
  recordsByKid: Record<string, number>;
}

const reencryptOptionsSchema = z.object({
  /**
   * Rows read and rewritten per transaction.
   * @default 100
   */
  batchSize: z.number().int().positive().default(100),
  /**
   * Count records per kid and rows to rewrite, without writing.
   * @default false
   */
  dryRun: z.boolean().default(false),
});

/** Options of {@link reencrypt}. */
export type ReencryptOptions = z.input<typeof reencryptOptionsSchema> & {
  /** The encrypted checkpointer whose storage is rewritten (built with the keyring holding the new active kid and the old kids). */
  saver: EncryptedCheckpointSaver;
  /** Called after every batch. */
  onProgress?: (progress: ReencryptProgress) => void;
};

/**
 * Re-seals every stored record under the keyring's active kid (R29), batch by batch, so the old
 * kid can then be removed with `retireKey`. Works on the inner saver's storage directly, since
 * re-putting through the saver does not overwrite existing blobs and writes:
 * `SqliteSaver` (tables `checkpoints`, `writes`), `PostgresSaver` (`checkpoint_blobs`,
 * `checkpoint_writes`, `checkpoints.metadata`) and `MemorySaver`. Each row is opened at its own
 * location (thread, record id) and updated only if unchanged since it was read, so concurrent
 * writers are never overwritten. Idempotent: records already on the active kid are left alone,
 * and an interrupted run can simply be started again.
 *
 * @throws ThreadwiseReencryptError for a saver whose storage it does not know.
 * @throws ThreadwiseDecryptionError / ThreadwiseAgentMismatchError when a record does not open
 *   (it is never skipped).
 * @example
 * rotateKeyring("keyring.json");
 * const saver = encryptCheckpointer(PostgresSaver.fromConnString(dsn), { keyring: "keyring.json", agentId });
 * await reencrypt({ saver, batchSize: 500, onProgress: (p) => console.log(p.table, p.scanned, "/", p.total) });
 * retireKey("keyring.json", oldKid);
 */
export async function reencrypt(options: ReencryptOptions): Promise<ReencryptResult> {
  const { saver, onProgress, ...rest } = options;
  const { batchSize, dryRun } = parseOptions("reencrypt", reencryptOptionsSchema, rest);
  if (!(saver instanceof EncryptedCheckpointSaver))
    throw new ThreadwiseReencryptError("reencrypt: `saver` must come from encryptCheckpointer()");
  // No `setup()`: on PostgreSQL it runs DDL, which only the migration command may do (R21).
  const inner = saver.inner as unknown as Record<string, unknown>;
  const resealer = new Resealer(saver.serializer.cipher, saver.serializer.inner);
  const store = sqliteStore(inner) ?? postgresStore(inner) ?? memoryStore(inner);
  if (store === undefined)
    throw new ThreadwiseReencryptError(
      `reencrypt: cannot rewrite the storage of ${saver.inner.constructor.name}; supported: SqliteSaver, PostgresSaver, MemorySaver`,
    );
  const totals = { scanned: 0, rewritten: 0 };
  await store.run({ resealer, batchSize, dryRun, onProgress, totals });
  return { activeKid: resealer.cipher.activeKid, ...totals, recordsByKid: resealer.recordsByKid };
}

/**
 * Re-seals stored values at their locations and counts kids. Values arrive as the inner saver
 * stored them (serialized by its own serializer), and leave serialized the same way.
 * @internal
 */
export class Resealer {
  readonly cipher: RecordCipher;
  readonly serde: SerializerProtocol;
  readonly recordsByKid: Record<string, number> = {};

  constructor(cipher: RecordCipher, serde: SerializerProtocol) {
    this.cipher = cipher;
    this.serde = serde;
  }

  /** A whole stored checkpoint (SqliteSaver, MemorySaver): its channel values. Returns new bytes or `undefined`. */
  async checkpoint(type: string, bytes: Uint8Array, threadId: string, checkpointNs: string): Promise<Uint8Array | undefined> {
    const checkpoint = (await this.serde.loadsTyped(type, bytes)) as {
      channel_values?: Record<string, unknown>;
      channel_versions?: Record<string, unknown>;
    };
    let changed = false;
    const values: Record<string, unknown> = {};
    for (const [channel, value] of Object.entries(checkpoint.channel_values ?? {})) {
      const next = this.reseal(
        value,
        "channel-value",
        threadId,
        channelValueRecordId(checkpointNs, channel, checkpoint.channel_versions?.[channel]),
      );
      changed ||= next !== undefined;
      values[channel] = next ?? value;
    }
    return changed ? this.dump({ ...checkpoint, channel_values: values }, type) : undefined;
  }

  /** One channel value stored alone (PostgresSaver blob). */
  async channelValue(type: string, bytes: Uint8Array, threadId: string, checkpointNs: string, channel: string, version: string) {
    const value = await this.serde.loadsTyped(type, bytes);
    const next = this.reseal(value, "channel-value", threadId, channelValueRecordId(checkpointNs, channel, version));
    return next === undefined ? undefined : this.dump(next, type);
  }

  /** One pending write. */
  async pendingWrite(
    type: string,
    bytes: Uint8Array,
    threadId: string,
    checkpointNs: string,
    checkpointId: string,
    taskId: string,
    channel: string,
  ) {
    const value = await this.serde.loadsTyped(type, bytes);
    const next = this.reseal(value, "pending-write", threadId, pendingWriteRecordId(checkpointNs, checkpointId, taskId, channel));
    return next === undefined ? undefined : this.dump(next, type);
  }

  /** Metadata as a parsed object (PostgresSaver `jsonb`); returns the new object or `undefined`. */
  metadataObject(
    metadata: Record<string, unknown>,
    threadId: string,
    checkpointNs: string,
    checkpointId: string,
  ): Record<string, unknown> | undefined {
    const next = this.reseal(metadata[SEALED_METADATA_KEY], "metadata", threadId, metadataRecordId(checkpointNs, checkpointId));
    return next === undefined ? undefined : { ...metadata, [SEALED_METADATA_KEY]: next };
  }

  /** Metadata serialized by the inner serializer (SqliteSaver, MemorySaver). */
  async metadataBytes(type: string, bytes: Uint8Array, threadId: string, checkpointNs: string, checkpointId: string) {
    const metadata = (await this.serde.loadsTyped(type, bytes)) as Record<string, unknown>;
    const next = this.metadataObject(metadata, threadId, checkpointNs, checkpointId);
    return next === undefined ? undefined : this.dump(next, type);
  }

  private reseal(
    value: unknown,
    purpose: "channel-value" | "pending-write" | "metadata",
    threadId: string,
    recordId: string,
  ): string | undefined {
    const kid = sealedKid(value) ?? "(not sealed)";
    this.recordsByKid[kid] = (this.recordsByKid[kid] ?? 0) + 1;
    return this.cipher.reseal(value, purpose, { threadId, recordId });
  }

  private async dump(value: unknown, expectedType: string): Promise<Uint8Array> {
    const [type, bytes] = await this.serde.dumpsTyped(value);
    if (type !== expectedType)
      throw new ThreadwiseReencryptError(`reencrypt: serializer changed the stored type from ${expectedType} to ${type}`);
    return bytes;
  }
}
