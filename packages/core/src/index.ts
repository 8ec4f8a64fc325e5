export {
  type ArchiveClearedDigestsReader,
  type ArchiveCursor,
  type ArchivedAmongReader,
  type ArchivedChanges,
  type ArchivedChangesReader,
  type ArchivedMessagesReader,
  type ArchivedMessagesReadOptions,
  archivedWindowCost,
  markedWindowCost,
  newestArchivedBefore,
  runArchiveReader,
  runCheckpointerOf,
  runCheckpointIdOf,
  saverInChain,
  withArchived,
} from "./archived-messages.js";
export {
  type AssembledView,
  assembleView,
  type CoverageExtender,
  type CoverageExtension,
  DEFAULT_START_ON,
  EMPTY_DECISIONS,
  isNoReplyMessage,
  NO_REPLY_ID_PREFIX,
  NO_REPLY_TEXT,
  START_ON_VALUES,
  type StartOn,
  type SummaryCoverage,
  type SummaryProvenance,
  sentMessages,
  tailContextOf,
  type ViewCut,
  type ViewDecisions,
  type ViewReplacement,
  type ViewReport,
  withoutTailContext,
} from "./assemble-view.js";
export { BOUNDED_MAP_EVICTION_SHARE, SizedLru, setBounded } from "./bounded-map.js";
export {
  type BreakpointRequest,
  type CacheBreakpointOptions,
  type CacheTtl,
  cacheBreakpointsFor,
  isAnthropicModel,
  MAX_CACHE_BREAKPOINTS,
  systemContextBlocksOf,
  withCacheBreakpoints,
} from "./cache-breakpoints.js";
export { chatModelOption, chatModelOptionSchema } from "./chat-model-option.js";
export { type CompactionBoundary, compactionBoundary, isCompactionBlock, isCompactionMessage } from "./compaction.js";
export {
  ANTHROPIC_IMAGE_MAX_TOKENS,
  anthropicImageTokens,
  type BlockPricing,
  imageSize,
  MEDIA_BLOCK_TOKENS,
  OPENAI_IMAGE_DEFAULT_TOKENS,
  OPENAI_IMAGE_LOW_TOKENS,
  openaiImageTokens,
  PDF_PAGE_TOKENS,
  pdfPages,
} from "./content-block-tokens.js";
export { type CrossScriptKeys, consonantSkeleton, crossScriptKeys, type TermScript } from "./cross-script.js";
export {
  type CalendarDate,
  type DateTimeParts,
  englishMonth,
  monthTerm,
  parseCalendarDate,
  parseDateTime,
  parseTimestamp,
  timestampTerms,
} from "./date-terms.js";
export { LEXICON_DEPTH, LEXICON_SENSES, lexiconKeys, lexiconMembers, lexiconSenses } from "./english-lexicon.js";
export {
  checkEnvNames,
  closestEnvName,
  envBoolean,
  envChoice,
  envCountOrOff,
  envOptionSchema,
  envPositiveInt,
  envString,
  envWholeNumber,
  parseWholeNumber,
} from "./env.js";
export { LOG_LEVELS, THREADWISE_ENV, THREADWISE_TOOLING_ENV_PREFIXES, type ThreadwiseEnvName } from "./env-names.js";
export {
  closestKey,
  optionNames,
  optionsObject,
  parseOptions,
  ThreadwiseConfigError,
  ThreadwiseError,
  ThreadwiseUnknownOptionError,
} from "./errors.js";
export {
  dropOrphans,
  findOrphans,
  flattenGroups,
  type GroupKind,
  groupCut,
  groupMessages,
  type MessageGroup,
  newestUserAt,
  protectedTailStart,
} from "./groups.js";
export { threadwiseMessageId } from "./ids.js";
export {
  INTERNAL_CALL_METADATA_KEY,
  INTERNAL_CALL_TAGS,
  type InternalCallConfig,
  type InternalCallId,
  type InternalCallModel,
  type InvokeInternalOptions,
  internalAnswerText,
  internalCallConfig,
  internalCallName,
  invokeInternal,
  withoutThinking,
} from "./internal-call.js";
export {
  formatMultiturnLine,
  isLoggerOption,
  loggerOptionSchema,
  type MultiturnFields,
  resolveLogger,
  silentLogger,
  type ThreadwiseLogger,
} from "./logger.js";
export { MESSAGE_DIGEST_CHARACTERS, messageDigest, messageIdentity, sameMessage } from "./message-identity.js";
export {
  blockCallIdsOf,
  CONTEXT_MESSAGE_ID_PREFIX,
  callIdsOf,
  isContextMessage,
  isUserMessage,
  messageType,
  type ToolResultBlock,
  toolCallsOf,
  toolResultBlocksOf,
  toolResultIdsOf,
} from "./message-kinds.js";
export { annotateMultiturn, hasPriorAnswer, withMultiturnLog } from "./multiturn.js";
export { nearSpelling } from "./near-spelling.js";
export {
  appendToSystemMessage,
  type ContextBlock,
  contextMessage,
  HEAD_BLOCK_KINDS,
  PROMPT_CONTEXT_MODE_ENV,
  PROMPT_CONTEXT_MODES,
  type PromptContextMode,
  promptContextModeSchema,
  renderContextBlocks,
  resolvePromptContextMode,
  STABLE_TAIL_HEADER,
  sortContextBlocks,
  statedPromptContextMode,
  systemText,
} from "./placement.js";
export { PORTABLE_CALL_ID, portableCallId, repeatedCallId, withPortableCallIds, withUniqueCallIds } from "./portable-call-ids.js";
export { hideMemoryState } from "./private-state.js";
export {
  analysedTextLanguage,
  CONVERSATION_LANGUAGE_LETTERS,
  conversationLanguage,
  DEFAULT_PROMPT_LANGUAGE,
  PROMPT_LANGUAGE_ENV,
  PROMPT_LANGUAGES,
  type PromptLanguage,
  promptLanguageFor,
  promptLanguageSchema,
  promptTexts,
  resolvePromptLanguage,
  type TextLanguage,
  textLanguage,
} from "./prompt-language.js";
export {
  CROSS_SCRIPT_WEIGHT,
  NEAR_SPELLING_MIN_LETTERS,
  NEAR_SPELLING_WEIGHT,
  QueryWidening,
  RELATED_WORD_WEIGHT,
  type WidenedTerms,
  type WidenOptions,
} from "./query-widening.js";
export { type CountedRequest, requestTokenBound, requestTokens } from "./request-tokens.js";
export { withoutCalls } from "./sent-copies.js";
export { ThreadwiseStrayResultError } from "./stray-result-error.js";
export { refuseSlashedRunsInV1Log } from "./stream-redaction.js";
export { StructuredResponseWrites, type StructuredResponseWritesOptions } from "./structured-response-writes.js";
export {
  type ArchivedWindow,
  archivedWindowSchema,
  type ExtractedFacts,
  extractedFactsSchema,
  mergeSummarySlot,
  readSummarySlot,
  SUMMARY_SLOT_KEY,
  type SummaryPass,
  type SummaryRecord,
  type SummarySlot,
  type SummarySlotUpdate,
  summaryPassSchema,
  summaryRecordSchema,
  summarySlotSchema,
  summarySlotState,
  summarySlotUpdateSchema,
  type WorkMemoryEntry,
  type WorkMemoryPending,
  workMemoryEntrySchema,
  workMemoryPendingSchema,
} from "./summary-slot.js";
export { declaredSummarySlot, SUMMARY_SLOT_MIDDLEWARE_NAME, summarySlotMiddleware, summarySlotOf } from "./summary-slot-middleware.js";
export {
  ENGLISH_STOPWORDS,
  isStopword,
  KOREAN_ENDINGS,
  KOREAN_PARTICLES,
  KOREAN_STOPWORDS,
  KOREAN_SUFFIXES,
  koreanStem,
  stemEnglish,
  stripKoreanSuffix,
  tokenize,
} from "./text-analysis.js";
export {
  MAX_THREAD_ID_BYTES,
  normalizeThreadId,
  normalizeUserId,
  type ThreadIdLimit,
  ThreadwiseThreadIdError,
  ThreadwiseUserIdError,
} from "./thread-id.js";
export {
  type GroupSpan,
  groupMessageCount,
  type IndexedViewOptions,
  indexThread,
  newestIndexOf,
  selectCandidates,
  selectIndexedView,
  type ThreadIndex,
} from "./thread-index.js";
export { threadwiseMiddleware } from "./threadwise-middleware.js";
export {
  envTimerMs,
  MAX_TIMER_MS,
  ThreadwiseTimeoutError,
  timerMsSchema,
  type WithTimeoutOptions,
  withTimeout,
} from "./timeout.js";
export {
  boundedEncodeLength,
  contentText,
  createTokenCounter,
  DEFAULT_ENCODING,
  LONG_RUN_CHARACTERS,
  LONG_RUN_EXACT_CHARACTERS,
  MESSAGE_OVERHEAD_TOKENS,
  messageText,
  NAME_OVERHEAD_TOKENS,
  REPLY_PRIMING_TOKENS,
  requestOverheadTokens,
  resolveEncoding,
  SYSTEM_WITH_TOOLS_TOKENS,
  TEXT_BLOCK_SEPARATOR,
  TOKEN_CACHE_ENTRIES,
  TOOL_CALL_OVERHEAD_TOKENS,
  TOOLS_OVERHEAD_TOKENS,
  type TokenCounter,
  type TokenCounterOptions,
  tokenCounterOptionsSchema,
  tokenSegments,
} from "./token-counter.js";
export { functionDefinition, renderToolDefinitions } from "./tool-definitions.js";
export { nextTrimMark, TRIM_MARK_MAX_IDS, type TrimMark, trimMarkSchema, trimmedThrough } from "./trim-mark.js";
export {
  analysisText,
  characterHead,
  codePointHead,
  countCharacters,
  headWithinUnits,
  loneSurrogateAt,
  SENTENCE_WINDOW,
  sentenceSegments,
  TRUNCATION_MARKER,
  truncateCharacters,
  wellFormed,
} from "./unicode.js";
export { EVICTION_MODES, type EvictionMode, type SelectViewOptions, selectView, type ViewSelection } from "./view.js";
export {
  addContextBlocks,
  assembledRequest,
  contextBlocksOf,
  extendSummaryCoverage,
  isAssembledRequest,
  type PlacementRequest,
  selectViewOf,
  threadMessages,
  type ViewDecision,
  viewDecisionsOf,
  viewMessages,
  viewReport,
  viewStartOn,
  viewSystemMessage,
  withMessageWindowCut,
  withSystemSuffix,
  withViewDecisions,
  withViewMessages,
} from "./view-request.js";
