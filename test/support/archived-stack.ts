import { scriptedModel } from "@threadwise/core/testing";
import type { MemoryStackOptions } from "@threadwise/memory";

/**
 * Options of a stack whose threads get archived within a dozen turns (`archive: true`, a window of
 * 2, a summary due from 4 messages on a scripted summarizer answering `요약 summary N`), no log,
 * no env read; `target` adds the backend, store and keyring.
 */
export const archivedStackOptions = (target: Partial<MemoryStackOptions>): MemoryStackOptions => ({
  archive: true,
  windowSize: 2,
  summarizeThreshold: 4,
  models: { summarize: scriptedModel((_m, k) => `요약 summary ${k + 1}`) },
  logger: false,
  env: {},
  ...target,
});
