import type { MemorySaver } from "@langchain/langgraph-checkpoint";
import { SerialQueue } from "./serial-queue.js";
import { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
import { normalizeThreadId } from "./thread-id.js";
import {
  ARCHIVE_CLEARED_MESSAGE_ID,
  type ArchiveMark,
  type ArchiveRow,
  assertCommit,
  assertWrites,
  type CheckpointCommit,
  type CommitLocked,
  claimCommit,
  NO_ROWS,
  type StoredCheckpoint,
  type StoreOrderQuery,
  type ThreadDeleteOptions,
  type ThreadDeleteOutcome,
  type ThreadHead,
  type ThreadInfo,
  type ThreadRegistry,
  type WritesTarget,
} from "./thread-registry.js";

interface Row {
  updatedAt: number;
  /** The head (root namespace) and its version. */
  headId?: string;
  headVersion?: number;
  /** When the turn lease ends, and when its run started (`now()` clock). */
  leaseUntil?: number;
  leaseStartedAt?: number;
  /** Operation id -> first checkpoint of its run. */
  operations?: Map<string, string>;
  deletedAt?: number;
  reason?: string;
  /** The tenant of the saver whose root checkpoint first wrote the thread ({@link ThreadRegistry.tenantThreads}). */
  tenantId?: string;
}

/** One thread's archive under one tenant. */
interface ArchivedThread {
  /** Rows by message id, in seq order (a new id gets the next seq; a rewritten one keeps its place). */
  rows: Map<string, ArchiveRow>;
  /** The keys of `rows` in the same order, so the newest rows are read without walking them all ({@link MemoryThreadRegistry.readArchiveTail}). */
  order: string[];
  /** Highest `seq` given out. */
  seq: number;
  /** Message ids of each write, in stamp order: a read after a stamp looks at the later writes only. */
  batches: Array<{ stamp: number; ids: string[] }>;
}

/** One thread's store order ({@link MemoryThreadRegistry.storeOrder}): its checkpoints as numbered, oldest first. */
interface ThreadOrder {
  stored: StoredCheckpoint[];
  /** `checkpointKey` of each entry of `stored`. */
  keys: Set<string>;
}

const checkpointKey = (checkpointNs: string, checkpointId: string) => `${checkpointNs}\u0000${checkpointId}`;

/** Milliseconds on a clock no one can set: `Date.now` may be faked or stepped, the lease must not follow it. */
const monotonicNow = () => performance.timeOrigin + performance.now();

/**
 * {@link ThreadRegistry} for `in_memory`: lives in this process next to the MemorySaver, and is
 * lost with it on restart, like the threads themselves. Leases run on a monotonic clock.
 */
export class MemoryThreadRegistry implements ThreadRegistry {
  readonly kind = "in_memory";
  readonly #rows = new Map<string, Row>();
  readonly #saver: MemorySaver;
  readonly #now: () => number;
  readonly #queue = new SerialQueue();
  /** Archived messages: thread id -> tenant id -> that thread's archive. */
  readonly #archive = new Map<string, Map<string, ArchivedThread>>();
  /** Newest archive stamp per thread (kept after deletion, so a reader's stamp is never reused). */
  readonly #stamps = new Map<string, number>();
  /** Store order per thread (spec R38), numbered as each checkpoint commits. */
  readonly #order = new Map<string, ThreadOrder>();

  constructor(saver: MemorySaver, options: { now?: () => number } = {}) {
    this.#saver = saver;
    this.#now = options.now ?? monotonicNow;
  }

  async touch(threadId: string): Promise<void> {
    this.#touch(normalizeThreadId(threadId));
  }

  #touch(threadId: string): Row {
    const row = this.#rows.get(threadId);
    if (row?.deletedAt !== undefined) throw new ThreadwiseThreadDeletedError(threadId, new Date(row.deletedAt));
    if (row) {
      row.updatedAt = this.#now();
      return row;
    }
    const created: Row = { updatedAt: this.#now() };
    this.#rows.set(threadId, created);
    return created;
  }

  // Not `async`: the queue's promise is returned as it is (an async wrapper adds two promises per call).
  commitCheckpoint<T>(threadId: string, commit: CheckpointCommit, write: (locked: CommitLocked) => Promise<T>): Promise<T> {
    return this.#queue.run(async () => {
      const id = normalizeThreadId(threadId);
      const row = this.#touch(id);
      const now = this.#now();
      const leased = row.leaseUntil !== undefined && row.leaseUntil > now;
      assertCommit(id, commit, {
        headId: this.#headOf(id, row)?.checkpointId,
        leaseRemainingMs: leased ? (row.leaseUntil as number) - now : undefined,
        runningForMs: leased ? now - (row.leaseStartedAt ?? now) : undefined,
        operationCheckpointId: commit.operationId === undefined ? undefined : row.operations?.get(commit.operationId),
      });
      // Where the archive stands, read under the queue (archive writes wait for it): no second call for it.
      const tenant = commit.checkpointNs === "" ? commit.archiveTenantId : undefined;
      const order = this.#orderOf(id, false);
      const result = await write(tenant === undefined ? {} : { archiveMark: this.#archiveMark(id, tenant) });
      this.#number(order, commit.checkpointNs, commit.checkpointId);
      if (commit.checkpointNs === "") {
        row.tenantId ??= commit.archiveTenantId;
        row.headId = commit.checkpointId;
        row.headVersion = (row.headVersion ?? 0) + 1;
        if (commit.operationId !== undefined) {
          row.operations ??= new Map();
          row.operations.set(commit.operationId, commit.checkpointId);
        }
        if (commit.leavesTurnOpen) {
          if (commit.startsRun || !leased) row.leaseStartedAt = this.#now();
          row.leaseUntil = this.#now() + commit.turnLeaseMs;
        } else {
          row.leaseUntil = undefined;
          row.leaseStartedAt = undefined;
        }
      }
      return result;
    });
  }

  async storeOrder(threadId: string, query: StoreOrderQuery = {}): Promise<StoredCheckpoint[]> {
    const id = normalizeThreadId(threadId);
    const order = this.#orderOf(id, true);
    const storage = this.#saver.storage[id] ?? {};
    const { checkpointNs, before, idBelow, after, limit } = query;
    const named =
      before === undefined
        ? undefined
        : order.stored.find(
            (entry) =>
              entry.checkpointId === before.checkpointId &&
              (before.checkpointNs === undefined || entry.checkpointNs === before.checkpointNs),
          );
    const listed: StoredCheckpoint[] = [];
    // Newest first: `stored` is in seq order (ties never made here).
    for (let i = order.stored.length - 1; i >= 0 && (limit === undefined || listed.length < limit); i -= 1) {
      const entry = order.stored[i] as StoredCheckpoint;
      if (checkpointNs !== undefined && entry.checkpointNs !== checkpointNs) continue;
      if (named !== undefined ? entry.seq >= named.seq : before !== undefined && entry.checkpointId >= before.checkpointId) continue;
      if (idBelow !== undefined && entry.checkpointId >= idBelow) continue;
      if (after !== undefined && entry.seq >= after.seq) continue;
      // A checkpoint the MemorySaver no longer holds (deleted by it directly) is not listed.
      if (storage[entry.checkpointNs]?.[entry.checkpointId] === undefined) continue;
      listed.push(entry);
    }
    return listed;
  }

  /**
   * The thread's store order, made at its first use: what the MemorySaver already holds (stored
   * without this registry) is numbered by id, the order it was listed in. With `adopt` (a read),
   * a checkpoint stored in the MemorySaver directly since is numbered too, after those before it.
   */
  #orderOf(threadId: string, adopt: boolean): ThreadOrder {
    let order = this.#order.get(threadId);
    if (order !== undefined && !adopt) return order;
    if (order === undefined) {
      order = { stored: [], keys: new Set() };
      this.#order.set(threadId, order);
    }
    const held: Array<[string, string]> = [];
    for (const [ns, checkpoints] of Object.entries(this.#saver.storage[threadId] ?? {}))
      for (const checkpointId of Object.keys(checkpoints))
        if (!order.keys.has(checkpointKey(ns, checkpointId))) held.push([checkpointId, ns]);
    held.sort(([a, an], [b, bn]) => (a < b ? -1 : a > b ? 1 : an < bn ? -1 : an > bn ? 1 : 0));
    for (const [checkpointId, ns] of held) this.#number(order, ns, checkpointId);
    return order;
  }

  /** Gives a checkpoint the thread's next number, once (a checkpoint stored again keeps its number). */
  #number(order: ThreadOrder, checkpointNs: string, checkpointId: string): void {
    const key = checkpointKey(checkpointNs, checkpointId);
    if (order.keys.has(key)) return;
    order.keys.add(key);
    order.stored.push({ checkpointNs, checkpointId, seq: (order.stored.at(-1)?.seq ?? 0) + 1 });
  }

  async head(threadId: string): Promise<ThreadHead | undefined> {
    const id = normalizeThreadId(threadId);
    return this.#headOf(id, this.#rows.get(id));
  }

  async renewLease(threadId: string, checkpointId: string, turnLeaseMs: number): Promise<boolean> {
    const id = normalizeThreadId(threadId);
    return this.#queue.run(async () => {
      const row = this.#rows.get(id);
      if (!row || row.deletedAt !== undefined || row.headId !== checkpointId || row.leaseUntil === undefined) return false;
      row.leaseUntil = this.#now() + turnLeaseMs;
      return true;
    });
  }

  async claimTurn(threadId: string, checkpointId: string, turnLeaseMs: number): Promise<boolean> {
    const id = normalizeThreadId(threadId);
    return this.#queue.run(async () => {
      const row = this.#touch(id);
      const now = this.#now();
      const leased = row.leaseUntil !== undefined && row.leaseUntil > now;
      // A live lease refuses a run resumed anywhere, the head or a branch, before its first call.
      assertCommit(id, claimCommit(checkpointId, turnLeaseMs), {
        headId: checkpointId,
        leaseRemainingMs: leased ? (row.leaseUntil as number) - now : undefined,
        runningForMs: leased ? now - (row.leaseStartedAt ?? now) : undefined,
        operationCheckpointId: undefined,
      });
      if (this.#headOf(id, row)?.checkpointId !== checkpointId) return false;
      row.leaseStartedAt = now;
      row.leaseUntil = now + turnLeaseMs;
      return true;
    });
  }

  async endTurn(threadId: string, checkpointId: string): Promise<boolean> {
    const id = normalizeThreadId(threadId);
    return this.#queue.run(async () => {
      const row = this.#rows.get(id);
      if (!row || row.headId !== checkpointId || row.leaseUntil === undefined) return false;
      row.leaseUntil = undefined;
      row.leaseStartedAt = undefined;
      return true;
    });
  }

  /** The recorded head; for a thread stored without one, its newest checkpoint id (version 0). */
  #headOf(threadId: string, row: Row | undefined): ThreadHead | undefined {
    if (row?.headId !== undefined) return { checkpointId: row.headId, version: row.headVersion ?? 0 };
    const newest = Object.keys(this.#saver.storage[threadId]?.[""] ?? {})
      .sort()
      .at(-1);
    return newest === undefined ? undefined : { checkpointId: newest, version: 0 };
  }

  commitWrites(threadId: string, target: WritesTarget, write: () => Promise<void>): Promise<boolean> {
    return this.#queue.run(async () => {
      const id = normalizeThreadId(threadId);
      const row = this.#touch(id);
      const stored = target.operation === undefined ? undefined : row.operations?.get(target.operation.operationId);
      if (target.operation !== undefined)
        assertWrites(id, target, { headId: this.#headOf(id, row)?.checkpointId, operationCheckpointId: stored });
      if (this.#saver.storage[id]?.[target.checkpointNs]?.[target.checkpointId] === undefined) return false;
      await write();
      if (target.operation?.record && stored === undefined) {
        row.operations ??= new Map();
        row.operations.set(target.operation.operationId, target.checkpointId);
      }
      if (target.endsTurn && target.checkpointNs === "" && row.headId === target.checkpointId) {
        row.leaseUntil = undefined;
        row.leaseStartedAt = undefined;
      }
      return true;
    });
  }

  async listIdle(idleBefore: Date, limit = 10_000): Promise<ThreadInfo[]> {
    return [...this.#rows.entries()]
      .filter(([, row]) => row.deletedAt === undefined && row.updatedAt < idleBefore.getTime())
      .sort((a, b) => a[1].updatedAt - b[1].updatedAt)
      .slice(0, limit)
      .map(([threadId, row]) => ({ threadId, updatedAt: new Date(row.updatedAt), ...this.#counts(threadId) }));
  }

  async describe(threadId: string): Promise<ThreadInfo | undefined> {
    threadId = normalizeThreadId(threadId);
    const row = this.#rows.get(threadId);
    if (!row || row.deletedAt !== undefined) return undefined;
    return { threadId, updatedAt: new Date(row.updatedAt), ...this.#counts(threadId) };
  }

  async tenantThreads(tenantId: string, limit: number, after?: string): Promise<ThreadInfo[]> {
    return [...this.#rows.entries()]
      .filter(
        ([threadId, row]) =>
          row.deletedAt === undefined &&
          (after === undefined || threadId > after) &&
          (row.tenantId === tenantId || (row.tenantId === undefined && (this.#archive.get(threadId)?.get(tenantId)?.rows.size ?? 0) > 0)),
      )
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, limit)
      .map(([threadId, row]) => ({ threadId, updatedAt: new Date(row.updatedAt), ...this.#counts(threadId) }));
  }

  async unattributedThreads(): Promise<number> {
    return [...this.#rows.entries()].filter(
      ([threadId, row]) =>
        row.deletedAt === undefined &&
        row.tenantId === undefined &&
        ![...(this.#archive.get(threadId)?.values() ?? [])].some((archived) => archived.rows.size > 0),
    ).length;
  }

  async deleteTenantArchive(tenantId: string, limit: number): Promise<number> {
    return this.#queue.run(async () => {
      let count = 0;
      for (const [threadId, tenants] of this.#archive) {
        const archived = tenants.get(tenantId);
        const row = this.#rows.get(threadId);
        if (!archived || (row && row.deletedAt === undefined && (row.tenantId === tenantId || row.tenantId === undefined))) continue;
        for (const messageId of [...archived.rows.keys()]) {
          if (limit > 0 && count >= limit) break;
          if (limit > 0) archived.rows.delete(messageId);
          count += 1;
        }
        archived.order = [...archived.rows.keys()];
        if (archived.rows.size === 0) tenants.delete(tenantId);
        if (limit > 0 && count >= limit) return count;
      }
      return count;
    });
  }

  async deleteThread(threadId: string, options: ThreadDeleteOptions = {}): Promise<ThreadDeleteOutcome> {
    threadId = normalizeThreadId(threadId);
    // Queued with the writes, so a write in flight finishes first and the next one meets the tombstone.
    return this.#queue.run(async (): Promise<ThreadDeleteOutcome> => {
      const row = this.#rows.get(threadId);
      if (!row) return { threadId, status: "not_found", counts: NO_ROWS };
      if (row.deletedAt !== undefined) return { threadId, status: "already_deleted", counts: NO_ROWS };
      if (options.idleBefore && row.updatedAt >= options.idleBefore.getTime()) return { threadId, status: "updated", counts: NO_ROWS };
      const counts = this.#counts(threadId);
      await this.#saver.deleteThread(threadId);
      this.#archive.delete(threadId);
      this.#order.delete(threadId);
      this.#rows.set(threadId, {
        updatedAt: row.updatedAt,
        deletedAt: this.#now(),
        reason: options.reason ?? "api",
        tenantId: row.tenantId,
      });
      return { threadId, status: "deleted", counts };
    });
  }

  archiveMessages(threadId: string, tenantId: string, rows: ReadonlyArray<{ messageId: string; record: string }>): Promise<number> {
    return this.#queue.run(() => {
      const id = normalizeThreadId(threadId);
      this.#touch(id);
      const stamp = (this.#stamps.get(id) ?? 0) + 1;
      this.#stamps.set(id, stamp);
      const tenants = this.#archive.get(id) ?? new Map<string, ArchivedThread>();
      this.#archive.set(id, tenants);
      const archived = tenants.get(tenantId) ?? { rows: new Map<string, ArchiveRow>(), order: [], seq: 0, batches: [] };
      tenants.set(tenantId, archived);
      const ids: string[] = [];
      for (const { messageId, record } of rows) {
        const current = archived.rows.get(messageId);
        if (current === undefined) {
          archived.seq += 1;
          archived.order.push(messageId);
        }
        archived.rows.set(messageId, { messageId, seq: current?.seq ?? archived.seq, stamp, record });
        ids.push(messageId);
      }
      archived.batches.push({ stamp, ids });
      return stamp;
    });
  }

  async clearArchive(threadId: string, tenantId: string, firstId: string): Promise<void> {
    // Runs inside commitCheckpoint's write, which holds the queue: no queue here.
    const id = normalizeThreadId(threadId);
    const archived = this.#archive.get(id)?.get(tenantId);
    if (!archived) return;
    const stamp = (this.#stamps.get(id) ?? 0) + 1;
    this.#stamps.set(id, stamp);
    archived.rows.clear();
    archived.rows.set(ARCHIVE_CLEARED_MESSAGE_ID, { messageId: ARCHIVE_CLEARED_MESSAGE_ID, seq: 0, stamp, record: firstId });
    archived.order = [ARCHIVE_CLEARED_MESSAGE_ID];
    archived.batches = [{ stamp, ids: [ARCHIVE_CLEARED_MESSAGE_ID] }];
  }

  async archiveMark(threadId: string, tenantId: string): Promise<ArchiveMark> {
    return this.#archiveMark(normalizeThreadId(threadId), tenantId);
  }

  #archiveMark(id: string, tenantId: string): ArchiveMark {
    const archived = this.#archive.get(id)?.get(tenantId);
    // No row under this tenant: stamp 0, as SQLite's and PostgreSQL's max() over the tenant's rows
    // (was the thread's stamp, which another tenant's archive raises; readThread tells a wrong tenant by it).
    if (!archived) return { stamp: 0, seq: 0 };
    // Rows leave only all at once (a rewrite, leaving its marker): while any message row is left, the highest seq given out is one's.
    const messages = archived.rows.size - (archived.rows.has(ARCHIVE_CLEARED_MESSAGE_ID) ? 1 : 0);
    return { stamp: this.#stamps.get(id) ?? 0, seq: messages > 0 ? archived.seq : 0 };
  }

  async archivedAmong(threadId: string, tenantId: string, messageIds: readonly string[]): Promise<string[]> {
    const archived = this.#archive.get(normalizeThreadId(threadId))?.get(tenantId);
    return archived ? messageIds.filter((id) => archived.rows.has(id)) : [];
  }

  async readArchive(threadId: string, tenantId: string, afterStamp: number): Promise<{ stamp: number; rows: ArchiveRow[] }> {
    const id = normalizeThreadId(threadId);
    const archived = this.#archive.get(id)?.get(tenantId);
    if (!archived) return { stamp: 0, rows: [] };
    const stamp = this.#stamps.get(id) ?? 0;
    if (stamp <= afterStamp) return { stamp, rows: [] };
    // Only the batches written after `afterStamp`, newest first; a row rewritten by a later batch is read with that one.
    const rows = new Map<string, ArchiveRow>();
    for (let b = archived.batches.length - 1; b >= 0; b -= 1) {
      const batch = archived.batches[b] as ArchivedThread["batches"][number];
      if (batch.stamp <= afterStamp) break;
      for (const messageId of batch.ids) {
        const row = archived.rows.get(messageId) as ArchiveRow;
        if (row.stamp === batch.stamp) rows.set(messageId, row);
      }
    }
    return { stamp, rows: [...rows.values()].sort((a, b) => a.seq - b.seq).map((row) => ({ ...row })) };
  }

  async readArchiveTail(threadId: string, tenantId: string, last: number): Promise<ArchiveRow[]> {
    const archived = this.#archive.get(normalizeThreadId(threadId))?.get(tenantId);
    if (!archived) return [];
    // `order` is in seq order: a new message id is appended with the next seq, a rewritten one
    // keeps its place and seq, and a clearing empties it before its marker (seq 0). O(last), not
    // O(archive): only the rows returned are read and copied.
    const { order, rows } = archived;
    const tail: ArchiveRow[] = [];
    for (let k = order.length - 1; k >= 0 && tail.length < last; k -= 1) {
      const messageId = order[k] as string;
      if (messageId !== ARCHIVE_CLEARED_MESSAGE_ID) tail.push({ ...(rows.get(messageId) as ArchiveRow) });
    }
    return tail.reverse();
  }

  /** Always `false`: an in-memory store lives and dies with its one saver, which either seals or does not. */
  async holdsSealedRecords(): Promise<boolean> {
    return false;
  }

  async deletedAmong(threadIds: readonly string[]): Promise<string[]> {
    return threadIds.filter((threadId) => this.#rows.get(threadId)?.deletedAt !== undefined);
  }

  async tombstone(threadId: string): Promise<{ deletedAt: Date; reason: string } | undefined> {
    threadId = normalizeThreadId(threadId);
    const row = this.#rows.get(threadId);
    return row?.deletedAt !== undefined ? { deletedAt: new Date(row.deletedAt), reason: row.reason ?? "api" } : undefined;
  }

  #counts(threadId: string) {
    const namespaces = this.#saver.storage[threadId] ?? {};
    const checkpoints = Object.values(namespaces).reduce((sum, ns) => sum + Object.keys(ns).length, 0);
    const writes = Object.entries(this.#saver.writes)
      .filter(([key]) => (JSON.parse(key) as unknown[])[0] === threadId)
      .reduce((sum, [, value]) => sum + Object.keys(value).length, 0);
    let archived = 0;
    for (const thread of this.#archive.get(threadId)?.values() ?? []) archived += thread.rows.size;
    return { checkpoints, blobs: 0, writes, archived };
  }
}
