import { ThreadwiseConfigError } from "@threadwise/core";

/**
 * A thread read as a tenant its archive holds nothing under (`ThreadwiseSaver.readThread`,
 * `threadwise export`): the checkpoint read records archived messages (its archive mark), and
 * archived messages are keyed under the tenant that wrote them, so the read would return the
 * checkpoint's messages alone, the thread's beginning missing. Nothing is read; give the tenant the
 * thread was written as. Code `THREADWISE_INVALID_OPTION`, like every `ThreadwiseConfigError`;
 * `option` names the tenant option of the caller (`encryption.tenantId` of the stack, the saver's
 * `tenantId`, `--tenant-id` of `threadwise export`).
 */
export class ThreadwiseTenantMismatchError extends ThreadwiseConfigError {
  /** The thread read. */
  readonly threadId: string;
  /** The tenant it was read as, under which its archive holds no row. */
  readonly tenantId: string;
  constructor(threadId: string, tenantId: string, option = "encryption.tenantId", options?: { cause?: unknown }) {
    super(
      option,
      `thread ${JSON.stringify(threadId)} has archived messages, none under tenant ${JSON.stringify(tenantId)}: read it as the tenant it was written as (${option}, env THREADWISE_MEMORY_TENANT_ID); nothing was read`,
      options,
    );
    this.threadId = threadId;
    this.tenantId = tenantId;
  }
  static override isInstance(error: unknown): error is ThreadwiseTenantMismatchError {
    return (
      ThreadwiseConfigError.isInstance(error) &&
      typeof (error as { tenantId?: unknown }).tenantId === "string" &&
      typeof (error as { threadId?: unknown }).threadId === "string"
    );
  }
}
