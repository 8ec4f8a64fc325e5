import { ThreadwiseError } from "@threadwise/core";

/** Why outside history was rejected. */
export type HistorySeedErrorReason =
  | "not_an_array"
  | "too_many_items"
  | "malformed_item"
  | "unknown_role"
  | "non_text_part"
  | "oversized_part"
  | "empty_message";

/**
 * Outside history (A2A `metadata.history`) that breaks a validation rule of `historySeed` (spec
 * R19). `code` is `THREADWISE_INVALID_HISTORY`; `reason` names the rule, `index` the offending
 * item (0-based, in the order sent) when there is one, and `limit`/`actual` the numbers of a
 * size rule. The message never quotes the history's text.
 */
export class HistorySeedError extends ThreadwiseError {
  readonly reason: HistorySeedErrorReason;
  readonly index: number | undefined;
  readonly limit: number | undefined;
  readonly actual: number | undefined;
  constructor(reason: HistorySeedErrorReason, message: string, details: { index?: number; limit?: number; actual?: number } = {}) {
    super("THREADWISE_INVALID_HISTORY", `outside history rejected (${reason}): ${message}`);
    this.reason = reason;
    this.index = details.index;
    this.limit = details.limit;
    this.actual = details.actual;
  }
  /** `true` for a {@link HistorySeedError}, also across duplicate copies of the package. */
  static override isInstance(error: unknown): error is HistorySeedError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_INVALID_HISTORY";
  }
}
