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
  /** Archived messages (issue 27), every tenant. */
  archived: number;
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
 * What {@link ThreadwiseSaver} asks of the registry before a checkpoint is stored (spec R34, R38):
 * the compare-and-set on the thread's head, the turn lease and the operation id. The registry
 * reads it when {@link ThreadRegistry.commitCheckpoint} is called: it may move the head in the
 * statement that takes the thread's lock, before `write` runs (SQLite), so the caller settles
 * every field first.
 */
export interface CheckpointCommit {
  /** `checkpoint_ns` of the checkpoint; only the root namespace `""` has a head, a lease and operations. */
  checkpointNs: string;
  /** `configurable.checkpoint_id` of the put: the checkpoint this one follows (`undefined` on an empty thread). */
  parentId: string | undefined;
  /** Id of the checkpoint being stored. */
  checkpointId: string;
  /**
   * The checkpoint starts a run: LangGraph metadata `source` `"input"` (a new turn), `"fork"` (a
   * replay or resume from an older checkpoint) or `"update"` (`updateState`). A run start is
   * refused while another run holds the thread's lease.
   */
  startsRun: boolean;
  /**
   * The run starts from a checkpoint the caller chose (an explicit `configurable.checkpoint_id`,
   * `updateState`, a replay): a branch. It is stored whatever the head is, and becomes the head.
   * An implicit run start (`false`) is stored only on top of the head (`stale-parent` otherwise).
   */
  branch: boolean;
  /** The checkpoint still has tasks to run (the run is not over when it is stored): the lease is taken or renewed. */
  leavesTurnOpen: boolean;
  /** Lease length in milliseconds: how long the run keeps other runs out without progress or heartbeat. */
  turnLeaseMs: number;
  /**
   * `configurable.operation_id` of a run's first checkpoint (a run start, or the first checkpoint a
   * resumed run stores): stored at most once per thread (spec R38), refused `duplicate-operation`
   * when already stored.
   */
  operationId?: string;
  /**
   * Tenant of the thread's archive (root namespace only): a registry that can read where that
   * archive stands with the statement taking the thread's lock hands it to `write` as
   * {@link CommitLocked.archiveMark} (SQLite, in memory; PostgreSQL with the statement right after it, in
   * the same round trip); the others leave it to {@link ThreadRegistry.archiveMark}.
   */
  archiveTenantId?: string;
  /**
   * Message ids of the checkpoint's pending input to look up in the thread's archive under
   * {@link archiveTenantId} (an input put's `archived-edit` check, R37): a registry that can read
   * them with the statement taking the thread's lock hands those archived to `write` as
   * {@link CommitLocked.archivedInput} (SQLite); the others leave it to {@link ThreadRegistry.archivedAmong}.
   */
  archiveLookupIds?: readonly string[];
}

/** What {@link ThreadRegistry.commitCheckpoint} read under the thread's lock, handed to its `write`. */
export interface CommitLocked {
  /**
   * Where the thread's archive under {@link CheckpointCommit.archiveTenantId} stood when the lock
   * was taken; `undefined` when not asked for or not read with the lock (then ask
   * {@link ThreadRegistry.archiveMark}, which inside `write` sees the same state).
   */
  archiveMark?: ArchiveMark;
  /**
   * Which of {@link CheckpointCommit.archiveLookupIds} the archive held when the lock was taken, in
   * the order given (as {@link ThreadRegistry.archivedAmong}); `undefined` when not asked for or
   * not read with the lock.
   */
  archivedInput?: string[];
}

/** The checkpoint pending writes belong to, for {@link ThreadRegistry.commitWrites}. */
export interface WritesTarget {
  checkpointNs: string;
  checkpointId: string;
  /** The writes record an error or an interrupt: the run stopped, its turn lease ends. */
  endsTurn: boolean;
  /**
   * Writes of a run carrying `configurable.operation_id` sent before the run stored anything else
   * (its `Command`'s update, goto or resume, which LangGraph sends for the checkpoint the run
   * starts from, before the run's first checkpoint; the first step's writes of a run resumed at the
   * head): refused by {@link assertWrites} under the thread's lock, nothing written, when another
   * run already stored that operation; with {@link WritesOperation.record}, the operation is
   * stored with them.
   */
  operation?: WritesOperation;
}

