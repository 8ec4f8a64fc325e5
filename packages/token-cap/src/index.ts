export { type ShortenResult, shortenToolResults, truncationMarker } from "./shorten-tool-results.js";
export { ThreadwiseTokenBudgetError, TOKEN_BUDGET_ERROR_CODE } from "./token-budget-error.js";
export {
  type CapResult,
  type CapSettings,
  capMessages,
  MAX_TOKENS_ENV,
  type TokenCapOptions,
  tokenCap,
  tokenCapOptionsSchema,
} from "./token-cap.js";
