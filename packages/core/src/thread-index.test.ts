import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alternateRoles, assembleView, EMPTY_DECISIONS, type ViewDecisions } from "./assemble-view.js";
import { groupMessages, type MessageGroup, protectedTailStart } from "./groups.js";
import { messageIdentity } from "./message-identity.js";
import { indexThread, newestIndexOf, selectIndexedView, type ThreadIndex } from "./thread-index.js";
import { selectView } from "./view.js";
import { selectViewOf, viewMessages, withViewDecisions } from "./view-request.js";

/** One unit appended to a thread. */
type Unit =
  | { kind: "user" | "assistant" | "system"; text: string }
  | { kind: "tools"; calls: number; missing: boolean; stray: boolean; dup: boolean; native: boolean; text: string }
  | { kind: "orphan-tool"; text: string };

const unitArb: fc.Arbitrary<Unit> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("user" as const), text: fc.string({ maxLength: 30 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("assistant" as const), text: fc.string({ maxLength: 30 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("system" as const), text: fc.string({ maxLength: 10 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("tools" as const),
      calls: fc.integer({ min: 1, max: 3 }),
      missing: fc.boolean(),
      stray: fc.boolean(),
      dup: fc.boolean(),
      native: fc.boolean(),
      text: fc.string({ maxLength: 40 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("orphan-tool" as const), text: fc.string({ maxLength: 10 }) }) },
);

/** What happens to the stored thread between two model calls. */
type Op =
  | { op: "append"; units: Unit[] }
  | { op: "delete"; at: number }
  | { op: "persistTrim"; groups: number }
  | { op: "removeAll"; keep: number }
  | { op: "timeTravel"; back: number }
  | { op: "otherProcess"; units: Unit[] };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant("append" as const), units: fc.array(unitArb, { minLength: 1, maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("delete" as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("persistTrim" as const), groups: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("removeAll" as const), keep: fc.nat({ max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("timeTravel" as const), back: fc.integer({ min: 1, max: 5 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("otherProcess" as const), units: fc.array(unitArb, { minLength: 1, maxLength: 3 }) }),
  },
);

let nextId = 0;
function materialize(unit: Unit): BaseMessage[] {
  const id = () => `m${nextId++}`;
  switch (unit.kind) {
    case "user":
      return [new HumanMessage({ id: id(), content: unit.text })];
    case "assistant":
      return [new AIMessage({ id: id(), content: unit.text })];
    case "system":
      return [new SystemMessage({ id: id(), content: unit.text })];
    case "orphan-tool":
      return [new ToolMessage({ id: id(), tool_call_id: `x${nextId}`, content: unit.text })];
    case "tools": {
      const calls = Array.from({ length: unit.calls }, (_, k) => ({
        id: `c${nextId}-${k}`,
        name: "t",
        args: {},
        type: "tool_call" as const,
      }));
      const out: BaseMessage[] = [new AIMessage({ id: id(), content: "", tool_calls: calls })];
      for (const [k, call] of calls.entries()) {
        if (unit.missing && k === calls.length - 1) continue;
        // Results after the first one as Anthropic-native user messages of `tool_result` blocks.
        if (unit.native && k > 0)
          out.push(new HumanMessage({ id: id(), content: [{ type: "tool_result", tool_use_id: call.id, content: unit.text }] as never }));
        else out.push(new ToolMessage({ id: id(), tool_call_id: call.id, content: unit.text }));
        // A second result for the first call, right after its first.
        if (unit.dup && k === 0) out.push(new ToolMessage({ id: id(), tool_call_id: call.id, content: "again" }));
      }
      if (unit.stray) out.push(new ToolMessage({ id: id(), tool_call_id: "nobody", content: "stray" }));
      return out;
    }
  }
}

/** Fresh objects with the same ids and content, as a checkpointer hands the thread back. */
function revive(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.map((m) => {
    const fields = { id: m.id, content: m.content } as const;
    if (m.type === "human") return new HumanMessage(fields);
    if (m.type === "system") return new SystemMessage(fields);
    if (m.type === "tool") return new ToolMessage({ ...fields, tool_call_id: (m as ToolMessage).tool_call_id });
    return new AIMessage({ ...fields, tool_calls: (m as AIMessage).tool_calls ?? [] });
  });
}

const textCost = (group: MessageGroup) => group.messages.reduce((sum, m) => sum + 1 + String(m.content).length, 0);

/** Every figure read from the index against the computation over the messages themselves. */
function expectSameAsScratch(index: ThreadIndex, messages: readonly BaseMessage[]): void {
  const groups = groupMessages(messages);
  expect(index.length).toBe(messages.length);
  expect(index.groups).toEqual(groups.map((g) => ({ kind: g.kind, start: g.start, end: g.end })));
  for (let g = 0; g < groups.length; g += 1) expect(index.group(g).messages).toEqual((groups[g] as MessageGroup).messages);
  const candidates = groups.flatMap((g, k) => (g.kind === "system" || g.kind === "orphan" ? [] : [k]));
  expect(index.candidates).toEqual(candidates);
  expect(index.protectedFrom).toBe(protectedTailStart(candidates.map((k) => groups[k] as MessageGroup)));
  const counts = [0];
  const costs = [0];
  for (const k of candidates) {
    counts.push((counts.at(-1) as number) + (groups[k] as MessageGroup).messages.length);
    costs.push((costs.at(-1) as number) + textCost(groups[k] as MessageGroup));
  }
  expect(index.countPrefix).toEqual(counts);
  expect(index.costPrefix("text", textCost)).toEqual(costs);
  expect(index.systemPositions).toEqual(messages.flatMap((m, i) => (m.type === "system" ? [i] : [])));
  for (const [i, m] of messages.entries()) expect(index.indexOf(m.id as string)).toBe(i);
  expect(index.indexOf("no-such-id")).toBe(-1);
  // The indexed selection is selectView's, for both evictions, both startOn values and a fixed cost.
  for (const eviction of ["sliding", "chunked"] as const) {
    for (const startOn of ["any", "human"] as const) {
      for (const [limit, fixedCost] of [
        [5, 0],
        [40, 3],
        [150, 10],
      ] as const) {
        const options = { cost: textCost, limit, fixedCost, eviction, startOn };
        const scratch = selectView(messages, options);
        const memo = selectIndexedView(index, { ...options, costKey: "text" });
        expect(memo.messages.map((m) => m.id)).toEqual(scratch.messages.map((m) => m.id));
        expect(memo.kept.map((g) => [g.kind, g.start, g.end, g.messages.length])).toEqual(
          scratch.kept.map((g) => [g.kind, g.start, g.end, g.messages.length]),
        );
        expect([memo.cost, memo.overLimit, memo.droppedGroups, memo.orphanGroups]).toEqual([
          scratch.cost,
          scratch.overLimit,
          scratch.droppedGroups,
          scratch.orphanGroups,
        ]);
        // Upper bounds (issue 21) never change the selection: tight, loose, or loose on the fixed part.
        {
          const [slack, fixedSlack] = limit === 5 ? [0, 0] : limit === 40 ? [2, 0] : [0, 30];
          const bounded = selectIndexedView(index, {
            ...options,
            costKey: "text-bounded",
            bounds: { fixed: fixedCost + fixedSlack, group: (g) => textCost(g) + slack * g.messages.length },
          });
          expect([bounded.firstKept?.id, bounded.cost, bounded.overLimit, bounded.droppedGroups, bounded.orphanGroups]).toEqual([
            memo.firstKept?.id,
            memo.cost,
            memo.overLimit,
            memo.droppedGroups,
            memo.orphanGroups,
          ]);
          expect(bounded.messages.map((m) => m.id)).toEqual(scratch.messages.map((m) => m.id));
        }
      }
    }
  }
  // Excluded positions: every message outside the candidate groups.
  const inCandidate = new Set(candidates.flatMap((k) => (groups[k] as MessageGroup).messages));
  expect(index.excluded).toEqual(messages.flatMap((m, i) => (inCandidate.has(index.substitutes.get(i) ?? m) ? [] : [i])));
  // The assembled view on the index (merge points, excluded positions)
  // is the one assembled on a fresh index, and its messages are the plain role alternation of its
  // view, for views starting at every candidate.
  const shape = (list: readonly BaseMessage[]) => list.map((m) => [m.type, m.id, JSON.stringify(m.content)]);
  const system = new SystemMessage("S");
  for (const startOn of ["any", "human"] as const) {
    for (const first of [undefined, ...candidates.map((k) => (groups[k] as MessageGroup).messages[0] as BaseMessage)]) {
      const decisions: ViewDecisions = {
        ...EMPTY_DECISIONS,
        startOn: { value: startOn, producer: "test" },
        cuts: first ? [{ producer: "test", reason: "window", firstKept: first }] : [],
      };
      const memo = assembleView(messages, system, decisions, index);
      const scratch = assembleView(messages, system, decisions);
      expect(shape(memo.view)).toEqual(shape(scratch.view));
      expect(shape(memo.messages)).toEqual(shape(scratch.messages));
      expect(shape(memo.messages)).toEqual(shape(alternateRoles(memo.view)));
      expect(memo.report).toEqual(scratch.report);
      expect(memo.systemMessage.content).toEqual(scratch.systemMessage.content);
    }
  }
  // Through a request: windowTrim's and
  // tokenCap's cut over the view decided so far is selectView's over that view.
  const request = {
    messages: messages as BaseMessage[],
    systemMessage: system,
    state: { messages },
    runtime: { configurable: { thread_id: "thread-index-property" } },
  };
  for (const first of [undefined, ...candidates.slice(-3).map((k) => (groups[k] as MessageGroup).messages[0] as BaseMessage)]) {
    const decided = withViewDecisions(request, first ? [{ kind: "cut", producer: "test", reason: "window", firstKept: first }] : []);
    for (const eviction of ["sliding", "chunked"] as const) {
      for (const startOn of ["any", "human"] as const) {
        for (const limit of [5, 40, 150]) {
          const options = { cost: textCost, limit, fixedCost: 2, eviction, startOn };
          const scratch = selectView(viewMessages(decided), options);
          const memo = selectViewOf(decided, { ...options, costKey: "text" });
          expect(memo.messages.map((m) => m.id)).toEqual(scratch.messages.map((m) => m.id));
          expect(memo.kept.map((g) => [g.kind, g.messages.map((m) => m.id)])).toEqual(
            scratch.kept.map((g) => [g.kind, g.messages.map((m) => m.id)]),
          );
          expect([memo.cost, memo.overLimit, memo.droppedGroups, memo.orphanGroups]).toEqual([
            scratch.cost,
            scratch.overLimit,
            scratch.droppedGroups,
            scratch.orphanGroups,
          ]);
        }
      }
    }
  }
  // Chunked cuts: the binary search gives the view selectView computes over the whole thread.
  if (candidates.length > 0 && candidates.length === groups.filter((g) => g.kind !== "system" && g.kind !== "orphan").length) {
    const systemCost = groups.filter((g) => g.kind === "system").reduce((sum, g) => sum + textCost(g), 0);
    for (const limit of [20, 60, 200]) {
      const lowWatermark = Math.floor(limit / 2);
      const scratch = selectView(messages, { cost: textCost, limit, eviction: "chunked", lowWatermark });
      const first = Math.min(
        index.chunkedStart(index.costPrefix("text", textCost), limit - systemCost, lowWatermark, limit),
        index.protectedFrom,
      );
      expect(candidates.length - first).toBe(scratch.kept.length);
    }
  }
}

function apply(op: Op, thread: BaseMessage[], history: BaseMessage[][]): BaseMessage[] {
  switch (op.op) {
    case "append":
    case "otherProcess":
      return [...thread, ...op.units.flatMap(materialize)];
    case "delete":
      return thread.length === 0 ? thread : thread.filter((_, i) => i !== op.at % thread.length);
    case "persistTrim": {
      const groups = groupMessages(thread);
      const cut = groups[Math.min(op.groups, groups.length) - 1]?.end ?? 0;
      return thread.slice(Math.max(cut, ...groups.filter((g) => g.start < cut).map((g) => g.end)));
    }
    case "removeAll":
      return [...thread.slice(-op.keep), ...materialize({ kind: "user", text: "rewritten" })].reverse();
    case "timeTravel":
      return history[Math.max(0, history.length - op.back)] ?? [];
  }
}

describe("indexThread", () => {
  it("matches the from-scratch computation over random threads, deletions, persistTrim, RemoveMessage, time travel and two processes", () => {
    fc.assert(
      fc.property(fc.array(unitArb, { maxLength: 12 }), fc.array(opArb, { minLength: 1, maxLength: 25 }), (seed, ops) => {
        let thread = seed.flatMap(materialize);
        const history: BaseMessage[][] = [thread];
        const first = revive(thread);
        expectSameAsScratch(indexThread(first), first);
        for (const op of ops) {
          thread = apply(op, thread, history);
          history.push(thread);
          const messages = revive(thread);
          expectSameAsScratch(indexThread(messages), messages);
        }
      }),
      {
        numRuns: Number(process.env.FC_RUNS ?? 150),
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
      },
    );
    // About 12 s of CPU for 150 runs: the 60 s default was reached at load 20 on 2 cores. The limit
    // only guards against a hang; it measures nothing.
  }, 240_000);

  it("is one index per array: the same array gives the same index, an edited copy its own", () => {
    const thread = [
      ...materialize({ kind: "user", text: "a" }),
      ...materialize({ kind: "tools", calls: 2, missing: false, stray: false, dup: false, native: false, text: "b" }),
    ];
    const index = indexThread(thread);
    expect(indexThread(thread)).toBe(index);
    // An edit by id replaces the message in a new array (LangGraph's reducer): the index of the
    // new array is computed from it alone, whatever the old array's index held.
    const edited = thread.map((m, i) => (i === 1 ? new AIMessage({ id: m.id, content: "no calls now" }) : m));
    const other = indexThread(edited);
    expect(other).not.toBe(index);
    expect(other.groups.map((g) => g.kind)).toEqual(groupMessages(edited).map((g) => g.kind));
    expect(index.isFor(edited)).toBe(false);
  });

  it("costs only the view with sliding eviction (O(view) on any thread), every group with chunked", () => {
    const thread = revive(
      Array.from({ length: 200 }, (_, k) => materialize({ kind: k % 2 === 0 ? "user" : "assistant", text: `message ${k}` })).flat(),
    );
    let costed = 0;
    const cost = (g: MessageGroup) => {
      costed += 1;
      return g.messages.length;
    };
    const sliding = selectIndexedView(indexThread(thread), { cost, costKey: "n", limit: 10 });
    expect(sliding.kept).toHaveLength(10);
    expect(costed).toBe(11); // the 10 groups of the view and the first one left out
    costed = 0;
    selectIndexedView(indexThread(thread), { cost, costKey: "n", limit: 10 });
    expect(costed).toBe(0); // the same array: the costs are in its index
    selectIndexedView(indexThread(thread), { cost, costKey: "n", limit: 10, eviction: "chunked", lowWatermark: 5 });
    expect(costed).toBe(200 - 11);
  });

  it("with upper bounds that fit, keeps every candidate and computes no cost unless it is read (issue 21)", () => {
    const thread = revive(
      Array.from({ length: 40 }, (_, k) => materialize({ kind: k % 2 === 0 ? "user" : "assistant", text: `message ${k}` })).flat(),
    );
    let costed = 0;
    let fixedRead = 0;
    const cost = (g: MessageGroup) => {
      costed += 1;
      return g.messages.length;
    };
    const options = {
      cost,
      costKey: "n",
      limit: 70,
      get fixedCost() {
        fixedRead += 1;
        return 3;
      },
      bounds: { fixed: 5, group: (g: MessageGroup) => g.messages.length + 0.5 },
    };
    const fits = selectIndexedView(indexThread(thread), options);
    expect([fits.firstKept?.id, fits.overLimit, fits.droppedGroups, costed, fixedRead]).toEqual([thread[0]?.id, false, 0, 0, 0]);
    expect(fits.cost).toBe(43);
    expect(costed).toBe(40);
    // Bounds over the limit: the exact walk, as without bounds.
    costed = 0;
    const cut = selectIndexedView(indexThread(revive(thread)), { ...options, limit: 30 });
    expect([cut.droppedGroups, cut.cost, cut.overLimit]).toEqual([13, 30, false]);
    expect(costed).toBe(28);
  });
});

describe("indexThread: a tool_call group with a duplicate result right after its call", () => {
  // [AI(a, b, c), result a, result a again, user(tool_result b), user(tool_result c)]: the duplicate
  // is an orphan of its own inside the group's span, so the group's members after it are sent one
  // position later than their rank in the group. Both Anthropic-native result messages are merge
  // points (a user message after a result, after a user message): recorded by rank, the second
  // one named the first one's position, so the assembled request merged the first result message
  // into itself (result b twice) and sent result c apart.
  const native = (id: string, callId: string) =>
    new HumanMessage({ id, content: [{ type: "tool_result", tool_use_id: callId, content: `result ${callId}` }] as never });
  const thread = (dup: boolean): BaseMessage[] => [
    new HumanMessage({ id: "u1", content: "look up a, b and c" }),
    new AIMessage({
      id: "ai1",
      content: "",
      tool_calls: ["a", "b", "c"].map((id) => ({ id: `toolu_${id}`, name: "t", args: {}, type: "tool_call" as const })),
    }),
    new ToolMessage({ id: "ra", tool_call_id: "toolu_a", content: "result a" }),
    ...(dup ? [new ToolMessage({ id: "ra2", tool_call_id: "toolu_a", content: "result a again" })] : []),
    native("rb", "toolu_b"),
    native("rc", "toolu_c"),
    new AIMessage({ id: "ai2", content: "done" }),
    new HumanMessage({ id: "u2", content: "thanks" }),
  ];
  const shape = (list: readonly BaseMessage[]) => list.map((m) => [m.type, m.id, JSON.stringify(m.content)]);
  it.each([false, true])("the indexed assembly is the plain role alternation of the view (duplicate %s)", (dup) => {
    const messages = thread(dup);
    const index = indexThread(messages);
    expectSameAsScratch(index, messages);
    const assembled = assembleView(messages, new SystemMessage("S"), EMPTY_DECISIONS, index);
    // One user turn of both native results, each once, right after the call's ToolMessage.
    const results = assembled.messages.filter(
      (m) =>
        m.type === "human" &&
        Array.isArray(m.content) &&
        m.content.length > 0 &&
        (m.content[0] as { type?: string }).type === "tool_result",
    );
    expect(results.map((m) => (m.content as unknown as Array<{ tool_use_id: string }>).map((b) => b.tool_use_id))).toEqual([
      ["toolu_b", "toolu_c"],
    ]);
    expect(shape(assembled.messages)).toEqual(shape(alternateRoles(assembled.view)));
  });
});

describe("indexThread of an array changed in place", () => {
  it("a message replaced at the same length: the index equals a fresh one", () => {
    const messages: BaseMessage[] = [
      new HumanMessage({ id: "u1", content: "q1" }),
      new AIMessage({ id: "a1", content: "a1" }),
      new HumanMessage({ id: "u2", content: "q2" }),
      new AIMessage({ id: "a2", content: "a2" }),
    ];
    const before = indexThread(messages);
    expect(before.indexOf("a1")).toBe(1);
    // Replaced by id in place, as a caller mutating `state.messages` does: now a call with its result.
    messages[1] = new AIMessage({ id: "b1", content: "", tool_calls: [{ id: "c1", name: "f", args: {}, type: "tool_call" }] });
    messages[2] = new ToolMessage({ id: "t1", content: "r", tool_call_id: "c1" });
    const after = indexThread(messages);
    const fresh = indexThread([...messages]);
    expect(after.indexOf("a1")).toBe(-1);
    expect(after.indexOf("b1")).toBe(1);
    expect(after.groups).toEqual(fresh.groups);
    expect(after.candidates).toEqual(fresh.candidates);
    expect(after.protectedFrom).toBe(fresh.protectedFrom);
    expect(before.isFor(messages)).toBe(false);
  });
});

describe("indexThread of messages changed in place (same array, same objects)", () => {
  /** A cost that reads everything a message sends: its content, blocks and tool-call arguments. */
  const sentCost = (group: MessageGroup) => group.messages.reduce((sum, m) => sum + messageIdentity(m).length, 0);

  /** The index of `messages` now against the index a process that never saw them builds. */
  function expectFresh(messages: readonly BaseMessage[]): void {
    const index = indexThread(messages);
    const fresh = indexThread([...messages]);
    expect(index.groups).toEqual(fresh.groups);
    expect(index.candidates).toEqual(fresh.candidates);
    expect(index.mergePoints).toEqual(fresh.mergePoints);
    expect(index.excluded).toEqual(fresh.excluded);
    expect([...index.substitutes.keys()]).toEqual([...fresh.substitutes.keys()]);
    expect(index.costPrefix("sent", sentCost)).toEqual(fresh.costPrefix("sent", sentCost));
    for (const limit of [60, 400]) {
      const options = { cost: sentCost, costKey: "sent", limit };
      const view = selectIndexedView(index, options);
      const scratch = selectIndexedView(fresh, options);
      expect(view.cost).toBe(scratch.cost);
      expect(view.messages.map(messageIdentity)).toEqual(scratch.messages.map(messageIdentity));
    }
  }

  const texts = {
    en: {
      q: "Where should I stay in Busan?",
      a: "Haeundae is close to the beach.",
      later: "Actually, I would rather stay near Seomyeon station for the food.",
    },
    ko: { q: "부산에서 어디에 묵으면 좋을까요?", a: "해운대가 바다와 가까워요.", later: "사실은 먹거리 때문에 서면역 근처에 묵고 싶어요." },
  };

  for (const [lang, t] of Object.entries(texts)) {
    const thread = (): BaseMessage[] => [
      new HumanMessage({ id: "u1", content: t.q }),
      new AIMessage({ id: "a1", content: [{ type: "text", text: t.a }] }),
      new HumanMessage({ id: "u2", content: t.q }),
      new AIMessage({
        id: "a2",
        content: "",
        tool_calls: [
          { id: "c1", name: "search", args: { query: t.q }, type: "tool_call" },
          { id: "c2", name: "search", args: { query: t.a }, type: "tool_call" },
        ],
      }),
      new ToolMessage({ id: "t1", content: t.a, tool_call_id: "c1" }),
      new AIMessage({ id: "a3", content: t.a }),
      new HumanMessage({ id: "u3", content: t.q }),
    ];

    it(`a message's content reassigned: counted and merged as it reads now (${lang})`, () => {
      const messages = thread();
      expectFresh(messages);
      (messages[0] as BaseMessage).content = t.later;
      expectFresh(messages);
      // An answer emptied in place is an empty AI message now: role alternation may drop it.
      (messages[5] as BaseMessage).content = "";
      expectFresh(messages);
    });

    it(`a text block's text edited in place: counted as it reads now (${lang})`, () => {
      const messages = thread();
      expectFresh(messages);
      ((messages[1] as BaseMessage).content as Array<{ text: string }>)[0]!.text = t.later;
      expectFresh(messages);
    });

    it(`a tool call's arguments edited in place: counted and sent as they read now (${lang})`, () => {
      const messages = thread();
      expectFresh(messages);
      const calls = (messages[3] as AIMessage).tool_calls ?? [];
      (calls[0] as { args: Record<string, unknown> }).args.query = t.later;
      expectFresh(messages);
      // The unanswered call dropped in place: the AI message is sent whole now, no copy.
      calls.pop();
      expectFresh(messages);
    });
  }
});

describe("newestIndexOf", () => {
  it("answers the newest position of an id held once, several times or not at all, as the thread's index does (property)", () => {
    const ids = ["u1", "a1", "사용자-1", "답-1", ""];
    const message = fc.record({
      kind: fc.constantFrom("user", "ai"),
      id: fc.option(fc.constantFrom(...ids), { nil: undefined }),
      text: fc.constantFrom("Where is the ferry to Jeju?", "제주 가는 배는 어디에서 타요?"),
    });
    fc.assert(
      fc.property(fc.array(message, { maxLength: 12 }), (specs) => {
        const messages = specs.map((m) =>
          m.kind === "user" ? new HumanMessage({ id: m.id, content: m.text }) : new AIMessage({ id: m.id, content: m.text }),
        );
        const index = indexThread([...messages]);
        for (const id of [...ids, "absent"]) {
          // The newest position holding the id, computed apart from both.
          const newest = messages.map((m) => m.id).lastIndexOf(id);
          expect(newestIndexOf(messages, id)).toBe(newest);
          expect(index.indexOf(id)).toBe(newest);
        }
      }),
      { numRuns: 300, seed: 539 },
    );
  });
});
