/**
 * Checkpoint writes of one agent step (issue 16): the full threadwise stack must not add graph
 * nodes (each one is a superstep and a checkpoint write) and no node may write the `messages`
 * channel with messages it did not change. Counted on MemorySaver's `put` / `putWrites`.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryMiddleware, resolveMemoryConfig } from "@threadwise/memory";
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";

interface StepWrites {
  puts: number;
  putWrites: number;
  /** Messages written to the `messages` channel by pending writes during the step. */
  messagesWritten: number;
}

function countingSaver() {
  const saver = new MemorySaver();
  const counts: StepWrites = { puts: 0, putWrites: 0, messagesWritten: 0 };
  const put = saver.put.bind(saver);
  const putWrites = saver.putWrites.bind(saver);
  saver.put = (...args: Parameters<typeof put>) => {
    counts.puts += 1;
    return put(...args);
  };
  saver.putWrites = (config, writes, taskId) => {
    counts.putWrites += 1;
    for (const [channel, value] of writes) if (channel === "messages") counts.messagesWritten += Array.isArray(value) ? value.length : 1;
    return putWrites(config, writes, taskId);
  };
  return { saver, counts };
}

/** Runs `turns` steps and returns the writes of the last one. */
async function lastStepWrites(middleware: AgentMiddleware[], turns: number): Promise<StepWrites> {
  const { saver, counts } = countingSaver();
  const agent = createAgent({
    model: scriptedModel((_m, call) => new AIMessage({ id: `a${call}`, content: "ok" })),
    systemPrompt: "S",
    checkpointer: saver,
    middleware,
  });
  const config = { configurable: { thread_id: "writes" } };
  let before = { ...counts };
  for (let k = 0; k < turns; k += 1) {
    before = { ...counts };
    await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `I live in Seoul. Message ${k}.` })] }, config);
  }
  return {
    puts: counts.puts - before.puts,
    putWrites: counts.putWrites - before.putWrites,
    messagesWritten: counts.messagesWritten - before.messagesWritten,
  };
}

const floor = () => [createMiddleware({ name: "pass-through", wrapModelCall: (request, handler) => handler(request) })];

function fullStack(mode: "legacy_system" | "stable_tail"): AgentMiddleware[] {
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
  return memoryMiddleware(config, { models: { summarize: scriptedModel(() => "A summary.") as never }, logger: false });
}

describe("checkpoint writes per step", () => {
  it("the full stack writes as often as one pass-through middleware, and only the two new messages", async () => {
    const reference = await lastStepWrites(floor(), 12);
    expect(reference.messagesWritten).toBe(2);
    for (const mode of ["legacy_system", "stable_tail"] as const) {
      // 12 turns: past the first summary (threshold 8), with facts written on every turn.
      const stack = await lastStepWrites(fullStack(mode), 12);
      expect(stack).toEqual(reference);
    }
  });
});
