/**
 * LangGraph operations no fuzzer or report suite did before (session 60, brief item 3), on a thread
 * the stack windows, summarizes and (archive on) archives. `memoryStack` (window 4, summary at 6),
 * English and Korean, archive off and on; oracle: plain `createAgent` on a `MemorySaver` running
 * the same operations, and report-agent's `expectAccepted` (strict validator for the four providers,
 * no prefill, and the wire check) on every request the stack sent.
 *
 * - `Send` fan-out from a user's node: a parent graph sends each question of a turn, with the
 *   parent's thread, to the agent as a subgraph (two tasks of one node in one step); the stack's
 *   checkpointer is the parent's;
 * - a tool returning `Command({ graph: Command.PARENT, goto, update })` (a hand-off out of the agent
 *   to a node of the parent graph), then turns that come back to the agent;
 * - `streamMode: ["custom", "debug"]` with a tool writing custom chunks: the same custom chunks as
 *   plain's, no private state in any debug event, the last debug checkpoint is what `getState` reads;
 * - `invoke` with `configurable.checkpoint_id` of an old checkpoint (a fork) on an archived thread,
 *   then a normal turn: the fork runs as plain's, or (archive on, the fork would bring archived
 *   messages back) is refused with the typed `archived-fork` error, nothing stored, and the next
 *   turn goes on from the head as plain's does without the fork;
 * - `batch` of several threads at once (each thread plain's), and of two turns on one thread (one
 *   commits; the other is refused with the typed, retryable error and stores nothing).
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import {
  Annotation,
  Command,
  END,
  getCurrentTaskInput,
  MemorySaver,
  MessagesAnnotation,
  Send,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { hideMemoryState, messageText } from "@threadwise/core";
import { ThreadwiseArchivedMessageError, ThreadwiseConcurrentTurnError } from "@threadwise/memory";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  expectAccepted,
  expectSameThread,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  type GraphOpsCase,
  graphOpsAgents,
  graphOpsLabel,
  graphOpsPair,
  type ReportGraph,
  requests,
  storedMessages,
  threadShape,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

const both = graphOpsPair;

/**
 * report-agent's pair (`graphOpsAgents`), each agent's graph as a node of a parent graph built by
 * `build`, compiled with the stack's checkpointer or a `MemorySaver` (LangGraph lends it to the
 * agent's graph): the pair to run one case on both.
 */
function parentPair(
  c: GraphOpsCase,
  build: (agent: unknown) => { compile: (o: object) => unknown },
  tools: StructuredToolInterface[] = [],
) {
  const a = graphOpsAgents({ ...c, tools, more });
  const graphOf = (agent: ReportGraph) => (agent as unknown as { graph: unknown }).graph;
  return {
    m: a.m,
    agent: build(graphOf(a.agent)).compile({ checkpointer: a.stack.checkpointer }) as ReportGraph,
    plain: build(graphOf(a.plain)).compile({ checkpointer: new MemorySaver() }) as ReportGraph,
  };
}

/** `TRANSFER <what>`: a call of `transfer` (its id from the text's length, the same on both agents). */
const more = (text: string) => {
  const transfer = /^TRANSFER (.+)$/.exec(text);
  if (!transfer) return undefined;
  return new AIMessage({
    content: "",
    tool_calls: [{ id: `transfer_${text.length}`, name: "transfer", args: { what: transfer[1] as string }, type: "tool_call" as const }],
  });
};

/** Hands the conversation to the parent's `desk` node: the agent's messages, the call's result, `goto: "desk"`. */
const transfer = tool(
  async ({ what }: { what: string }, config) => {
    const state = getCurrentTaskInput<{ messages: BaseMessage[] }>();
    const id = (config as { toolCall?: { id?: string } }).toolCall?.id as string;
    return new Command({
      graph: Command.PARENT,
      goto: "desk",
      update: { messages: [...state.messages, new ToolMessage({ content: `transferred: ${what}`, tool_call_id: id, name: "transfer" })] },
    });
  },
  { name: "transfer", description: "Hands the user to the desk.", schema: z.object({ what: z.string() }) },
);

/** Writes a custom stream chunk per call, then answers as `lookup`. */
const progress = tool(
  async ({ n }: { n: number }, config) => {
    (config as { writer?: (chunk: unknown) => void }).writer?.({ progress: n, note: `step ${n}` });
    return `progress ${n}`;
  },
  { name: "progress", description: "Reports progress.", schema: z.object({ n: z.number() }) },
);

