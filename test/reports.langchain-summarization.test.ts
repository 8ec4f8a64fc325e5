/**
 * LangChain's own `summarizationMiddleware` kept beside the stack (a migration half done: the
 * agent had it before threadwise), with tool loops and parallel calls.
 *
 * - https://github.com/langchain-ai/langchain/issues/34282 and
 *   https://github.com/langchain-ai/langchainjs/pull/9740: its cut kept tool results whose call it
 *   summarized away (`400 No tool call found for function call output`);
 * - https://github.com/langchain-ai/langgraph-supervisor-py/issues/261 "Exclude tools call from
 *   Summarization middleware" (after its summary the model re-ran the tool and judged the summary);
 * - https://github.com/langchain-ai/langgraph/pull/4117 (`RemoveMessage(REMOVE_ALL_MESSAGES)`,
 *   which it writes on every summary, then the summary and the kept messages).
 *
 * It rewrites the stored thread (remove all, then a summary message and the kept tail) while the
 * stack reads and summarizes the same thread. Every request must still be one every provider
 * accepts, with no tool result separated from its call.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, scriptedModel, validateProviderRequest } from "@threadwise/core/testing";
import { createAgent, summarizationMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { book, isTool, lookup, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

describe("public reports: LangChain's summarizationMiddleware beside the stack", () => {
  for (const where of ["inside", "outside"] as const) {
    it(`${where} the stack: every request is accepted while both summarize the same thread`, async () => {
      const theirs = scriptedModel((_, call) => `their summary ${call + 1}`);
      const langchainSummary = summarizationMiddleware({ model: theirs as never, trigger: { messages: 10 }, keep: { messages: 4 } });
      const ours = summarizerModel();
      const { agent, model, stack } = stackAgent({
        windowSize: 6,
        summarizeThreshold: 8,
        summarizer: ours.model,
        extra: where === "inside" ? [langchainSummary] : [],
      });
      const run =
        where === "outside"
          ? createAgent({
              model,
              tools: [lookup, book],
              systemPrompt: "You are a helpful assistant.",
              checkpointer: stack.checkpointer,
              middleware: [langchainSummary, ...stack.middleware],
            })
          : agent;
      const config = { configurable: { thread_id: `lc-summary-${where}` } };
      const turns = [
        "hello",
        "PARALLEL 3 read three files",
        "and then?",
        "PARALLEL 10 read ten files",
        "thanks",
        "PARALLEL 2 two more",
        "ok",
        "bye",
      ];
      for (const text of turns) await run.invoke({ messages: [new HumanMessage(text)] }, config);
      expect(model.providerLog.rejections).toBe(0);
      for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
      // Their summary rewrote the stored thread at least once.
      const stored = await storedMessages(run as never, `lc-summary-${where}`);
      const texts = JSON.stringify(stored.map((m: BaseMessage) => messageText(m)));
      expect(texts).toMatch(/their summary \d+/);
      // The fan-outs ran: results were stored and sent with their calls.
      expect(requests(model).some((r) => r.filter(isTool).length >= 10)).toBe(true);
      expect(messageText((requests(model).at(-1) as BaseMessage[]).at(-1) as BaseMessage)).toBe("bye");
    });
  }
});
