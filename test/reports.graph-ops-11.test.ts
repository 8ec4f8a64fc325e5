/**
 * Public reports on LangChain's tool selector and on an agent run from inside a parent's node, on a
 * thread the stack windows, summarizes and (archive on) archives. `memoryStack` (window 4, summary
 * at 6), English and Korean, archive off and on; oracle: plain `createAgent` with the same
 * middleware on a `MemorySaver`, and report-agent's `expectAccepted` on every request the stack sent.
 *
 * - https://github.com/langchain-ai/langchainjs/pull/9050 (`llmToolSelectorMiddleware`) and
 *   https://github.com/langchain-ai/langchainjs/pull/9127 (its rewrite after Python's: the last
 *   user message of the request goes to the selection model, `maxTools`, a request with no user
 *   message refused with "No user message found in request messages"): the selector listed before
 *   and after the stack's middleware, a selection model that picks `book` for a `BOOK` line and
 *   `lookup` otherwise, `maxTools: 1`, through a turn of six parallel calls (the window keeps its
 *   user message) and a booking. The selection model gets plain's user messages, one per model
 *   call, in both orders (the default placement puts memory in the system prompt, which the
 *   selector does not send), and the thread is plain's. No bug of ours.
 * - https://github.com/langchain-ai/langgraph/issues/5639 "Confusing/unexpected checkpointing
 *   behaviour with subgraphs": a graph compiled without a checkpointer invoked inside a node of a
 *   parent compiled with one. Here the stack's agent (no checkpointer of its own) is invoked on the
 *   parent's messages from a node of a parent on the stack's checkpointer; LangGraph lends it that
 *   checkpointer under the node task's namespace, one fresh run per parent turn. The parent's
 *   thread is plain's (same answers, same message counts the agent returned), every request valid,
 *   archive on as off. No bug of ours.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
import { END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { memoryStack } from "@threadwise/memory";
import { createAgent, llmToolSelectorMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import {
  book,
  callsOnWord,
  expectAccepted,
  expectSameThread,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  lookup,
  parallelModel,
  type ReportGraph,
  requests,
  summarizerModel,
  threadShape,
} from "./support/report-agent.js";

/** A selection model: `book` when the user's message holds `BOOK`, else `lookup`; records what it got. */
function selectionModel() {
  const seen: string[] = [];
  const model = {
    withStructuredOutput: () =>
      RunnableLambda.from(async (messages: BaseMessage[]) => {
        const text = messageText(messages.at(-1) as BaseMessage);
        seen.push(text);
        return { tools: text.includes("BOOK") ? ["book"] : ["lookup"] };
      }),
  };
  return { model, seen };
}

const bookOn = callsOnWord("BOOK", (seat, n) => [{ id: `book_${n}`, name: "book", args: { seat } }]);

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 11 (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  for (const first of [true, false])
    it(`langchainjs#9050, #9127: llmToolSelectorMiddleware listed ${first ? "before" : "after"} the stack's: the selection model gets plain's user messages, the thread is plain's (${graphOpsLabel(c)})`, async () => {
      const selectors: Array<ReturnType<typeof selectionModel>> = [];
      const a = graphOpsAgents({
        ...c,
        tools: [book],
        more: bookOn,
        middleware: () => {
          const s = selectionModel();
          selectors.push(s);
          return [llmToolSelectorMiddleware({ model: s.model as never, maxTools: 1 })];
        },
        middlewareFirst: first,
      });
      const cfg = { configurable: { thread_id: `selector-${first}-${c.lang}-${c.archive}` } };
      for (const [, target] of graphOpsPair(a))
        for (let i = 1; i <= 10; i += 1) {
          const text = i === 4 ? `${t.turn(i)}\nPARALLEL 6` : i === 7 ? "BOOK 17A" : t.turn(i);
          await target.invoke({ messages: [new HumanMessage(text)] }, cfg);
        }
      const [ours, theirs] = selectors as [ReturnType<typeof selectionModel>, ReturnType<typeof selectionModel>];
      expect(ours.seen).toHaveLength(a.m.calls.length);
      expect(ours.seen).toEqual(theirs.seen);
      expect(ours.seen.filter((s) => s === "BOOK 17A")).toHaveLength(2);
      expect(requests(a.m).some((r) => r.some((m) => messageText(m) === "booked seat 17A"))).toBe(true);
      await expectSameThread(a, cfg.configurable.thread_id);
      expectAccepted(a.m);
    });

  it(`langgraph#5639: the stack's agent, without a checkpointer of its own, invoked on the parent's messages inside a node of a parent on the stack's checkpointer: the parent's thread is plain's (${graphOpsLabel(c)})`, async () => {
    const m = parallelModel(true);
    const plainModel = parallelModel(false);
    const summarizer = summarizerModel((call) => `요약 summary ${call + 1}`);
    const stack = memoryStack({
      backend: "in_memory",
      windowSize: 4,
      summarize: true,
      summarizeThreshold: 6,
      models: { summarize: summarizer.model as never },
      recallMaxTokens: false,
      logger: false,
      env: {},
      archive: c.archive,
    });
    const systemPrompt = "You are a helpful assistant.";
    const agent = createAgent({ model: m, tools: [lookup], systemPrompt, middleware: stack.middleware });
    const plain = createAgent({ model: plainModel, tools: [lookup], systemPrompt });
    const parentOf = (inner: { invoke(input: unknown): Promise<unknown> }, checkpointer: unknown) =>
      new StateGraph(MessagesAnnotation)
        .addNode("call_agent", async (s: { messages: BaseMessage[] }) => {
          const out = (await inner.invoke({ messages: s.messages })) as { messages: BaseMessage[] };
          return { messages: [new AIMessage(`${out.messages.length}: ${messageText(out.messages.at(-1) as BaseMessage)}`)] };
        })
        .addEdge(START, "call_agent")
        .addEdge("call_agent", END)
        .compile({ checkpointer: checkpointer as never }) as unknown as ReportGraph;
    const parents = { agent: parentOf(agent, stack.checkpointer), plain: parentOf(plain, new MemorySaver()) };
    const cfg = { configurable: { thread_id: `inner-agent-${c.lang}-${c.archive}` } };
    for (const parent of Object.values(parents))
      for (let i = 1; i <= 9; i += 1)
        await parent.invoke({ messages: [new HumanMessage(i === 4 ? `${t.turn(i)}\nPARALLEL 2` : t.turn(i))] }, cfg);
    const [ours, theirs] = [
      (await parents.agent.getState(cfg)).values.messages ?? [],
      (await parents.plain.getState(cfg)).values.messages ?? [],
    ];
    expect(threadShape(ours)).toEqual(threadShape(theirs));
    expect(messageText(ours.at(-1) as BaseMessage)).toBe(`18: ok: ${t.turn(9)}`);
    // The stack windowed what it sent: the last request holds fewer messages than the 17 given.
    expect((requests(m).at(-1) as BaseMessage[]).length).toBeLessThan(17);
    expect(m.calls.length).toBe(plainModel.calls.length);
    expectAccepted(m);
  });
});
