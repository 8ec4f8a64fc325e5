/**
 * The summarizer's own model call, seen from a client streaming the agent.
 *
 * - https://github.com/langchain-ai/langchainjs/issues/11238 "JS Summarization Middleware: internal
 *   model.invoke() is streamed to UI - regression" and
 *   https://github.com/langchain-ai/langchainjs/pull/9640 (issue 9455) "prevent summarization
 *   middleware from leaking streaming events";
 * - https://github.com/langchain-ai/deepagentsjs/issues/629 "SummarizationMiddleware internal model
 *   call tokens leak into `agent.stream()` output" (the summarizer falls back to the agent's own
 *   model instance, which carries the stream's callbacks);
 * - https://github.com/bytedance/deer-flow/issues/2503 and
 *   https://github.com/bytedance/deer-flow/pull/3378 (a "ghost AI message" in the chat UI: the
 *   summary streamed as `messages-tuple` events; fixed with the `nostream` tag).
 *
 * A client streaming `streamMode: "messages"` must get the agent's answers and never the summary,
 * whether the summarizer is its own model or the agent's.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText, readSummarySlot } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { lastOf, stackAgent, summarizerModel } from "./support/report-agent.js";

const TURNS = ["one", "two", "three", "four", "five", "six", "seven"];

/** The agent's model; asked anything but one of the user's turns (the summary request), it answers SUMMARY-<n>. */
function agentOrSummarizer() {
  let summaries = 0;
  return strictModel({
    answer: (messages) => {
      const text = messageText(lastOf(messages));
      if (messages.some((m) => m.getType() === "human" && TURNS.includes(messageText(m))) && TURNS.includes(text)) return `ok: ${text}`;
      summaries += 1;
      return `SUMMARY-${summaries}`;
    },
  });
}

async function streamedTexts(
  agent: ReturnType<typeof stackAgent>["agent"],
  threadId: string,
  streamMode: "messages" | ["messages", "updates"],
) {
  const config = { configurable: { thread_id: threadId } };
  const texts: string[] = [];
  for (const turn of TURNS) {
    const stream = await agent.stream({ messages: [new HumanMessage(turn)] }, { ...config, streamMode } as never);
    for await (const chunk of stream as AsyncIterable<unknown>) {
      const part = Array.isArray(streamMode) ? (chunk as [string, unknown]) : ["messages", chunk];
      if (part[0] !== "messages") continue;
      const [message] = part[1] as [BaseMessage, unknown];
      texts.push(`${message.getType()}:${messageText(message)}`);
    }
  }
  const summary = readSummarySlot((await agent.graph.getState(config)).values).summary?.text;
  return { texts, summary };
}

describe("public reports: the summarizer's call in a streamed run", () => {
  it("summarizing with the agent's own model: the stream has the answers, never the summary", async () => {
    const model = agentOrSummarizer();
    const { agent } = stackAgent({ windowSize: 2, summarizeThreshold: 4, model, stack: { summarize: true } });
    const { texts, summary } = await streamedTexts(agent, "leak-own-model", "messages");
    expect(summary).toMatch(/^SUMMARY-\d+$/);
    expect(texts.filter((t) => t.includes("SUMMARY"))).toEqual([]);
    expect(texts.filter((t) => t.startsWith("ai:ok: "))).toEqual(TURNS.map((t) => `ai:ok: ${t}`));
    expect(model.providerLog.rejections).toBe(0);
  });

  it('a separate summarizer, streamed as ["messages", "updates"]: no summary text among the message chunks', async () => {
    const summarizer = summarizerModel((call) => `SUMMARY-${call + 1}`);
    const { agent } = stackAgent({ windowSize: 2, summarizeThreshold: 4, summarizer: summarizer.model });
    const { texts, summary } = await streamedTexts(agent, "leak-own-summarizer", ["messages", "updates"]);
    expect(summary).toMatch(/^SUMMARY-\d+$/);
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    expect(texts.filter((t) => t.includes("SUMMARY"))).toEqual([]);
    expect(texts.filter((t) => t.startsWith("ai:ok: "))).toEqual(TURNS.map((t) => `ai:ok: ${t}`));
  });
});
