export {
  DEFAULT_HISTORY_NOTE,
  type HistoryAwareOptions,
  hasEarlierTurn,
  historyAware,
  historyAwareOptionsSchema,
} from "./history-aware.js";
