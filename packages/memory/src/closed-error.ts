import { ThreadwiseError } from "@threadwise/core";

/**
 * A checkpointer was used after its `close()`: `resource` names it (`memory.checkpointer
 * (sqlite)`, `memory.checkpointer (postgres)`, `memory.checkpointer (in_memory)`), `operation`
 * the call refused (`put`, `getTuple`, ...). Nothing was read or written. Close a stack's
 * checkpointer only after its last run, or build a new one (`memoryStack()`,
 * `createCheckpointer()`). Was: the driver's own error (better-sqlite3's `TypeError: The
 * database connection is not open`, pg's `Cannot use a pool after calling end on the pool`).
 */
export class ThreadwiseClosedError extends ThreadwiseError {
  readonly resource: string;
  readonly operation: string;
  constructor(resource: string, operation: string) {
    super(
      "THREADWISE_CLOSED",
      `${resource} was closed by close(); ${operation} cannot run on it. Close it only after the last run, or build a new one (memoryStack(), createCheckpointer())`,
    );
    this.resource = resource;
    this.operation = operation;
  }
  static override isInstance(error: unknown): error is ThreadwiseClosedError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_CLOSED";
  }
}
