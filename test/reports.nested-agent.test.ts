/**
 * An agent on the stack used as a node of a parent graph (a supervisor, a multi-agent graph), the
 * parent compiled with the stack's checkpointer, and a fork of the parent from an older checkpoint.
 *
 * - https://github.com/langchain-ai/langgraph/issues/7593 "Agent with checkpointer=True: forking human
 *   message produces duplicate human messages in new branch" (a fork from the checkpoint before a
 *   human message, with a new one: the branch held both the old and the new message) and
 *   https://github.com/langchain-ai/langgraph/pull/8197.
 *
 * The agent's nodes run in the subgraph's namespace and its middleware reads the parent's messages.
 * Each request must be one every provider accepts, and the fork's branch must hold the new message
 * only: not the message it replaced, nor the answer to it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, validateProviderRequest } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { agentModel, book, lookup, requests, summarizerModel } from "./support/report-agent.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ["in_memory", false],
  ["sqlite", false],
  ["sqlite", true],
] as const)("public reports: an agent as a node of a parent graph (%s, archive %s)", (backend, archive) => {
  it("turns with tool calls, then a fork from before a human message: the branch holds the new message only", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-nested-"));
    dirs.push(dir);
    const summarizer = summarizerModel();
    const model = agentModel();
    const stack = memoryStack({
      backend,
      sqlitePath: join(dir, "memory.sqlite"),
      windowSize: 6,
      summarize: true,
      summarizeThreshold: 10,
      models: { summarize: summarizer.model as never },
      recallMaxTokens: false,
      archive,
      logger: false,
      env: {},
    });
    const agent = createAgent({ model, tools: [lookup, book], systemPrompt: "You are a helpful assistant.", middleware: stack.middleware });
    const parent = new StateGraph(MessagesAnnotation)
      .addNode("agent", agent.graph as never)
      .addEdge(START, "agent")
      .addEdge("agent", END)
      .compile({ checkpointer: stack.checkpointer });
    const config = { configurable: { thread_id: "nested" } };
    const texts = async (at: object = config) =>
      ((await parent.getState(at as never)).values.messages as BaseMessage[]).map((m) => messageText(m));
    for (let k = 0; k < 6; k += 1)
      await parent.invoke({ messages: [new HumanMessage(k % 3 === 1 ? `PARALLEL 2 question ${k}` : `hello ${k}`)] }, config);
    const beforeLast = [];
    for await (const snapshot of parent.getStateHistory(config)) beforeLast.push(snapshot);
    // The parent's checkpoint that ended turn 4 (before the last human message, "hello 5").
    const fork = beforeLast.find((s) => {
      const messages = (s.values as { messages?: BaseMessage[] }).messages ?? [];
      return s.next.length === 0 && messageText(messages.at(-1) as BaseMessage) === "done with result 0, result 1";
    });
    expect(fork).toBeDefined();
    const base = await texts(fork?.config);
    await parent.invoke({ messages: [new HumanMessage("hello again")] }, fork?.config as never);
    expect(await texts()).toEqual([...base, "hello again", "ok: hello again"]);
    for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
  });
});