/** The run that sent writes of no task, for {@link WritesTarget.operation}. */
export interface WritesOperation {
  /** `configurable.operation_id` of the run. */
  operationId: string;
  /**
   * The checkpoint id the run's operation is (or is being) stored under: its first checkpoint's
   * once that put was sent, or the one its first writes were stored on; else `undefined`. An
   * operation stored under it is the run's own.
   */
  runStartedWith(): string | undefined;
  /**
   * These writes are the first the run stores (a run resumed at the head, interrupted or failing
   * in its first step, stores no checkpoint): the operation is stored with them, under
   * {@link WritesTarget.checkpointId}, in the same transaction, if no run stored it yet.
   */
  record?: boolean;
}

/**
 * One checkpoint of a thread in store order ({@link ThreadRegistry.storeOrder}): `seq` is the
 * thread's insertion sequence, 1 for its first stored checkpoint, raised by 1 at each checkpoint
 * stored after it (every namespace), whatever its id sorts as (spec R38).
 */
export interface StoredCheckpoint {
  checkpointNs: string;
  checkpointId: string;
  seq: number;
}

/** What {@link ThreadRegistry.storeOrder} reads: a thread's checkpoints newest first by store order, optionally a window of them. */
export interface StoreOrderQuery {
  /** Only this namespace; `undefined`: every namespace. */
  checkpointNs?: string;
  /**
   * Only those stored before the checkpoint of the thread with this id (and namespace, when
   * given); when the thread holds none, those whose id sorts before it (as LangGraph's savers read `before`).
   */
  before?: { checkpointId: string; checkpointNs?: string };
  /** Only those whose id sorts before this one (a `before` naming another thread's checkpoint, read as LangGraph's savers do). */
  idBelow?: string;
  /** Only those after this one in the listing (it was the last of the previous page). */
  after?: StoredCheckpoint;
  /** At most this many; `undefined`: all. */
  limit?: number;
}

/** A thread's head as the registry records it: moved in the transaction of each root-namespace write. */
export interface ThreadHead {
  /** The thread's newest checkpoint (root namespace), whatever its id sorts as. */
  checkpointId: string;
  /** Counter raised by 1 on each move of the head; 0 for a head adopted from a store written before heads were recorded. */
  version: number;
}

/** What the registry read under the thread's lock, for {@link assertCommit}. */
export interface CommitState {
  /** The head, `undefined` on an empty thread. */
  headId: string | undefined;
  /** Milliseconds the current lease still runs, by the database's clock; `undefined` when no lease is live. */
  leaseRemainingMs: number | undefined;
  /** Milliseconds since the leased run started, by the database's clock (`undefined` without a live lease). */
  runningForMs: number | undefined;
  /** The checkpoint an earlier run with the same operation id started with, when there is one. */
  operationCheckpointId: string | undefined;
}

/** The commit {@link assertCommit} checks for {@link ThreadRegistry.claimTurn}: a run starting at `checkpointId`, a branch (no head comparison). */
export function claimCommit(checkpointId: string, turnLeaseMs: number): CheckpointCommit {
  return { checkpointNs: "", parentId: checkpointId, checkpointId, startsRun: true, branch: true, leavesTurnOpen: true, turnLeaseMs };
}

/** Shortest suggested wait in a `turn-in-progress` refusal, in milliseconds. */
const MIN_RETRY_AFTER_MS = 100;

/**
 * The checks both SQL registries and the in-memory one run under the thread's lock (spec R34, R38):
 *
 * - a run's first checkpoint carrying an operation id already stored: `duplicate-operation` (not retryable);
 * - a run start while another run's lease is live: `turn-in-progress`, with `retryAfterMs` (about
 *   as long as that run has run so far, at most until its lease ends) and `leaseExpiresInMs`;
 * - an implicit run start whose parent is not the head: `stale-parent` (another turn committed);
 * - a step of a run whose parent is no longer the head: `lease-lost` (the run went silent for
 *   longer than its lease and another run took the thread).
 *
 * A branch (explicit checkpoint, `updateState`, replay) skips the head comparison: forks are allowed.
 * @throws ThreadwiseConcurrentTurnError
 */
