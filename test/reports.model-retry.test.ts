/**
 * LangChain's retry and fallback middlewares around the stack: the model call handler runs more
 * than once for one model call.
 *
 * https://github.com/langchain-ai/langchainjs/pull/10114 "reset shared currentSystemMessage on
 * middleware handler retry": when a middleware called `handler()` again (retry, fallback), the
 * system message an inner middleware had changed in the first attempt stayed changed, and the
 * retry failed with "Cannot change both systemPrompt and systemMessage". The stack writes its
 * summary and notes into the system prompt on every call: each attempt must get them once, over
 * the agent's own prompt, and the fallback model the same request as the primary.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { createAgent, modelFallbackMiddleware, modelRetryMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const PROMPT = "You are an airline agent.";

function check(all: BaseMessage[][]) {
  for (const request of all) {
    expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
    const system = messageText(request[0] as BaseMessage);
    expect(system.split(PROMPT)).toHaveLength(2);
    expect((system.match(/summary \d+/g) ?? []).length).toBeLessThanOrEqual(1);
  }
}

describe("public reports: retry and fallback around the stack", () => {
  for (const where of ["outside", "inside"] as const) {
    it(`${where} the stack: every attempt of a failing call gets the system prompt and the summary once`, async () => {
      const primary = strictModel({
        answer: (messages, call) =>
          call % 3 === 1 ? new Error("529 overloaded (primary)") : `primary: ${messageText(messages.at(-1) as BaseMessage)}`,
      });
      const fallback = strictModel({ answer: (messages) => `fallback: ${messageText(messages.at(-1) as BaseMessage)}` });
      const summarizer = summarizerModel();
      const retry = modelRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, jitter: false });
      const fallbackMw = modelFallbackMiddleware(fallback as never);
      const { agent, stack } = stackAgent({
        windowSize: 4,
        summarizeThreshold: 6,
        summarizer: summarizer.model,
        model: primary,
        systemPrompt: PROMPT,
        extra: where === "inside" ? [retry, fallbackMw] : [],
      });
      const agentUnderTest =
        where === "outside"
          ? createAgent({
              model: primary,
              tools: [],
              systemPrompt: PROMPT,
              checkpointer: stack.checkpointer,
              middleware: [fallbackMw, retry, ...stack.middleware],
            })
          : agent;
      const config = { configurable: { thread_id: `retry-${where}` } };
      for (let k = 1; k <= 8; k += 1) await agentUnderTest.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
      expect(primary.providerLog.rejections + fallback.providerLog.rejections).toBe(0);
      // Calls failed and were tried again (retried, or answered by the fallback): more attempts than turns.
      expect(requests(primary).length + requests(fallback).length).toBeGreaterThan(8);
      check(requests(primary));
      check(requests(fallback));
      const last = requests(primary).at(-1) as BaseMessage[];
      expect(messageText(last[0] as BaseMessage)).toMatch(/summary \d+/);
    });
  }
});
