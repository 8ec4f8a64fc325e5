import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { findOrphans, groupMessages, protectedTailStart } from "./groups.js";
import { selectView } from "./view.js";

const human = (id: string) => new HumanMessage({ id, content: id });
const ai = (id: string) => new AIMessage({ id, content: id });
const call = (id: string, callIds: string[]) =>
  new AIMessage({ id, content: "", tool_calls: callIds.map((c) => ({ id: c, name: "f", args: {}, type: "tool_call" as const })) });
const result = (id: string, callId: string) => new ToolMessage({ id, content: id, tool_call_id: callId });
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => m.id);
const byCount = { cost: (g: { messages: unknown[] }) => g.messages.length };

/** A chat of `turns` exchanges, then a new question. */
function chat(turns: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let t = 1; t <= turns; t += 1) out.push(human(`h${t}`), ai(`a${t}`));
  out.push(human("now"));
  return out;
}

describe("selectView, sliding", () => {
  it("keeps the newest groups that fit and reports what it did", () => {
    const selection = selectView(chat(3), { ...byCount, limit: 4 });
    expect(ids(selection.messages)).toEqual(["a2", "h3", "a3", "now"]);
    expect(selection.droppedGroups).toBe(3);
    expect(selection.cost).toBe(4);
    expect(selection.overLimit).toBe(false);
    expect(selection.kept.map((g) => g.kind)).toEqual(["assistant", "user", "assistant", "user"]);
  });

  it("cuts before a tool group that does not fit whole, never inside it", () => {
    const list = [human("h1"), call("c", ["x", "y", "z"]), result("tx", "x"), result("ty", "y"), result("tz", "z"), ai("a1"), human("h2")];
    expect(ids(selectView(list, { ...byCount, limit: 5 }).messages)).toEqual(["a1", "h2"]);
    expect(ids(selectView(list, { ...byCount, limit: 6 }).messages)).toEqual(["c", "tx", "ty", "tz", "a1", "h2"]);
  });

  it("fixedCost and stored system messages take room; system messages always stay", () => {
    const list = [new SystemMessage({ id: "s", content: "s" }), ...chat(3)];
    expect(ids(selectView(list, { ...byCount, limit: 4 }).messages)).toEqual(["s", "h3", "a3", "now"]);
    expect(ids(selectView(list, { ...byCount, limit: 4, fixedCost: 2 }).messages)).toEqual(["s", "now"]);
    expect(selectView(list, { ...byCount, limit: 4, fixedCost: 2 }).cost).toBe(4);
  });

  it("always keeps the newest user turn and the tool loop after it, flagging overLimit", () => {
    const list = [human("h1"), ai("a1"), human("h2"), call("c1", ["x"]), result("t1", "x"), call("c2", ["y"]), result("t2", "y")];
    const selection = selectView(list, { ...byCount, limit: 2 });
    expect(ids(selection.messages)).toEqual(["h2", "c1", "t1", "c2", "t2"]);
    expect(selection.overLimit).toBe(true);
    expect(selection.cost).toBe(5);
  });

  it("leaves out orphans and counts them", () => {
    const list = [result("stray", "none"), human("h1"), call("open", ["q"]), human("h2")];
    const selection = selectView(list, { ...byCount, limit: 10 });
    expect(ids(selection.messages)).toEqual(["h1", "h2"]);
    expect(selection.orphanGroups).toBe(2);
    expect(findOrphans(selection.messages)).toEqual([]);
  });

  it("startOn human moves the start forward to a user message, never before the protected tail", () => {
    expect(ids(selectView(chat(3), { ...byCount, limit: 4, startOn: "human" }).messages)).toEqual(["h3", "a3", "now"]);
    const toolTail = [ai("a0"), call("c", ["x"]), result("t", "x")];
    expect(ids(selectView(toolTail, { ...byCount, limit: 1, startOn: "human" }).messages)).toEqual(["c", "t"]);
  });

  it("an empty list gives an empty view", () => {
    expect(selectView([], { ...byCount, limit: 3 })).toMatchObject({ messages: [], droppedGroups: 0, cost: 0, overLimit: false });
  });
});

