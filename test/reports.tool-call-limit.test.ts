/**
 * LangChain's `toolCallLimitMiddleware` leaving threads that providers refuse, under the stack.
 *
 * - https://github.com/langchain-ai/langchain/pull/39258 (issue 34159) "prevent orphaned
 *   `tool_calls` in `ToolCallLimitMiddleware` end behavior": with `exitBehavior: "end"` and
 *   parallel calls, the blocked calls get error results, the allowed ones never run (the run jumps
 *   to its end), and the next turn is refused for the calls without results;
 * - https://github.com/langchain-ai/langchain/issues/39815 "`ToolCallLimitMiddleware` emits a
 *   duplicate `ToolMessage` for tool calls that were already answered" (a call a human-in-the-loop
 *   review rejected gets a second result).
 *
 * The stored thread keeps what those middlewares wrote; every request the model gets must be one
 * every provider accepts, with each answered call's result.
 */
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { humanInTheLoopMiddleware, toolCallLimitMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, storedMessages } from "./support/report-agent.js";

function parallelModel() {
  let n = 0;
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last))
        return `done: ${messages
          .filter(isTool)
          .map((m) => messageText(m))
          .join(" | ")}`;
      const text = messageText(last);
      if (text.startsWith("look")) {
        n += 1;
        return new AIMessage({
          content: "",
          tool_calls: [1, 2, 3].map((k) => ({ id: `call_${n}_${k}`, name: "lookup", args: { n: k }, type: "tool_call" as const })),
        });
      }
      if (text.startsWith("book")) {
        n += 1;
        return new AIMessage({
          content: "",
          tool_calls: [
            { id: `call_${n}_book`, name: "book", args: { seat: "12A" }, type: "tool_call" as const },
            { id: `call_${n}_look`, name: "lookup", args: { n: 9 }, type: "tool_call" as const },
          ],
        });
      }
      return `ok: ${text}`;
    },
  });
}

function checkAll(all: BaseMessage[][]) {
  for (const request of all) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
}

describe("public reports: toolCallLimitMiddleware under the stack", () => {
  it('exitBehavior "end" with parallel calls: the next turns are accepted, the blocked calls\' results are kept', async () => {
    const model = parallelModel();
    const limit = toolCallLimitMiddleware({ runLimit: 1, exitBehavior: "end" });
    const { agent } = stackAgent({ windowSize: 8, model, extra: [limit] });
    const config = { configurable: { thread_id: "limit-end" } };
    await agent.invoke({ messages: [new HumanMessage("look up three things")] }, config);
    await agent.invoke({ messages: [new HumanMessage("what did you find?")] }, config);
    await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    checkAll(requests(model));
    const stored = await storedMessages(agent.graph as never, "limit-end");
    // Upstream's state: an AI message with 3 calls and results for the 2 blocked ones only.
    expect(stored.filter(isTool)).toHaveLength(2);
    const last = requests(model).at(-1) as BaseMessage[];
    expect(last.filter(isTool).length).toBeGreaterThan(0);
  });

  it('exitBehavior "continue" after a HITL reject: the rejected call\'s second result is never sent', async () => {
    const model = parallelModel();
    const hitl = humanInTheLoopMiddleware({ interruptOn: { book: true } });
    const limit = toolCallLimitMiddleware({ toolName: "book", runLimit: 0 as never, threadLimit: 5, exitBehavior: "continue" });
    const { agent } = stackAgent({ windowSize: 8, model, extra: [hitl, limit] });
    const config = { configurable: { thread_id: "limit-after-reject" } };
    await agent.invoke({ messages: [new HumanMessage("book 12A and look up 9")] }, config);
    const paused = await agent.graph.getState(config);
    if (paused.tasks.some((t) => (t.interrupts ?? []).length > 0))
      await agent.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no booking" }] } }) as never, config);
    await agent.invoke({ messages: [new HumanMessage("what now?")] }, config);
    // Upstream's state: the rejected call answered twice (the limit's result, then the reviewer's).
    const stored = await storedMessages(agent.graph as never, "limit-after-reject");
    const results = stored.filter(isTool).map((m) => (m as ToolMessage).tool_call_id);
    expect(results.length).toBeGreaterThan(new Set(results).size);
    expect(model.providerLog.rejections).toBe(0);
    checkAll(requests(model));
    for (const request of requests(model)) {
      const ids = request.filter(isTool).map((m) => (m as ToolMessage).tool_call_id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });
});
