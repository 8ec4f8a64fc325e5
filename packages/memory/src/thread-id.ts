// The thread-id rules live in core since user memory (spec R40) checks user ids the same way; these
// names stay exported here for existing imports.
export { MAX_THREAD_ID_BYTES, normalizeThreadId, type ThreadIdLimit, ThreadwiseThreadIdError } from "@threadwise/core";
