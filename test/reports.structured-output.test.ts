/**
 * `createAgent`'s tool strategy for `responseFormat` (the synthetic structured-output tool) under
 * the stack, across turns.
 *
 * - https://github.com/langchain-ai/langchainjs/issues/11020 "createAgent + responseFormat: 400
 *   INVALID_TOOL_RESULTS when the model emits the structured-output tool more than once
 *   (ToolStrategy)": the agent answers only the first of the calls (an error result) and retries
 *   the model with the AI message carrying all of them, so the retry is refused for the others;
 * - https://github.com/langchain-ai/langchainjs/pull/9265 "Add missing ToolMessage in toolStrategy
 *   structured output": without the structured-output call's result, every later turn was refused.
 *
 * Every request the model gets, the retry included, must be one every provider accepts, and the
 * stored thread keeps what the agent wrote.
 */
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { toolStrategy } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

const schema = z.object({ city: z.string(), temperature: z.number() }).meta({ title: "weather" });

/** Answers a user message asking for "several" with two parallel structured-output calls, else with one. */
function structuredModel() {
  let n = 0;
  return strictModel({
    answer: (messages) => {
      n += 1;
      const last = lastOf(messages);
      const calls =
        !isTool(last) && messageText(last).includes("several")
          ? [
              { id: `call_w${n}a`, name: "weather", args: { city: "Paris", temperature: 21 }, type: "tool_call" as const },
              { id: `call_w${n}b`, name: "weather", args: { city: "Oslo", temperature: 9 }, type: "tool_call" as const },
            ]
          : [{ id: `call_w${n}`, name: "weather", args: { city: `city ${n}`, temperature: n }, type: "tool_call" as const }];
      return new AIMessage({ content: "", tool_calls: calls });
    },
  });
}

describe("public reports: structured output by tool strategy under the stack", () => {
  it("two structured-output calls in one answer: the retry and every later turn are accepted", async () => {
    const model = structuredModel();
    const summarizer = summarizerModel();
    const { agent } = stackAgent({
      windowSize: 4,
      summarizeThreshold: 6,
      summarizer: summarizer.model,
      model,
      responseFormat: toolStrategy(schema) as never,
    });
    const config = { configurable: { thread_id: "structured-twice" } };
    const first = (await agent.invoke({ messages: [new HumanMessage("weather in several cities")] }, config)) as {
      structuredResponse?: unknown;
    };
    // Upstream's retry: the AI message with both calls and an error result for the first only.
    const stored = await storedMessages(agent.graph as never, "structured-twice");
    const both = stored.find((m) => m.getType() === "ai" && ((m as AIMessage).tool_calls ?? []).length === 2) as AIMessage;
    expect(both).toBeDefined();
    const answered = stored.filter(isTool).map((m) => (m as ToolMessage).tool_call_id);
    expect(answered).toContain(both.tool_calls?.[0]?.id);
    expect(answered).not.toContain(both.tool_calls?.[1]?.id);
    expect(first.structuredResponse).toEqual({ city: "city 2", temperature: 2 });
    let last: { structuredResponse?: unknown } = first;
    for (let k = 1; k <= 5; k += 1) last = (await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config)) as never;
    expect(last.structuredResponse).toEqual({ city: `city ${requests(model).length}`, temperature: requests(model).length });
    expect(model.providerLog.rejections).toBe(0);
    for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
    // The retry saw the error result of the call it kept, and not the unanswered second call.
    const retry = requests(model)[1] as BaseMessage[];
    expect(messageText(lastOf(retry))).toMatch(/multiple|structured/i);
    const retryCalls = retry.flatMap((m) => (m.getType() === "ai" ? ((m as AIMessage).tool_calls ?? []).map((c) => c.id) : []));
    expect(retryCalls).not.toContain(both.tool_calls?.[1]?.id);
    expect(summarizer.inputs.length).toBeGreaterThan(0);
  });
});
