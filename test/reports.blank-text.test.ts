/**
 * Whitespace-only text stored in the thread, sent back on every later turn.
 *
 * - https://github.com/anomalyco/opencode/issues/31259 "400 'text content blocks must contain
 *   non-whitespace text' from whitespace-only assistant message" (Claude);
 * - https://github.com/home-assistant/core/issues/175637 "Anthropic conversation agent fails with 400
 *   ... when the chat log contains whitespace-only content" (an assistant answer of "\n" and a
 *   whitespace-only user message, replayed on every later turn: the session never recovers);
 * - https://github.com/NousResearch/hermes-agent/pull/69517 (a blank text block stored in an
 *   assistant message wedged the session permanently).
 *
 * OpenAI accepts these messages, so a thread that ran on it (or on a proxy) stores them; the next
 * request to Anthropic, Gemini or Bedrock must not carry them. Every request after the turn that
 * stored them must be one all four providers accept, and the stored thread keeps what was said.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

/** The model's blank answers, by the user message that asks for one. */
const BLANK: Record<string, () => AIMessage> = {
  "blank string": () => new AIMessage({ content: "\n\n" }),
  "blank block": () => new AIMessage({ content: [{ type: "text", text: " \n" }] }),
  "blank beside a call": () =>
    new AIMessage({ content: "\n", tool_calls: [{ id: "call_blank_1", name: "lookup", args: { n: 1 }, type: "tool_call" }] }),
  "blank block beside a call": () =>
    new AIMessage({
      content: [{ type: "text", text: "  " }],
      tool_calls: [{ id: "call_blank_2", name: "lookup", args: { n: 2 }, type: "tool_call" }],
    }),
};

function blankModel() {
  // OpenAI accepts blank text: the thread stores what it answered (the report's setting).
  return strictModel({
    providers: ["openai"],
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return "looked it up";
      const text = messageText(last).trim();
      const blank = Object.entries(BLANK).find(([ask]) => text.endsWith(ask));
      return blank ? blank[1]() : `ok: ${text.split("\n").at(-1)}`;
    },
  });
}

describe("public reports: whitespace-only text stored in the thread", () => {
  for (const windowSize of [4, 12]) {
    it(`window ${windowSize}: blank answers and a blank user message are not sent to Anthropic, Gemini or Bedrock on later turns`, async () => {
      const model = blankModel();
      const summarizer = summarizerModel();
      const { agent } = stackAgent({ model, windowSize, summarizeThreshold: windowSize + 4, summarizer: summarizer.model });
      const threadId = `blank-${windowSize}`;
      const config = { configurable: { thread_id: threadId } };
      const turns = ["hello", ...Object.keys(BLANK), " \n ", "what did you find?", "thanks", "one more", "bye"];
      const firstAfter: number[] = [];
      for (const turn of turns) {
        await agent.invoke({ messages: [new HumanMessage(turn)] }, config);
        firstAfter.push(requests(model).length);
      }
      expect(model.providerLog.rejections).toBe(0);
      const stored = await storedMessages(agent.graph as never, threadId);
      // The thread keeps every message as answered: 4 blank answers and the blank user message.
      expect(stored.filter((m) => m.getType() !== "tool" && messageText(m).trim() === "").length).toBe(5);
      // Every request made after the blank user message's own turn is accepted everywhere.
      const blankUserTurn = turns.indexOf(" \n ");
      const later = requests(model).slice(firstAfter[blankUserTurn] as number);
      expect(later.length).toBeGreaterThan(0);
      for (const request of later) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
      // The blank user message's own turn: only its own (current) message may be blank.
      for (const request of requests(model).slice(0, firstAfter[blankUserTurn] as number)) {
        const refusals = validateProviderRequest(request, { providers: PROVIDERS });
        expect(refusals.filter((v) => v.index !== request.length - 1)).toEqual([]);
      }
      expect(messageText(lastOf(stored))).toBe("ok: bye");
    });
  }
});
