import { ThreadwiseError } from "@threadwise/core";

/** Why a checkpoint was refused: see {@link ThreadwiseConcurrentTurnError}. */
export type ConcurrentTurnReason = "stale-parent" | "turn-in-progress" | "lease-lost" | "duplicate-operation";

/** Details of a {@link ThreadwiseConcurrentTurnError}. */
export interface ConcurrentTurnDetails {
  /** Checkpoint the refused write follows (`undefined`: an empty thread). */
  parentId: string | undefined;
  /** The thread's head when the write was refused. */
  headId: string | undefined;
  /** `turn-in-progress`: suggested wait before running the turn again, in milliseconds. */
  retryAfterMs?: number;
  /** `turn-in-progress`: milliseconds until the running turn's lease ends if it stops renewing it (a crashed writer). */
  leaseExpiresInMs?: number;
  /** `duplicate-operation`: the operation id. */
  operationId?: string;
  /** `duplicate-operation`: the checkpoint the stored run began with; `lease-lost`: this turn's last stored checkpoint. */
  storedCheckpointId?: string;
}

/**
 * A write to a thread was refused (spec R34, R38); `reason` says why, `retryable` whether running
 * the turn again can succeed.
 *
 * - `stale-parent` (retryable): the turn started implicitly from checkpoint `parentId`, but another
 *   turn moved the thread's head to `headId` first. Nothing of this turn was stored; running it
 *   again re-reads the thread.
 * - `turn-in-progress` (retryable): another turn of the thread is running (it holds the thread's
 *   lease). Nothing was stored and, with `memoryStack`'s middleware, no model or tool was called.
 *   `retryAfterMs` is a suggested wait; `leaseExpiresInMs` is when the lease ends at the latest if
 *   that turn's writer died. A run stopped at a static breakpoint (`interruptBefore` /
 *   `interruptAfter`) stores no write that tells the saver it ended: its lease holds until then
 *   unless the run had `callbacks: turnEndCallbacks(checkpointer)` or `checkpointer.endTurn(config)`
 *   was called at the checkpoint it stopped at (the message says so).
 * - `lease-lost` (retryable): this turn made no progress and sent no heartbeat for longer than its
 *   lease, and another turn took the thread. This turn's checkpoints up to `storedCheckpointId`
 *   stay stored on a branch that is no longer the head (see `getStateHistory`); its later steps
 *   were not stored. Running it again starts from the new head.
 * - `duplicate-operation` (not retryable): a run with the same `configurable.operation_id` is
 *   already stored on this thread, starting at `storedCheckpointId`. Nothing was stored; read the
 *   thread for that run's result instead of running it again.
 */
export class ThreadwiseConcurrentTurnError extends ThreadwiseError {
  readonly threadId: string;
  readonly reason: ConcurrentTurnReason;
  /** Checkpoint the refused write follows (`undefined`: it started on an empty thread). */
  readonly parentId: string | undefined;
  /** The thread's head when the write was refused. */
  readonly headId: string | undefined;
  /** Suggested wait before running the turn again, in milliseconds (0 unless `turn-in-progress`). */
  readonly retryAfterMs: number;
  /** `turn-in-progress`: milliseconds until the running turn's lease ends if it is not renewed; else 0. */
  readonly leaseExpiresInMs: number;
  /** `duplicate-operation`: the operation id that is already stored. */
  readonly operationId: string | undefined;
  /** `duplicate-operation`: first checkpoint of the stored run; `lease-lost`: last checkpoint this turn stored. */
  readonly storedCheckpointId: string | undefined;
  /** Whether running the turn again can succeed: `false` only for `duplicate-operation`. */
  readonly retryable: boolean;
  constructor(threadId: string, reason: ConcurrentTurnReason, details: ConcurrentTurnDetails) {
    super("THREADWISE_CONCURRENT_TURN", message(threadId, reason, details));
    this.threadId = threadId;
    this.reason = reason;
    this.parentId = details.parentId;
    this.headId = details.headId;
    this.retryAfterMs = Math.max(0, Math.ceil(details.retryAfterMs ?? 0));
    this.leaseExpiresInMs = Math.max(0, Math.ceil(details.leaseExpiresInMs ?? 0));
    this.operationId = details.operationId;
    this.storedCheckpointId = details.storedCheckpointId;
    this.retryable = reason !== "duplicate-operation";
  }
  static override isInstance(error: unknown): error is ThreadwiseConcurrentTurnError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_CONCURRENT_TURN";
  }
}

function message(threadId: string, reason: ConcurrentTurnReason, d: ConcurrentTurnDetails): string {
  const thread = `thread ${JSON.stringify(threadId)}`;
  switch (reason) {
    case "stale-parent":
      return `${thread}: the turn started from checkpoint ${d.parentId ?? "(none)"} but another turn moved the thread to ${d.headId ?? "(none)"} first; nothing of this turn was stored; run it again`;
    case "turn-in-progress":
      return `${thread}: another turn is running (head ${d.headId ?? "(none)"}); nothing of this turn was stored; retry in about ${Math.ceil(d.retryAfterMs ?? 0)} ms (that turn's lease ends within ${Math.ceil(d.leaseExpiresInMs ?? 0)} ms if its writer died; a run stopped at a static breakpoint, interruptBefore or interruptAfter, holds it until then unless it ran with callbacks: turnEndCallbacks(checkpointer) or you call checkpointer.endTurn(config) at the checkpoint it stopped at)`;
    case "lease-lost":
      return `${thread}: this turn sent no checkpoint or heartbeat for longer than its lease and another turn took the thread (head ${d.headId ?? "(none)"}); this turn's checkpoints up to ${d.storedCheckpointId ?? "(none)"} stay on a branch that is no longer the head, its later steps were not stored; run it again`;
    case "duplicate-operation":
      return `${thread}: operation ${JSON.stringify(d.operationId)} is already stored (its run began with checkpoint ${d.storedCheckpointId}); nothing was stored; read the thread instead of running it again`;
  }
}
