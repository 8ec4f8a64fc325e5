import { ThreadwiseError } from "@threadwise/core";

/** Why a checkpoint was refused: see {@link ThreadwiseConcurrentTurnError}. */
export type ConcurrentTurnReason = "stale-parent" | "turn-in-progress";

/**
 * Another turn of the same thread won (spec R34). Nothing of the refused write was stored; the
 * turn can be run again from the thread's new head (it re-reads the thread), e.g. with
 * `withTurnRetry`.
 *
 * - `stale-parent`: the turn started from checkpoint `parentId`, but the thread's newest
 *   checkpoint is now `headId` (another process committed in between).
 * - `turn-in-progress`: a new turn tried to start on top of a turn another process is still
 *   running (its newest checkpoint has tasks left). `retryAfterMs` is when that turn's lease
 *   ends if it makes no further progress (a crashed writer).
 */
export class ThreadwiseConcurrentTurnError extends ThreadwiseError {
  readonly threadId: string;
  readonly reason: ConcurrentTurnReason;
  /** Checkpoint the refused turn started from (`undefined`: it started on an empty thread). */
  readonly parentId: string | undefined;
  /** The thread's newest checkpoint when the write was refused. */
  readonly headId: string | undefined;
  /** `turn-in-progress`: milliseconds until the running turn's lease ends at the latest (it usually ends sooner); 0 for `stale-parent`. */
  readonly retryAfterMs: number;
  /** Always `true`: running the turn again is safe. */
  readonly retryable = true;
  constructor(
    threadId: string,
    reason: ConcurrentTurnReason,
    details: { parentId: string | undefined; headId: string | undefined; retryAfterMs?: number },
  ) {
    super(
      "THREADWISE_CONCURRENT_TURN",
      reason === "stale-parent"
        ? `thread ${JSON.stringify(threadId)}: the turn started from checkpoint ${details.parentId ?? "(none)"} but another turn committed ${details.headId ?? "(none)"} first; nothing was stored, run the turn again`
        : `thread ${JSON.stringify(threadId)}: another turn is still running on checkpoint ${details.headId}; nothing was stored, retry (its lease ends within ${details.retryAfterMs ?? 0} ms)`,
    );
    this.threadId = threadId;
    this.reason = reason;
    this.parentId = details.parentId;
    this.headId = details.headId;
    this.retryAfterMs = Math.max(0, Math.ceil(details.retryAfterMs ?? 0));
  }
  static override isInstance(error: unknown): error is ThreadwiseConcurrentTurnError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_CONCURRENT_TURN";
  }
}