describe("selectView, chunked", () => {
  it("is a step function of the thread: the start moves once per (limit - lowWatermark)", () => {
    const starts: Array<string | undefined> = [];
    const sizes: number[] = [];
    for (let turns = 0; turns <= 14; turns += 1) {
      const selection = selectView(chat(turns), { ...byCount, limit: 10, lowWatermark: 4, eviction: "chunked" });
      starts.push(selection.messages[0]?.id);
      sizes.push(selection.messages.length);
    }
    expect(starts).toEqual(["now", "h1", "h1", "h1", "h1", "h4", "h4", "h4", "h7", "h7", "h7", "h10", "h10", "h10", "h13"]);
    // Between the low watermark (exclusive) and the limit (inclusive).
    expect(sizes).toEqual([1, 3, 5, 7, 9, 5, 7, 9, 5, 7, 9, 5, 7, 9, 5]);
    expect(Math.min(...sizes.slice(5))).toBeGreaterThan(4);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(10);
  });

  it("moves the start far less often than sliding over a long chat", () => {
    const moves = (eviction: "sliding" | "chunked") => {
      let previous: string | undefined;
      let count = 0;
      for (let turns = 1; turns <= 100; turns += 1) {
        const first = selectView(chat(turns), { ...byCount, limit: 20, eviction }).messages[0]?.id;
        if (previous !== undefined && first !== previous) count += 1;
        previous = first;
      }
      return count;
    };
    expect(moves("sliding")).toBe(91);
    expect(moves("chunked")).toBe(19);
  });

  it("defaults the low watermark to half the limit and respects the protected tail", () => {
    const selection = selectView(chat(10), { ...byCount, limit: 10, eviction: "chunked" });
    expect(selection.messages.length).toBeLessThanOrEqual(10);
    expect(selection.messages.length).toBeGreaterThan(5);
    const loop = [human("h1"), ai("a1"), human("h2"), call("c1", ["x"]), result("t1", "x"), call("c2", ["y"]), result("t2", "y")];
    expect(ids(selectView(loop, { ...byCount, limit: 3, eviction: "chunked" }).messages)).toEqual(["h2", "c1", "t1", "c2", "t2"]);
  });

  it("with a fixed cost, cuts back to the low watermark of the total", () => {
    const sizes: number[] = [];
    for (let turns = 5; turns <= 12; turns += 1) {
      sizes.push(selectView(chat(turns), { ...byCount, limit: 12, fixedCost: 2, lowWatermark: 6, eviction: "chunked" }).cost);
    }
    expect(sizes.every((s) => s > 6 && s <= 12)).toBe(true);
  });
});

/** The whole-thread sliding selection as first written: the reference the backward walk must match. */
function referenceSliding(messages: BaseMessage[], limit: number, fixedCost: number, startOn: "human" | "any") {
  const groups = groupMessages(messages);
  const systems = groups.filter((g) => g.kind === "system");
  const candidates = groups.filter((g) => g.kind !== "system" && g.kind !== "orphan");
  const protectedFrom = protectedTailStart(candidates);
  const costs = candidates.map((g) => g.messages.length * 2 + 1);
  const budget = limit - fixedCost - systems.reduce((sum, g) => sum + g.messages.length * 2 + 1, 0);
  let first = candidates.length;
  let total = 0;
  for (let g = candidates.length - 1; g >= 0; g -= 1) {
    const next = total + (costs[g] as number);
    if (g < protectedFrom && next > budget) break;
    total = next;
    first = g;
  }
  first = Math.min(first, protectedFrom);
  if (startOn === "human") while (first < protectedFrom && candidates[first]?.kind !== "user") first += 1;
  const keptSet = new Set([...systems, ...candidates.slice(first)]);
  return {
    ids: groups.filter((g) => keptSet.has(g)).flatMap((g) => g.messages.map((m) => m.id)),
    droppedGroups: first,
    orphanGroups: groups.length - systems.length - candidates.length,
    groups: groups.length,
  };
}

describe("selectView, sliding from the end", () => {
  const arbitraryThread = fc
    .array(fc.constantFrom("h", "a", "s", "c1", "c2", "c12", "c123", "t1", "t2", "t3"), { maxLength: 40 })
    .map((codes) =>
      codes.map((code, i) => {
        const id = `m${i}`;
        if (code === "h") return new HumanMessage({ id, content: id });
        if (code === "a") return new AIMessage({ id, content: id });
        if (code === "s") return new SystemMessage({ id, content: id });
        if (code.startsWith("c"))
          return call(
            id,
            [...code.slice(1)].map((d) => `k${d}`),
          );
        return result(id, `k${code.slice(1)}`);
      }),
    );

  it("chooses exactly what the whole-thread walk chooses, for any thread", () => {
    fc.assert(
      fc.property(
        arbitraryThread,
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 10 }),
        fc.constantFrom("human" as const, "any" as const),
        (thread, limit, fixedCost, startOn) => {
          const selection = selectView(thread, { cost: (g) => g.messages.length * 2 + 1, limit, fixedCost, startOn });
          const reference = referenceSliding(thread, limit, fixedCost, startOn);
          expect(ids(selection.messages)).toEqual(reference.ids);
          expect(selection.droppedGroups).toBe(reference.droppedGroups);
          expect(selection.orphanGroups).toBe(reference.orphanGroups);
          expect(selection.groups).toHaveLength(reference.groups);
          expect(selection.cost).toBe(fixedCost + costOfView(selection.messages, thread));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("visits only the groups it keeps plus one: cost lookups do not grow with the thread", () => {
    const looked: number[] = [];
    for (const turns of [100, 10_000]) {
      let calls = 0;
      const cost = (g: { messages: unknown[] }) => {
        calls += 1;
        return g.messages.length;
      };
      selectView(chat(turns), { cost, limit: 20 });
      looked.push(calls);
    }
    expect(looked).toEqual([21, 21]);
  });
});

/** Cost of a view under `messages.length * 2 + 1` per group, from the groups of the thread it came from. */
function costOfView(view: BaseMessage[], thread: BaseMessage[]): number {
  const inView = new Set(view);
  return groupMessages(thread)
    .filter((g) => g.kind !== "orphan" && g.messages.every((m) => inView.has(m)))
    .reduce((sum, g) => sum + g.messages.length * 2 + 1, 0);
}
