import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { type ArchiveCursor, type ArchivedChanges, messageType } from "@threadwise/core";
import { EncryptedCheckpointSaver, isSealed, type RecordLocation } from "@threadwise/encryption";
import { coveredDigestsOf } from "@threadwise/summarize";
import { ThreadwiseSealedStoreError } from "./sealed-store-error.js";
import { ARCHIVE_CLEARED_MESSAGE_ID, type ArchiveMark, type ArchiveRow, type ThreadRegistry } from "./thread-registry.js";

/** Threads whose archive this process keeps decoded; the least recently read goes first. */
export const ARCHIVE_CACHE_THREADS = 64;
/** Newest rows of a thread's last tail read whose decodes are kept (see `ArchiveRecords.messages`). */
const TAIL_MEMO_ROWS = 8;

/**
 * Record id bound into the AAD of a sealed archived message (R27): its message id, so a record
 * moved to another message, thread or tenant fails to open.
 */
export function archivedMessageRecordId(messageId: string): string {
  return JSON.stringify(["archived-message", messageId]);
}

/**
 * Record id bound into the AAD of the sealed digests a rewrite's marker row keeps (R27): one per
 * thread (the thread is bound too), so they open only as that thread's marker.
 */
export const CLEARED_DIGESTS_RECORD_ID = JSON.stringify(["archive-cleared-digests"]);

/**
 * First element of a marker row's record written by this version: `[tag, firstId, digests]`, the
 * digests stored as {@link ArchiveRecords.clear} says. A record that is not such an array is the
 * previous version's: the first id alone.
 */
const CLEARED_MARKER_TAG = "threadwise/archive-cleared:1";

/**
 * The record of a rewrite's marker row ({@link ThreadRegistry.clearArchive}'s third argument) as
 * this version writes it: the rewritten thread's first message id and the digests of what the
 * rewrite emptied, as stored (sealed when the saver encrypts: bound to the thread). For a registry
 * copied by hand (a test's fresh process).
 */
export function clearedMarkerRecord(firstId: string, digests: string): string {
  return JSON.stringify([CLEARED_MARKER_TAG, firstId, digests]);
}

/** A marker row's record: the rewritten thread's first id and, when written by this version, the stored digests. */
export function parseMarker(record: string): { first: string; digests?: string } {
  if (record.startsWith(`["${CLEARED_MARKER_TAG}"`)) {
    try {
      const parsed = JSON.parse(record) as unknown;
      if (Array.isArray(parsed) && parsed.length === 3 && typeof parsed[1] === "string" && typeof parsed[2] === "string")
        return { first: parsed[1], digests: parsed[2] };
    } catch {
      // Not ours after all: an id that merely starts like one.
    }
  }
  return { first: record };
}

/** An archived row as cached: decoded on first use. */
type CachedRow = ArchiveRow & { message?: BaseMessage };

/** One thread's archive as last read: rows by message id, and in `seq` order. */
interface CachedArchive {
  stamp: number;
  /** Set once a rewrite emptied the archive: the rewritten thread's first message id (`""`: none). */
  clearedFirst?: string;
  /** The stamp of the rewrite that last emptied the archive (its marker row's); 0: none. */
  clearedStamp: number;
  /** The digests that rewrite's marker keeps, as stored (sealed when the saver encrypts); `undefined`: none, or a marker of an earlier version. */
  clearedDigests?: string;
  /** Marker digests {@link ArchiveRecords.prepareClear} computed, as stored, for the archive at `version`. */
  preparedDigests?: { version: number; digests: string };
  rows: Map<string, CachedRow>;
  ordered: CachedRow[] | undefined;
  /** Grows whenever rows are read anew (appended, rewritten). */
  version: number;
  /** Every row decoded, in `seq` order, as of `version`; dropped whenever rows are read anew. */
  decoded?: BaseMessage[];
  /**
   * Replaced whenever the rows stop being a pure append of what was read before (a row written
   * again, one older than the newest cached; a new cache after a rewrite, a deletion or eviction):
   * a cursor ({@link ArchiveRecords.changes}) naming another epoch reads the whole archive.
   */
  epoch: object;
}

/** What an {@link ArchiveRecords.changes} cursor holds: the cache's epoch and how many rows were read. */
interface RecordsCursor {
  epoch: object;
  count: number;
}

