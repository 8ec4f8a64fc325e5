export { detectLanguage, extractFactsHeuristic, type FactLanguage, type HeuristicExtractOptions } from "./extract-heuristic.js";
export {
  EXTRACT_CALL,
  extractFactsWithModel,
  FactExtractionError,
  type FactExtractionModel,
  INTERNAL_CALL_TAGS,
  LIST_ATTRIBUTES,
  type LlmFacts,
  llmFactsSchema,
} from "./extract-llm.js";
export {
  DEFAULT_FACTS_LABEL,
  DEFAULT_MAX_FACTS,
  DEFAULT_MAX_ITEMS,
  DEFAULT_MIN_SCORE,
  DEFAULT_TIMEOUT_MS,
  FACT_MODES,
  FACT_RECALL_MAX_ITEMS_ENV,
  FACTS_MODE_ENV,
  type FactMode,
  type FactRecallOptions,
  factRecall,
  factRecallOptionsSchema,
  type ResolvedFactRecallConfig,
  resolveFactRecallConfig,
} from "./fact-recall.js";
export {
  type CandidateFact,
  emptyFactSlot,
  FACTS_STATE_KEY,
  type Fact,
  type FactSlot,
  type FactSlotUpdate,
  factKey,
  factSchema,
  factSlotSchema,
  factSlotState,
  factSlotUpdateSchema,
  type IngestOptions,
  mergeFactSlot,
  normalizeValue,
  planFactWrite,
  readFactSlot,
} from "./fact-store.js";
export { ingestUserMessages, MAX_BACKFILL_MESSAGES, type PendingMessage, pendingUserMessages } from "./ingest.js";
export { ATTRIBUTE_KEYWORDS, createFactIndex, type FactIndex, type RankedFact, recallFacts, renderFacts } from "./recall.js";
