/**
 * A run that stopped after its tools and before the model's reply, then a new user message:
 * reached by ordinary operations, through a real `createAgent` + `memoryStack` (in_memory and
 * SQLite) with the strict provider validator (all four providers) on the agent's model:
 * - a run stopped by `recursionLimit` in a tool loop (its last call is unanswered, so the view
 *   leaves it out and the results before it come last);
 * - the model call after the tools failed (a provider outage): "Which seat did I get?" next;
 * - a fork with new input from a checkpoint taken after the tools node.
 * Bedrock Converse refused the request: `@langchain/aws` sends tool results and a user message as
 * two `user` turns (it merges only runs of results), and Converse requires alternating roles.
 * The oracle: every provider's rules, and the answered results reach the model (R37: keep what
 * was answered); the stored thread is never changed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { isNoReplyMessage, messageText, NO_REPLY_TEXT, toolCallsOf } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";

const dir = mkdtempSync(join(tmpdir(), "threadwise-no-reply-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Lane = "in_memory" | "sqlite";
const lastOf = (messages: readonly BaseMessage[]) => messages.at(-1) as BaseMessage;
const newestPart = (message: BaseMessage) => messageText(message).split("\n\n").at(-1) ?? "";
const callOf = (name: string, id: string) => new AIMessage({ content: "", tool_calls: [{ id, name, args: {}, type: "tool_call" }] });

/**
 * An agent whose `book` tool answers "seat 14C". The model calls `book` on a user message that
 * starts with BOOK; after a tool result it answers `afterTool` (an Error fails the call); on any
 * other user message it answers with the results it can see. Every request is kept.
 */
function agentOn(lane: Lane, file: string, afterTool: (messages: BaseMessage[]) => AIMessage | string | Error) {
  const book = tool(async () => "seat 14C", { name: "book", description: "Books a seat.", schema: z.object({}) });
  const requests: BaseMessage[][] = [];
  const model = strictModel({
    answer: (messages) => {
      requests.push(messages);
      const last = lastOf(messages);
      if (last.getType() === "tool") return afterTool(messages);
      if (newestPart(last).startsWith("BOOK")) return callOf("book", `call_${messages.length}`);
      const seen = messages.filter((m) => m.getType() === "tool").map((m) => messageText(m));
      return `results I can see: ${seen.join(", ") || "none"}`;
    },
  });
  const stack = memoryStack({
    backend: lane,
    ...(lane === "sqlite" ? { sqlitePath: join(dir, `${lane}-${file}`) } : {}),
    windowSize: 12,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const agent = createAgent({ model, tools: [book], checkpointer: stack.checkpointer, middleware: stack.middleware });
  return { agent, model, requests };
}

async function storedOf(agent: ReturnType<typeof agentOn>["agent"], config: { configurable: Record<string, unknown> }) {
  const state = await agent.graph.getState(config);
  return (state.values as { messages: BaseMessage[] }).messages;
}

/** The request of the last model call: the stopped run's result, the reply core added, the new question. */
function expectStoppedRunSent(request: readonly BaseMessage[], question: string) {
  const at = request.findIndex(isNoReplyMessage);
  expect(at).toBeGreaterThan(0);
  expect(request[at - 1]?.getType()).toBe("tool");
  expect(messageText(request[at - 1] as BaseMessage)).toBe("seat 14C");
  expect(messageText(request[at] as BaseMessage)).toBe(NO_REPLY_TEXT);
  expect(newestPart(request[at + 1] as BaseMessage)).toBe(question);
  expect(newestPart(lastOf(request))).toBe(question);
}

describe.each(["in_memory", "sqlite"] as const)("%s: a run stopped after its tools, then a new message", (lane) => {
  it("recursionLimit in a tool loop: the next request keeps the answered results and every provider accepts it", async () => {
    const { agent, model, requests } = agentOn(lane, "recursion.sqlite", (messages) => callOf("book", `call_${messages.length}`));
    const config = { configurable: { thread_id: `recursion-${lane}` } };
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    await expect(agent.invoke({ messages: [new HumanMessage("BOOK a seat")] }, { ...config, recursionLimit: 6 })).rejects.toThrow(
      /recursion/i,
    );
    const stored = await storedOf(agent, config);
    // The run stopped on an unanswered call.
    expect(toolCallsOf(lastOf(stored)).length).toBeGreaterThan(0);
    const out = await agent.invoke({ messages: [new HumanMessage("Which seat did I get?")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    expectStoppedRunSent(requests.at(-1) ?? [], "Which seat did I get?");
    expect(messageText(lastOf(out.messages))).toContain("seat 14C");
    // The reply is the request's only: nothing stored.
    expect((await storedOf(agent, config)).some(isNoReplyMessage)).toBe(false);
  });

  it("the model call after the tools failed: the next question is asked with the result", async () => {
    let outage = true;
    const { agent, model, requests } = agentOn(lane, "outage.sqlite", (messages) => {
      if (outage) {
        outage = false;
        return new Error("503 Service Unavailable");
      }
      return `booked: ${messageText(lastOf(messages))}`;
    });
    const config = { configurable: { thread_id: `outage-${lane}` } };
    await expect(agent.invoke({ messages: [new HumanMessage("BOOK a seat")] }, config)).rejects.toThrow(/503/);
    expect(lastOf(await storedOf(agent, config)).getType()).toBe("tool");
    const out = await agent.invoke({ messages: [new HumanMessage("Which seat did I get?")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    expectStoppedRunSent(requests.at(-1) ?? [], "Which seat did I get?");
    expect(messageText(lastOf(out.messages))).toContain("seat 14C");
  });

  it("a fork with new input from the checkpoint after the tools node", async () => {
    const { agent, model, requests } = agentOn(lane, "fork.sqlite", (messages) => `booked: ${messageText(lastOf(messages))}`);
    const config = { configurable: { thread_id: `fork-${lane}` } };
    await agent.invoke({ messages: [new HumanMessage("BOOK a seat")] }, config);
    await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);
    let afterTools: { configurable?: Record<string, unknown> } | undefined;
    for await (const snapshot of agent.graph.getStateHistory(config)) {
      const messages = (snapshot.values as { messages?: BaseMessage[] }).messages ?? [];
      if (messages.length > 0 && lastOf(messages).getType() === "tool" && snapshot.next.length > 0) {
        afterTools = snapshot.config;
        break;
      }
    }
    expect(afterTools?.configurable?.checkpoint_id).toBeDefined();
    const out = await agent.invoke(
      { messages: [new HumanMessage("Actually, which seat was it?")] },
      {
        configurable: { ...afterTools?.configurable },
      },
    );
    expect(model.providerLog.rejections).toBe(0);
    expectStoppedRunSent(requests.at(-1) ?? [], "Actually, which seat was it?");
    expect(messageText(lastOf(out.messages))).toContain("seat 14C");
  });
});
