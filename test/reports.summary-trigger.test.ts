/**
 * When summaries are made, and how often.
 *
 * - https://github.com/bytedance/deer-flow/issues/1602 "SummarizationMiddleware fails to trigger in
 *   streaming mode when stream_usage is not enabled, causing context window overflow" (the token
 *   trigger read the provider's `usage_metadata`, absent from streamed chunks);
 * - https://github.com/KodyKendall/LlamaBot/pull/67 "Fix DeltaChannel summarization loop" (the
 *   summary was appended on top of the history it replaced, the token count never fell below the
 *   trigger, and every turn summarized again) and
 *   https://github.com/langchain-ai/deepagents/issues/2874 "SummarizationMiddleware never trims
 *   state.messages, causing unbounded checkpoint growth": with the stored thread trimmed
 *   (`persistTrimKeepGroups`) the summary must still be made once per batch that left the window,
 *   and cover what the trim removed.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText, readSummarySlot } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

describe("public reports: when summaries are made", () => {
  it("a token trigger fires on a streamed run whose model reports no usage", async () => {
    const summarizer = summarizerModel((call) => `summary ${call + 1}`);
    const { agent, model } = stackAgent({
      windowSize: 4,
      summarizer: summarizer.model,
      systemPrompt: false,
      stack: { summarizeTrigger: { tokens: 300 } },
    });
    const config = { configurable: { thread_id: "stream-no-usage" } };
    for (let k = 1; k <= 8; k += 1) {
      const stream = await agent.stream(
        { messages: [new HumanMessage(`turn ${k}: ${"fare rules and seat maps ".repeat(10)}`)] },
        {
          ...config,
          streamMode: "messages",
        },
      );
      for await (const _ of stream) {
        // drain
      }
    }
    expect(model.providerLog.rejections).toBe(0);
    for (const request of requests(model))
      for (const m of request) expect((m as { usage_metadata?: unknown }).usage_metadata).toBeUndefined();
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    const last = requests(model).at(-1) as BaseMessage[];
    expect(JSON.stringify(last.map((m) => messageText(m)))).toMatch(/summary \d+/);
  });

  it("with the stored thread trimmed, one summarizer call per batch that left the window, never one per turn, and the summary covers what the trim removed", async () => {
    const summarizer = summarizerModel((call) => `summary ${call + 1}`);
    const { agent, model } = stackAgent({
      windowSize: 4,
      summarizeThreshold: 8,
      summarizer: summarizer.model,
      systemPrompt: false,
      stack: { persistTrimKeepGroups: 6 },
    });
    const config = { configurable: { thread_id: "trimmed-summary" } };
    const turns = 30;
    const callsAt: number[] = [];
    for (let k = 1; k <= turns; k += 1) {
      const before = summarizer.inputs.length;
      await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
      if (summarizer.inputs.length > before) callsAt.push(k);
    }
    expect(model.providerLog.rejections).toBe(0);
    // 60 messages, a window of 4, a new summary each time 4 more (threshold - window) left it: about 14 calls.
    expect(callsAt.length).toBeGreaterThan(5);
    expect(callsAt.length).toBeLessThanOrEqual(Math.ceil((2 * turns - 4) / 4) + 1);
    // Never two turns in a row with a call once the thread is long.
    for (let i = 1; i < callsAt.length; i += 1) expect((callsAt[i] as number) - (callsAt[i - 1] as number)).toBeGreaterThanOrEqual(2);
    // The stored thread is bounded by the trim.
    const stored = await storedMessages(agent.graph as never, "trimmed-summary");
    expect(stored.length).toBeLessThanOrEqual(12);
    // Each summarizer call folded in messages the earlier ones had not: the oldest turns too.
    const seen = JSON.stringify(summarizer.inputs.map((input) => input.map((m) => messageText(m))));
    for (const k of [1, 2, 3, 10, 20]) expect(seen).toContain(`User: turn ${k}\\n`);
    expect(readSummarySlot((await agent.graph.getState(config)).values).summary?.text).toMatch(/^summary \d+$/);
  });
});
