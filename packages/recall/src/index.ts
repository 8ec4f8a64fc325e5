export { ArchiveMirror } from "./archive-mirror.js";
export { MessageIndex, type MessageIndexOptions, type RecallEntry, type SyncResult, timestampOf } from "./message-index.js";
export {
  createThreadRecallState,
  memoizeCount,
  RECALL_BLOCK_KIND,
  RECALL_MIDDLEWARE_NAME,
  type RecallQuery,
  recall,
  recallForQuery,
  type ThreadRecallState,
  TOKEN_MEMO_ENTRIES,
} from "./recall.js";
export {
  excerpt,
  FACT_WEIGHT,
  QUESTION_WEIGHT,
  type RankInput,
  type RecallItem,
  type RenderedRecall,
  type RenderOptions,
  RRF_K,
  rankRecall,
  renderRecall,
  THREAD_BREAK,
} from "./recall-block.js";
export {
  DEFAULT_DEPTH,
  DEFAULT_EMBEDDING_TIMEOUT_MS,
  DEFAULT_MAX_HELD_CHARACTERS,
  DEFAULT_MAX_INDEXED_MESSAGES,
  DEFAULT_MAX_MESSAGE_TOKENS,
  DEFAULT_MAX_NEIGHBOUR_TOKENS,
  DEFAULT_MAX_THREADS,
  DEFAULT_NEIGHBOURS,
  DEFAULT_RECALL_LABEL,
  DEFAULT_RECALL_MAX_ITEMS,
  DEFAULT_RECALL_MAX_TOKENS,
  RECALL_MAX_TOKENS_ENV,
  type RecallOptions,
  type ResolvedRecallOptions,
  recallOptionsSchema,
  resolveRecallOptions,
} from "./recall-options.js";
