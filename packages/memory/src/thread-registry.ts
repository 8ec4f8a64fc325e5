/**
 * Rows removed (or, in a dry run, that would be removed) for one thread. SQLite and MemorySaver
 * keep blobs inside checkpoints, so `blobs` is 0 there.
 */
export interface ThreadRowCounts {
  /** Checkpoints of the thread, every namespace. */
  checkpoints: number;
  /** Channel blobs (PostgreSQL only). */
  blobs: number;
  /** Pending writes. */
  writes: number;
}

/** One thread as the registry sees it. */
export interface ThreadInfo extends ThreadRowCounts {
  threadId: string;
  /** Last write to the thread (a checkpoint or pending write). */
  updatedAt: Date;
}

/** What happened to one thread in a delete. */
export interface ThreadDeleteOutcome {
  threadId: string;
  /** `deleted`; or why not: written after the idle cutoff (`updated`), already a tombstone, or unknown. */
  status: "deleted" | "updated" | "already_deleted" | "not_found";
  /** Rows removed; zeros unless `status` is `deleted`. */
  counts: ThreadRowCounts;
}

/** Options of {@link ThreadRegistry.deleteThread}. */
export interface ThreadDeleteOptions {
  /**
   * Delete only if the thread's last write is still before this instant when re-checked under the
   * thread's lock (spec R23); a thread written meanwhile survives with status `updated`.
   */
  idleBefore?: Date;
  /** Why, kept on the tombstone (`prune`, `retention`, `api`). @default "api" */
  reason?: string;
}

/**
 * Per-thread bookkeeping next to a checkpointer's tables: when each thread was last written, and
 * tombstones of deleted threads (spec R23, R24). All state lives in the store, so any number of
 * processes can share it; nothing is cached in memory.
 */
export interface ThreadRegistry {
  /** Which store: `postgres`, `sqlite` or `in_memory`. */
  readonly kind: string;
  /**
   * Records a write to `threadId` (creating its row on the first write).
   * @throws ThreadwiseThreadDeletedError when the thread has a tombstone.
   */
  touch(threadId: string): Promise<void>;
  /** Threads (not deleted) whose last write is before `idleBefore`, oldest first, with row counts. */
  listIdle(idleBefore: Date, limit?: number): Promise<ThreadInfo[]>;
  /** One live thread with its row counts, or `undefined` when it has no rows or is deleted. */
  describe(threadId: string): Promise<ThreadInfo | undefined>;
  /**
   * Deletes every row of the thread (checkpoints, blobs, writes: with them its summary, facts and
   * work memory, which live in checkpointed state) and leaves a tombstone, in one transaction
   * holding the thread's lock.
   */
  deleteThread(threadId: string, options?: ThreadDeleteOptions): Promise<ThreadDeleteOutcome>;
  /** The tombstone of a deleted thread, or `undefined`. */
  tombstone(threadId: string): Promise<{ deletedAt: Date; reason: string } | undefined>;
}

/** A zeroed {@link ThreadRowCounts}. */
export const NO_ROWS: ThreadRowCounts = Object.freeze({ checkpoints: 0, blobs: 0, writes: 0 });
