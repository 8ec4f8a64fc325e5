/**
 * Public reports on resuming several waiting interrupts at once, on a thread the stack windows,
 * summarizes and (archive on) archives. `memoryStack` (window 4, summary at 6), English and Korean,
 * archive off and on; oracle: plain `createAgent` on a `MemorySaver`, and report-agent's
 * `expectAccepted` on every request the stack sent.
 *
 * - https://github.com/ag-ui-protocol/ag-ui/issues/2178 "multi-interrupt resume rejected by
 *   LangGraph 1.x id-keyed resume requirement" (a client folds several answers into one resume value
 *   that is not keyed by interrupt id) and https://github.com/langchain-ai/langgraph/issues/6533
 *   (parallel interrupts' resume values routed to the wrong tool): two parallel calls of a tool that
 *   asks the user, beside a `lookup`, after six turns. Resumed first with a map naming one interrupt
 *   only, then the user gives up and sends a new message instead of the other answer; asked again,
 *   both resumed with one bare value (LangGraph.js takes it for every waiting interrupt, where
 *   Python's refuses it). At each step the stack's outcome, what still waits and the results read
 *   back are plain's, the thread reads as plain's, and every request the stack sent, the one after
 *   the abandoned question included (calls with no result in the thread), passes the strict
 *   validators. No bug of ours.
 * - https://github.com/langchain-ai/langgraphjs/pull/2179 (its Python fixes,
 *   https://github.com/langchain-ai/langgraph/pull/7498 "time travel when going back to interrupt
 *   node" and https://github.com/langchain-ai/langgraph/pull/7038: a replay reused the cached
 *   resume value, so the interrupt did not fire again, and a later resume loaded the original
 *   run's state): the same two questions answered, a turn after, then a replay (`invoke(null)` at
 *   the checkpoint where both waited, found by `getStateHistory`) and a different answer. The
 *   replay asks again (no stale answer), the resume answers the fork, and the results, the thread
 *   and every request are as plain's (archive on: the thread read back with its archived part).
 * - https://github.com/langchain-ai/langgraphjs/issues/1316 "Agent node cannot intercept messages
 *   normally after combining trimMessage" (a pre-model hook returned `trimMessages`' output, and the
 *   model still got every message): a `beforeModel` middleware of the user's, after the stack's,
 *   returning `{ messages: trimMessages(state.messages, last 5, startOn human) }`, over eight turns
 *   with parallel calls. The messages reducer merges the returned subset by id, so nothing is
 *   dropped from the thread (plain's and the stack's read the same, archive part included), and the
 *   stack's requests stay windowed and accepted. No bug of ours (LangChain's documented reducer).
 */
import { type BaseMessage, HumanMessage, trimMessages } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Command, interrupt } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { createMiddleware } from "langchain";
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
  outcome,
  warmGraphOps,
} from "./support/report-agent.js";

/** Asks the user about a seat (one `interrupt()`). */
const seat = tool(async ({ seat }: { seat: string }) => `seat ${seat}: ${String(interrupt({ seat }))}`, {
  name: "seat",
  description: "Ask the user about a seat.",
  schema: z.object({ seat: z.string() }),
});

/** `SEATS <rest>`: `seat` twice (1A, 2B) and a `lookup`, in parallel. */
const seatsOn = callsOnWord("SEATS", (_rest, n) => [
  { id: `seat_${n}_1A`, name: "seat", args: { seat: "1A" } },
  { id: `seat_${n}_2B`, name: "seat", args: { seat: "2B" } },
  { id: `lookup_${n}`, name: "lookup", args: { n: 2 } },
]);

const T = {
  en: {
    ask: "SEATS for the Busan train",
    again: "SEATS again for the Busan train, please",
    bare: "fine",
    first: "1A is good",
    drop: "Forget the seats, what time is it in Seoul?",
  },
  ko: {
    ask: "SEATS 부산행 기차",
    again: "SEATS 부산행 기차 다시 부탁해요",
    bare: "좋아요",
    first: "1A 좋아요",
    drop: "좌석은 됐고, 서울은 지금 몇 시예요?",
  },
} as const;

interface Snapshot {
  tasks: Array<{ interrupts: Array<{ id: string; value: { seat: string } }> }>;
  values: { messages?: BaseMessage[] };
}

