import type { ThreadwiseLogger } from "@threadwise/core";
import { MAX_PASSES_ENV } from "./summarize-options.js";

/**
 * The warning of a backlog left out of a view (spec R39): each call whose view leaves out messages
 * the summary does not cover yet, because the backlog is larger than `maxPassesPerCall` passes
 * fold in (an imported thread, a summarizer that failed for a while), logs one warning naming the
 * count, `maxPassesPerCall` and `MEMORY_SUMMARIZE_MAX_PASSES`, as a token cap's cut of uncovered
 * messages does. Until then the count was only in the multiturn info line (`unsummarized_dropped`),
 * off by default. Stateless: a call warns from what it computed, so a fresh process logs what a
 * running one does. Nothing it does changes a view.
 */
export class BacklogWarning {
  readonly #logger: ThreadwiseLogger;
  readonly #maxPassesPerCall: number;
  constructor(logger: ThreadwiseLogger, maxPassesPerCall: number) {
    this.#logger = logger;
    this.#maxPassesPerCall = maxPassesPerCall;
  }

  /**
   * States one call: `unsent`, the messages neither summarized nor sent (core's
   * `viewReport(...).unsummarizedDropped`), or 0 when it is not behind.
   */
  call(unsent: number): void {
    if (unsent <= 0) return;
    this.#logger.warn(
      `summarize: ${unsent} message(s) of this thread are neither summarized yet nor sent to the model: its backlog (an imported thread, or a summarizer that failed for a while) is larger than maxPassesPerCall (${this.#maxPassesPerCall}) summarizer passes fold in per call, and is caught up over the next calls; ` +
        `raise maxPassesPerCall (env ${MAX_PASSES_ENV}) or maxInputTokens to catch up in fewer calls`,
      { unsummarized_dropped: unsent, max_passes_per_call: this.#maxPassesPerCall },
    );
  }
}
