/**
 * More LangGraph operations from public reports, on a thread the stack has windowed, summarized and
 * (archive on) archived. `memoryStack` (window 4, summarize), English and Korean, archive off and
 * on; oracle: plain `createAgent` on a `MemorySaver` (the same operations, the same thread), and
 * the strict validator for OpenAI, Anthropic (no prefill), Gemini and Bedrock on every request the
 * stack sent.
 *
 * - https://github.com/langchain-ai/langgraph/pull/8423 "merge and format messages after
 *   REMOVE_ALL_MESSAGES": one update clearing the history then writing a tail that repeats an id and
 *   removes one of its own messages: LangGraph's JS reducer keeps that tail as given, a
 *   `RemoveMessage` and both copies stored as messages; the stack stores the same, and its requests
 *   leave the removal out (was: sent, which every provider refuses, as plain `createAgent` does);
 * - https://github.com/langchain-ai/langgraphjs/pull/846 "Dedupe input (right-side) messages in
 *   messageStateReducer": an update carrying two messages with one id keeps the later;
 * - https://github.com/langchain-ai/langgraphjs/issues/1652 "useStream should support streaming
 *   RemoveMessage": after a `RemoveMessage` update, a turn streamed with `streamMode: "values"`
 *   streams states without the removed message, ending on what `getState` reads;
 * - https://github.com/langchain-ai/langgraph/pull/4328 "Add delete_thread method to Checkpointer"
 *   and https://github.com/langchain-ai/langgraphjs/issues/1272 "Checkpoint Postgres delete
 *   thread": after `deleteThread` nothing of the thread is read or archived; plain LangGraph starts
 *   the id again, the stack refuses it (`ThreadwiseThreadDeletedError`, its tombstone) and a new id
 *   starts with nothing of the old thread in its requests;
 * - https://github.com/langchain-ai/langgraphjs/issues/1591 "Filter by metadata in the Mongo
 *   Checkpointer is dead code" (fixed by https://github.com/langchain-ai/langgraphjs/pull/2186):
 *   `list` with a metadata `filter` (`source`, `step`) yields exactly the checkpoints of the
 *   thread's list that match it, as many updates and inputs as a `MemorySaver` holds;
 * - https://github.com/langchain-ai/langgraph/issues/8714 "aupdate_state raises 'Ambiguous update'
 *   where update_state succeeds": `updateState` as `__start__` on a new thread, then without
 *   `asNode`, then a turn: each step gives what it gives on a plain saver.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { ThreadwiseThreadDeletedError } from "@threadwise/memory";
import { describe, expect, it } from "vitest";
import {
  expectAccepted,
  GRAPH_OPS_CASES,
  GRAPH_OPS_TEXT,
  type GraphOpsCase,
  graphOpsAgents,
  graphOpsLabel,
  lastOf,
  outcome,
  type ReportLister,
  requests,
  storedMessages,
  threadShape,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

const agents = (c: GraphOpsCase) => graphOpsAgents(c);
const whole = wholeThread;
const shape = threadShape;

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 5 (%o)", (c) => {
  it(`langgraph#8423: REMOVE_ALL_MESSAGES then a tail repeating an id and removing one of its own messages (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `remove-all-tail-${c.lang}-${c.archive}` } };
    for (const target of [a.agent, a.plain]) {
      await warmGraphOps(target, c.lang, cfg);
      await target.updateState(cfg, {
        messages: [
          new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
          new HumanMessage({ id: "kept-1", content: GRAPH_OPS_TEXT[c.lang].turn(1) }),
          new AIMessage({ id: "note-1", content: GRAPH_OPS_TEXT[c.lang].note }),
          new AIMessage({ id: "note-1", content: GRAPH_OPS_TEXT[c.lang].fixed }),
          new HumanMessage({ id: "gone-1", content: GRAPH_OPS_TEXT[c.lang].turn(2) }),
          new RemoveMessage({ id: "gone-1" }),
        ],
      });
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 4, 7);
    }
    const plain = await storedMessages(a.plain as never, cfg.configurable.thread_id);
    expect(shape((await a.agent.getState(cfg)).values.messages ?? [])).toEqual(shape(plain));
    // The archive holds what the thread held before the clear (it is history), then the thread as LangGraph's.
    const stacked = await whole(a, cfg.configurable.thread_id);
    expect(shape(stacked.slice(-plain.length))).toEqual(shape(plain));
    // The stack's first request after the clear holds the rewritten tail, never a message from before it.
    const after = requests(a.m).find((r) => messageText(lastOf(r)).endsWith(GRAPH_OPS_TEXT[c.lang].after)) as BaseMessage[];
    expect(after).toBeDefined();
    expect(after.some((m) => m.getType() === "remove")).toBe(false);
    expect(after.map((m) => messageText(m)).join("\n")).not.toContain(GRAPH_OPS_TEXT[c.lang].turn(3));
    // Plain LangGraph stores the removal as a message and sends it: every provider refuses that request.
    expect(plain.some((m) => m.getType() === "remove")).toBe(true);
    expect(a.plainModel.providerLog.rejected.length).toBeGreaterThan(0);
    expectAccepted(a.m);
  });

  it(`langgraphjs#846: an update carrying two messages with one id keeps the later, as on a plain saver (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `dup-ids-${c.lang}-${c.archive}` } };
    for (const target of [a.agent, a.plain]) {
      await warmGraphOps(target, c.lang, cfg);
      await target.updateState(cfg, {
        messages: [
          new AIMessage({ id: "dup-note", content: GRAPH_OPS_TEXT[c.lang].note }),
          new AIMessage({ id: "dup-note", content: GRAPH_OPS_TEXT[c.lang].fixed }),
        ],
      });
      await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 3, 7);
    }
    const stacked = await whole(a, cfg.configurable.thread_id);
    expect(shape(stacked)).toEqual(shape(await storedMessages(a.plain as never, cfg.configurable.thread_id)));
    const texts = stacked.map((m) => messageText(m));
    expect(texts).toContain(GRAPH_OPS_TEXT[c.lang].fixed);
    expect(texts).not.toContain(GRAPH_OPS_TEXT[c.lang].note);
    expectAccepted(a.m);
  });

  it(`langgraphjs#1652: a values stream after a RemoveMessage update streams no removed message and ends on getState (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `stream-remove-${c.lang}-${c.archive}` } };
    const finals: Record<string, BaseMessage[]> = {};
    for (const [name, target] of [
      ["agent", a.agent],
      ["plain", a.plain],
    ] as const) {
      await warmGraphOps(target, c.lang, cfg);
      const newest = lastOf((await target.getState(cfg)).values.messages ?? []);
      await target.updateState(cfg, { messages: [new RemoveMessage({ id: newest.id as string })] });
      const input = { messages: [new HumanMessage(`PARALLEL 2 ${GRAPH_OPS_TEXT[c.lang].after}`)] };
      const streamed: Array<{ messages?: BaseMessage[] }> = [];
      for await (const chunk of await target.stream(input, { ...cfg, streamMode: "values" })) streamed.push(chunk as never);
      // The stack's middleware nodes add steps, so it streams more states than plain; each holds no removed message.
      for (const state of streamed) expect((state.messages ?? []).map((m) => m.id)).not.toContain(newest.id);
      finals[name] = streamed.at(-1)?.messages ?? [];
      expect(shape(finals[name] ?? [])).toEqual(shape((await target.getState(cfg)).values.messages ?? []));
    }
    expect(shape(finals.agent ?? [])).toEqual(shape(finals.plain ?? []));
    const stacked = await whole(a, cfg.configurable.thread_id);
    expect(shape(stacked)).toEqual(shape(await storedMessages(a.plain as never, cfg.configurable.thread_id)));
    expectAccepted(a.m);
  });

  it(`langgraph#4328, langgraphjs#1272: after deleteThread nothing of the thread is read or sent; the id is refused, a new id starts clean (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const threadId = `delete-${c.lang}-${c.archive}`;
    const cfg = { configurable: { thread_id: threadId } };
    const fresh = { configurable: { thread_id: `${threadId}-new` } };
    for (const [name, target] of [
      ["agent", a.agent],
      ["plain", a.plain],
    ] as const) {
      await warmGraphOps(target, c.lang, cfg, 7);
      await target.invoke({ messages: [new HumanMessage(`PARALLEL 2 ${GRAPH_OPS_TEXT[c.lang].after}`)] }, cfg);
      await a.savers[name].deleteThread(threadId);
      expect((await target.getState(cfg)).values.messages ?? []).toEqual([]);
    }
    expect(await whole(a, threadId)).toEqual([]);
    // Plain LangGraph starts the id again; the stack keeps a tombstone (spec R24, langgraph#7206):
    // the id is refused with a typed error and nothing is stored.
    const again = await a.agent.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(ThreadwiseThreadDeletedError.isInstance(again)).toBe(true);
    expect(await whole(a, threadId)).toEqual([]);
    const calls = requests(a.m).length;
    await a.agent.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, fresh);
    expect(requests(a.m).length).toBe(calls + 1);
    const last = requests(a.m).at(-1) as BaseMessage[];
    expect(last.filter((m) => m.getType() !== "system").map((m) => messageText(m))).toEqual([GRAPH_OPS_TEXT[c.lang].after]);
    expect((await whole(a, fresh.configurable.thread_id)).map((m) => messageText(m))).toEqual([
      GRAPH_OPS_TEXT[c.lang].after,
      `ok: ${GRAPH_OPS_TEXT[c.lang].after}`,
    ]);
    expectAccepted(a.m);
  });

  it(`langgraphjs#1591: list with a metadata filter yields the checkpoints a MemorySaver yields (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `list-filter-${c.lang}-${c.archive}` } };
    for (const target of [a.agent, a.plain]) {
      await warmGraphOps(target, c.lang, cfg, 5);
      await target.updateState(cfg, { messages: [new AIMessage(GRAPH_OPS_TEXT[c.lang].note)] });
      await warmGraphOps(target, c.lang, cfg, 2, 6);
    }
    const listed = async (saver: ReportLister, filter?: object) => {
      const out: Array<{ source?: string; step?: number }> = [];
      for await (const t of saver.list(cfg, filter ? { filter } : {})) out.push({ source: t.metadata?.source, step: t.metadata?.step });
      return out;
    };
    // The stack's middleware nodes add steps, so steps differ from plain's: the oracle for a filter
    // is the unfiltered list filtered here; the count of updates and inputs is plain's.
    const all = await listed(a.savers.agent);
    for (const filter of [{ source: "update" }, { source: "input" }, { step: 3 }, { source: "loop", step: 2 }] as const) {
      const ours = await listed(a.savers.agent, filter);
      const expected = all.filter((t) => Object.entries(filter).every(([k, v]) => t[k as keyof typeof t] === v));
      expect(ours, JSON.stringify(filter)).toEqual(expected);
      expect(ours.length, JSON.stringify(filter)).toBeGreaterThan(0);
      if (!("step" in filter)) expect(ours.length, JSON.stringify(filter)).toBe((await listed(a.savers.plain, filter)).length);
    }
    expect(await listed(a.savers.agent, { source: "no-such-source" })).toEqual([]);
    expectAccepted(a.m);
  });

  it(`langgraph#8714: updateState as __start__ on a new thread, then without asNode, then a turn, as on a plain saver (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `as-start-${c.lang}-${c.archive}` } };
    const steps: Record<string, string[]> = { agent: [], plain: [] };
    for (const [name, target] of [
      ["agent", a.agent],
      ["plain", a.plain],
    ] as const) {
      steps[name]?.push(await outcome(target.updateState(cfg, { messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].note)] }, "__start__")));
      steps[name]?.push(await outcome(target.updateState(cfg, { messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].fixed)] })));
      steps[name]?.push(await outcome(target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[c.lang].after)] }, cfg)));
      await warmGraphOps(target, c.lang, cfg, 5);
    }
    expect(steps.agent).toEqual(steps.plain);
    const stacked = await whole(a, cfg.configurable.thread_id);
    expect(shape(stacked)).toEqual(shape(await storedMessages(a.plain as never, cfg.configurable.thread_id)));
    expectAccepted(a.m);
  });
});
