/**
 * DeepSeek's (and Kimi's) `reasoning_content` sent back on the AI messages of a tool loop, through
 * the copies the stack's view sends.
 *
 * - https://github.com/langchain-ai/langchain/issues/37389 "ChatDeepSeek drops reasoning_content on
 *   outbound requests, breaking multi-turn / tool-using flows with reasoner models" and
 *   https://github.com/langchain-ai/langchain/issues/37713 (`The reasoning_content in the thinking
 *   mode must be passed back to the API.`);
 * - https://github.com/langchain-ai/langchain/issues/34166 and
 *   https://github.com/langchain-ai/langchain/pull/35620 (`Missing reasoning_content field in the
 *   assistant message at message index 1`: every assistant message of a tool loop needs it).
 *
 * The integration keeps the reasoning in the AI message's `additional_kwargs.reasoning_content` and
 * sends it from there. The view sends copies of some stored AI messages (call ids renamed when a
 * model numbers its calls per answer, blank text left out beside calls, results first): each copy
 * must carry the stored message's `reasoning_content`, in every request of the loop, across the
 * window and the summary.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

const reasoningOf = (m: BaseMessage) => (m as AIMessage).additional_kwargs?.reasoning_content;

/** A thinking model: each answer carries its own reasoning; a user message "LOOP k" gets k calls in a row, each with id `call_0`, text "\n". */
function thinkingModel() {
  let answers = 0;
  return strictModel({
    answer: (messages) => {
      answers += 1;
      const reasoning_content = `reasoning ${answers}`;
      const last = lastOf(messages);
      const userText = messageText([...messages].reverse().find((m) => m.getType() === "human") as BaseMessage);
      const loop = /LOOP (\d+)/.exec(userText);
      // The results of this turn's calls: those after the newest user message (none when it is last).
      const done = messages.slice(messages.map((m) => m.getType()).lastIndexOf("human") + 1).filter(isTool).length;
      if (loop && done < Number(loop[1]) && (isTool(last) || last.getType() === "human"))
        return new AIMessage({
          content: "\n",
          additional_kwargs: { reasoning_content },
          tool_calls: [{ id: "call_0", name: "lookup", args: { n: done + 1 }, type: "tool_call" }],
        });
      return new AIMessage({ content: `answer ${answers}`, additional_kwargs: { reasoning_content } });
    },
  });
}

describe("public reports: reasoning_content on the AI messages the view sends", () => {
  for (const windowSize of [4, 10]) {
    it(`window ${windowSize}: every AI message of every request carries its stored reasoning_content`, async () => {
      const model = thinkingModel();
      const summarizer = summarizerModel();
      const { agent } = stackAgent({ model, windowSize, summarizeThreshold: windowSize + 4, summarizer: summarizer.model });
      const threadId = `reasoning-content-${windowSize}`;
      const config = { configurable: { thread_id: threadId } };
      for (const turn of ["hello", "LOOP 3", "and?", "LOOP 2", "thanks", "LOOP 4", "bye"])
        await agent.invoke({ messages: [new HumanMessage(turn)] }, config);
      expect(model.providerLog.rejections).toBe(0);
      const stored = await storedMessages(agent.graph as never, threadId);
      expect(stored.filter(isTool)).toHaveLength(9);
      const byId = new Map(stored.filter((m) => m.getType() === "ai").map((m) => [m.id, reasoningOf(m)]));
      expect([...byId.values()].every((r) => typeof r === "string")).toBe(true);
      let copies = 0;
      for (const request of requests(model)) {
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        for (const m of request) {
          if (m.getType() !== "ai" || !byId.has(m.id)) continue;
          expect(reasoningOf(m), `AI message ${m.id}`).toBe(byId.get(m.id));
          if (!stored.includes(m)) copies += 1;
        }
      }
      // The view did send copies (renamed call_0 ids, blank text left out), and they kept it.
      expect(copies).toBeGreaterThan(0);
    });
  }
});
