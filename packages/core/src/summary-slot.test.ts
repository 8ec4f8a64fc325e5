import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { mergeSummarySlot, readSummarySlot, SUMMARY_SLOT_KEY, summarySlotState } from "./summary-slot.js";
import { scriptedModel } from "./testing/index.js";

describe("summary slot", () => {
  it("merges work-memory entries by id and keeps the summary", () => {
    const summary = { text: "s", coveredThroughId: "m3", coveredCount: 3, updatedAt: "2026-01-01T00:00:00Z" };
    const a = { id: "r1", text: "one", createdAt: "t" };
    const b = { id: "r2", text: "two", createdAt: "t" };
    const once = mergeSummarySlot({ summary }, { workMemory: { entries: [a, b] } });
    const twice = mergeSummarySlot(once, { workMemory: { entries: [a, b] } });
    expect(twice).toEqual({ summary, workMemory: { entries: [a, b] } });
    expect(mergeSummarySlot(twice, { workMemory: { entries: [], keepIds: ["r2"] } })).toEqual({ summary, workMemory: { entries: [b] } });
  });

  it("is shared by two middlewares and checkpointed as private state", async () => {
    const writer = (name: string, update: object) =>
      createMiddleware({ name, stateSchema: summarySlotState, afterModel: () => ({ [SUMMARY_SLOT_KEY]: update }) as never });
    const summary = { text: "s", coveredThroughId: null, coveredCount: 0, updatedAt: "t" };
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      checkpointer: new MemorySaver(),
      middleware: [writer("a", { summary }), writer("b", { workMemory: { entries: [{ id: "x", text: "w", createdAt: "t" }] } })],
    });
    const config = { configurable: { thread_id: "slot" } };
    const result = await agent.invoke({ messages: [new HumanMessage("hi")] }, config);
    expect(SUMMARY_SLOT_KEY in result).toBe(false);
    const state = await agent.graph.getState(config);
    expect(readSummarySlot(state.values)).toEqual({ summary, workMemory: { entries: [{ id: "x", text: "w", createdAt: "t" }] } });
  });
});
