/**
 * LangChain's own middlewares and graph wiring stacked with ours, from public reports, on a thread
 * the stack windows, summarizes and (archive on) archives. `memoryStack` (window 4, summary at 6),
 * English and Korean, archive off and on; oracle: plain `createAgent` on a `MemorySaver` with the
 * same middleware (a fresh instance each), and report-agent's `expectAccepted` (strict validator for
 * the four providers, no prefill, and the wire check) on every request the stack sent.
 *
 * - https://github.com/langchain-ai/langchain/issues/37093 "rejected tool call stays in the
 *   AIMessage and ToolNode runs it" and https://github.com/langchain-ai/langchainjs/pull/9949
 *   (a rejection skips the approved calls and returns to the model): `humanInTheLoopMiddleware`
 *   on `book` beside a `lookup` it does not review, `book` rejected: `book` never runs, the thread
 *   is plain's, every request the stack sends answers each call it holds (plain's do not: the
 *   unreviewed call stays in the answer unrun, and its next requests are refused,
 *   `unanswered_tool_call`);
 * - https://github.com/langchain-ai/langchain/pull/38845 (`ToolRetryMiddleware` with
 *   `on_failure="continue"` turns a failure into a `ToolMessage`) and
 *   https://github.com/langchain-ai/langchain/issues/40688 (retries of a tool, then the model asked
 *   again): `toolRetryMiddleware({ onFailure: "continue" })` over a tool that always fails, beside
 *   a parallel `lookup`: each call one result, the tool run as often as on plain, the thread plain's;
 * - https://github.com/langchain-ai/langchain/issues/38893 (`ModelRetryMiddleware` turns a failed
 *   call into an error `AIMessage`): `modelRetryMiddleware({ onFailure: "continue" })` inside the
 *   stack, a call that always fails: the error answer is stored as plain stores it, the turns after
 *   it go on, summarized, and are sent valid;
 * - https://github.com/langchain-ai/langchainjs/issues/10291 "State updated in middleware
 *   'beforeAgent' hook not saved by checkpointer unless 'afterAgent' hook is called": a user's
 *   middleware counting turns in its own state key from `beforeAgent`: the count the stack's
 *   checkpointer stores is the number of turns, as plain's;
 * - https://github.com/langchain-ai/langgraph/issues/8038 "Nested subgraph with own checkpointer
 *   has writes stored under wrong namespace" (fixed in Python by
 *   https://github.com/langchain-ai/langgraph/pull/8053; LangGraph.js 1.7 still does it): the agent,
 *   given its own checkpointer, invoked on its own thread from inside a node of a parent graph
 *   compiled with another: LangGraph runs it on the parent's checkpointer under the task's
 *   namespace, so its thread starts again each parent turn. With the archive off the stack does
 *   what plain does (the parents' threads equal); with it on the stack refuses at the first model
 *   call (`ThreadwiseConfigError`, `memory.checkpointer`), now naming the namespace and why (was:
 *   "the agent runs on another checkpointer", to a user who had passed the stack's), 0 model calls.
 */
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { Command, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText, ThreadwiseConfigError } from "@threadwise/core";
import { createMiddleware, humanInTheLoopMiddleware, modelRetryMiddleware, tool, toolRetryMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  callsOnWord,
  expectAccepted,
  expectSameThread,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  type ReportGraph,
  requests,
  threadShape,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

const both = graphOpsPair;

/** `<WORD> <rest>` on the last line: a call of `name` (args from `args(rest)`) beside a `lookup`, ids from the text's length. */
const callsBesideLookup = (word: string, name: string, args: (rest: string) => object) =>
  callsOnWord(word, (rest, n) => [
    { id: `${name}_${n}_0`, name, args: args(rest) },
    { id: `${name}_${n}_1`, name: "lookup", args: { n: 5 } },
  ]);

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 8 (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  it(`langchain#37093, langchainjs#9949: humanInTheLoopMiddleware rejects book beside an unreviewed lookup: book never runs, the thread is plain's (${graphOpsLabel(c)})`, async () => {
    const runs: string[] = [];
    const book = tool(
      async ({ seat }: { seat: string }) => {
        runs.push(seat);
        return `booked seat ${seat}`;
      },
      { name: "book", description: "Books a seat.", schema: z.object({ seat: z.string() }) },
    );
    const a = graphOpsAgents({
      ...c,
      tools: [book],
      more: callsBesideLookup("BOOK", "book", (seat) => ({ seat })),
      middleware: () => [humanInTheLoopMiddleware({ interruptOn: { book: true } })],
    });
    const cfg = { configurable: { thread_id: `hitl-reject-${c.lang}-${c.archive}` } };
    const no = c.lang === "ko" ? "안 돼요, 창가 자리는 싫어요" : "No, not a window seat";
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      const paused = (await target.invoke({ messages: [new HumanMessage("BOOK 12A")] }, cfg)) as { __interrupt__?: unknown[] };
      expect(paused.__interrupt__?.length, name).toBe(1);
      await target.invoke(new Command({ resume: { decisions: [{ type: "reject", message: no }] } }), cfg);
      await warmGraphOps(target, c.lang, cfg, 3, 6);
    }
    expect(runs).toEqual([]);
    // LangChain.js keeps the unreviewed lookup call in the answer but jumps back to the model without
    // running it: plain's next requests carry a call with no result, which every provider refuses;
    // the stack's view sends each call it holds answered (expectAccepted below).
    expect(a.plainModel.providerLog.rejected.map((r) => r.violations[0]?.rule)).toContain("unanswered_tool_call");
    const stored = await wholeThread(a, cfg.configurable.thread_id);
    expect(stored.some((m) => m.getType() === "tool" && messageText(m) === no)).toBe(true);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  it(`langchain#38845, langchain#40688: toolRetryMiddleware({ onFailure: "continue" }) over a tool that always fails, beside a parallel lookup: one result per call, the thread is plain's (${graphOpsLabel(c)})`, async () => {
    const runs: Record<string, number> = {};
    const charge = tool(
      async ({ amount }: { amount: string }) => {
        runs[amount] = (runs[amount] ?? 0) + 1;
        throw new Error(c.lang === "ko" ? `결제 시간 초과 (${amount})` : `payment timed out (${amount})`);
      },
      { name: "charge", description: "Charges a card.", schema: z.object({ amount: z.string() }) },
    );
    const a = graphOpsAgents({
      ...c,
      tools: [charge],
      more: callsBesideLookup("CHARGE", "charge", (amount) => ({ amount })),
      middleware: () => [
        toolRetryMiddleware({ maxRetries: 2, initialDelayMs: 0, jitter: false, onFailure: "continue", tools: ["charge"] }),
      ],
    });
    const cfg = { configurable: { thread_id: `tool-retry-${c.lang}-${c.archive}` } };
    for (const [, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage("CHARGE 30 EUR")] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 3, 6);
    }
    // Three attempts per agent (one call each).
    expect(runs).toEqual({ "30 EUR": 6 });
    const stored = await wholeThread(a, cfg.configurable.thread_id);
    const results = stored.filter((m) => m.getType() === "tool").map((m) => (m as ToolMessage).tool_call_id);
    expect(new Set(results).size).toBe(results.length);
    expect(results.filter((id) => id.startsWith("charge_"))).toHaveLength(2);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  it(`langchain#38893: modelRetryMiddleware({ onFailure: "continue" }) inside the stack turns a failing call into an answer stored as plain's; the turns after it are valid (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents({
      ...c,
      more: (text) => (text.startsWith("FAIL") ? (new Error("503 upstream unavailable") as never) : undefined),
      middleware: () => [modelRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, jitter: false, onFailure: "continue" })],
    });
    const cfg = { configurable: { thread_id: `model-retry-${c.lang}-${c.archive}` } };
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage(`FAIL ${t.note}`)] }, cfg);
      const last = (await target.getState(cfg)).values.messages?.at(-1) as BaseMessage;
      expect(last.getType(), name).toBe("ai");
      expect(messageText(last), name).toContain("503 upstream unavailable");
      await warmGraphOps(target, c.lang, cfg, 4, 6);
    }
    expect(requests(a.m).some((r) => r.some((m) => messageText(m).includes("요약 summary")))).toBe(true);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  it(`langchainjs#10291: a user's beforeAgent hook counting turns in its own state key: the stored count is the number of turns, as plain's (${graphOpsLabel(c)})`, async () => {
    const counter = () => [
      createMiddleware({
        name: "turn-counter",
        stateSchema: z.object({ turnsSeen: z.number().default(0) }),
        beforeAgent: (state) => ({ turnsSeen: state.turnsSeen + 1 }),
      }),
    ];
    const a = graphOpsAgents({ ...c, middleware: counter });
    const cfg = { configurable: { thread_id: `before-agent-${c.lang}-${c.archive}` } };
    const counts: Record<string, unknown> = {};
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 8);
      counts[name] = ((await target.getState(cfg)).values as { turnsSeen?: number }).turnsSeen;
    }
    expect(counts).toEqual({ agent: 8, plain: 8 });
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  it(`langgraph#8038: the agent invoked on its own thread from inside a node of a checkpointed parent graph runs as plain's, or (archive on) is refused saying why before any model call (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const parentCfg = { configurable: { thread_id: `parent-${c.lang}-${c.archive}` } };
    const childCfg = { configurable: { thread_id: `child-${c.lang}-${c.archive}` } };
    const savers = { agent: new MemorySaver(), plain: new MemorySaver() };
    const parents = Object.fromEntries(
      both(a).map(([name, target]) => [
        name,
        new StateGraph(MessagesAnnotation)
          .addNode("ask", async (s: { messages: BaseMessage[] }) => {
            const asked = s.messages.at(-1) as BaseMessage;
            const out = (await target.invoke({ messages: [new HumanMessage(messageText(asked))] }, childCfg)) as {
              messages: BaseMessage[];
            };
            return { messages: [new AIMessage(`${out.messages.length}: ${messageText(out.messages.at(-1) as BaseMessage)}`)] };
          })
          .addEdge(START, "ask")
          .compile({ checkpointer: savers[name] }) as unknown as ReportGraph,
      ]),
    ) as Record<"agent" | "plain", ReportGraph>;
    const text = (i: number) => (i === 4 ? `${t.turn(i)}\nPARALLEL 2` : t.turn(i));
    for (let i = 1; i <= 8; i += 1) await parents.plain.invoke({ messages: [new HumanMessage(text(i))] }, parentCfg);
    // LangGraph.js runs the agent on the parent's (lent) checkpointer under the task's namespace: its thread starts again each turn.
    const plainAnswers = ((await parents.plain.getState(parentCfg)).values.messages ?? []).filter((m) => m.getType() === "ai");
    expect(plainAnswers.map((m) => messageText(m).split(":")[0])).toEqual(["2", "2", "2", "5", "2", "2", "2", "2"]);
    if (c.archive) {
      const refused = await parents.agent.invoke({ messages: [new HumanMessage(text(1))] }, parentCfg).then(
        () => undefined,
        (e: unknown) => ThreadwiseConfigError.find(e),
      );
      expect(refused?.option).toBe("memory.checkpointer");
      expect(refused?.message).toContain('inside a node of a parent graph (checkpoint_ns "ask:');
      expect(a.m.calls).toHaveLength(0);
      return;
    }
    for (let i = 1; i <= 8; i += 1) await parents.agent.invoke({ messages: [new HumanMessage(text(i))] }, parentCfg);
    const parentStack = (await parents.agent.getState(parentCfg)).values.messages ?? [];
    const parentPlain = (await parents.plain.getState(parentCfg)).values.messages ?? [];
    expect(threadShape(parentStack)).toEqual(threadShape(parentPlain));
    expectAccepted(a.m);
  });
});
