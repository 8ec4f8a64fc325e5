export {
  CONDENSE_CALL,
  type CondenseOptions,
  condenseResponse,
  DEFAULT_CONDENSE_PROMPT,
  INTERNAL_CALL_TAGS,
  NOTHING_TO_KEEP,
} from "./condense.js";
export { type BoundedEnvelope, boundEnvelope, type EnvelopeLimits, renderWorkMemory } from "./envelope.js";
export { isInlineData, MAX_PROJECTION_CHARACTERS, projectResponse, type ResponseParts, stripInlineData } from "./response-projection.js";
export {
  asksForInput,
  decideStore,
  hasBlockMarker,
  INCOMPLETE_FINISH_REASONS,
  isIncomplete,
  type ModelResponseRecord,
  modelResponseRecord,
  responseDigest,
  responseFingerprint,
  type SkipReason,
  type StoreCandidate,
  type StoreDecision,
} from "./store-decision.js";
export { nonTextBlocks, type ToolResult, toolResultsOf } from "./tool-results.js";
export {
  WORK_MEMORY_LABEL,
  WORK_MEMORY_LABELS,
  WORK_MEMORY_MIDDLEWARE_NAME,
  type WorkMemoryOptions,
  workMemory,
  workMemoryOptionsSchema,
} from "./work-memory.js";
