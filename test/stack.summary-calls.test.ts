/**
 * The full stack in a real `createAgent` run with a checkpointer: summarize persists its summary
 * through its `Command` even though factRecall, inside it, returns a `Command` too (AgentNode hands
 * every outer layer the AIMessage), so a summary is made once per period over the newly evicted
 * messages only, never on every call over the whole unsummarized thread (issue 16).
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { readSummarySlot } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryMiddleware, resolveMemoryConfig } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const TURNS = 20;

describe("summarize in the full stack over many turns", () => {
  it.each(["legacy_system", "stable_tail"] as const)("summarizes once per period, only the new span (%s)", async (mode) => {
    const spans: number[] = [];
    const summarizer = scriptedModel((messages: BaseMessage[], call) => {
      const text = messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
      spans.push(text.match(/Message \d+\./g)?.length ?? 0);
      return `Summary ${call}.`;
    });
    const config = resolveMemoryConfig(
      {
        backend: "in_memory",
        windowSize: 4,
        maxHistoryTokens: 4000,
        summarize: true,
        summarizeThreshold: 8,
        factsMode: "heuristic",
        promptContextMode: mode,
      },
      {},
    );
    const agent = createAgent({
      model: scriptedModel((_m, call) => new AIMessage({ id: `a${call}`, content: "ok" })),
      systemPrompt: "S",
      checkpointer: new MemorySaver(),
      middleware: memoryMiddleware(config, { models: { summarize: summarizer as never }, logger: false }),
    });
    const thread = { configurable: { thread_id: `summary-calls-${mode}` } };
    for (let k = 0; k < TURNS; k += 1) {
      await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `I live in Seoul. Message ${k}.` })] }, thread);
    }
    // Threshold 8, window 4: the first summary once 8 messages are stored, then one per 4 evicted
    // messages (2 turns). Every call due would mean one summarizer call per turn from turn 5 on.
    expect(spans.length).toBe(8);
    // The first summary covers what left the window (6 messages, 3 of them user messages); each
    // later one only the 4 newly evicted messages (2 user messages), never the whole thread.
    expect(spans[0]).toBe(3);
    expect(spans.slice(1)).toEqual(Array(7).fill(2));
    const state = await agent.graph.getState(thread);
    const summary = readSummarySlot(state.values as Record<string, unknown>).summary;
    expect(summary?.text).toBe("Summary 7.");
    expect(summary?.coveredCount).toBe(34);
  });
});
