/**
 * LangGraph operations no fuzzer or report suite did before (session 62, the left items of session
 * 61), on a thread the stack windows, summarizes and (archive on) archives. `memoryStack` (window
 * 4, summary at 6), English and Korean, archive off and on; oracle: plain `createAgent` on a
 * `MemorySaver` running the same operations, and report-agent's `expectAccepted` (strict validator
 * for the four providers, no prefill, and the wire check) on every request the stack sent.
 *
 * - `getStateHistory` with `filter` (`source` input and update), `before` and `limit` on a thread
 *   whose oldest messages are archived: the pages give the unpaged filtered history once, in order;
 *   each state's `values.messages` is the hot tail of the whole thread at that checkpoint
 *   (`readThread` with its `checkpoint_id`, the documented way to read it all back), and that whole
 *   thread is plain's state at the same checkpoint of the filtered list.
 * - `updateState` on the agent subgraph's namespace (`getState(config, { subgraphs: true })`'s
 *   task config) and on the parent's, while a human review in the subgraph waits, then the resume
 *   and more turns: the parent's thread is plain's.
 * (The 5,000-message import against plain is test/stack.import.slow.test.ts.)
 * - `jumpTo: "end"` from a user's `beforeModel` hook and `jumpTo: "model"` from its `afterModel`
 *   hook, the middleware listed before and after the stack's.
 * - `streamMode: ["values", "updates", "messages"]` and `streamEvents` (v2) under
 *   `hideMemoryState`: no private field (`_threadwise_*`) in any chunk or event, the summary only in
 *   `on_chat_model_*` events (documented), the last values chunk is `getState`'s.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { hideMemoryState, messageText } from "@threadwise/core";
import { createMiddleware, humanInTheLoopMiddleware } from "langchain";
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
  type ReportGraph,
  requests,
  storedMessages,
  threadShape,
  warmGraphOps,
  wholeThread,
} from "./support/report-agent.js";

const both = graphOpsPair;

type Snapshot = { id: string; source: unknown; messages: BaseMessage[] };

async function history(target: ReportGraph, cfg: object, options?: object): Promise<Snapshot[]> {
  const out: Snapshot[] = [];
  for await (const s of target.getStateHistory(cfg, options))
    out.push({ id: String(s.config.configurable?.checkpoint_id), source: s.metadata?.source, messages: s.values.messages ?? [] });
  return out;
}

/** `BOOK <seat>`: one `book` call (its id from the text's length, the same on both agents). */
const bookOn = callsOnWord("BOOK", (seat, n) => [{ id: `book_${n}`, name: "book", args: { seat } }]);

