import { ThreadwiseError } from "@threadwise/core";

/**
 * A store holding encrypted records was opened without a keyring (spec R26, fail-closed): reading
 * on would hand ciphertext strings to the agent and append plaintext rows next to sealed ones.
 * Configure the keyring the store was written with (`THREADWISE_MEMORY_KEYRING`).
 */
export class ThreadwiseSealedStoreError extends ThreadwiseError {
  readonly threadId: string;
  /** `thread`: the thread itself holds sealed records (a read); `store`: other threads do, and this write would add plaintext beside them. */
  readonly scope: "thread" | "store";
  constructor(threadId: string, scope: "thread" | "store" = "thread") {
    super(
      "THREADWISE_KEYRING_REQUIRED",
      scope === "thread"
        ? `thread ${JSON.stringify(threadId)} holds encrypted records but no keyring is configured; set THREADWISE_MEMORY_KEYRING to the keyring they were written with (refusing to read ciphertext or write plaintext beside it)`
        : `the store holds encrypted records but no keyring is configured; nothing of thread ${JSON.stringify(threadId)} was written (refusing to write plaintext beside sealed records); set THREADWISE_MEMORY_KEYRING to the keyring they were written with`,
    );
    this.threadId = threadId;
    this.scope = scope;
  }
  static override isInstance(error: unknown): error is ThreadwiseSealedStoreError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_KEYRING_REQUIRED";
  }
}
