/**
 * The system prompt sent once per request, over every call of a tool loop, with the stack's memory
 * and other middlewares that add to the prompt.
 *
 * - https://github.com/open-webui/open-webui/issues/28736 "System prompt is duplicated after tool
 *   call" (the second request of a tool loop carried the prompt twice);
 * - https://github.com/vybestack/llxprt-code/issues/3136 "System prompt: collapse to a single
 *   assembler and a single declared placement" (two layers each assembled the whole prompt);
 * - https://github.com/microsoft/agent-framework/issues/1552 "Duplicate system message with
 *   ChatMiddleware" and https://github.com/microsoft/agent-framework/issues/1772 (instructions
 *   inserted twice when a chat middleware is set).
 *
 * The stack writes its summary, recalled messages and history note into the prompt (or beside the
 * last user message) on every model call; LangChain's `dynamicSystemPromptMiddleware` and
 * `todoListMiddleware` append theirs. Each must appear once in every request of a loop, in every
 * `promptContextMode`, and the prompt's paragraphs never twice.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, scriptedModel, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { dynamicSystemPromptMiddleware, TODO_LIST_MIDDLEWARE_SYSTEM_PROMPT, todoListMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const PROMPT = "You are the booking assistant of Example Air. Answer in one sentence.";
const DYNAMIC = "The customer's loyalty tier is GOLD-7731.";
const TODO_HEAD = TODO_LIST_MIDDLEWARE_SYSTEM_PROMPT.trim().slice(0, 60);

/** "CHAIN k" runs k lookups one after another (one call per model answer), then answers. */
function chainModel() {
  return strictModel({
    answer: (messages) => {
      const lastHuman = messages.map((m) => m.getType()).lastIndexOf("human");
      const text = messageText(messages[lastHuman] as BaseMessage);
      const chain = /CHAIN (\d+)/.exec(text);
      const done = messages.slice(lastHuman).filter(isTool).length;
      if (chain && done < Number(chain[1]))
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_${text.length}_${done}`, name: "lookup", args: { n: done }, type: "tool_call" }],
        });
      return isTool(lastOf(messages)) ? `looked up ${done}` : `ok: ${text.split("\n\n").at(-1)}`;
    },
  });
}

const occurrences = (haystack: string, needle: string) => haystack.split(needle).length - 1;

describe("public reports: the system prompt once per request in a tool loop", () => {
  for (const mode of ["legacy_system", "stable_tail", "cache_aware"] as const) {
    it(`${mode}: the agent's prompt, each middleware's addition and the summary once in every request`, async () => {
      const model = chainModel();
      const summarizer = summarizerModel((call) => `Summary number ${call + 1} of the earlier bookings.`);
      const { agent } = stackAgent({
        model,
        systemPrompt: PROMPT,
        promptContextMode: mode,
        windowSize: 4,
        summarizeThreshold: 6,
        summarizer: summarizer.model,
        recallMaxTokens: 200,
        // Work memory's notes by their own model: only the agent's requests are checked.
        stack: {
          historyAware: true,
          workMemory: true,
          models: { summarize: summarizer.model as never, workMemory: scriptedModel((_, call) => `Note ${call + 1}.`) as never },
        },
        extra: [dynamicSystemPromptMiddleware(() => DYNAMIC), todoListMiddleware()],
      });
      const config = { configurable: { thread_id: `prompt-once-${mode}` } };
      for (const turn of ["hello", "CHAIN 3 check the fares", "what about lookup results?", "CHAIN 4 check seats", "thanks"])
        await agent.invoke({ messages: [new HumanMessage(turn)] }, config);

      expect(model.providerLog.rejections).toBe(0);
      const all = requests(model);
      expect(all.length).toBeGreaterThanOrEqual(12);
      expect(summarizer.inputs.length).toBeGreaterThan(0);
      let withSummary = 0;
      for (const request of all) {
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        const text = request.map((m) => messageText(m)).join("\n\n");
        expect(occurrences(text, PROMPT)).toBe(1);
        expect(occurrences(text, DYNAMIC)).toBe(1);
        expect(occurrences(text, TODO_HEAD)).toBe(1);
        const summaries = occurrences(text, "of the earlier bookings.");
        expect(summaries).toBeLessThanOrEqual(1);
        withSummary += summaries;
        const paragraphs = messageText(request[0] as BaseMessage)
          .split(/\n\s*\n/)
          .map((p) => p.trim())
          .filter((p) => p.length >= 30);
        expect(paragraphs.filter((p, k) => paragraphs.indexOf(p) !== k)).toEqual([]);
        expect(request.filter((m) => m.getType() === "system")).toHaveLength(1);
      }
      expect(withSummary).toBeGreaterThan(0);
    });
  }
});
