import { createMiddleware } from "langchain";
import type { ThreadwiseSaver } from "./threadwise-saver.js";

/** Where LangGraph 1.x puts a run's own abort signal in a node's `configurable` (the `signal` it passes with the run's checkpoints). */
const ABORT_SIGNALS_KEY = "__pregel_abort_signals";

/**
 * Admits or refuses a turn before it runs (spec R38): a `beforeAgent` hook that waits until the
 * turn's first checkpoint was stored under the thread's lease by `checkpointer`
 * ({@link ThreadwiseSaver.admission}). A turn refused because another turn of the thread is
 * running (or because its operation id is already stored) fails here, with
 * `ThreadwiseConcurrentTurnError`, before any model call, tool run or streamed token; nothing of
 * it is stored. `memoryStack` puts it first in its middleware list; add it yourself, first, when
 * you use a `ThreadwiseSaver` without `memoryStack`.
 *
 * Costs one graph node (one checkpoint) per turn, and waits for one database write under
 * LangGraph's default `async` durability (under `sync` the write is already done; under `exit`
 * nothing is written before the end, so nothing is checked here).
 *
 * @throws ThreadwiseConcurrentTurnError from the hook when the turn was refused.
 * @example
 * const checkpointer = createCheckpointer(config)!;
 * const agent = createAgent({ model, checkpointer, middleware: [turnAdmission(checkpointer), windowTrim()] });
 */
export function turnAdmission(checkpointer: ThreadwiseSaver) {
  return createMiddleware({
    name: "threadwise/turn-admission",
    beforeAgent: async (_state, runtime) => {
      const signals = (runtime as { configurable?: Record<string, unknown> }).configurable?.[ABORT_SIGNALS_KEY] as
        | { externalAbortSignal?: AbortSignal }
        | undefined;
      await checkpointer.admission(signals?.externalAbortSignal);
      return undefined;
    },
  });
}
