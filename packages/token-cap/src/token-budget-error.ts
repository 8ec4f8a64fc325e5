import { ThreadwiseError } from "@threadwise/core";

/** Stable code of {@link ThreadwiseTokenBudgetError}. */
export const TOKEN_BUDGET_ERROR_CODE = "THREADWISE_TOKEN_BUDGET_EXCEEDED";

/**
 * The groups that must stay in the view (the newest user turn and the tool loop of the run in
 * progress), plus the system prompt and tool schemas, are alone over `maxTokens`, and `tokenCap`
 * was built with `overflow: "throw"` (spec R3). Nothing was sent to the model.
 */
export class ThreadwiseTokenBudgetError extends ThreadwiseError {
  /** The cap, in tokens. */
  readonly maxTokens: number;
  /** Tokens of the smallest view the rules allow, in tokens (always above `maxTokens`). */
  readonly tokens: number;
  constructor(maxTokens: number, tokens: number) {
    super(
      TOKEN_BUDGET_ERROR_CODE,
      `tokenCap.maxTokens: the newest user turn and the current tool loop need ${tokens} tokens, ${tokens - maxTokens} over the cap of ${maxTokens}`,
    );
    this.maxTokens = maxTokens;
    this.tokens = tokens;
  }
  /** `true` for this error, also across duplicate copies of the package. */
  static override isInstance(error: unknown): error is ThreadwiseTokenBudgetError {
    return ThreadwiseError.isInstance(error) && error.code === TOKEN_BUDGET_ERROR_CODE;
  }
}
