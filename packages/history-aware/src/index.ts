export {
  DEFAULT_HISTORY_NOTE,
  DEFAULT_HISTORY_NOTES,
  type HistoryAwareOptions,
  hasEarlierTurn,
  historyAware,
  historyAwareOptionsSchema,
} from "./history-aware.js";
