import { type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { getConfig, isGraphBubbleUp } from "@langchain/langgraph";
import { refuseSlashedRunsInV1Log, runCheckpointerOf, runCheckpointIdOf } from "@threadwise/core";
import { createMiddleware } from "langchain";
import { threadwiseSaverOf } from "./archive-checkpointer-check.js";
import { CHECKPOINT_NAMESPACE_SEPARATOR, exitDurability, type RunKeys, type ThreadwiseSaver } from "./threadwise-saver.js";

/** Where LangGraph 1.x puts a run's own abort signal in a node's `configurable` (the `signal` it passes with the run's checkpoints). */
const ABORT_SIGNALS_KEY = "__pregel_abort_signals";

/**
 * The saver that stores the run's checkpoints, and so knows the run: the {@link ThreadwiseSaver}
 * the run's own checkpointer is or wraps (`threadwiseSaverOf`: a tracing wrapper or
 * `encryptCheckpointer` naming it `inner`), else `bound` (the one `turnAdmission` was built with).
 * Two stacks of one deployment on one store (a replica's middleware with another stack's saver,
 * `createAgent({ middleware: a.middleware, checkpointer: b.checkpointer })`) each hold their own
 * run records: asking the bound saver, which never saw the run, made it claim the turn lease the
 * run itself had just taken, so every turn after the first was refused `turn-in-progress`.
 */
function saverOf(runtime: unknown, bound: ThreadwiseSaver): ThreadwiseSaver {
  return threadwiseSaverOf(runCheckpointerOf(runtime)) ?? bound;
}

/**
 * What identifies the run a hook runs in ({@link ThreadwiseSaver.admission}): LangGraph's
 * run-scoped `control` (from `getConfig()`, set in every step) and the run's abort signal (from
 * the hook's `runtime`, set from the run's second step on), with its thread id.
 */
function runOf(runtime: unknown): {
  run: RunKeys;
  threadId: unknown;
  checkpointId: unknown;
  stepSignal: unknown;
  operationId: unknown;
  fromHead: boolean;
} {
  const configurable = (runtime as { configurable?: Record<string, unknown> } | undefined)?.configurable;
  const signals = configurable?.[ABORT_SIGNALS_KEY] as { externalAbortSignal?: AbortSignal; timeoutAbortSignal?: AbortSignal } | undefined;
  let control: object | undefined;
  // Whether the run started at the head it read: LangGraph copies the caller's configurable into the
  // run's metadata, so a `checkpoint_id` there is one the caller chose (a branch); under `exit` the
  // checkpoint a task runs from is not stored, so nothing is compared (see ThreadwiseSaver.turnCall).
  let fromHead = false;
  try {
    const config = getConfig() as (RunnableConfig & { control?: object }) | undefined;
    control = config?.control;
    fromHead = config !== undefined && config.metadata?.checkpoint_id === undefined && !exitDurability(config);
  } catch {
    // Outside a LangGraph run (a hook called directly): no control.
  }
  // The checkpoint the node's task runs from (root namespace), as LangGraph passes it to every task.
  // The step timeout of a task of the root graph (`node:task` namespace; a subgraph's task, under
  // `|`, sees its own graph's, or its parent's).
  const root = !String(configurable?.checkpoint_ns ?? "").includes(CHECKPOINT_NAMESPACE_SEPARATOR);
  return {
    run: [control, signals?.externalAbortSignal],
    threadId: configurable?.thread_id,
    checkpointId: runCheckpointIdOf(runtime),
    stepSignal: root ? signals?.timeoutAbortSignal : undefined,
    operationId: configurable?.operation_id,
    fromHead,
  };
}

/** The brand langchain puts on its `MiddlewareError` and `ToolInvocationError` (`"~brand"`; read by value, as their `isInstance` does). */
function brandOf(error: unknown): unknown {
  return error instanceof Error ? (error as { "~brand"?: unknown })["~brand"] : undefined;
}

/**
 * What a tool call's error becomes when it reaches `turnAdmission` (the outermost `wrapToolCall`
 * of `memoryStack`): the error `ToolMessage` langchain's `ToolNode` makes without any `wrapToolCall`
 * middleware (its `defaultHandleToolErrors`: `` `${error}\n Please fix your mistakes.` ``,
 * `status: "error"`), so the model reads the tool's failure as it does on the same agent without
 * the stack. With a `wrapToolCall` middleware present, the `ToolNode` treats a tool's error as the
 * middleware's and ends the run with it (langchain 1.5; langchain-ai/openwiki#70, #426): adding
 * the memory stack turned a tool that throws from an answer the model can react to into a failed
 * run. Rethrown unchanged: interrupts and other LangGraph bubble-ups, an aborted run's error, an
 * error of another middleware (`MiddlewareError`), and `ToolInvocationError` (bad arguments), which
 * the `ToolNode` already answers the same way.
 */
function toolErrorResult(error: unknown, request: { toolCall: { id?: string; name: string }; runtime?: unknown }): ToolMessage {
  const signal = (request.runtime as { signal?: AbortSignal } | undefined)?.signal;
  const brand = brandOf(error);
  if (isGraphBubbleUp(error) || signal?.aborted || brand === "MiddlewareError" || brand === "ToolInvocationError") throw error;
  return new ToolMessage({
    content: `${error}\n Please fix your mistakes.`,
    tool_call_id: request.toolCall.id ?? "",
    name: request.toolCall.name,
    status: "error",
  });
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
 * A tool's own error reaches the model as the error `ToolMessage` langchain makes without
 * middleware (see {@link toolErrorResult}), not as a failed run: the `wrapToolCall` this adds
 * would otherwise make every tool error end the run.
 *
 * Costs one graph node (one checkpoint) per turn, and waits for one database write under
 * LangGraph's default `async` durability (under `sync` the write is already done; under `exit`
 * nothing is written before the end, so nothing is checked here).
 *
 * A run whose `configurable.checkpoint_id` names no checkpoint of its thread is refused the same
 * way, with `ThreadwiseConfigError` naming `configurable.checkpoint_id` (was: LangGraph ran it from
 * an empty state and stored that as the thread's head).
 *
 * @throws ThreadwiseConcurrentTurnError, ThreadwiseArchivedMessageError, ThreadwiseConfigError from the hooks when the run was refused.
 * @example
 * const checkpointer = createCheckpointer(config)!;
 * const agent = createAgent({ model, checkpointer, middleware: [turnAdmission(checkpointer), windowTrim()] });
 */
export function turnAdmission(checkpointer: ThreadwiseSaver) {
  /** A model or tool call of the request's run, once the run is admitted ({@link ThreadwiseSaver.turnCall}). */
  const admitted = <T>(request: { runtime?: unknown; state: { messages?: unknown } }, call: () => Promise<T>): Promise<T> => {
    const { run, threadId, checkpointId, stepSignal, operationId, fromHead } = runOf(request.runtime);
    return saverOf(request.runtime, checkpointer).turnCall(
      run,
      threadId,
      request.state.messages as BaseMessage[] | undefined,
      call,
      checkpointId,
      stepSignal,
      operationId,
      fromHead,
    );
  };
  // Not threadwiseMiddleware (no request assembly here): its node is refused under streamEvents v1 the same way.
  refuseSlashedRunsInV1Log();
  return createMiddleware({
    name: "threadwise/turn-admission",
    beforeAgent: async (_state, runtime) => {
      await saverOf(runtime, checkpointer).admission(runOf(runtime).run);
      return undefined;
    },
    wrapModelCall: (request, handler) => admitted(request, async () => handler(request)),
    wrapToolCall: (request, handler) =>
      admitted(request, async () => {
        try {
          return await handler(request);
        } catch (error) {
          return toolErrorResult(error, request);
        }
      }),
  });
}
