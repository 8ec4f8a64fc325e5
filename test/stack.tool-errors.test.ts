/**
 * A tool that throws, through a real `createAgent` + `memoryStack`, against the same agent without
 * the stack (the oracle). langchain's `ToolNode` turns a tool's error into an error `ToolMessage`
 * the model can react to, but only while no middleware has a `wrapToolCall`; with one, the error
 * ends the run (langchain 1.5 `ToolNode.#handleError`; public reports:
 * https://github.com/langchain-ai/openwiki/issues/70, https://github.com/langchain-ai/openwiki/pull/437,
 * https://github.com/langchain-ai/deepagentsjs/pull/737). memoryStack's `turnAdmission` has one, so
 * adding the stack turned a failing tool into a failed run (and the thread's next turn failed too).
 * The agent model is {@link strictModel}: every request must pass every provider's rules.
 */
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { Command, interrupt, MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent, createMiddleware, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";

const lastOf = (messages: BaseMessage[]) => messages.at(-1) as BaseMessage;

/** `TOOL <name>` calls that tool; after a tool result it answers with the result's text. */
function agentModel() {
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (last.getType() === "tool") return `after tool: ${messageText(last)}`;
      const call = /^TOOL (\w+)/.exec(messageText(last));
      if (call)
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_${messages.length}`, name: call[1] as string, args: {}, type: "tool_call" }],
        });
      return `ok: ${messageText(last)}`;
    },
  });
}

const failing = tool(
  async () => {
    throw new Error("disk quota exceeded");
  },
  { name: "failing", description: "Always fails.", schema: z.object({}) },
);
const asking = tool(async () => `approved: ${String(interrupt({ question: "approve?" }))}`, {
  name: "asking",
  description: "Asks a human.",
  schema: z.object({}),
});

/** What a provider sees of a stored thread: type, text, tool status; ids left out (ToolMessage ids are random). */
const shape = (messages: BaseMessage[]) =>
  messages.map((m) => `${m.getType()}:${messageText(m)}${m.getType() === "tool" ? `:${(m as ToolMessage).status ?? ""}` : ""}`);

function agents(extra: ReturnType<typeof createMiddleware>[] = []) {
  const plainModel = agentModel();
  const plain = createAgent({ model: plainModel, tools: [failing, asking], checkpointer: new MemorySaver(), middleware: extra });
  const stack = memoryStack({ backend: "in_memory", windowSize: 6, recallMaxTokens: false, logger: false, env: {} });
  const stackModel = agentModel();
  const withStack = createAgent({
    model: stackModel,
    tools: [failing, asking],
    checkpointer: stack.checkpointer,
    middleware: [...stack.middleware, ...extra],
  });
  return { plain, withStack, stackModel };
}

/** The part of an agent the turns use (both agents, whatever their middleware types). */
interface TurnAgent {
  invoke(input: { messages: BaseMessage[] }, config: object): Promise<unknown>;
  graph: { getState(config: object): Promise<{ values: unknown }> };
}

async function turns(agent: TurnAgent, thread: string, texts: string[]) {
  const config = { configurable: { thread_id: thread } };
  const outcomes: string[] = [];
  for (const text of texts) {
    try {
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      outcomes.push("ok");
    } catch (error) {
      outcomes.push(`threw: ${String(error)}`);
    }
  }
  const state = await agent.graph.getState(config);
  return { outcomes, stored: shape((state.values as { messages: BaseMessage[] }).messages) };
}

describe("a tool that throws, under memoryStack", () => {
  it("reaches the model as the same error result as without the stack, and the thread goes on", async () => {
    const { plain, withStack, stackModel } = agents();
    const script = ["hello", "TOOL failing", "and now?", "TOOL failing", "thanks"];
    const expected = await turns(plain, "plain", script);
    expect(expected.outcomes).toEqual(["ok", "ok", "ok", "ok", "ok"]);
    expect(expected.stored).toContain("tool:Error: disk quota exceeded\n Please fix your mistakes.:error");
    const actual = await turns(withStack, "stack", script);
    expect(actual).toEqual(expected);
    expect(stackModel.providerLog.rejections).toBe(0);
  });

  it("an interrupt inside a tool still interrupts, and the resume answers it", async () => {
    const { withStack, stackModel } = agents();
    const config = { configurable: { thread_id: "interrupt" } };
    const paused = await withStack.invoke({ messages: [new HumanMessage("TOOL asking")] }, config);
    expect((paused as { __interrupt__?: unknown[] }).__interrupt__).toHaveLength(1);
    const resumed = await withStack.invoke(new Command({ resume: "yes" }), config);
    expect(messageText(lastOf(resumed.messages))).toBe("after tool: approved: yes");
    expect(stackModel.providerLog.rejections).toBe(0);
  });

  it("an error of another wrapToolCall middleware still ends the run, as without the stack", async () => {
    const guard = createMiddleware({
      name: "test/guard",
      wrapToolCall: async () => {
        throw new Error("guard refused the call");
      },
    });
    const { plain, withStack } = agents([guard]);
    const expected = await turns(plain, "plain-guard", ["TOOL failing"]);
    expect(expected.outcomes[0]).toMatch(/guard refused the call/);
    const actual = await turns(withStack, "stack-guard", ["TOOL failing"]);
    expect(actual.outcomes[0]).toMatch(/guard refused the call/);
  });
});
