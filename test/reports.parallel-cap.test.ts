/**
 * A parallel tool call whose results straddle a small token budget.
 *
 * https://github.com/langchain-ai/langmem/issues/126 "Bug in summarizing parallel tool calls": two
 * parallel calls, the first result 5,000 characters, a 384-token budget; the summarization cut
 * fell between the two results, so the kept part started with a tool result whose call had been
 * summarized away (and the summary saw one result without the other).
 *
 * Under the stack's cap the fan-out is kept whole or left out whole, every request is accepted, and
 * once it leaves the view the summarizer reads the call with both results.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const randString = tool(async ({ len }: { len: number }) => `${len}:${"xq7Lp".repeat(Math.ceil(len / 5)).slice(0, len)}`, {
  name: "rand_string",
  description: "A random string of the given length.",
  schema: z.object({ len: z.number() }),
});

describe("public reports: a parallel call across a small token budget", () => {
  it("the fan-out is sent whole or not at all, and summarized with both results", async () => {
    const model = strictModel({
      answer: (messages) => {
        const last = lastOf(messages);
        if (isTool(last)) return "Generated the two random strings.";
        if (messageText(last).startsWith("Generate"))
          return new AIMessage({
            content: "Utilizing `rand_string` tool for this",
            tool_calls: [
              { id: "call_1", name: "rand_string", args: { len: 5000 }, type: "tool_call" },
              { id: "call_2", name: "rand_string", args: { len: 200 }, type: "tool_call" },
            ],
          });
        return `ok: ${messageText(last)}`;
      },
    });
    const summarizer = summarizerModel();
    const { agent } = stackAgent({
      windowSize: false,
      maxHistoryTokens: 1_200,
      summarizer: summarizer.model,
      model,
      tools: [randString] as never,
      systemPrompt: false,
      stack: { summarizeTrigger: { tokens: 384 } },
    });
    const config = { configurable: { thread_id: "parallel-cap" } };
    for (const text of ["Generate two long random strings", "Can you explain the generation algorithm?", "and the seed?"])
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect(model.providerLog.rejections).toBe(0);
    for (const request of requests(model)) {
      expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
      const results = request.filter(isTool).length;
      expect([0, 2]).toContain(results);
    }
    const seen = summarizer.inputs.map((input) => input.map((m) => messageText(m)).join("\n")).join("\n");
    expect(seen).toContain("rand_string");
    expect(seen).toMatch(/5000:xq7Lp/);
    expect(seen).toMatch(/200:xq7Lp/);
  });
});
