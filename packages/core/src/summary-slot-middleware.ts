import { getCurrentTaskInput } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { ThreadwiseConfigError } from "./errors.js";
import { readSummarySlot, SUMMARY_SLOT_KEY, type SummarySlot, summarySlotState } from "./summary-slot.js";

/** Name of {@link summarySlotMiddleware}. */
export const SUMMARY_SLOT_MIDDLEWARE_NAME = "threadwise/summary-slot";

/**
 * Declares the thread's summary slot (`_threadwise_summary`, {@link summarySlotState}) for the
 * agent, and does nothing else: no hook, so no graph node, and nothing LangChain runs per model
 * call. LangChain parses the declared state schema of a middleware that has `wrapModelCall` at
 * every model call (it builds a new partial zod object each time, about 0.2 ms); with the slot
 * declared here, `summarize`, `workMemory`, `userMemory` and `persistTrim` given
 * `declareState: false` read it from the graph instead ({@link summarySlotOf}). `memoryStack`
 * declares it once this way for all of them. The one
 * threadwise middleware not made with `threadwiseMiddleware`: it never sees a model request.
 *
 * @example
 * createAgent({ model, checkpointer, middleware: [windowTrim(), summarySlotMiddleware(), summarize({ declareState: false })] });
 */
export function summarySlotMiddleware() {
  return createMiddleware({ name: SUMMARY_SLOT_MIDDLEWARE_NAME, stateSchema: summarySlotState });
}

/** Where LangGraph 1.x puts a task's channel reader in its `configurable` (what its own `ChannelRead` calls). */
const CHANNEL_READ_KEY = "__pregel_read";

/**
 * The summary slot as the running node sees it: from `request.state` (or a hook's state) when it
 * holds the slot (a middleware that declares it, or a hook called directly); else from the node's
 * input (LangGraph's `getCurrentTaskInput`: the model node reads every channel); else, in a hook
 * node, whose input holds only the channels its own middleware declares, from LangGraph's channel
 * reader of the task (`configurable.__pregel_read`, the function LangGraph's `ChannelRead` calls;
 * not fresh, so the values at the start of the node's step, exactly what a declared input holds).
 * `undefined` when the agent declares no slot (no middleware has {@link summarySlotState}) or the
 * call runs outside a graph without the slot in its state.
 */
export function summarySlotOf(request: { state?: unknown; runtime?: unknown }): SummarySlot | undefined {
  const state = request.state as Record<string, unknown> | undefined;
  if (state && SUMMARY_SLOT_KEY in state) return readSummarySlot(state);
  const configurable = (request.runtime as { configurable?: Record<string, unknown> } | undefined)?.configurable;
  let input: unknown;
  try {
    input = getCurrentTaskInput({ configurable } as never);
  } catch {
    return undefined;
  }
  const values = input as Record<string, unknown> | null | undefined;
  if (values && typeof values === "object" && SUMMARY_SLOT_KEY in values) return readSummarySlot(values);
  const read = configurable?.[CHANNEL_READ_KEY];
  if (typeof read !== "function") return undefined;
  // One channel by name: its value, `null` while it is empty (declared, never written), and a
  // throw when the graph has no such channel (no middleware declares the slot).
  let value: unknown;
  try {
    value = (read as (select: string, fresh: boolean) => unknown)(SUMMARY_SLOT_KEY, false);
  } catch {
    return undefined;
  }
  return readSummarySlot({ [SUMMARY_SLOT_KEY]: value ?? undefined });
}

/**
 * {@link summarySlotOf} for a middleware built with `declareState: false`: the slot, or a
 * `ThreadwiseConfigError` naming `option` (`workMemory.declareState`) when no middleware of the
 * agent declares it (nothing could be read or stored).
 * @throws ThreadwiseConfigError naming `option`.
 */
export function declaredSummarySlot(request: { state?: unknown; runtime?: unknown }, option: string): SummarySlot {
  const slot = summarySlotOf(request);
  if (slot === undefined)
    throw new ThreadwiseConfigError(
      option,
      "is false, but no middleware of the agent declares the summary slot: add summarySlotMiddleware() from @threadwise/core to the middleware list, or leave declareState at its default (true)",
    );
  return slot;
}