export function assertCommit(threadId: string, commit: CheckpointCommit, state: CommitState): void {
  if (commit.checkpointNs !== "") return;
  const ids = { parentId: commit.parentId, headId: state.headId };
  if (commit.operationId !== undefined && state.operationCheckpointId !== undefined)
    throw duplicateOperation(threadId, commit.operationId, state.operationCheckpointId, ids);
  if (commit.startsRun) {
    if (state.leaseRemainingMs !== undefined && state.leaseRemainingMs > 0)
      throw new ThreadwiseConcurrentTurnError(threadId, "turn-in-progress", {
        ...ids,
        leaseExpiresInMs: state.leaseRemainingMs,
        retryAfterMs: Math.min(state.leaseRemainingMs, Math.max(MIN_RETRY_AFTER_MS, state.runningForMs ?? 0)),
      });
    if (!commit.branch && (commit.parentId ?? undefined) !== state.headId)
      throw new ThreadwiseConcurrentTurnError(threadId, "stale-parent", ids);
    return;
  }
  if ((commit.parentId ?? undefined) !== state.headId)
    throw new ThreadwiseConcurrentTurnError(threadId, "lease-lost", { ...ids, storedCheckpointId: commit.parentId });
}

/**
 * The check the registries run under the thread's lock before pending writes with
 * {@link WritesTarget.operation} are written (spec R38): the operation already stored by another
 * run (not under the checkpoint {@link WritesOperation.runStartedWith} names) refuses them with
 * `duplicate-operation`, so a retried `Command` turn is refused before its first model call and a
 * retried resume stores nothing of its own.
 * @param state the thread's head and the checkpoint the stored operation's run began with, read under the lock.
 * @throws ThreadwiseConcurrentTurnError
 */
export function assertWrites(threadId: string, target: WritesTarget, state: Pick<CommitState, "headId" | "operationCheckpointId">): void {
  const { operation } = target;
  const stored = state.operationCheckpointId;
  if (operation === undefined || stored === undefined || stored === operation.runStartedWith()) return;
  throw duplicateOperation(threadId, operation.operationId, stored, { parentId: target.checkpointId, headId: state.headId });
}

