import { getCurrentTaskInput } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import { readSummarySlot, SUMMARY_SLOT_KEY, type SummarySlot, summarySlotState } from "./summary-slot.js";

/** Name of {@link summarySlotMiddleware}. */
export const SUMMARY_SLOT_MIDDLEWARE_NAME = "threadwise/summary-slot";

/**
 * Declares the thread's summary slot (`_threadwise_summary`, {@link summarySlotState}) for the
 * agent, and does nothing else: no hook, so no graph node, and nothing LangChain runs per model
 * call. LangChain parses the declared state schema of a middleware that has `wrapModelCall` at
 * every model call (it builds a new partial zod object each time, about 0.2 ms); with the slot
 * declared here, `summarize({ declareState: false })` reads it from the model node's input
 * instead ({@link summarySlotOf}). `memoryStack` puts it in front of `summarize`. The one
 * threadwise middleware not made with `threadwiseMiddleware`: it never sees a model request.
 *
 * @example
 * createAgent({ model, checkpointer, middleware: [windowTrim(), summarySlotMiddleware(), summarize({ declareState: false })] });
 */
export function summarySlotMiddleware() {
  return createMiddleware({ name: SUMMARY_SLOT_MIDDLEWARE_NAME, stateSchema: summarySlotState });
}

/**
 * The summary slot as the model node received it: from `request.state` when it holds the slot (a
 * middleware that declares it, or a hook called directly), else from the node's input (LangGraph's
 * `getCurrentTaskInput`, for a middleware that declares no state schema of its own). `undefined`
 * when the agent declares no slot (no middleware has {@link summarySlotState}) or the call runs
 * outside a graph without the slot in `request.state`.
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
  if (!values || typeof values !== "object" || !(SUMMARY_SLOT_KEY in values)) return undefined;
  return readSummarySlot(values);
}