describe.each(GRAPH_OPS_CASES)("graph operations no suite did (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  it(`Send fan-out from a user's node: two questions a turn, each with the thread, to the agent as a subgraph (${graphOpsLabel(c)})`, async () => {
    const State = Annotation.Root({ ...MessagesAnnotation.spec, questions: Annotation<string[]> });
    const pair = parentPair(c, (agent) =>
      new StateGraph(State)
        .addNode("agent", agent as never)
        .addConditionalEdges(START, (s) => s.questions.map((q) => new Send("agent", { messages: [...s.messages, new HumanMessage(q)] })), [
          "agent",
        ])
        .addEdge("agent", END),
    );
    const cfg = { configurable: { thread_id: `send-${c.lang}-${c.archive}` } };
    for (const target of [pair.agent, pair.plain])
      for (let i = 1; i <= 5; i += 1) {
        const questions = [t.turn(i), i === 3 ? `${t.turn(i + 10)}\nPARALLEL 2` : t.turn(i + 10)];
        await target.invoke({ questions }, cfg);
      }
    const [ours, theirs] = [(await pair.agent.getState(cfg)).values.messages ?? [], (await pair.plain.getState(cfg)).values.messages ?? []];
    expect(threadShape(ours)).toEqual(threadShape(theirs));
    expect(ours.filter((m) => m.getType() === "human")).toHaveLength(10);
    expect(pair.m.calls.length).toBeGreaterThan(10);
    // The stack summarized inside the fanned-out tasks (window 4, summary at 6, each task given the whole thread).
    expect(requests(pair.m).some((r) => r.some((m) => messageText(m).includes("요약 summary")))).toBe(true);
    expectAccepted(pair.m);
  });

  it(`a tool returning Command({ graph: Command.PARENT }) hands off to the parent's node; later turns come back to the agent (${graphOpsLabel(c)})`, async () => {
    const pair = parentPair(
      c,
      (agent) =>
        new StateGraph(MessagesAnnotation)
          .addNode("agent", agent as never, { ends: ["desk"] })
          .addNode("desk", (s: { messages: BaseMessage[] }) => {
            const asked = [...s.messages].reverse().find((m) => m.getType() === "human") as BaseMessage;
            return { messages: [new AIMessage(`desk: ${messageText(asked)}`)] };
          })
          .addEdge(START, "agent")
          .addEdge("agent", END)
          .addEdge("desk", END),
      [transfer],
    );
    const cfg = { configurable: { thread_id: `parent-${c.lang}-${c.archive}` } };
    for (const target of [pair.agent, pair.plain]) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage(`TRANSFER ${t.note}`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 2, 6);
      await target.invoke({ messages: [new HumanMessage(`TRANSFER ${t.fixed}`)] }, cfg);
      await target.invoke({ messages: [new HumanMessage(t.after)] }, cfg);
    }
    const [ours, theirs] = [(await pair.agent.getState(cfg)).values.messages ?? [], (await pair.plain.getState(cfg)).values.messages ?? []];
    expect(threadShape(ours)).toEqual(threadShape(theirs));
    expect(ours.filter((m) => messageText(m).startsWith("desk: "))).toHaveLength(2);
    expect(messageText(ours.at(-1) as BaseMessage)).toBe(`ok: ${t.after}`);
    expectAccepted(pair.m);
  });

  it(`streamMode custom and debug: plain's custom chunks, no private state in a debug event, the last debug checkpoint is getState's (${graphOpsLabel(c)})`, async () => {
    const progressMore = (text: string) =>
      text.startsWith("PROGRESS")
        ? new AIMessage({
            content: "",
            tool_calls: [0, 1].map((n) => ({
              id: `progress_${text.length}_${n}`,
              name: "progress",
              args: { n },
              type: "tool_call" as const,
            })),
          })
        : undefined;
    const a = graphOpsAgents({ ...c, tools: [progress], more: progressMore });
    const cfg = { configurable: { thread_id: `custom-debug-${c.lang}-${c.archive}` } };
    const customs: Record<string, unknown[]> = { agent: [], plain: [] };
    // The stack's agent streamed as an app serving clients streams it: private state hidden (R41).
    const hidden = hideMemoryState(a.agent as never) as unknown as ReportGraph;
    for (const [name, target] of both(a)) {
      for (let i = 1; i <= 8; i += 1) {
        const text = i % 3 === 0 ? `${t.turn(i)}\nPROGRESS` : t.turn(i);
        const stream = await (name === "agent" ? hidden : target).stream(
          { messages: [new HumanMessage(text)] },
          { ...cfg, streamMode: ["custom", "debug"] },
        );
        let lastCheckpoint: BaseMessage[] | undefined;
        for await (const chunk of stream as AsyncIterable<[string, unknown]>) {
          const [mode, payload] = chunk;
          if (mode === "custom") (customs[name] as unknown[]).push(payload);
          else {
            expect(mode, name).toBe("debug");
            expect(JSON.stringify(payload), name).not.toContain("_threadwise");
            const event = payload as { type: string; payload: { values?: { messages?: BaseMessage[] } } };
            if (event.type === "checkpoint") lastCheckpoint = event.payload.values?.messages;
          }
        }
        expect(threadShape(lastCheckpoint ?? []), `${name} turn ${i}`).toEqual(
          threadShape((await target.getState(cfg)).values.messages ?? []),
        );
      }
    }
    expect(customs.agent).toEqual(customs.plain);
    expect(customs.agent).toHaveLength(4);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  // Turn 3's end holds messages archived since (archive on: refused, archived-fork); turn 11's holds none.
  for (const forkTurn of [3, 11])
    it(`invoke from the checkpoint that ended turn ${forkTurn} (a fork) on a summarized, archived thread, then a normal turn (${graphOpsLabel(c)})`, async () => {
      const a = graphOpsAgents(c);
      const cfg = { configurable: { thread_id: `fork-${forkTurn}-${c.lang}-${c.archive}` } };
      const outcomes: Record<string, string> = {};
      for (const [name, target] of both(a)) {
        await warmGraphOps(target, c.lang, cfg, 12);
        let forkAt: string | undefined;
        for await (const s of target.getStateHistory(cfg)) {
          const last = s.values.messages?.at(-1);
          if (last && last.getType() === "ai" && messageText(last) === `ok: ${t.turn(forkTurn)}`)
            forkAt = String(s.config.configurable?.checkpoint_id);
        }
        expect(forkAt, name).toBeDefined();
        if (name === "plain" && outcomes.agent !== "ok") continue;
        outcomes[name] = await target
          .invoke({ messages: [new HumanMessage(t.fixed)] }, { configurable: { ...cfg.configurable, checkpoint_id: forkAt } })
          .then(
            () => "ok",
            (e: unknown) => (ThreadwiseArchivedMessageError.isInstance(e) ? `archived: ${(e as { reason?: string }).reason}` : String(e)),
          );
      }
      const archived =
        (await wholeThread(a, cfg.configurable.thread_id)).length -
        (await storedMessages(a.agent as never, cfg.configurable.thread_id)).length;
      for (const [, target] of both(a)) await target.invoke({ messages: [new HumanMessage(t.after)] }, cfg);
      expect(archived > 0).toBe(c.archive);
      expect(outcomes.agent).toBe(c.archive && forkTurn === 3 ? "archived: archived-fork" : "ok");
      const head = (await a.agent.getState(cfg)).values.messages ?? [];
      expect(messageText(head.at(-1) as BaseMessage)).toBe(`ok: ${t.after}`);
      if (outcomes.agent === "ok") expect(messageText(head.at(-3) as BaseMessage)).toBe(`ok: ${t.fixed}`);
      await expectSameThread(a, cfg.configurable.thread_id);
      expectAccepted(a.m);
    });

  it(`batch of several threads, then of two turns on one thread (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const threads = [0, 1, 2].map((k) => ({ configurable: { thread_id: `batch-${k}-${c.lang}-${c.archive}` } }));
    for (const [, target] of both(a)) {
      const graph = (target as unknown as { graph: { batch: (inputs: unknown[], configs: object[], o?: object) => Promise<unknown[]> } })
        .graph;
      const batch = graph.batch.bind(graph);
      for (let i = 1; i <= 8; i += 1)
        await batch(
          threads.map((_, k) => ({
            messages: [new HumanMessage(k === 1 && i === 4 ? `${t.turn(i)}\nPARALLEL 2` : `${t.turn(i)} (${k})`)],
          })),
          threads,
        );
    }
    for (const cfg of threads) await expectSameThread(a, cfg.configurable.thread_id);
    // Two turns on one thread in one batch: one commits, the other is refused before it runs.
    const one = threads[0] as (typeof threads)[number];
    const callsBefore = a.m.calls.length;
    const results = await (
      a.agent as unknown as { graph: { batch: (i: unknown[], c: object[], o: object) => Promise<unknown[]> } }
    ).graph.batch([{ messages: [new HumanMessage(t.note)] }, { messages: [new HumanMessage(t.fixed)] }], [one, one], {
      returnExceptions: true,
    });
    const refused = results.filter((r) => r instanceof Error);
    expect(refused).toHaveLength(1);
    expect(ThreadwiseConcurrentTurnError.find(refused[0])?.reason).toBe("turn-in-progress");
    expect(a.m.calls.length - callsBefore).toBe(1);
    const stored = (await wholeThread(a, one.configurable.thread_id)).map((m) => messageText(m));
    expect(stored.filter((x) => x === t.note || x === t.fixed)).toHaveLength(1);
    await a.agent.invoke({ messages: [new HumanMessage(t.after)] }, one);
    expectAccepted(a.m);
  });
});
