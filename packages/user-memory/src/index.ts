export {
  CONDITIONAL_STORE,
  type ConditionalOp,
  type ConditionalWrite,
  conditionalWriteOf,
  ThreadwiseUserMemoryConflictError,
} from "./conditional-writes.js";
export { type DeletedThreadsLookup, type ForgetPlan, forgetDeletedThreads, threadIdsOf } from "./deleted-threads.js";
export { assertStoreShape, missingStoreMethods, STORE_METHODS, storeOptionSchema, storeShapeProblem } from "./store-shape.js";
export { type SealingIdentity, type StoredUserValue, ThreadwiseUserMemoryItemError, UserItemCodec } from "./user-item-codec.js";
export {
  type CommittedTurn,
  digestItemKey,
  factItemKey,
  itemBytes,
  MAX_SUPERSEDED_VALUES,
  messageItemKey,
  type Provenance,
  planUserWrite,
  provenanceSchema,
  type SupersededValue,
  supersededValueSchema,
  type TurnMessage,
  USER_ITEM_KINDS,
  type UserItem,
  type UserItemKind,
  type UserWritePlan,
  userItemSchema,
  type WritePlanSettings,
} from "./user-items.js";
export {
  USER_MEMORY_BLOCK_KIND,
  USER_MEMORY_MIDDLEWARE_NAME,
  type UserMemoryCallState,
  userMemory,
  userMessagesOfRun,
} from "./user-memory.js";
export { MAX_CACHED_USERS, UserMemoryEngine, type UserRecall } from "./user-memory-engine.js";
export {
  DEFAULT_MAX_DIGEST_CHARACTERS,
  DEFAULT_MAX_MESSAGE_CHARACTERS,
  DEFAULT_STORE_TIMEOUT_MS,
  DEFAULT_USER_MEMORY_LABEL,
  DEFAULT_USER_MEMORY_LABELS,
  DEFAULT_USER_MEMORY_MAX_BYTES,
  DEFAULT_USER_MEMORY_MAX_ITEMS,
  DEFAULT_USER_MEMORY_MAX_TOKENS,
  type ResolvedUserMemoryOptions,
  resolveUserMemoryOptions,
  USER_MEMORY_KEEP_MESSAGES_ENV,
  USER_MEMORY_MAX_ITEMS_ENV,
  USER_MEMORY_MAX_TOKENS_ENV,
  type UserMemoryOptions,
  userMemoryOptionsSchema,
} from "./user-memory-options.js";
export { DIGEST_SPEAKER, indexOrder, renderUserRecall, UserRecallIndex } from "./user-recall.js";
export {
  DEFAULT_TENANT_ID,
  DEFAULT_TENANT_ID_KEY,
  DEFAULT_USER_ID_KEY,
  idOfLabel,
  isUserNamespace,
  NAMESPACE_LEAF,
  NAMESPACE_ROOT,
  namespaceLabel,
  resolveUserScope,
  type ScopeSource,
  type UserScope,
  userNamespace,
} from "./user-scope.js";
export {
  type EraseTenantItemsOptions,
  type EraseUserItemsResult,
  eraseTenantItems,
  eraseUserItems,
  expireUserItems,
  forEachNamespace,
  type ReencryptUserItemsOptions,
  type ReencryptUserItemsResult,
  readUserItems,
  reencryptUserItems,
  writeUserItems,
} from "./user-store.js";
