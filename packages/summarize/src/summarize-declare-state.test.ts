import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText, readSummarySlot, summarySlotMiddleware, ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { summarize } from "./summarize.js";

/** The agent model answers `a<k>` to user message `u<k>`; the summarizer `S1`, `S2`, ... */
function models() {
  const agentModel = scriptedModel((messages) => {
    const last = [...messages].reverse().find((m) => m.getType() === "human" && !String(m.id ?? "").startsWith("tw-context-"));
    return `a${String(last?.id ?? "?").slice(1)}`;
  });
  const summarizer = scriptedModel((_messages, call) => `S${call + 1}`);
  return { agentModel, summarizer };
}

/** Runs `turns` turns of one thread; returns every request the agent model received (text by role) and the stored summary. */
async function run(middleware: (summarizer: ReturnType<typeof scriptedModel>) => AgentMiddleware[], turns: number) {
  const { agentModel, summarizer } = models();
  const agent = createAgent({ model: agentModel, checkpointer: new MemorySaver(), middleware: middleware(summarizer) });
  const config = { configurable: { thread_id: "t" } };
  for (let k = 1; k <= turns; k += 1) await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
  const requests = agentModel.calls.map((call) => call.messages.map((m: BaseMessage) => `${m.getType()}:${messageText(m)}`));
  const state = await agent.graph.getState(config);
  return { requests, summary: readSummarySlot(state.values).summary, summarizerCalls: summarizer.calls.length };
}

describe("summarize({ declareState: false })", () => {
  it("declares no state schema, so LangChain parses none of summarize's at each model call", () => {
    expect(summarize().stateSchema).toBeDefined();
    expect(summarize({ declareState: false }).stateSchema).toBeUndefined();
    const slot = summarySlotMiddleware();
    expect(slot.stateSchema).toBeDefined();
    expect([slot.wrapModelCall, slot.beforeModel, slot.afterModel, slot.beforeAgent, slot.afterAgent]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("with summarySlotMiddleware sends the requests and stores the summaries of the default", async () => {
    const declared = await run(
      (summarizer) => [windowTrim({ maxMessages: 4, logger: false }), summarize({ model: summarizer, threshold: 6, logger: false })],
      14,
    );
    const shared = await run(
      (summarizer) => [
        windowTrim({ maxMessages: 4, logger: false }),
        summarySlotMiddleware(),
        summarize({ model: summarizer, threshold: 6, declareState: false, logger: false }),
      ],
      14,
    );
    // Summaries were made and placed: the test would pass vacuously otherwise.
    expect(declared.summarizerCalls).toBeGreaterThan(1);
    expect(declared.requests.at(-1)?.[0]).toContain(`S${declared.summarizerCalls}`);
    expect(shared.requests).toEqual(declared.requests);
    // The agent model's answers get fresh ids on every run: the summaries are compared without them.
    const shape = (record: typeof declared.summary) => ({
      text: record?.text,
      coveredCount: record?.coveredCount,
      passes: record?.passes,
      lastPasses: record?.lastPasses?.map(({ messages, inputTokens }) => ({ messages, inputTokens })),
    });
    expect(shape(shared.summary)).toEqual(shape(declared.summary));
    expect(shared.summarizerCalls).toBe(declared.summarizerCalls);
  });

  it("without a middleware declaring the slot, a model call throws naming summarize.declareState", async () => {
    const { agentModel, summarizer } = models();
    const agent = createAgent({
      model: agentModel,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, declareState: false, logger: false })],
    });
    const error = await agent
      .invoke({ messages: [new HumanMessage({ id: "u1", content: "u1" })] }, { configurable: { thread_id: "t" } })
      .catch((e: unknown) => e);
    // LangChain wraps a middleware's error; the cause is ours.
    const cause = (error as { cause?: unknown }).cause ?? error;
    expect(cause).toBeInstanceOf(ThreadwiseConfigError);
    expect((cause as ThreadwiseConfigError).option).toBe("summarize.declareState");
  });
});
