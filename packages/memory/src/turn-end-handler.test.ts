import { GraphCallbackHandler } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import type { ThreadwiseSaver } from "./threadwise-saver.js";
import { ThreadwiseTurnEndHandler, turnEndCallbacks } from "./turn-end-handler.js";

/** A saver that records the turns it is asked to end. */
function recordingSaver() {
  const ended: unknown[] = [];
  const saver = { endTurn: async (config: unknown) => void ended.push(config) } as unknown as ThreadwiseSaver;
  return { saver, ended };
}

const breakpoint = (runId: string, more: object = {}) => ({
  runId,
  status: "interrupt_before",
  checkpointId: "c7",
  checkpointNs: [],
  interrupts: [],
  ...more,
});

describe("ThreadwiseTurnEndHandler", () => {
  it("is a LangGraph graph callback handler whose calls LangGraph awaits", () => {
    const [handler] = turnEndCallbacks(recordingSaver().saver);
    expect(GraphCallbackHandler.isInstance(handler)).toBe(true);
    expect(handler.awaitHandlers).toBe(true);
  });

  it("ends the turn at a root static breakpoint's checkpoint, on the thread the run started with", async () => {
    const { saver, ended } = recordingSaver();
    const handler = new ThreadwiseTurnEndHandler(saver);
    handler.handleChainStart({} as never, {}, "run-1", undefined, [], { thread_id: "trip-42" });
    await handler.handleInterrupt(breakpoint("run-1"));
    expect(ended).toEqual([{ configurable: { thread_id: "trip-42", checkpoint_id: "c7" } }]);
  });

  it("leaves dynamic interrupts (their write ends the turn), nested namespaces, runs without a thread and ended runs alone", async () => {
    const { saver, ended } = recordingSaver();
    const handler = new ThreadwiseTurnEndHandler(saver);
    handler.handleChainStart({} as never, {}, "run-1", undefined, [], { thread_id: "trip-42" });
    handler.handleChainStart({} as never, {}, "run-2", undefined, [], {});
    await handler.handleInterrupt(breakpoint("run-1", { interrupts: [{ value: "which?" }] }));
    await handler.handleInterrupt(breakpoint("run-1", { checkpointNs: ["tools:1"] }));
    await handler.handleInterrupt(breakpoint("run-2"));
    await handler.handleInterrupt(breakpoint("run-3"));
    handler.handleChainEnd({}, "run-1");
    await handler.handleInterrupt(breakpoint("run-1"));
    expect(ended).toEqual([]);
  });
});
