import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MessageIndex } from "./message-index.js";
import { fresh, snapshot, WORDS } from "./test-support/index-snapshot.js";

// R37: whatever happened to the stored thread, a synced index equals a fresh index of it (what a
// process that never saw the thread builds): same entries, neighbours, search results and scores.

let counter = 0;
const nextId = () => `n${counter++}`;
const textOf = (words: number[]) => words.map((w) => WORDS[w % WORDS.length]).join(" ");

type Op =
  | { kind: "user" | "ai"; words: number[] }
  | { kind: "call" }
  | { kind: "edit"; at: number; words: number[]; role: "user" | "ai" | "empty-ai" | "tool" }
  | { kind: "remove"; at: number }
  | { kind: "trim"; count: number }
  | { kind: "fork"; at: number }
  | { kind: "reimport" };

const words = fc.array(fc.nat(40), { minLength: 0, maxLength: 6 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom("user" as const, "ai" as const), words }) },
  { weight: 1, arbitrary: fc.constant({ kind: "call" as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("edit" as const),
      at: fc.nat(),
      words,
      role: fc.constantFrom("user" as const, "ai" as const, "empty-ai" as const, "tool" as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("remove" as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trim" as const), count: fc.integer({ min: 1, max: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fork" as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.constant({ kind: "reimport" as const }) },
);

function apply(thread: BaseMessage[], o: Op): BaseMessage[] {
  switch (o.kind) {
    case "user":
      return [...thread, new HumanMessage({ id: nextId(), content: textOf(o.words) })];
    case "ai":
      return [...thread, new AIMessage({ id: nextId(), content: textOf(o.words) })];
    case "call": {
      const callId = nextId();
      return [
        ...thread,
        new AIMessage({ id: nextId(), content: "", tool_calls: [{ id: callId, name: "lookup", args: {} }] }),
        new ToolMessage({ id: nextId(), content: "seat 12A", tool_call_id: callId }),
      ];
    }
    case "edit": {
      if (thread.length === 0) return thread;
      const at = o.at % thread.length;
      const id = thread[at]?.id as string;
      const content = textOf(o.words);
      const edited =
        o.role === "user"
          ? new HumanMessage({ id, content, ...(o.words[0] === 0 ? { name: "Mina" } : {}) })
          : o.role === "ai"
            ? new AIMessage({ id, content })
            : o.role === "empty-ai"
              ? new AIMessage({ id, content: "", tool_calls: [{ id: "x", name: "lookup", args: {} }] })
              : new ToolMessage({ id, content, tool_call_id: "x" });
      return thread.map((m, i) => (i === at ? edited : m));
    }
    case "remove":
      return thread.length === 0 ? thread : thread.filter((_, i) => i !== o.at % thread.length);
    case "trim":
      return thread.slice(o.count);
    case "fork":
      return thread.slice(0, thread.length === 0 ? 0 : o.at % thread.length);
    case "reimport":
      // Same ids, other content (a thread deleted and imported again).
      return thread.map((m, i) =>
        i % 2 === 0
          ? new HumanMessage({ id: m.id as string, content: `${textOf([i, i + 3])}` })
          : new AIMessage({ id: m.id as string, content: textOf([i + 1]) }),
      );
  }
}

describe("MessageIndex.sync equals a fresh index (R37)", () => {
  it("after a message is edited in place under its own id (same length, other words)", () => {
    const thread: BaseMessage[] = [
      new HumanMessage({ id: "u1", content: "my seat is 12A" }),
      new AIMessage({ id: "a1", content: "Noted: seat 12A" }),
      new HumanMessage({ id: "u2", content: "and the dog?" }),
    ];
    const index = fresh(thread, 100);
    // A correction sent under the message's own id: LangGraph replaces it at its position.
    const edited = thread.map((m) => (m.id === "a1" ? new AIMessage({ id: "a1", content: "Noted: seat 14C" }) : m));
    index.sync(edited);
    expect(snapshot(index)).toEqual(snapshot(fresh(edited, 100)));
    expect(index.search(tokenize("12A"), 5).map((r) => r.entry.id)).toEqual(["u1"]);
  });

  it("after a tool-call AI message is edited into text, and back", () => {
    const call = new AIMessage({ id: "c", content: "", tool_calls: [{ id: "t", name: "lookup", args: {} }] });
    const thread: BaseMessage[] = [
      new HumanMessage({ id: "u1", content: "find a flight" }),
      call,
      new ToolMessage({ id: "r", content: "BA1", tool_call_id: "t" }),
    ];
    const index = fresh(thread, 100);
    const edited = [thread[0] as BaseMessage, new AIMessage({ id: "c", content: "flight BA1 at noon" }), thread[2] as BaseMessage];
    index.sync(edited);
    expect(snapshot(index)).toEqual(snapshot(fresh(edited, 100)));
    index.sync(thread);
    expect(snapshot(index)).toEqual(snapshot(fresh(thread, 100)));
  });

  it("at the maxMessages bound, appends score as a fresh index does (no stale term statistics)", () => {
    const thread: BaseMessage[] = [];
    const index = new MessageIndex({ maxMessages: 4, countText: (text) => text.length });
    for (let i = 0; i < 30; i += 1) {
      thread.push(new HumanMessage({ id: `m${i}`, content: textOf([i, i * 7, i * 3]) }));
      if (i % 3 === 0) thread.push(new AIMessage({ id: `c${i}`, content: "", tool_calls: [{ id: `t${i}`, name: "x", args: {} }] }));
      index.sync(thread);
      expect(snapshot(index)).toEqual(snapshot(fresh(thread, 4)));
    }
  });

  // MiniSearch keeps the mean document length as a running mean: after discards it drifted from a
  // fresh index's by about 1e-15 relative (every score differed in its last bits).
  it("after many appends past the bound, every score is bit-identical to a fresh index's", () => {
    const vocabulary = Array.from({ length: 26 }, (_, i) => String.fromCharCode(97 + i).repeat(3));
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const thread: BaseMessage[] = [];
    const index = new MessageIndex({ maxMessages: 40 });
    for (let i = 0; i < 600; i += 1) {
      const length = 1 + Math.floor(random() * 30);
      const content = Array.from({ length }, () => vocabulary[Math.floor(random() * random() * 26)]).join(" ");
      thread.push(new HumanMessage({ id: `m${i}`, content }));
      index.sync(thread);
      if (i % 25 !== 24) continue;
      const reference = new MessageIndex({ maxMessages: 40 });
      reference.sync(thread);
      for (const query of ["aaa", "bbb ccc", "zzz yyy aaa"]) {
        expect(index.search(tokenize(query), 100).map((r) => [r.entry.id, r.score])).toEqual(
          reference.search(tokenize(query), 100).map((r) => [r.entry.id, r.score]),
        );
      }
    }
  });

  it.each([3, 100])("over random edits, removals, trims, forks and re-imports (maxMessages %i)", (maxMessages) => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => {
        let thread: BaseMessage[] = [];
        const index = new MessageIndex({ maxMessages, countText: (text) => text.length });
        for (const o of ops) {
          thread = apply(thread, o);
          index.sync(thread);
          expect(snapshot(index)).toEqual(snapshot(fresh(thread, maxMessages)));
        }
      }),
      { seed: 21, numRuns: 150 },
    );
  });
});
