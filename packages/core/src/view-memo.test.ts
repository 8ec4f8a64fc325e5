import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alternateRoles, assembleView, EMPTY_DECISIONS, type ViewDecisions } from "./assemble-view.js";
import { groupMessages, type MessageGroup, protectedTailStart } from "./groups.js";
import { selectView } from "./view.js";
import { selectIndexedView, type ThreadIndex, ViewMemo } from "./view-memo.js";
import { selectViewOf, viewMessages, withViewDecisions } from "./view-request.js";

/** One unit appended to a thread. */
type Unit =
  | { kind: "user" | "assistant" | "system"; text: string }
  | { kind: "tools"; calls: number; missing: boolean; stray: boolean; text: string }
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
        out.push(new ToolMessage({ id: id(), tool_call_id: call.id, content: unit.text }));
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

/** Every memoized figure against the from-scratch computation. */
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
      }
    }
  }
  // Excluded positions: every message outside the candidate groups.
  const inCandidate = new Set(candidates.flatMap((k) => (groups[k] as MessageGroup).messages));
  expect(index.excluded).toEqual(messages.flatMap((m, i) => (inCandidate.has(m) ? [] : [i])));
  // The assembled view on the memo's index (merge points, excluded positions kept incrementally)
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
  // Through a request (the shared memo, keyed by the request's thread_id): windowTrim's and
  // tokenCap's cut over the view decided so far is selectView's over that view.
  const request = {
    messages: messages as BaseMessage[],
    systemMessage: system,
    state: { messages },
    runtime: { configurable: { thread_id: "view-memo-property" } },
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

describe("ViewMemo", () => {
  it("matches the from-scratch computation over random threads, deletions, persistTrim, RemoveMessage, time travel and two processes", () => {
    fc.assert(
      fc.property(fc.array(unitArb, { maxLength: 12 }), fc.array(opArb, { minLength: 1, maxLength: 25 }), (seed, ops) => {
        // Two processes, each with its own memo, take turns on one thread (an `otherProcess` op is
        // a model call made by the other one).
        const memos = [new ViewMemo(), new ViewMemo()];
        let current = 0;
        let thread = seed.flatMap(materialize);
        const history: BaseMessage[][] = [thread];
        expectSameAsScratch((memos[current] as ViewMemo).index("t", revive(thread)), thread);
        for (const op of ops) {
          thread = apply(op, thread, history);
          history.push(thread);
          if (op.op === "otherProcess") current = 1 - current;
          const messages = revive(thread);
          expectSameAsScratch((memos[current] as ViewMemo).index("t", messages), messages);
        }
      }),
      {
        numRuns: Number(process.env.FC_RUNS ?? 150),
        ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
        // Found with seed -365792271: strays after a complete tool call, then one more stray on the
        // next call (the memo regrouped from the last stray, not from the tool call holding it).
        examples: [
          [
            [],
            [
              {
                op: "append",
                units: [
                  { kind: "tools", calls: 1, missing: false, stray: false, text: "" },
                  { kind: "orphan-tool", text: "" },
                  { kind: "orphan-tool", text: "" },
                ],
              },
              {
                op: "append",
                units: [
                  { kind: "orphan-tool", text: "" },
                  { kind: "assistant", text: "" },
                ],
              },
              { op: "append", units: [{ kind: "assistant", text: "" }] },
            ],
          ],
          // Found with seed 3: a resume from another branch (a deletion made after it) of the same
          // length at the sampled positions; a shorter thread is now checked at every position.
          [
            [
              { kind: "orphan-tool", text: "" },
              { kind: "assistant", text: "" },
              { kind: "tools", calls: 3, missing: false, stray: false, text: "" },
            ],
            [
              { op: "delete", at: 1694228383 },
              { op: "append", units: [{ kind: "tools", calls: 1, missing: false, stray: false, text: "" }] },
              { op: "timeTravel", back: 3 },
              { op: "append", units: [{ kind: "assistant", text: "" }] },
              { op: "delete", at: 862010935 },
              { op: "timeTravel", back: 5 },
              { op: "otherProcess", units: [{ kind: "assistant", text: "" }] },
            ],
          ],
        ],
      },
    );
  });

  it("says how it reused the previous index, and indexes only the new tail when the thread grew", () => {
    const memo = new ViewMemo();
    const thread = [...materialize({ kind: "user", text: "a" }), ...materialize({ kind: "assistant", text: "b" })];
    expect(memo.index("t", thread).reuse).toBe("new");
    const grown = [...thread, ...materialize({ kind: "user", text: "c" })];
    const index = memo.index("t", revive(grown));
    expect([index.reuse, index.newFrom]).toEqual(["extended", 2]);
    let costed = 0;
    index.costPrefix("n", (g) => {
      costed += 1;
      return g.messages.length;
    });
    memo.index("t", revive([...grown, ...materialize({ kind: "assistant", text: "d" })])).costPrefix("n", (g) => {
      costed += 1;
      return g.messages.length;
    });
    expect(costed).toBe(4); // 3 groups on the first call, only the new one on the second
    expect(memo.index("t", revive(grown)).reuse).toBe("truncated");
    expect(memo.index("t", revive(grown.slice(1))).reuse).toBe("rebuilt");
  });

  it("keeps at most maxThreads threads, least recently used out first, and reports its size", () => {
    const memo = new ViewMemo({ maxThreads: 2 });
    const thread = materialize({ kind: "user", text: "hello" });
    memo.index("a", thread);
    memo.index("b", thread);
    memo.index("a", thread);
    memo.index("c", thread);
    expect(memo.size).toBe(2);
    expect(memo.index("b", thread).reuse).toBe("new");
    expect(memo.estimatedBytes).toBeGreaterThan(0);
    expect(memo.index(undefined, thread).reuse).toBe("new");
    expect(memo.size).toBe(2);
  });
});