/**
 * Encodes, seals, stores and reads back archived messages for {@link ThreadwiseSaver} (issue 27).
 *
 * - Encoding: the wrapped saver's serializer (`JsonPlusSerializer`, the one checkpoints use). When
 *   the saver encrypts (`encryptCheckpointer`), each message is sealed like a channel value, bound
 *   to tenant (the cipher's identity), thread and message id.
 * - Reads are incremental: each read asks the registry only for rows written after the stamp it
 *   last saw (one indexed query when nothing changed), so replicas see each other's writes and a
 *   deleted thread reads empty. Decoded messages are kept for {@link ARCHIVE_CACHE_THREADS} threads.
 */
export class ArchiveRecords {
  readonly #registry: ThreadRegistry;
  readonly #saver: BaseCheckpointSaver;
  readonly #tenantId: string;
  readonly #cache = new Map<string, CachedArchive>();
  /**
   * Per thread (at most {@link ARCHIVE_CACHE_THREADS}, the least recently read going first), the
   * newest {@link TAIL_MEMO_ROWS} rows its last tail read ({@link messages} with `last` on a thread
   * not cached) decoded, by message id, with the record each was decoded from: a row read again
   * with the very same record is not decoded again (summarize's and messageArchive's coverage
   * checks read the newest archived message at every due call; one decode cost about as much as
   * the rest of the check). Plaintext records only: a sealed one is opened at every read, so a key
   * taken out of the keyring is honoured at once.
   */
  readonly #tails = new Map<string, Map<string, { record: string; message: BaseMessage }>>();

  constructor(registry: ThreadRegistry, saver: BaseCheckpointSaver, tenantId: string) {
    this.#registry = registry;
    this.#saver = saver;
    this.#tenantId = tenantId;
  }

  /** The tenant id rows are keyed (and, when encrypted, sealed) under. */
  get tenantId(): string {
    return this.#tenantId;
  }

