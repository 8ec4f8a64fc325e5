/**
 * Where a window starts when it is set up by hand (windowTrim and tokenCap without memoryStack),
 * over tool loops longer than the window.
 *
 * - https://github.com/strands-agents/sdk-typescript/issues/727 "Bedrock model provider validation
 *   error when using conversation manager" (a sliding window that starts on a non-user message:
 *   `A conversation must start with a user message`);
 * - https://github.com/RooCodeInc/Roo-Code/issues/4147 "[Smart Compression] A conversation must
 *   start with a user message." (Bedrock, after condensing);
 * - https://github.com/BerriAI/litellm/issues/6660 "`trim_messages` is naive on leaving `assistant`
 *   message as first entry which causes issues for Anthropic models" and
 *   https://github.com/langchain-ai/langchain/issues/33245 "`trim_messages` returning invalid
 *   messages history" (a ToolMessage first).
 *
 * Every request must start on a user message, and the run in progress must stay whole.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, lookup, requests } from "./support/report-agent.js";

/** "LOOP k" runs k lookups one after another, then answers; anything else gets "ok". */
function loopModel() {
  return strictModel({
    answer: (messages) => {
      const lastHuman = messages.map((m) => m.getType()).lastIndexOf("human");
      const text = messageText(messages[lastHuman] as BaseMessage);
      const loop = /LOOP (\d+)/.exec(text);
      const done = messages.slice(lastHuman).filter(isTool).length;
      if (loop && done < Number(loop[1]))
        return new AIMessage({
          content: `step ${done + 1}`,
          tool_calls: [{ id: `call_${lastHuman}_${done}`, name: "lookup", args: { n: done }, type: "tool_call" }],
        });
      return isTool(lastOf(messages)) ? `finished ${done} steps` : `ok: ${text}`;
    },
  });
}

describe("public reports: a hand-built window over tool loops", () => {
  for (const [name, middleware] of [
    ["windowTrim({ maxMessages: 3 })", () => [windowTrim({ maxMessages: 3 })]],
    ["windowTrim({ maxMessages: 5 }) + tokenCap({ maxTokens: 400 })", () => [windowTrim({ maxMessages: 5 }), tokenCap({ maxTokens: 400 })]],
  ] as const) {
    it(`${name}: every request starts on a user message and holds the run in progress`, async () => {
      const model = loopModel();
      const agent = createAgent({
        model,
        tools: [lookup],
        systemPrompt: "You are a helpful assistant.",
        checkpointer: new MemorySaver(),
        middleware: middleware() as AgentMiddleware[],
      });
      const config = { configurable: { thread_id: "window-start" } };
      for (const turn of ["hello", "LOOP 4 check four fares", "and then?", "LOOP 2 two more", "thanks"])
        await agent.invoke({ messages: [new HumanMessage(turn)] }, config);
      expect(model.providerLog.rejections).toBe(0);
      for (const request of requests(model)) {
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        expect(request[1]?.getType()).toBe("human");
        // The run in progress is whole: the newest user message and every step after it.
        const lastHuman = request.map((m) => m.getType()).lastIndexOf("human");
        const steps = request
          .slice(lastHuman)
          .filter(isTool)
          .map((m) => messageText(m));
        expect(steps).toEqual(steps.map((_, k) => `result ${k}`));
      }
      const during = requests(model).filter(
        (r) => isTool(lastOf(r)) && messageText(r.filter((m) => m.getType() === "human").at(-1) as BaseMessage).startsWith("LOOP 4"),
      );
      expect(during.map((r) => r.filter(isTool).length)).toEqual([1, 2, 3, 4]);
    });
  }
});
