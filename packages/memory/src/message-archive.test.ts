import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { alignedBatch, messagesToArchive } from "./message-archive.js";

describe("messagesToArchive", () => {
  // Regression (found by test/stack.archive.test.ts, issue 27): a stored system message stays hot
  // while messages on both sides of it left, so the thread read back (archive, then hot) had it
  // after messages it preceded. Only a prefix before the first stored system message leaves now.
  it("nothing at or after the first stored system message leaves: the archive stays a prefix of the thread", () => {
    const thread = [
      new HumanMessage({ id: "u0", content: "u0" }),
      new AIMessage({ id: "a0", content: "a0" }),
      new HumanMessage({ id: "u1", content: "u1" }),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "lookup", args: {}, type: "tool_call" }] }),
      new SystemMessage({ id: "sys", content: "be brief" }),
      new ToolMessage({ id: "t1", content: "r", tool_call_id: "c1" }),
      new HumanMessage({ id: "u2", content: "u2" }),
      new AIMessage({ id: "a2", content: "a2" }),
      new HumanMessage({ id: "u3", content: "u3" }),
      new AIMessage({ id: "a3", content: "a3" }),
    ];
    // a1's call is answered after the system message: core groups it as a call without results.
    expect(messagesToArchive(thread, undefined, 2).map((m) => m.id)).toEqual(["u0", "a0", "u1", "a1"]);
    expect(messagesToArchive([thread[4] as SystemMessage, ...thread.slice(6)], undefined, 1)).toEqual([]);
    expect(messagesToArchive(thread.slice(6), undefined, 2).map((m) => m.id)).toEqual(["u2", "a2"]);
  });
});

describe("what may leave is bounded by the hot part", () => {
  // messageArchive skips the work when `messages.length - keepGroups < batchMessages`: this is
  // the bound that makes the skip exact (each kept group holds one message or more).
  it("messagesToArchive and alignedBatch never return more than messages.length - keepGroups", () => {
    const kinds = fc.constantFrom("human", "ai", "tool-call", "system");
    fc.assert(
      fc.property(
        fc.array(kinds, { maxLength: 60 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 4 }),
        fc.boolean(),
        (shape, keep, align, summarized) => {
          const thread: BaseMessage[] = [];
          for (const [i, kind] of shape.entries()) {
            if (kind === "human") thread.push(new HumanMessage({ id: `m${i}`, content: `u${i}` }));
            else if (kind === "ai") thread.push(new AIMessage({ id: `m${i}`, content: `a${i}` }));
            else if (kind === "system") thread.push(new SystemMessage({ id: `m${i}`, content: `s${i}` }));
            else {
              thread.push(
                new AIMessage({ id: `m${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "f", args: {}, type: "tool_call" }] }),
              );
              thread.push(new ToolMessage({ id: `t${i}`, content: "r", tool_call_id: `c${i}` }));
            }
          }
          const last = thread.at(-1)?.id;
          const leaving = messagesToArchive(thread, summarized && last ? { coveredThroughId: last } : undefined, keep);
          expect(leaving.length).toBeLessThanOrEqual(Math.max(0, thread.length - keep));
          expect(alignedBatch(thread, leaving, align).length).toBeLessThanOrEqual(leaving.length);
        },
      ),
      { seed: 27, numRuns: 300 },
    );
  });
});

describe("alignedBatch", () => {
  // Regression (found by hand, issue 27): with a stored system message first (kept hot), the
  // batch's group ends were read as thread positions, one short: the batch ended after u1, before
  // an assistant message, so the hot part started on a1.
  it("leaving messages after a stored system message: the batch still ends right before a user message", () => {
    const thread = [
      new SystemMessage({ id: "sys", content: "be brief" }),
      new HumanMessage({ id: "u0", content: "u0" }),
      new AIMessage({ id: "a0", content: "a0" }),
      new HumanMessage({ id: "u1", content: "u1" }),
      new AIMessage({ id: "a1", content: "a1" }),
      new HumanMessage({ id: "u2", content: "u2" }),
      new AIMessage({ id: "a2", content: "a2" }),
    ];
    const leaving = thread.slice(1, 5);
    expect(alignedBatch(thread, leaving, 1).map((m) => m.id)).toEqual(["u0", "a0", "u1", "a1"]);
    expect(alignedBatch(thread, leaving.slice(0, 3), 1).map((m) => m.id)).toEqual(["u0", "a0"]);
    expect(alignedBatch(thread, leaving, 4).map((m) => m.id)).toEqual(["u0", "a0", "u1", "a1"]);
    expect(alignedBatch(thread, leaving, 3).map((m) => m.id)).toEqual([]);
  });
});
