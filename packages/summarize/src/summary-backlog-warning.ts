import type { ThreadwiseLogger } from "@threadwise/core";
import { MAX_PASSES_ENV } from "./summarize-options.js";

/**
 * The warning of a backlog left out of a view (spec R39): a call whose view leaves out messages
 * the summary does not cover yet, because the backlog is larger than `maxPassesPerCall` passes
 * fold in (an imported thread, a summarizer that failed for a while), logs one warning naming the
 * count, `maxPassesPerCall` and `MEMORY_SUMMARIZE_MAX_PASSES`, once per thread while it is behind:
 * a call that is no longer behind ends it, and the thread's next backlog warns again. Until then
 * the count is only in the multiturn info line (`unsummarized_dropped`), off by default.
 *
 * In process memory, bounded to `maxThreads` thread ids (the oldest forgotten first, then warned
 * again): a new process warns once more for a thread still behind. Nothing it does changes a view.
 */
export class BacklogWarning {
  readonly #behind = new Set<string>();
  readonly #logger: ThreadwiseLogger;
  readonly #maxPassesPerCall: number;
  readonly #maxThreads: number;
  constructor(logger: ThreadwiseLogger, maxPassesPerCall: number, maxThreads: number) {
    this.#logger = logger;
    this.#maxPassesPerCall = maxPassesPerCall;
    this.#maxThreads = maxThreads;
  }

  /**
   * States one call of `threadId` (`""` when the run names none): `unsent`, the messages neither
   * summarized nor sent (core's `viewReport(...).unsummarizedDropped`), or 0 when it is not behind.
   */
  call(threadId: string, unsent: number): void {
    if (unsent <= 0) {
      this.#behind.delete(threadId);
      return;
    }
    if (this.#behind.has(threadId)) return;
    if (this.#behind.size >= this.#maxThreads) this.#behind.delete(this.#behind.values().next().value as string);
    this.#behind.add(threadId);
    this.#logger.warn(
      `summarize: ${unsent} message(s) of this thread are neither summarized yet nor sent to the model: its backlog (an imported thread, or a summarizer that failed for a while) is larger than maxPassesPerCall (${this.#maxPassesPerCall}) summarizer passes fold in per call, and is caught up over the next calls; ` +
        `raise maxPassesPerCall (env ${MAX_PASSES_ENV}) or maxInputTokens to catch up in fewer calls (warned once while the thread is behind)`,
      { unsummarized_dropped: unsent, max_passes_per_call: this.#maxPassesPerCall },
    );
  }
}