const pending = (s: Snapshot) => s.tasks.flatMap((task) => task.interrupts);

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 13 (%o)", (c) => {
  const t = T[c.lang];

  it(`ag-ui#2178, langgraph#6533: two waiting interrupts, one resumed by id then abandoned for a new message, then both by a bare value; outcomes, waits and thread are plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents({ ...c, tools: [seat], more: seatsOn });
    const cfg = { configurable: { thread_id: `multi-resume-${c.lang}-${c.archive}` } };
    const seen: Record<string, unknown[]> = { agent: [], plain: [] };
    for (const [name, target] of graphOpsPair(a)) {
      const log = seen[name] as unknown[];
      await warmGraphOps(target, c.lang, cfg);
      const waits = async () =>
        pending((await target.getState(cfg)) as unknown as Snapshot)
          .map((i) => i.value.seat)
          .sort();
      await target.invoke({ messages: [new HumanMessage(t.ask)] }, cfg);
      log.push(await waits());
      // One of the two interrupts answered by its id: the other still waits.
      const asked = pending((await target.getState(cfg)) as unknown as Snapshot);
      const first = asked.find((i) => i.value.seat === "1A");
      log.push(await outcome(target.invoke(new Command({ resume: first ? { [first.id]: t.first } : t.first }), cfg)));
      log.push(await waits());
      const seatResults = async () =>
        ((await target.getState(cfg)).values.messages ?? [])
          .filter((m) => m.getType() === "tool")
          .map((m) => messageText(m))
          .filter((text) => text.startsWith("seat "));
      log.push(await seatResults());
      // The user leaves the other question and asks something else: its call stays without a result.
      await target.invoke({ messages: [new HumanMessage(t.drop)] }, cfg);
      log.push(await waits());
      // Asked again (other call ids), both waiting interrupts resumed with one bare value.
      await target.invoke({ messages: [new HumanMessage(t.again)] }, cfg);
      log.push(await waits());
      log.push(await outcome(target.invoke(new Command({ resume: t.bare }), cfg)));
      log.push(await waits());
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg);
      log.push(await seatResults());
    }
    expect(seen.agent).toEqual(seen.plain);
    // What the steps gave (LangGraph.js 1.7.3, plain's too): the id-keyed answer ran 1A's call (its
    // result is read back) while the snapshot still lists both interrupts (as langgraph#6956); the
    // new message starts from the step's checkpoint, so that result, a pending write of a step 2B
    // never finished, is dropped with 2B's question; a bare value resumes both waiting interrupts.
    expect(seen.agent).toEqual([
      ["1A", "2B"],
      "ok",
      ["1A", "2B"],
      [`seat 1A: ${t.first}`],
      [],
      ["1A", "2B"],
      "ok",
      [],
      [`seat 1A: ${t.bare}`, `seat 2B: ${t.bare}`],
    ]);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
    // The last request (after the abandoned question) went out and ends with the user's question.
    const last = a.m.calls.at(-1) as { messages: BaseMessage[] };
    expect(messageText(last.messages.at(-1) as BaseMessage)).toContain(GRAPH_OPS_TEXT[c.lang].after);
  });

  it(`langgraphjs#2179, langgraph#7498: a replay from the checkpoint where two interrupts waited asks again, and a new answer resumes the fork, as plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents({ ...c, tools: [seat], more: seatsOn });
    const threadId = `replay-interrupt-${c.lang}-${c.archive}`;
    const cfg = { configurable: { thread_id: threadId } };
    const seen: Record<string, unknown[]> = { agent: [], plain: [] };
    for (const [name, target] of graphOpsPair(a)) {
      const log = seen[name] as unknown[];
      const waits = async () =>
        pending((await target.getState(cfg)) as unknown as Snapshot)
          .map((i) => i.value.seat)
          .sort();
      await warmGraphOps(target, c.lang, cfg);
      await target.invoke({ messages: [new HumanMessage(t.ask)] }, cfg);
      await target.invoke(new Command({ resume: t.bare }), cfg);
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg);
      // The newest checkpoint whose tasks wait on an interrupt: where both questions were asked.
      let asked: string | undefined;
      for await (const snapshot of target.getStateHistory(cfg)) {
        const interrupts = pending(snapshot as unknown as Snapshot);
        if (interrupts.length > 0) {
          asked = snapshot.config.configurable?.checkpoint_id as string;
          break;
        }
      }
      log.push(asked !== undefined);
      log.push(await outcome(target.invoke(null, { configurable: { thread_id: threadId, checkpoint_id: asked } })));
      log.push(await waits());
      log.push(await outcome(target.invoke(new Command({ resume: t.first }), cfg)));
      log.push(await waits());
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].turn(9))] }, cfg);
      log.push(
        ((await target.getState(cfg)).values.messages ?? [])
          .filter((m) => m.getType() === "tool")
          .map((m) => messageText(m))
          .filter((text) => text.startsWith("seat ")),
      );
    }
    expect(seen.agent).toEqual(seen.plain);
    // The replay asked both questions again; the new answer, not the first run's, went to the fork.
    expect(seen.agent?.slice(0, 5)).toEqual([true, "ok", ["1A", "2B"], "ok", []]);
    expect(seen.agent?.[5]).toEqual([`seat 1A: ${t.first}`, `seat 2B: ${t.first}`]);
    await expectSameThread(a, threadId);
    expectAccepted(a.m);
  });

  it(`langgraphjs#1316: a user's beforeModel hook returning trimMessages' output as messages drops nothing from the thread, as plain's (${graphOpsLabel(c)})`, async () => {
    const trimmedBy: Record<string, number[]> = { agent: [], plain: [] };
    let who = "agent";
    const trimHook = () => [
      createMiddleware({
        name: "test/trim-hook",
        beforeModel: async (state) => {
          const trimmed = await trimMessages(state.messages, {
            maxTokens: 5,
            tokenCounter: (messages) => messages.length,
            strategy: "last",
            startOn: "human",
          });
          trimmedBy[who]?.push(trimmed.length);
          return { messages: trimmed };
        },
      }),
    ];
    const a = graphOpsAgents({ ...c, middleware: trimHook });
    const threadId = `trim-hook-${c.lang}-${c.archive}`;
    const cfg = { configurable: { thread_id: threadId } };
    for (const [name, target] of graphOpsPair(a)) {
      who = name;
      await warmGraphOps(target, c.lang, cfg, 3);
      await target.invoke({ messages: [new HumanMessage(`${GRAPH_OPS_TEXT[c.lang].turn(4)}\nPARALLEL 2`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 4, 5);
    }
    // The hook ran and cut (its output shorter than the thread) on both.
    expect(trimmedBy.agent?.length).toBeGreaterThan(0);
    expect(Math.min(...(trimmedBy.plain ?? []))).toBeLessThan((await a.plain.getState(cfg)).values.messages?.length ?? 0);
    await expectSameThread(a, threadId);
    expectAccepted(a.m);
    // The stack's last request is its window (shorter than plain's, which sends the whole thread).
    const last = (m: { calls: unknown[] }) => (m.calls.at(-1) as { messages: BaseMessage[] }).messages.length;
    expect(last(a.m)).toBeLessThan(last(a.plainModel));
  });
});
