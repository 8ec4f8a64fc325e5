/**
 * The agent's system prompt given as a `SystemMessage` of content blocks (Anthropic's
 * `cache_control` on its text, as LangChain v1 documents `systemPrompt`), under the summary, the
 * recall block and the history note, in every `promptContextMode`.
 *
 * https://github.com/langchain-ai/langchainjs/issues/9319 "Gemini complains 'System message should
 * be the first one' when `summarizationMiddleware` applies" (the summary was added as a second
 * system message after the agent's). Each request must hold one system message, first, with the
 * agent's blocks as given, and the memory the stack adds.
 */
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const RULES = "You are an airline agent. Quote fares in KRW.";

describe("public reports: a system prompt of content blocks under the summary", () => {
  for (const mode of ["legacy_system", "stable_tail", "cache_aware"] as const) {
    it(`${mode}: one system message, first, with the agent's cache_control block unchanged; the summary and recall reach the model`, async () => {
      const summarizer = summarizerModel((call) => `SUMMARY-${call + 1}: the user asked about fares`);
      const systemPrompt = new SystemMessage({ content: [{ type: "text", text: RULES, cache_control: { type: "ephemeral" } }] as never });
      const { agent, model } = stackAgent({
        windowSize: 4,
        summarizeThreshold: 6,
        summarizer: summarizer.model,
        systemPrompt,
        promptContextMode: mode,
        recallMaxTokens: 200,
      });
      const config = { configurable: { thread_id: `system-blocks-${mode}` } };
      const turns = [
        "my booking code is QX7Z",
        "hello",
        "PARALLEL 2 check two fares",
        "thanks",
        "what about Busan?",
        "and Jeju?",
        "what was my booking code?",
      ];
      for (const text of turns) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      expect(model.providerLog.rejections).toBe(0);
      for (const request of requests(model)) {
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        expect(request.filter((m) => m.getType() === "system")).toHaveLength(1);
        const system = request[0] as BaseMessage;
        expect(system.getType()).toBe("system");
        const first = (Array.isArray(system.content) ? system.content[0] : { text: system.content }) as {
          text?: string;
          cache_control?: unknown;
        };
        expect(first.text).toBe(RULES);
        expect(first.cache_control).toEqual({ type: "ephemeral" });
      }
      const last = JSON.stringify((requests(model).at(-1) as BaseMessage[]).map((m) => messageText(m)));
      expect(last).toMatch(/SUMMARY-\d+/);
      expect(last).toContain("QX7Z");
    });
  }
});
