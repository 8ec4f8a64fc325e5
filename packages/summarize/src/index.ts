export {
  EXTRACTIVE_SUMMARY_LABEL,
  ExtractiveSummarizer,
  type ExtractiveSummarizerOptions,
  extractiveSummarizer,
  extractiveSummarizerOptionsSchema,
  extractiveSummary,
} from "./extractive-summarizer.js";
export { INTERNAL_CALL_TAGS, SUMMARIZE_MIDDLEWARE_NAME, SUMMARY_BLOCK_LABEL, SUMMARY_CALL, summarize } from "./summarize.js";
export {
  DEFAULT_MAX_INPUT_TOKENS,
  DEFAULT_MAX_PASSES_PER_CALL,
  DEFAULT_THRESHOLD,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_WINDOW_SIZE,
  KEEP_ENV,
  MAX_INPUT_TOKENS_ENV,
  MAX_PASSES_ENV,
  MODEL_MAX_INPUT_TOKENS_ENV,
  type ResolvedSummarizeOptions,
  resolveSummarizeOptions,
  type SummarizeOptions,
  type SummarizerModel,
  summarizeOptionsSchema,
  THRESHOLD_ENV,
  TIMEOUT_MS_ENV,
  TRIGGER_ENV,
  WINDOW_SIZE_ENV,
} from "./summarize-options.js";
export {
  boundedTokenCount,
  buildSummarizerInput,
  DEFAULT_SUMMARY_PROMPT,
  SHORTENED_MARKER,
  type SummarizerInput,
  shortenToTokens,
  summarizerPasses,
  transcriptLine,
} from "./summarizer-input.js";
export {
  COVERED_DIGEST_CHARACTERS,
  coverageIntact,
  coveredDigestOf,
  coveredDigestsOf,
  coveredDigestsWith,
  coveredMessages,
  reachesBeforeDigests,
} from "./summary-coverage.js";
export {
  behindByMoreThanPeriod,
  type PlanTrigger,
  planSummary,
  reachesPeriod,
  type SummaryPeriod,
  type SummaryPlan,
  summaryPeriod,
  uncoveredStartOf,
} from "./summary-plan.js";
export {
  profileMaxInputTokens,
  type ResolvedKeep,
  type ResolvedTrigger,
  resolveKeep,
  resolveTriggers,
  type SummaryKeep,
  type SummaryTrigger,
  summaryKeepSchema,
  summaryTriggerSchema,
} from "./summary-trigger.js";
