import { ThreadwiseError } from "@threadwise/core";

/**
 * A write to a thread that was deleted (prune, retention or `deleteThread`) and left a tombstone:
 * a deleted thread id cannot be created again in the same scope (spec R24). Use a new thread id.
 */
export class ThreadwiseThreadDeletedError extends ThreadwiseError {
  readonly threadId: string;
  readonly deletedAt: Date | undefined;
  constructor(threadId: string, deletedAt?: Date) {
    super(
      "THREADWISE_THREAD_DELETED",
      `thread ${JSON.stringify(threadId)} was deleted${deletedAt ? ` at ${deletedAt.toISOString()}` : ""} and cannot be created again; use a new thread id`,
    );
    this.threadId = threadId;
    this.deletedAt = deletedAt;
  }
  static override isInstance(error: unknown): error is ThreadwiseThreadDeletedError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_THREAD_DELETED";
  }
}
