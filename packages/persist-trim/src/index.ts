export {
  KEEP_GROUPS_ENV,
  messagesToDelete,
  type PersistTrimOptions,
  persistTrim,
  persistTrimOptionsSchema,
  type ResolvedPersistTrimOptions,
  resolvePersistTrimOptions,
} from "./persist-trim.js";