function duplicateOperation(
  threadId: string,
  operationId: string,
  storedCheckpointId: string,
  ids: { parentId: string | undefined; headId: string | undefined },
): ThreadwiseConcurrentTurnError {
  return new ThreadwiseConcurrentTurnError(threadId, "duplicate-operation", { ...ids, operationId, storedCheckpointId });
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
   * checks of {@link assertCommit}, the move of the head and the turn-lease update, holding the thread's lock
   * (row lock on PostgreSQL, `BEGIN IMMEDIATE` on SQLite) only for the length of the write.
   * @throws ThreadwiseThreadDeletedError; ThreadwiseConcurrentTurnError (nothing stored).
   */
  commitCheckpoint<T>(threadId: string, commit: CheckpointCommit, write: (locked: CommitLocked) => Promise<T>): Promise<T>;
  /**
   * The thread's head (root namespace), `undefined` for a thread without checkpoints. A thread
   * stored before heads were recorded gets its newest checkpoint id as head (version 0).
   */
  head(threadId: string): Promise<ThreadHead | undefined>;
  /**
   * The thread's checkpoints newest first by store order (the insertion sequence the registry
   * gives each checkpoint as it is stored; ties, which a registry never makes, by greater id), as
   * `query` narrows them: ids and sequence only, no checkpoint read. Checkpoints stored before the
   * sequence existed (a store of schema version 6) were numbered in id order by the migration.
   */
  storeOrder(threadId: string, query?: StoreOrderQuery): Promise<StoredCheckpoint[]>;
  /**
   * Heartbeat of a running turn: extends the lease to `turnLeaseMs` from now (database time) if
   * `checkpointId` is still the head and the lease is still the run's. Returns `false` otherwise
   * (the run ended, or lost the thread).
   */
  renewLease(threadId: string, checkpointId: string, turnLeaseMs: number): Promise<boolean>;
  /**
   * Takes the turn lease for a run resumed at `checkpointId` that stored no checkpoint yet (a
   * resume at the head, a HITL `Command`: LangGraph stores its first checkpoint only after its
   * first task), before that task's model or tool call: when `checkpointId` is the head and no
   * run's lease is live, the lease is taken for `turnLeaseMs` from now (database time) and `true`
   * returned. `false`, changing nothing, when `checkpointId` is not the head and no lease is live
   * (a branch: its first put starts a run on it, checked as a fork's input).
   * @throws ThreadwiseConcurrentTurnError (`turn-in-progress`, as {@link assertCommit}) when a lease
   *   is live, at the head or not (a branch resumed while another turn runs is refused before its
   *   first call, as a fork's input is at its first put); ThreadwiseThreadDeletedError.
   */
  claimTurn(threadId: string, checkpointId: string, turnLeaseMs: number): Promise<boolean>;
  /**
   * Ends the turn lease of a run that failed after storing `checkpointId` (its next checkpoint
   * was not stored, so no error or interrupt write will end it): clears the lease if
   * `checkpointId` is still the head and a lease is held. Returns `false`, changing nothing,
   * otherwise (the head moved on: the lease is another run's, or there is none).
   */
  endTurn(threadId: string, checkpointId: string): Promise<boolean>;
  /**
   * Runs `write` (the wrapped saver's `putWrites`) in one transaction with the tombstone check and
   * {@link assertWrites}, if checkpoint `checkpointId` is stored; `endsTurn` (an error or
   * interrupt was written) releases the turn lease. Returns `false`, writing nothing, when the
   * checkpoint is not stored (yet: see `ThreadwiseSaver.putWrites`).
   * @throws ThreadwiseThreadDeletedError; ThreadwiseConcurrentTurnError (`duplicate-operation`); nothing stored.
   */
  commitWrites(threadId: string, target: WritesTarget, write: () => Promise<void>): Promise<boolean>;
  /** Threads (not deleted) whose last write is before `idleBefore`, oldest first, with row counts. */
  listIdle(idleBefore: Date, limit?: number): Promise<ThreadInfo[]>;
  /** One live thread with its row counts, or `undefined` when it has no rows or is deleted. */
  describe(threadId: string): Promise<ThreadInfo | undefined>;
  /**
   * Live threads of tenant `tenantId` (`eraseTenant`), ordered by thread id, at most `limit`
   * (a whole number >= 1), with row counts: those whose recorded tenant is `tenantId` (the
   * saver's tenant, recorded with a thread's first root checkpoint, see
   * {@link CheckpointCommit.archiveTenantId}), and those with no recorded tenant (written before
   * it was recorded) holding archived messages under `tenantId`. `after`: only ids sorting after
   * it (the last id of the previous page).
   */
  tenantThreads(tenantId: string, limit: number, after?: string): Promise<ThreadInfo[]>;
  /**
   * How many live threads no tenant can be told for: no recorded tenant (written before it was
   * recorded) and no archived messages. `eraseTenant` reports them and leaves them.
   */
  unattributedThreads(): Promise<number>;
  /**
   * Archived messages under `tenantId` on threads that are not its (not in
   * {@link tenantThreads}: another tenant's thread, a tombstone): deletes at most `limit` of
   * them in one transaction and returns how many, or with `limit` 0 only counts them all.
   */
  deleteTenantArchive(tenantId: string, limit: number): Promise<number>;
  /**
   * Deletes every row of the thread (checkpoints, blobs, writes: with them its summary, facts and
   * work memory, which live in checkpointed state; its archived messages, every tenant) and leaves a tombstone, in one transaction
   * holding the thread's lock.
   */
  deleteThread(threadId: string, options?: ThreadDeleteOptions): Promise<ThreadDeleteOutcome>;
  /**
   * Whether any checkpoint in the store holds records sealed by `@threadwise/encryption` (its
   * metadata carries the sealed copy): a plaintext saver on such a store refuses every write
   * (spec R26, R38). Scans the checkpoints table; `ThreadwiseSaver` asks once.
   */
  holdsSealedRecords(): Promise<boolean>;
  /**
   * Upserts `rows` (message id, encoded record) into the thread's archive under `tenantId`, in one
   * transaction with the tombstone check (a deleted thread refuses it). A message id already
   * archived keeps its position (`seq`) and takes the new record; new ids are appended in the
   * order given. Idempotent: the same rows again change nothing but the stamp.
   * @returns the stamp of this write.
   * @throws ThreadwiseThreadDeletedError (nothing stored).
   */
  archiveMessages(threadId: string, tenantId: string, rows: ReadonlyArray<{ messageId: string; record: string }>): Promise<number>;
  /**
   * The thread's archive rows written after stamp `afterStamp` (0: all), ordered by `seq`, and
   * the newest stamp of the thread (0 when it has no archive; lower than `afterStamp` after the
   * thread was deleted).
   */
  readArchive(threadId: string, tenantId: string, afterStamp: number): Promise<{ stamp: number; rows: ArchiveRow[] }>;
  /**
   * The thread's newest `last` archive rows (highest `seq`; a positive integer), ordered by `seq`:
   * one indexed query, for a reader that has not cached the thread (summarize's coverage check
   * and messageArchive read the newest archived message only). `[]` without an archive.
   */
  readArchiveTail(threadId: string, tenantId: string, last: number): Promise<ArchiveRow[]>;
  /**
   * Where the thread's archive under `tenantId` stands ({@link ArchiveMark}): its newest stamp and
   * its highest `seq` of a message row. Two indexed lookups, whatever the archive's size;
   * `ThreadwiseSaver` reads it in each root checkpoint's commit (inside that transaction it sees
   * that transaction's state) and records it in the checkpoint's metadata.
   */
  archiveMark(threadId: string, tenantId: string): Promise<ArchiveMark>;
  /**
   * Which of `messageIds` are in the thread's archive under `tenantId`, in the order given: a
   * lookup by primary key, whatever the archive's size. Inside a write transaction of the thread
   * it sees that transaction's state.
   */
  archivedAmong(threadId: string, tenantId: string, messageIds: readonly string[]): Promise<string[]>;
  /**
   * Empties the thread's archive under `tenantId` (a rewrite of the thread, see
   * `ThreadwiseSaver`): deletes its rows and leaves one marker row (message id
   * {@link ARCHIVE_CLEARED_MESSAGE_ID}, `seq` 0, record `firstId`: the id of the rewritten
   * thread's first message, `""` when it has none) under a new stamp, so stamps keep growing, a
   * reader holding rows from before learns they are gone, and a branch from before the rewrite
   * can be told apart (its first message is another). Call it only from inside
   * {@link commitCheckpoint}'s `write` of the same thread: it runs in that transaction and under
   * its lock, so the archive empties if and only if the checkpoint commits.
   */
  clearArchive(threadId: string, tenantId: string, firstId: string): Promise<void>;
  /**
   * Called once by `ThreadwiseSaver` with the saver it wraps: a registry may tune how that saver
   * reaches the store it shares (SQLite: its write statements stay prepared,
   * `SqliteThreadRegistry.saverDatabase`). Changes no stored data and no result.
   */
  adoptSaver?(saver: object): void;
  /** The tombstone of a deleted thread, or `undefined`. */
  tombstone(threadId: string): Promise<{ deletedAt: Date; reason: string } | undefined>;
  /**
   * Which of `threadIds` (normalized thread ids) have a tombstone, in no particular order: one
   * query, whatever the number of ids. User memory asks it to leave deleted threads' words out
   * (spec R24, R40).
   */
  deletedAmong(threadIds: readonly string[]): Promise<string[]>;
}

