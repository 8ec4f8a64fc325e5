/**
 * Public reports about a parent graph's state updates while its agent subgraph waits, on a thread
 * the stack windows, summarizes and (archive on) archives. `memoryStack` (window 4, summary at 6),
 * English and Korean, archive off and on; oracle: plain `createAgent` as the same subgraph of a
 * parent compiled with a `MemorySaver`, and report-agent's `expectAccepted` on every request the
 * stack sent.
 *
 * - https://github.com/langchain-ai/langgraph/issues/4748 "If the state of the parent graph is
 *   updated, then the state of the subgraph will be lost" (a duplicate of langgraph#4866): the agent
 *   subgraph waits in a tool's `interrupt()` beside a parallel `lookup`; `updateState` on the
 *   parent's namespace replaces the waiting task, so the `Command({ resume })` after it runs the
 *   agent again on the parent's messages (the note last) and the tool never runs, as on plain. On
 *   the stack's checkpointer that resume never settled: LangGraph writes the resume value on the
 *   new task's empty checkpoint, which it never stores, and the saver held that write for it
 *   (fixed in `ThreadwiseSaver`; see also test/stack.graph-ops-3.test.ts for a human review). The
 *   subgraph's namespace updated instead: the update too writes over the waiting checkpoint, and
 *   the thread is again plain's.
 */
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { Command, END, interrupt, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  expectAccepted,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  graphOpsAgents,
  graphOpsLabel,
  type ReportGraph,
  threadShape,
  warmGraphOps,
} from "./support/report-agent.js";

let confirmRuns = 0;
const confirm = tool(
  async ({ what }: { what: string }) => {
    const answer = String(interrupt({ question: `confirm ${what}?` }));
    confirmRuns += 1;
    return `confirmed ${what}: ${answer}`;
  },
  { name: "confirm", description: "Asks the user to confirm.", schema: z.object({ what: z.string() }) },
);

/** `ASK <what>`: a `confirm` call beside a `lookup` (ids from the text's length, the same on both agents). */
const askMore = (text: string) => {
  const ask = /^ASK (.+)$/.exec(text);
  if (!ask) return undefined;
  return new AIMessage({
    content: "",
    tool_calls: [
      { id: `ask_${text.length}_0`, name: "confirm", args: { what: ask[1] as string }, type: "tool_call" as const },
      { id: `ask_${text.length}_1`, name: "lookup", args: { n: 7 }, type: "tool_call" as const },
    ],
  });
};

type Parent = ReportGraph & { getState(config: object, options?: object): Promise<{ tasks: Array<{ state?: { config?: object } }> }> };

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 10 (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  for (const where of ["parent", "subgraph"] as const)
    it(`langgraph#4748, langgraph#4866: updateState on the ${where}'s namespace while the agent subgraph waits in a tool's interrupt(), then the resume, as plain's (${graphOpsLabel(c)})`, async () => {
      const a = graphOpsAgents({ ...c, tools: [confirm], more: askMore });
      const parentOf = (agent: ReportGraph, checkpointer: unknown) =>
        new StateGraph(MessagesAnnotation)
          .addNode("agent", (agent as unknown as { graph: never }).graph)
          .addEdge(START, "agent")
          .addEdge("agent", END)
          .compile({ checkpointer: checkpointer as never }) as unknown as Parent;
      const parents = { agent: parentOf(a.agent, a.stack.checkpointer), plain: parentOf(a.plain, new MemorySaver()) };
      const cfg = { configurable: { thread_id: `parent-update-${where}-${c.lang}-${c.archive}` } };
      const runs: Record<string, number> = {};
      const yes = c.lang === "ko" ? "네" : "yes";
      for (const [name, parent] of Object.entries(parents)) {
        confirmRuns = 0;
        await warmGraphOps(parent, c.lang, cfg, 6);
        const paused = (await parent.invoke({ messages: [new HumanMessage(`ASK ${t.note}`)] }, cfg)) as { __interrupt__?: unknown[] };
        expect(paused.__interrupt__?.length, name).toBe(1);
        const sub = (await parent.getState(cfg, { subgraphs: true })).tasks[0]?.state?.config;
        expect(sub, name).toBeDefined();
        await parent.updateState(where === "parent" ? cfg : (sub as object), {
          messages: [new HumanMessage({ id: `note-${where}`, content: t.fixed })],
        });
        await parent.invoke(new Command({ resume: yes }), cfg);
        await warmGraphOps(parent, c.lang, cfg, 3, 7);
        runs[name] = confirmRuns;
      }
      const [ours, theirs] = [
        (await parents.agent.getState(cfg)).values.messages ?? [],
        (await parents.plain.getState(cfg)).values.messages ?? [],
      ];
      const confirmed = (messages: BaseMessage[]) =>
        messages.filter((m) => m.getType() === "tool" && (m as ToolMessage).tool_call_id.startsWith("ask_")).map((m) => messageText(m));
      expect(runs.agent).toBe(runs.plain);
      // Either update writes a new checkpoint over the waiting one: the resume finds no interrupt
      // to answer, the agent answers the note, and the asked tool never completes (plain alike).
      expect(runs.agent).toBe(0);
      expect(confirmed(ours)).toEqual(confirmed(theirs));
      expect(threadShape(ours)).toEqual(threadShape(theirs));
      expect(messageText(ours.at(-1) as BaseMessage)).toBe(`ok: ${t.turn(9)}`);
      expectAccepted(a.m);
    });
});
