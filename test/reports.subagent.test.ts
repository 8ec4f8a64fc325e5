/**
 * A subagent run inside a tool of an agent on the stack (deepagents' `task` tool, an agent used as
 * a tool), with the tool's config: the subagent's graph checkpoints under the parent's thread, in
 * the tool's namespace, while the parent's turn is in progress.
 *
 * - https://github.com/danny-avila/LibreChat/issues/14623 (handoff and sub-agent calls stored in the
 *   thread; later turns must still send them as calls with their results);
 * - https://github.com/microsoft/agent-framework/issues/2716 "Handoff causes unwanted confirmation
 *   messages in sub-agent context" (the parent's messages leaked into the subagent's request);
 * - https://github.com/langchain-ai/deepagentsjs/pull/132 (interrupts and graphs run from inside
 *   tools).
 *
 * The subagent's run must not be refused as a second turn on the parent's thread, its messages
 * must not enter the parent's thread or the parent's requests (only the tool's result does), and
 * a subagent that uses the stack's own middlewares must see its own messages only.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { type AgentMiddleware, createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, lookup, requests, stackAgent, storedMessages } from "./support/report-agent.js";

/** The subagent's model: looks 7 up, then reports what it found. Its requests must hold only its own task. */
function researcherModel() {
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `research found ${messageText(last)}`;
      return new AIMessage({
        content: "",
        tool_calls: [{ id: `call_sub_${messages.length}`, name: "lookup", args: { n: 7 }, type: "tool_call" }],
      });
    },
  });
}

/** The parent's model: "RESEARCH x" calls the research tool; after its result, reports it. */
function parentModel() {
  let n = 0;
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `parent says: ${messageText(last)}`;
      const text = messageText(last);
      if (text.startsWith("RESEARCH")) {
        n += 1;
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_research_${n}`, name: "research", args: { topic: text.slice(9) }, type: "tool_call" }],
        });
      }
      return `ok: ${text}`;
    },
  });
}

type Invocable = { invoke: (input: never, config: never) => Promise<unknown> };

/** The parent on the stack, with a `research` tool that runs `makeSubagent(stack.middleware)` with the tool's config. */
function parentAgent(makeSubagent: (stackMiddleware: AgentMiddleware[]) => Invocable) {
  let subagent: Invocable | undefined;
  const research = tool(
    async ({ topic }: { topic: string }, config) => {
      const result = (await (subagent as Invocable).invoke(
        { messages: [new HumanMessage(`research ${topic}`)] } as never,
        config as never,
      )) as {
        messages: BaseMessage[];
      };
      return messageText(lastOf(result.messages));
    },
    { name: "research", description: "Runs the research subagent.", schema: z.object({ topic: z.string() }) },
  );
  const model = parentModel();
  const { agent, stack } = stackAgent({ model, windowSize: 4, tools: [research as never, lookup] });
  subagent = makeSubagent(stack.middleware as AgentMiddleware[]);
  return { agent, model };
}

describe("public reports: a subagent run inside a tool of an agent on the stack", () => {
  for (const variant of ["plain subagent", "subagent on the stack's middlewares"] as const) {
    it(`${variant}: not refused as a second turn, and its messages stay out of the parent's thread and requests`, async () => {
      const sub = researcherModel();
      const { agent, model } = parentAgent(
        (middleware) =>
          createAgent({
            model: sub,
            tools: [lookup],
            systemPrompt: "You research.",
            ...(variant === "plain subagent" ? {} : { middleware }),
          }) as never,
      );
      const config = { configurable: { thread_id: `parent-${variant}` } };
      await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
      await agent.invoke({ messages: [new HumanMessage("RESEARCH fares")] }, config);
      await agent.invoke({ messages: [new HumanMessage("RESEARCH seats")] }, config);
      await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);

      expect(model.providerLog.rejections).toBe(0);
      expect(sub.providerLog.rejections).toBe(0);
      for (const request of [...requests(model), ...requests(sub)])
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
      // The subagent saw its own task only: its system prompt, the task, its own call and result.
      for (const request of requests(sub)) {
        const texts = request.map((m) => messageText(m));
        expect(texts.some((t) => t.startsWith("research "))).toBe(true);
        expect(texts.some((t) => /hello|RESEARCH|parent says|ok: /.test(t))).toBe(false);
      }
      // The parent's thread holds the research calls and their results, not the subagent's messages.
      const stored = await storedMessages(agent.graph as never, `parent-${variant}`);
      expect(stored.map((m) => messageText(m))).not.toContain("research fares");
      expect(stored.filter(isTool).map((m) => messageText(m))).toEqual(["research found result 7", "research found result 7"]);
      expect(messageText(lastOf(stored))).toBe("ok: thanks");
      for (const request of requests(model)) expect(request.map((m) => messageText(m))).not.toContain("research seats");
    });
  }
});