  /**
   * Upserts `messages` (each with a string id) into the thread's archive, in order.
   * @throws TypeError for a message without an id; ThreadwiseThreadDeletedError for a deleted thread.
   */
  async write(threadId: string, messages: readonly BaseMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const rows: Array<{ messageId: string; record: string }> = [];
    for (const message of messages) {
      if (typeof message.id !== "string" || message.id === "") throw new TypeError("an archived message needs a string id");
      rows.push({ messageId: message.id, record: await this.#encode(threadId, message) });
    }
    await this.#registry.archiveMessages(threadId, this.#tenantId, rows);
  }

  /** Ids of the thread's archived messages, in archive order (no decoding). */
  async ids(threadId: string): Promise<string[]> {
    return (await this.#rows(threadId)).map((row) => row.messageId);
  }

  /**
   * The thread's archived messages, in archive order (decoded once per row and process); with
   * `last`, only the newest `last` of them (only those are decoded). `last` on a thread this
   * process has not cached reads those rows only ({@link ThreadRegistry.readArchiveTail}) and
   * does not cache the thread: a process serving more threads than it caches pays one indexed
   * query (the newest few rows' decodes are kept, {@link #tails}, so one read again unchanged is
   * not decoded again).
   */
  async messages(threadId: string, last?: number): Promise<BaseMessage[]> {
    if (last !== undefined && !this.#cache.has(threadId)) {
      const tail = await this.#registry.readArchiveTail(threadId, this.#tenantId, last);
      return this.#decodeTail(threadId, tail);
    }
    const cached = await this.#cached(threadId);
    // The whole archive as last decoded, unchanged since (any row read anew drops it): a copy.
    if (last === undefined && cached.decoded) return cached.decoded.slice();
    const version = cached.version;
    const all = orderedRows(cached);
    const rows = last === undefined ? all : all.slice(Math.max(0, all.length - last));
    const out: BaseMessage[] = [];
    for (const row of rows) {
      row.message ??= await this.#decode(threadId, row);
      out.push(row.message);
    }
    // Kept only if no read changed the rows while decoding (another call's #cached in between).
    if (last === undefined && cached.version === version && this.#cache.get(threadId) === cached) cached.decoded = out.slice();
    return out;
  }

  /**
   * What the thread's archive gained since `since` (core's `ArchivedChangesReader`): the rows
   * after the `count` read then, decoded, when the cache is still of the same epoch (every row
   * read since was appended after every cached one: checked on the rows' `seq` and message ids as
   * the registry returns them, never on samples); else the whole archive, as {@link messages}.
   * O(rows new since) decodes and copies, plus the one indexed query of every read.
   */
  async changes(threadId: string, since?: ArchiveCursor): Promise<ArchivedChanges> {
    const cached = await this.#cached(threadId);
    // Captured before any await: rows read meanwhile by another call are appended after `count`
    // (same epoch) or replace the epoch, so this cursor names exactly the rows returned.
    const epoch = cached.epoch;
    const all = orderedRows(cached);
    const count = all.length;
    const previous = since as unknown as RecordsCursor | undefined;
    const appended = previous?.epoch === epoch && previous.count <= count;
    const cursor = { epoch, count } satisfies RecordsCursor as unknown as ArchiveCursor;
    if (!appended && cached.decoded?.length === count) return { cursor, appended, messages: cached.decoded.slice() };
    const out: BaseMessage[] = [];
    for (let i = appended ? previous.count : 0; i < count; i += 1) {
      const row = all[i] as CachedRow;
      row.message ??= await this.#decode(threadId, row);
      out.push(row.message);
    }
    return { cursor, appended, messages: out };
  }

  /**
   * The archived messages a checkpoint's branch had ({@link ArchiveMark} `mark`, the checkpoint's):
   * the rows archived up to it, in archive order, decoded as {@link messages}; none when a rewrite
   * emptied the archive since (they went with it). Rows archived after it are left out: those of
   * its own branch are still in its hot part, the others are another branch's.
   */
  async messagesAt(threadId: string, mark: ArchiveMark): Promise<BaseMessage[]> {
    const cached = await this.#cached(threadId);
    if (cached.clearedStamp > mark.stamp) return [];
    const out: BaseMessage[] = [];
    for (const row of orderedRows(cached)) {
      if (row.seq > mark.seq) break;
      row.message ??= await this.#decode(threadId, row);
      out.push(row.message);
    }
    return out;
  }

  /**
   * The archived copies of those of `messageIds` the thread's archive holds, by message id
   * (decoded once per row and process, as {@link messages}; read from the rows brought up to date).
   */
  async copies(threadId: string, messageIds: readonly string[]): Promise<Map<string, BaseMessage>> {
    const cached = await this.#cached(threadId);
    const out = new Map<string, BaseMessage>();
    for (const id of messageIds) {
      const row = cached.rows.get(id);
      if (!row) continue;
      row.message ??= await this.#decode(threadId, row);
      out.set(id, row.message);
    }
    return out;
  }

  /** Which of `messageIds` are archived for the thread, in the order given (a lookup by key; the cache is not read). */
  async having(threadId: string, messageIds: readonly string[]): Promise<string[]> {
    return this.#registry.archivedAmong(
      threadId,
      this.#tenantId,
      messageIds.filter((id) => id !== ARCHIVE_CLEARED_MESSAGE_ID),
    );
  }

  /**
   * Empties the thread's archive ({@link ThreadRegistry.clearArchive}: only from inside a checkpoint
   * commit of the thread). Its marker row keeps `firstId` and the digests of the messages the
   * archive held (summarize's `coveredDigestsOf`, oldest first; sealed like an archived message
   * when the saver encrypts, bound to the thread): what summarize's coverage check needs to tell a
   * rewrite that brought covered archived messages back unchanged from an edit of them (issue 27,
   * R37). An archive that held no message (a second rewrite before anything was archived again)
   * keeps the previous marker's digests: the messages they stand for may still be in the thread.
   * Decodes the whole archive, once per rewrite: O(archive), unless {@link prepareClear} did it
   * before the lock and no archived row changed since (then O(rows since) and a copy).
   */
  async clear(threadId: string, firstId: string): Promise<void> {
    const messages = (await this.messages(threadId)).filter(isNotSystem);
    const cached = await this.#cached(threadId);
    const prepared = cached.preparedDigests;
    const digests =
      messages.length === 0
        ? cached.clearedDigests
        : prepared !== undefined && prepared.version === cached.version
          ? prepared.digests
          : await this.#sealDigests(threadId, coveredDigestsOf(messages));
    const record = digests === undefined ? firstId : clearedMarkerRecord(firstId, digests);
    await this.#registry.clearArchive(threadId, this.#tenantId, record);
  }

  /**
   * Does the O(archive) part of a coming {@link clear} before the caller takes the thread's lock:
   * decodes the archive as it stands (kept in the cache) and computes and seals the digests its
   * marker will keep, recorded with the cache's `version`. {@link clear}, under the lock, brings the
   * cache up to date (one indexed query, decoding only rows written since) and uses these digests
   * only when no row was read anew since (the same `version` of the same cache entry), else
   * computes them as before: the marker is always that of the archive the lock sees. Without it,
   * a rewrite of a thread with 50k archived messages held the thread's lock for the whole decode
   * (`packages/memory/bench/archive-rewrite.ts`).
   */
  async prepareClear(threadId: string): Promise<void> {
    await this.messages(threadId);
    const cached = this.#cache.get(threadId);
    // `decoded` is the whole archive at the cache's current `version` (any read of new rows drops it).
    const decoded = cached?.decoded;
    if (!cached || !decoded) return;
    const version = cached.version;
    const messages = decoded.filter(isNotSystem);
    if (messages.length === 0) return;
    cached.preparedDigests = { version, digests: await this.#sealDigests(threadId, coveredDigestsOf(messages)) };
  }

  /**
   * The digests the marker of the rewrite that last emptied the thread's archive keeps (see
   * {@link clear}), opened; `undefined` when no rewrite emptied it or its marker was written by
   * an earlier version (it kept the first id only).
   */
  async clearedDigests(threadId: string): Promise<string | undefined> {
    const stored = (await this.#cached(threadId)).clearedDigests;
    if (stored === undefined) return undefined;
    if (this.#saver instanceof EncryptedCheckpointSaver || isSealed(stored)) {
      if (!(this.#saver instanceof EncryptedCheckpointSaver)) throw new ThreadwiseSealedStoreError(threadId);
      return (await this.#saver.serializer.openTyped(stored, "channel-value", { threadId, recordId: CLEARED_DIGESTS_RECORD_ID })) as string;
    }
    return stored;
  }

  /** After a rewrite emptied the thread's archive: the rewritten thread's first message id (`""`: none); else `undefined`. */
  async clearedFirst(threadId: string): Promise<string | undefined> {
    return (await this.#cached(threadId)).clearedFirst;
  }

  /** Where the thread's archive stands now ({@link ThreadRegistry.archiveMark}: one query, the cache is not read). */
  async mark(threadId: string): Promise<ArchiveMark> {
    return this.#registry.archiveMark(threadId, this.#tenantId);
  }

  /**
   * The ids of the thread's archived messages archived after `mark` (a checkpoint's
   * {@link ArchiveMark}), in archive order, those archived up to it (`before`), and whether a
   * rewrite emptied the archive since (`cleared`: then every row now is newer than `mark`, and
   * the rows of `mark`'s time are gone).
   * Read from the rows brought up to date, as {@link ids}.
   */
  async since(threadId: string, mark: ArchiveMark): Promise<{ cleared: boolean; ids: string[]; before: Set<string> }> {
    const cached = await this.#cached(threadId);
    const rows = orderedRows(cached);
    // A marker newer than the mark: the archive was emptied after it (seq starts again then).
    if (cached.clearedStamp > mark.stamp) return { cleared: true, ids: rows.map((row) => row.messageId), before: new Set() };
    const before = new Set<string>();
    const ids: string[] = [];
    for (const row of rows) {
      if (row.seq > mark.seq) ids.push(row.messageId);
      else before.add(row.messageId);
    }
    return { cleared: false, ids, before };
  }

  async #rows(threadId: string): Promise<CachedRow[]> {
    return orderedRows(await this.#cached(threadId));
  }

  /** The thread's cached archive, brought up to date with rows written since its stamp. */
  async #cached(threadId: string): Promise<CachedArchive> {
    let cached = this.#cache.get(threadId);
    if (cached) this.#cache.delete(threadId);
    const read = await this.#registry.readArchive(threadId, this.#tenantId, cached?.stamp ?? 0);
    // A stamp that went down means the thread was deleted (its rows and their stamps are gone); a
    // marker row, that the archive was emptied (a rewrite) under its stamp: rows read with it are newer.
    const marker = read.rows.find((row) => row.messageId === ARCHIVE_CLEARED_MESSAGE_ID);
    if (!cached || read.stamp < cached.stamp || marker)
      cached = { stamp: 0, clearedStamp: 0, rows: new Map(), ordered: undefined, version: 0, epoch: {} };
    if (marker) {
      const parsed = parseMarker(marker.record);
      cached.clearedFirst = parsed.first;
      cached.clearedDigests = parsed.digests;
      cached.clearedStamp = marker.stamp;
      read.rows = read.rows.filter((row) => row.messageId !== ARCHIVE_CLEARED_MESSAGE_ID);
    }
    if (read.rows.length > 0) {
      cached.version += 1;
      cached.decoded = undefined;
      // New rows after every cached one (the usual case: a batch archived since) are appended in
      // place; a rewritten row or an older seq makes the order be built again when next asked.
      const last = cached.ordered?.at(-1)?.seq ?? 0;
      const appended = read.rows.every((row) => row.seq > last && !cached?.rows.has(row.messageId));
      for (const row of read.rows) cached.rows.set(row.messageId, { ...row });
      if (appended && cached.ordered) for (const row of read.rows) cached.ordered.push(cached.rows.get(row.messageId) as CachedRow);
      else {
        cached.ordered = undefined;
        cached.epoch = {};
      }
    }
    cached.stamp = read.stamp;
    this.#cache.set(threadId, cached);
    if (this.#cache.size > ARCHIVE_CACHE_THREADS) this.#cache.delete(this.#cache.keys().next().value as string);
    return cached;
  }

  /**
   * `rows` (a tail read of the thread) decoded, in order: a row whose record is the one the thread's
   * previous tail read kept under its message id is that decode (a record is decoded into the
   * same message every time), the others are decoded now. Keeps this read's newest
   * {@link TAIL_MEMO_ROWS} rows ({@link #tails}).
   */
  async #decodeTail(threadId: string, rows: readonly ArchiveRow[]): Promise<BaseMessage[]> {
    if (this.#saver instanceof EncryptedCheckpointSaver) return Promise.all(rows.map((row) => this.#decode(threadId, row)));
    const previous = this.#tails.get(threadId);
    if (previous) this.#tails.delete(threadId);
    const next = new Map<string, { record: string; message: BaseMessage }>();
    const out: BaseMessage[] = [];
    for (const [i, row] of rows.entries()) {
      const known = previous?.get(row.messageId);
      const message = known !== undefined && known.record === row.record ? known.message : await this.#decode(threadId, row);
      if (i >= rows.length - TAIL_MEMO_ROWS) next.set(row.messageId, { record: row.record, message });
      out.push(message);
    }
    this.#tails.set(threadId, next);
    if (this.#tails.size > ARCHIVE_CACHE_THREADS) this.#tails.delete(this.#tails.keys().next().value as string);
    return out;
  }

  #location(threadId: string, messageId: string): RecordLocation {
    return { threadId, recordId: archivedMessageRecordId(messageId) };
  }

  /** `digests` as a marker keeps them: sealed when the saver encrypts (bound to the thread), else as they are. */
  async #sealDigests(threadId: string, digests: string): Promise<string> {
    if (this.#saver instanceof EncryptedCheckpointSaver)
      return this.#saver.serializer.sealTyped(digests, "channel-value", { threadId, recordId: CLEARED_DIGESTS_RECORD_ID });
    return digests;
  }

  async #encode(threadId: string, message: BaseMessage): Promise<string> {
    if (this.#saver instanceof EncryptedCheckpointSaver)
      return this.#saver.serializer.sealTyped(message, "channel-value", this.#location(threadId, message.id as string));
    const [type, bytes] = await this.#saver.serde.dumpsTyped(message);
    // A view of the serializer's bytes, not a copy of them (the same base64).
    const data = typeof bytes === "string" ? Buffer.from(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return JSON.stringify([type, data.toString("base64")]);
  }

  async #decode(threadId: string, row: ArchiveRow): Promise<BaseMessage> {
    if (this.#saver instanceof EncryptedCheckpointSaver || isSealed(row.record)) {
      if (!(this.#saver instanceof EncryptedCheckpointSaver))
        // Same refusal as a plaintext saver meeting a sealed checkpoint (R26: fail closed).
        throw new ThreadwiseSealedStoreError(threadId);
      return (await this.#saver.serializer.openTyped(row.record, "channel-value", this.#location(threadId, row.messageId))) as BaseMessage;
    }
    const [type, base64] = JSON.parse(row.record) as [string, string];
    return (await this.#saver.serde.loadsTyped(type, new Uint8Array(Buffer.from(base64, "base64")))) as BaseMessage;
  }
}

const isNotSystem = (message: BaseMessage) => messageType(message) !== "system";

/** The cached rows in `seq` (archive) order, sorted once and kept until rows are read anew. */
function orderedRows(cached: CachedArchive): CachedRow[] {
  cached.ordered ??= [...cached.rows.values()].sort((a, b) => a.seq - b.seq);
  return cached.ordered;
}
