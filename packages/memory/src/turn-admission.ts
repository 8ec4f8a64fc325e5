import type { BaseMessage } from "@langchain/core/messages";
import { getConfig } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import type { RunKeys, ThreadwiseSaver } from "./threadwise-saver.js";

/** Where LangGraph 1.x puts a run's own abort signal in a node's `configurable` (the `signal` it passes with the run's checkpoints). */
const ABORT_SIGNALS_KEY = "__pregel_abort_signals";

/**
 * What identifies the run a hook runs in ({@link ThreadwiseSaver.admission}): LangGraph's
 * run-scoped `control` (from `getConfig()`, set in every step) and the run's abort signal (from
 * the hook's `runtime`, set from the run's second step on), with its thread id.
 */
function runOf(runtime: unknown): { run: RunKeys; threadId: unknown; checkpointId: unknown } {
  const configurable = (runtime as { configurable?: Record<string, unknown> } | undefined)?.configurable;
  const signals = configurable?.[ABORT_SIGNALS_KEY] as { externalAbortSignal?: AbortSignal } | undefined;
  let control: object | undefined;
  try {
    control = (getConfig() as { control?: object } | undefined)?.control;
  } catch {
    // Outside a LangGraph run (a hook called directly): no control.
  }
  // The checkpoint the node's task runs from (root namespace), as LangGraph passes it to every task.
  const checkpointId = (configurable?.checkpoint_map as Record<string, unknown> | undefined)?.[""];
  return { run: [control, signals?.externalAbortSignal], threadId: configurable?.thread_id, checkpointId };
}

/**
 * Admits or refuses a turn before it runs (spec R38): a `beforeAgent` hook that waits until the
 * turn's first checkpoint was stored under the thread's lease by `checkpointer`
 * ({@link ThreadwiseSaver.admission}). A turn refused because another turn of the thread is
 * running (or because its operation id is already stored, or it reaches into archived messages)
 * fails here, with `ThreadwiseConcurrentTurnError` (or `ThreadwiseArchivedMessageError`), before
 * any model call, tool run or streamed token; nothing of it is stored. `memoryStack` puts it
 * first in its middleware list; add it yourself, first, when you use a `ThreadwiseSaver` without
 * `memoryStack`.
 *
 * A run resumed from a checkpoint (`invoke(null, { configurable: { thread_id, checkpoint_id } })`,
 * a replay, a HITL `Command`, a run after `updateState`) skips `beforeAgent`; its model and tool
 * calls go through `wrapModelCall` and `wrapToolCall` here, which wait for the same admission
 * ({@link ThreadwiseSaver.turnCall}), so a refused run calls no model and runs no tool on any
 * entry path; a run resumed at the head, which stores no checkpoint before its first task, takes
 * the thread's turn lease there (`turn-in-progress` while another turn runs). They also report the calls: the turn lease's heartbeat renews it only while one
 * runs, so a run that failed where LangGraph writes no error (a reducer error) holds its thread at
 * most `turnLeaseMs` longer; a run stopped by its `recursionLimit` releases it with its last checkpoint.
 *
 * Costs one graph node (one checkpoint) per turn, and waits for one database write under
 * LangGraph's default `async` durability (under `sync` the write is already done; under `exit`
 * nothing is written before the end, so nothing is checked here).
 *
 * @throws ThreadwiseConcurrentTurnError, ThreadwiseArchivedMessageError from the hooks when the run was refused.
 * @example
 * const checkpointer = createCheckpointer(config)!;
 * const agent = createAgent({ model, checkpointer, middleware: [turnAdmission(checkpointer), windowTrim()] });
 */
export function turnAdmission(checkpointer: ThreadwiseSaver) {
  /** A model or tool call of the request's run, once the run is admitted ({@link ThreadwiseSaver.turnCall}). */
  const admitted = <T>(request: { runtime?: unknown; state: { messages?: unknown } }, call: () => Promise<T>): Promise<T> => {
    const { run, threadId, checkpointId } = runOf(request.runtime);
    return checkpointer.turnCall(run, threadId, request.state.messages as BaseMessage[] | undefined, call, checkpointId);
  };
  return createMiddleware({
    name: "threadwise/turn-admission",
    beforeAgent: async (_state, runtime) => {
      await checkpointer.admission(runOf(runtime).run);
      return undefined;
    },
    wrapModelCall: (request, handler) => admitted(request, async () => handler(request)),
    wrapToolCall: (request, handler) => admitted(request, async () => handler(request)),
  });
}
