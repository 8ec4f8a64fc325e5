import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";

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
 * What {@link ThreadwiseSaver} asks of the registry before a checkpoint is stored (spec R34):
 * the compare-and-set on the thread's newest checkpoint, and the turn lease.
 */
export interface CheckpointCommit {
  /** `checkpoint_ns` of the checkpoint; only the root namespace `""` is compared and leased. */
  checkpointNs: string;
  /** `configurable.checkpoint_id` of the put: the checkpoint this one follows (`undefined` on an empty thread). */
  parentId: string | undefined;
  /** Id of the checkpoint being stored. */
  checkpointId: string;
  /** The checkpoint starts a run (LangGraph metadata `source: "input"`): a new turn. */
  startsTurn: boolean;
  /** The checkpoint still has tasks to run (the run is not over when it is stored). */
  leavesTurnOpen: boolean;
  /** How long a run's open checkpoint keeps other turns out without progress, in milliseconds. */
  turnLeaseMs: number;
}

/** The checkpoint pending writes belong to, for {@link ThreadRegistry.commitWrites}. */
export interface WritesTarget {
  checkpointNs: string;
  checkpointId: string;
  /** The writes record an error or an interrupt: the run stopped, its turn lease ends. */
  endsTurn: boolean;
}

/**
 * The compare-and-set both SQL registries and the in-memory one run under the thread's lock:
 * refuses a checkpoint whose parent is not the newest checkpoint (`headId`), and a new turn on top
 * of a run still in progress (open for `openForMs` < the lease).
 * @throws ThreadwiseConcurrentTurnError
 */
export function assertCommit(threadId: string, commit: CheckpointCommit, headId: string | undefined, openForMs: number | undefined): void {
  if (commit.checkpointNs !== "") return;
  if ((commit.parentId ?? undefined) !== headId)
    throw new ThreadwiseConcurrentTurnError(threadId, "stale-parent", { parentId: commit.parentId, headId });
  if (commit.startsTurn && openForMs !== undefined && openForMs < commit.turnLeaseMs)
    throw new ThreadwiseConcurrentTurnError(threadId, "turn-in-progress", {
      parentId: commit.parentId,
      headId,
      retryAfterMs: commit.turnLeaseMs - openForMs,
    });
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
  /**
   * Runs `write` (the wrapped saver's `put`) in one transaction with the tombstone check, the
   * compare-and-set of {@link assertCommit} and the turn-lease update, holding the thread's lock
   * (row lock on PostgreSQL, `BEGIN IMMEDIATE` on SQLite) only for the length of the write.
   * @throws ThreadwiseThreadDeletedError; ThreadwiseConcurrentTurnError (nothing stored).
   */
  commitCheckpoint<T>(threadId: string, commit: CheckpointCommit, write: () => Promise<T>): Promise<T>;
  /**
   * Runs `write` (the wrapped saver's `putWrites`) in one transaction with the tombstone check,
   * if checkpoint `checkpointId` is stored; `endsTurn` (an error or interrupt was written)
   * releases the turn lease. Returns `false`, writing nothing, when the checkpoint is not stored
   * (yet: see `ThreadwiseSaver.putWrites`).
   * @throws ThreadwiseThreadDeletedError (nothing stored).
   */
  commitWrites(threadId: string, target: WritesTarget, write: () => Promise<void>): Promise<boolean>;
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
