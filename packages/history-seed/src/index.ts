export {
  DEFAULT_SEED_MAX_MESSAGES,
  HISTORY_SEED_MIDDLEWARE_NAME,
  type HistorySeedOptions,
  historySeed,
  historySeedOptionsSchema,
  isUnseededEmptyThread,
  resolveHistorySeedOptions,
  SEED_HISTORY_CONTEXT_KEY,
  SEED_MAX_MESSAGES_ENV,
  SEED_MESSAGE_ID_PREFIX,
} from "./history-seed.js";
export { HistorySeedError, type HistorySeedErrorReason } from "./history-seed-error.js";
export {
  type ParsedSeedHistory,
  parseSeedHistory,
  type SeedHistoryDrops,
  type SeedHistoryRules,
  textOfPart,
} from "./parse-seed-history.js";
