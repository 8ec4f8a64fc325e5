import type { CheckpointMetadata, SerializerProtocol } from "@langchain/langgraph-checkpoint";
import { parseOptions } from "@threadwise/core";
import { z } from "zod/v4";
import { EncryptedCheckpointSaver } from "./encrypted-checkpointer.js";
import type { EncryptedSerializer } from "./encrypted-serializer.js";
import { ThreadwiseReencryptError } from "./errors.js";
import { isSealed, type RecordCipher, type RecordPurpose, sealedKid } from "./record-cipher.js";
import { channelValueRecordId, metadataRecordId, pendingWriteRecordId } from "./record-ids.js";
import { memoryStore, postgresStore, sqliteStore } from "./reencrypt-stores.js";
import { SEALED_METADATA_KEY, sealMetadata } from "./sealed-metadata.js";

/** Key of {@link ReencryptResult.recordsByKid} counting records stored in plaintext. */
export const PLAINTEXT_RECORDS_KEY = "(plaintext)";

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
  /** Sealed records per kid as found before rewriting; plaintext records count under `(plaintext)`. */
  recordsByKid: Record<string, number>;
}

const reencryptOptionsSchema = z.strictObject({
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
  /**
   * Also encrypt records stored in plaintext (a store written before encryption was turned on),
   * instead of failing on them with `plaintext-record`. A one-time migration; reads never accept
   * plaintext.
   * @default false
   */
  encryptPlaintext: z.boolean().default(false),
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
  const { batchSize, dryRun, encryptPlaintext } = parseOptions("reencrypt", reencryptOptionsSchema, rest);
  if (!(saver instanceof EncryptedCheckpointSaver))
    throw new ThreadwiseReencryptError("reencrypt: `saver` must come from encryptCheckpointer()");
  // No `setup()`: on PostgreSQL it runs DDL, which only the migration command may do (R21).
  const inner = saver.inner as unknown as Record<string, unknown>;
  const resealer = new Resealer(saver.serializer, encryptPlaintext);
  const store = sqliteStore(inner) ?? postgresStore(inner) ?? memoryStore(inner);
  if (store === undefined)
    throw new ThreadwiseReencryptError(
      `reencrypt: cannot rewrite the storage of ${saver.inner.constructor.name}; supported: SqliteSaver, PostgresSaver, MemorySaver`,
    );
  const totals = { scanned: 0, rewritten: 0 };
  await store.run({ resealer, batchSize, dryRun, onProgress, totals });
  return { activeKid: resealer.cipher.activeKid, ...totals, recordsByKid: resealer.recordsByKid };
}

/** Bytes to store back and the serializer type they were written with. */
export type Rewritten = [type: string, bytes: Uint8Array];

/**
 * Re-seals stored values at their locations and counts kids. Values arrive as the inner saver
 * stored them (serialized by its own serializer), and leave serialized the same way.
 * @internal
 */
export class Resealer {
  readonly serializer: EncryptedSerializer;
  readonly encryptPlaintext: boolean;
  readonly recordsByKid: Record<string, number> = {};

  constructor(serializer: EncryptedSerializer, encryptPlaintext: boolean) {
    this.serializer = serializer;
    this.encryptPlaintext = encryptPlaintext;
  }

  get cipher(): RecordCipher {
    return this.serializer.cipher;
  }

  private get serde(): SerializerProtocol {
    return this.serializer.inner;
  }

  /** A whole stored checkpoint (SqliteSaver, MemorySaver): its channel values. Returns new bytes or `undefined`. */
  async checkpoint(type: string, bytes: Uint8Array, threadId: string, checkpointNs: string): Promise<Rewritten | undefined> {
    const checkpoint = (await this.serde.loadsTyped(type, bytes)) as {
      channel_values?: Record<string, unknown>;
      channel_versions?: Record<string, unknown>;
    };
    let changed = false;
    const values: Record<string, unknown> = {};
    for (const [channel, value] of Object.entries(checkpoint.channel_values ?? {})) {
      const recordId = channelValueRecordId(checkpointNs, channel, checkpoint.channel_versions?.[channel]);
      const next = await this.reseal(value, "channel-value", threadId, recordId);
      changed ||= next !== undefined;
      values[channel] = next ?? value;
    }
    return changed ? this.serde.dumpsTyped({ ...checkpoint, channel_values: values }) : undefined;
  }

  /** One channel value stored alone (PostgresSaver blob). */
  async channelValue(
    type: string,
    bytes: Uint8Array,
    threadId: string,
    checkpointNs: string,
    channel: string,
    version: string,
  ): Promise<Rewritten | undefined> {
    const value = await this.serde.loadsTyped(type, bytes);
    const next = await this.reseal(value, "channel-value", threadId, channelValueRecordId(checkpointNs, channel, version));
    return next === undefined ? undefined : this.serde.dumpsTyped(next);
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
  ): Promise<Rewritten | undefined> {
    const value = await this.serde.loadsTyped(type, bytes);
    const next = await this.reseal(value, "pending-write", threadId, pendingWriteRecordId(checkpointNs, checkpointId, taskId, channel));
    return next === undefined ? undefined : this.serde.dumpsTyped(next);
  }

  /** Metadata as a parsed object (PostgresSaver `jsonb`); returns the new object or `undefined`. */
  async metadataObject(
    metadata: Record<string, unknown>,
    threadId: string,
    checkpointNs: string,
    checkpointId: string,
  ): Promise<Record<string, unknown> | undefined> {
    const where = { threadId, checkpointNs, checkpointId };
    if (!(SEALED_METADATA_KEY in metadata) && this.encryptPlaintext) {
      this.count(PLAINTEXT_RECORDS_KEY);
      return (await sealMetadata(this.serializer, metadata as unknown as CheckpointMetadata, where)) as unknown as Record<string, unknown>;
    }
    const next = await this.reseal(metadata[SEALED_METADATA_KEY], "metadata", threadId, metadataRecordId(checkpointNs, checkpointId));
    return next === undefined ? undefined : { ...metadata, [SEALED_METADATA_KEY]: next };
  }

  /** Metadata serialized by the inner serializer (SqliteSaver, MemorySaver). */
  async metadataBytes(
    type: string,
    bytes: Uint8Array,
    threadId: string,
    checkpointNs: string,
    checkpointId: string,
  ): Promise<Rewritten | undefined> {
    const metadata = (await this.serde.loadsTyped(type, bytes)) as Record<string, unknown>;
    const next = await this.metadataObject(metadata, threadId, checkpointNs, checkpointId);
    return next === undefined ? undefined : this.serde.dumpsTyped(next);
  }

  private async reseal(value: unknown, purpose: RecordPurpose, threadId: string, recordId: string): Promise<string | undefined> {
    if (!isSealed(value) && this.encryptPlaintext) {
      this.count(PLAINTEXT_RECORDS_KEY);
      return this.serializer.sealTyped(value, purpose, { threadId, recordId });
    }
    this.count(sealedKid(value) ?? PLAINTEXT_RECORDS_KEY);
    return this.cipher.reseal(value, purpose, { threadId, recordId });
  }

  private count(kid: string): void {
    this.recordsByKid[kid] = (this.recordsByKid[kid] ?? 0) + 1;
  }
}