describe.each(GRAPH_OPS_CASES)("graph operations 3 (%o)", (c) => {
  const t = GRAPH_OPS_TEXT[c.lang];

  it(`getStateHistory with filter, before and limit on a partly archived thread: each state read whole is plain's (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `history-archived-${c.lang}-${c.archive}` } };
    const whole: Record<string, Record<string, unknown[]>> = {};
    for (const [name, target] of both(a)) {
      await warmGraphOps(target, c.lang, cfg, 4);
      await target.updateState(cfg, { messages: [new HumanMessage(t.note)] });
      await target.invoke({ messages: [new HumanMessage(`${t.turn(5)}\nPARALLEL 2`)] }, cfg);
      await warmGraphOps(target, c.lang, cfg, 4, 6);
      await target.updateState(cfg, { messages: [new HumanMessage(t.fixed)] });
      await target.invoke({ messages: [new HumanMessage(t.after)] }, cfg);
      whole[name] = {};
      for (const source of ["input", "update"]) {
        const filter = { source };
        const all = await history(target, cfg, { filter });
        expect(all.length, `${name} ${source}`).toBeGreaterThanOrEqual(2);
        expect(
          all.map((s) => s.source),
          name,
        ).toEqual(all.map(() => source));
        for (const limit of [1, 3]) {
          const paged: Snapshot[] = [];
          for (let before: string | undefined; ; ) {
            const page = await history(target, cfg, {
              filter,
              limit,
              ...(before ? { before: { configurable: { checkpoint_id: before } } } : {}),
            });
            expect(page.length, `${name} ${source} limit ${limit}`).toBeLessThanOrEqual(limit);
            paged.push(...page);
            if (page.length < limit) break;
            before = page.at(-1)?.id;
          }
          expect(
            paged.map((s) => [s.id, threadShape(s.messages)]),
            `${name} ${source} limit ${limit}`,
          ).toEqual(all.map((s) => [s.id, threadShape(s.messages)]));
        }
        const read: unknown[] = [];
        for (const s of all) {
          if (name === "plain") {
            read.push(threadShape(s.messages));
            continue;
          }
          const thread = await (a.stack.checkpointer as unknown as { readThread(config: object): Promise<BaseMessage[]> }).readThread({
            configurable: { ...cfg.configurable, checkpoint_id: s.id },
          });
          // What getStateHistory shows is the hot tail of the whole thread at that checkpoint.
          expect(threadShape(thread.slice(thread.length - s.messages.length)), `${name} ${s.id}`).toEqual(threadShape(s.messages));
          read.push(threadShape(thread));
        }
        (whole[name] as Record<string, unknown[]>)[source] = read;
      }
    }
    expect(whole.agent).toEqual(whole.plain);
    const archived =
      (await wholeThread(a, cfg.configurable.thread_id)).length -
      (await storedMessages(a.agent as never, cfg.configurable.thread_id)).length;
    expect(archived > 0).toBe(c.archive);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });

  for (const where of ["subgraph", "parent"] as const)
    it(`updateState on the ${where}'s namespace while a review in the agent subgraph waits, then the resume: the parent's thread is plain's (${graphOpsLabel(c)})`, async () => {
      const a = graphOpsAgents({
        ...c,
        tools: [book],
        more: bookOn,
        middleware: () => [humanInTheLoopMiddleware({ interruptOn: { book: true } })],
      });
      const parentOf = (agent: ReportGraph, checkpointer: unknown) =>
        new StateGraph(MessagesAnnotation)
          .addNode("agent", (agent as unknown as { graph: never }).graph)
          .addEdge(START, "agent")
          .addEdge("agent", END)
          .compile({ checkpointer: checkpointer as never }) as unknown as ReportGraph & {
          getState(config: object, options?: object): Promise<{ tasks: Array<{ state?: { config?: object } }> }>;
        };
      const parents = { agent: parentOf(a.agent, a.stack.checkpointer), plain: parentOf(a.plain, new MemorySaver()) };
      const cfg = { configurable: { thread_id: `sub-update-${where}-${c.lang}-${c.archive}` } };
      const notes = { agent: 0, plain: 0 };
      for (const [name, parent] of Object.entries(parents) as Array<[keyof typeof parents, (typeof parents)["agent"]]>) {
        await warmGraphOps(parent, c.lang, cfg, 6);
        const paused = (await parent.invoke({ messages: [new HumanMessage("BOOK 12A")] }, cfg)) as { __interrupt__?: unknown[] };
        expect(paused.__interrupt__?.length, name).toBe(1);
        const state = await parent.getState(cfg, { subgraphs: true });
        const sub = state.tasks[0]?.state?.config;
        expect(sub, name).toBeDefined();
        const target = where === "subgraph" ? (sub as object) : cfg;
        await parent.updateState(target, { messages: [new HumanMessage({ id: `note-${where}`, content: t.note })] });
        await parent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }), cfg);
        await warmGraphOps(parent, c.lang, cfg, 3, 7);
        const model = name === "agent" ? a.m : a.plainModel;
        notes[name] = requests(model).filter((r) => r.some((m) => messageText(m).includes(t.note))).length;
        expect(messageText((await parent.getState(cfg)).values.messages?.at(-1) as BaseMessage), name).toBe(`ok: ${t.turn(9)}`);
      }
      const [ours, theirs] = [
        (await parents.agent.getState(cfg)).values.messages ?? [],
        (await parents.plain.getState(cfg)).values.messages ?? [],
      ];
      if (where === "subgraph") {
        // Plain sends the note between the call and its result (refused by OpenAI, Anthropic,
        // Bedrock); the stack sends it after the result (langgraphjs#1552), so the model answers
        // the note there: the one message that differs.
        expect(a.plainModel.providerLog.rejected.length).toBeGreaterThan(0);
        const at = theirs.findIndex((m) => messageText(m) === "done: booked seat 12A");
        expect(at).toBeGreaterThan(0);
        expect(messageText(ours[at] as BaseMessage)).toBe(`ok: ${t.note}`);
        expect(threadShape([...ours.slice(0, at), ...ours.slice(at + 1)])).toEqual(
          threadShape([...theirs.slice(0, at), ...theirs.slice(at + 1)]),
        );
        expect(ours.some((m) => messageText(m) === "booked seat 12A")).toBe(true);
      } else {
        // An update of the parent replaces the waiting task: the resume runs the agent again on
        // the parent's messages (the note last), and the booking call is never made.
        expect(threadShape(ours)).toEqual(threadShape(theirs));
        expect(ours.some((m) => messageText(m) === "booked seat 12A")).toBe(false);
      }
      // The note reaches the model as it reaches plain's (the window may drop it sooner).
      expect(notes.agent > 0).toBe(notes.plain > 0);
      expect(a.m.calls.length).toBe(a.plainModel.calls.length);
      expectAccepted(a.m);
    });

  for (const first of [true, false])
    it(`jumpTo "end" from a user's beforeModel hook and jumpTo "model" from its afterModel hook, listed ${first ? "before" : "after"} the stack's: the thread is plain's (${graphOpsLabel(c)})`, async () => {
      const middleware = () => [
        createMiddleware({
          name: "guard",
          beforeModel: {
            canJumpTo: ["end"],
            hook: (state) => {
              const last = state.messages.at(-1) as BaseMessage;
              if (last.getType() !== "human" || !messageText(last).startsWith("STOP")) return undefined;
              return { messages: [new AIMessage(`stopped: ${messageText(last)}`)], jumpTo: "end" as const };
            },
          },
          afterModel: {
            canJumpTo: ["model"],
            hook: (state) => {
              const last = state.messages.at(-1) as BaseMessage;
              if (last.getType() !== "ai" || !messageText(last).includes("AGAIN")) return undefined;
              return { messages: [new HumanMessage(`${t.after} (again)`)], jumpTo: "model" as const };
            },
          },
        }),
      ];
      const a = graphOpsAgents({ ...c, middleware, middlewareFirst: first });
      const cfg = { configurable: { thread_id: `jump-${first}-${c.lang}-${c.archive}` } };
      for (const [, target] of both(a)) {
        await warmGraphOps(target, c.lang, cfg, 5);
        await target.invoke({ messages: [new HumanMessage(`STOP ${t.note}`)] }, cfg);
        await target.invoke({ messages: [new HumanMessage(`${t.turn(6)}\nPARALLEL 2`)] }, cfg);
        await target.invoke({ messages: [new HumanMessage(`AGAIN ${t.fixed}`)] }, cfg);
        await target.invoke({ messages: [new HumanMessage(`STOP ${t.turn(7)}`)] }, cfg);
        await warmGraphOps(target, c.lang, cfg, 3, 8);
      }
      expect(requests(a.m).some((r) => messageText(r.at(-1) as BaseMessage).includes(`STOP ${t.note}`))).toBe(false);
      expect(requests(a.m).map((r) => messageText(r.at(-1) as BaseMessage))).toContain(`${t.after} (again)`);
      expect(a.m.calls.length).toBe(a.plainModel.calls.length);
      await expectSameThread(a, cfg.configurable.thread_id);
      expectAccepted(a.m);
    });

  it(`streamMode values, updates and messages, and streamEvents v2, under hideMemoryState: no private field, the summary only in chat model events (${graphOpsLabel(c)})`, async () => {
    const a = graphOpsAgents(c);
    const cfg = { configurable: { thread_id: `private-streams-${c.lang}-${c.archive}` } };
    const privateField = (value: unknown) => JSON.stringify(value).includes("_threadwise_");
    const summaryText = (value: unknown) => JSON.stringify(value).includes("요약 summary");
    const answers: Record<string, string[]> = { agent: [], plain: [] };
    for (const [name, raw] of both(a)) {
      const target = hideMemoryState(raw as never) as ReportGraph & {
        streamEvents(input: unknown, config: object): AsyncIterable<{ event: string; name: string }>;
      };
      for (let i = 1; i <= 9; i += 1) {
        const text = i === 4 ? `${t.turn(i)}\nPARALLEL 2` : t.turn(i);
        if (i % 3 === 0) {
          const events: Array<{ event: string; name: string }> = [];
          for await (const e of target.streamEvents({ messages: [new HumanMessage(text)] }, { ...cfg, version: "v2" })) events.push(e);
          expect(events.length, `${name} turn ${i}`).toBeGreaterThan(0);
          expect(
            events.filter(privateField).map((e) => `${e.event} ${e.name}`),
            `${name} turn ${i}`,
          ).toEqual([]);
          for (const e of events.filter(summaryText)) expect(e.event, `${name} turn ${i}: ${e.name}`).toMatch(/^on_chat_model_/);
          continue;
        }
        let lastValues: BaseMessage[] = [];
        const stream = await target.stream(
          { messages: [new HumanMessage(text)] },
          { ...cfg, streamMode: ["values", "updates", "messages"] },
        );
        for await (const chunk of stream as AsyncIterable<[string, unknown]>) {
          const [mode, payload] = chunk;
          expect(privateField(payload), `${name} turn ${i} ${mode}`).toBe(false);
          expect(summaryText(payload), `${name} turn ${i} ${mode}`).toBe(false);
          if (mode === "values") lastValues = (payload as { messages?: BaseMessage[] }).messages ?? [];
          if (mode === "messages") answers[name]?.push(messageText((payload as [BaseMessage])[0]));
        }
        expect(threadShape(lastValues), `${name} turn ${i}`).toEqual(threadShape((await target.getState(cfg)).values.messages ?? []));
      }
    }
    expect(answers.agent).toEqual(answers.plain);
    expect(requests(a.m).some((r) => r.some((m) => messageText(m).includes("요약 summary")))).toBe(true);
    await expectSameThread(a, cfg.configurable.thread_id);
    expectAccepted(a.m);
  });
});