/** One archived message as the registry stores it (spec R5, R35; issue 27). */
export interface ArchiveRow {
  /** The message's id (`BaseMessage.id`). */
  messageId: string;
  /** Position in the thread's archive: grows with each archived message, kept when the row is written again. */
  seq: number;
  /** The archive write that last wrote the row: grows with each write, so a reader asks only for what is newer. */
  stamp: number;
  /** The serialized message (sealed when the saver encrypts), as {@link ThreadwiseSaver} encodes it. */
  record: string;
}

/**
 * Where a thread's archive stood when a checkpoint was stored ({@link ThreadRegistry.archiveMark}):
 * `stamp`, the newest archive write or rewrite (0: none yet); `seq`, the highest `seq` of an
 * archived message (0: none). A row with a higher `seq` was archived after it; a
 * {@link ARCHIVE_CLEARED_MESSAGE_ID} marker with a higher stamp, a rewrite emptied the archive
 * after it. Both only grow while the thread lives (`seq` starts again after a rewrite, whose marker
 * tells).
 */
export interface ArchiveMark {
  stamp: number;
  seq: number;
}

/** Message id of the marker row {@link ThreadRegistry.clearArchive} leaves: no message has an empty id. */
export const ARCHIVE_CLEARED_MESSAGE_ID = "";

/** A zeroed {@link ThreadRowCounts}. */
export const NO_ROWS: ThreadRowCounts = Object.freeze({ checkpoints: 0, blobs: 0, writes: 0, archived: 0 });
