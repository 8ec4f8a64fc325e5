/**
 * Public reports on a tool that asks twice and on reading the state while and after streaming, on
 * a thread the stack windows, summarizes and (archive on) archives. `memoryStack` (window 4, summary
 * at 6), English and Korean, archive off and on; oracle: plain `createAgent` on a `MemorySaver`,
 * and report-agent's `expectAccepted` on every request the stack sent.
 *
 * - https://github.com/langchain-ai/langgraph/issues/6956 "`get_state().next` is empty after a node
 *   calls `interrupt()` twice" (its fix, https://github.com/langchain-ai/langgraph/pull/6957: the
 *   snapshot counted the first answer's resume write as the task's result): a tool that asks for a
 *   seat, then for a confirmation, beside a parallel `lookup`, after six turns. After the first
 *   answer the stack's `getState` shows what plain's does: the second question waiting, and `next`
 *   empty (LangGraph.js 1.7.3 has the report's bug too; the second answer resumes the tool all the
 *   same); after it the result, the answer and the thread are plain's. No bug of ours.
 * - https://github.com/langchain-ai/langgraph/issues/4985 "get_state values is not updated in
 *   stream_mode=values" (read inside the loop, the step's checkpoint may not be stored yet) and
 *   https://github.com/langchain-ai/langgraph/issues/8672 ("values" skips a step whose node returns
 *   nothing, "updates" shows it): a turn with parallel calls streamed with `["values", "updates"]`
 *   on an agent under `hideMemoryState`. Once the stream is read to its end `getState` equals its
 *   last "values" chunk; the "updates" chunks of the user's nodes (`model_request`, `tools`) carry
 *   plain's messages, and no chunk names a node of the stack's that writes nothing (its turn
 *   admission is hidden). No bug of ours.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, interrupt } from "@langchain/langgraph";
import { hideMemoryState, messageText } from "@threadwise/core";
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
  threadShape,
  warmGraphOps,
} from "./support/report-agent.js";

/** Asks for a seat, then for a confirmation of it: two `interrupt()`s in one tool call. */
const reserve = tool(
  async ({ trip }: { trip: string }) => {
    const seat = String(interrupt({ question: `seat for ${trip}?` }));
    const sure = String(interrupt({ question: `confirm ${seat}?` }));
    return `reserved ${trip} seat ${seat}: ${sure}`;
  },
  { name: "reserve", description: "Reserve a seat, asking the user twice.", schema: z.object({ trip: z.string() }) },
);

/** `RESERVE <trip>`: `reserve` and a parallel `lookup`. */
const reserveOn = callsOnWord("RESERVE", (trip, n) => [
  { id: `reserve_${n}`, name: "reserve", args: { trip } },
  { id: `lookup_${n}`, name: "lookup", args: { n: 1 } },
]);

const ANSWERS = { en: ["12B", "yes, book it"], ko: ["12B", "네, 예약해 주세요"] } as const;
const TRIPS = { en: "Busan to Seoul", ko: "부산에서 서울" } as const;

interface Snapshot {
  next: string[];
  tasks: Array<{ name: string; interrupts: Array<{ value?: unknown }> }>;
  values: { messages?: BaseMessage[] };
}

/** What the reports compare of a waiting snapshot: its next nodes and the questions its tasks wait on. */
const waiting = (s: Snapshot) => ({
  next: [...s.next],
  questions: s.tasks.flatMap((task) => task.interrupts.map((i) => i.value)),
});

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 12 (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  it(`langgraph#6956: a tool that calls interrupt() twice beside a parallel call; getState after the first answer still waits, as plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents({ ...c, tools: [reserve], more: reserveOn });
    const cfg = { configurable: { thread_id: `ask-twice-${c.lang}-${c.archive}` } };
    const seen: Record<string, unknown[]> = { agent: [], plain: [] };
    for (const [name, target] of graphOpsPair(a)) {
      await warmGraphOps(target, c.lang, cfg);
      await target.invoke({ messages: [new HumanMessage(`RESERVE ${TRIPS[c.lang]}`)] }, cfg);
      seen[name]?.push(waiting((await target.getState(cfg)) as unknown as Snapshot));
      await target.invoke(new Command({ resume: ANSWERS[c.lang][0] }), cfg);
      seen[name]?.push(waiting((await target.getState(cfg)) as unknown as Snapshot));
      await target.invoke(new Command({ resume: ANSWERS[c.lang][1] }), cfg);
      seen[name]?.push(waiting((await target.getState(cfg)) as unknown as Snapshot));
      await target.invoke({ messages: [new HumanMessage(t.after)] }, cfg);
    }
    expect(seen.agent).toEqual(seen.plain);
    // After the first answer it still waits, on the second question (its `next` is plain's: empty
    // in @langchain/langgraph 1.7.3 as in the report; the resume below goes on all the same).
    expect(seen.agent?.[1]).toMatchObject({ questions: [{ question: `confirm ${ANSWERS[c.lang][0]}?` }] });
    expect(seen.agent?.[2]).toEqual({ next: [], questions: [] });
    await expectSameThread(a, cfg.configurable.thread_id);
    const results = (await a.agent.getState(cfg)).values.messages ?? [];
    expect(results.some((m) => messageText(m) === `reserved ${TRIPS[c.lang]} seat 12B: ${ANSWERS[c.lang][1]}`)).toBe(true);
    expectAccepted(a.m);
  });

  it(`langgraph#4985, langgraph#8672: a parallel-call turn streamed with values and updates; getState after the stream is its last values chunk, the user's nodes' updates are plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents({ ...c });
    hideMemoryState(a.agent);
    const cfg = { configurable: { thread_id: `stream-read-${c.lang}-${c.archive}` } };
    const updates: Record<string, Array<{ node: string; messages: ReturnType<typeof threadShape> }>> = { agent: [], plain: [] };
    const nodes: Record<string, string[]> = { agent: [], plain: [] };
    for (const [name, target] of graphOpsPair(a)) {
      await warmGraphOps(target, c.lang, cfg);
      let lastValues: BaseMessage[] = [];
      const stream = await (target as ReportGraph).stream(
        { messages: [new HumanMessage(`${t.turn(7)}\nPARALLEL 3`)] },
        { ...cfg, streamMode: ["values", "updates"] },
      );
      for await (const [mode, chunk] of stream as AsyncIterable<[string, Record<string, unknown>]>) {
        if (mode === "values") lastValues = (chunk.messages as BaseMessage[]) ?? [];
        else
          for (const [node, update] of Object.entries(chunk)) {
            nodes[name]?.push(node);
            const written = (update as { messages?: BaseMessage[] } | null)?.messages;
            if ((node === "model_request" || node === "tools") && written)
              updates[name]?.push({ node, messages: threadShape(Array.isArray(written) ? written : [written]) });
          }
      }
      const after = (await target.getState(cfg)).values.messages ?? [];
      expect(after.map((m) => m.id)).toEqual(lastValues.map((m) => m.id));
    }
    expect(updates.agent).toEqual(updates.plain);
    expect(updates.agent?.map((u) => u.node)).toEqual(["model_request", "tools", "tools", "tools", "model_request"]);
    expect(nodes.agent).not.toContain("threadwise/turn-admission.before_agent");
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });
});
