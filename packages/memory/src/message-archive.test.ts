import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { groupMessages, type StartOn } from "@threadwise/core";
import { windowTrim } from "@threadwise/window-trim";
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

  // Regression (test/stack.archive.slow.test.ts seed 302 case 10): a parallel call's first call id
  // edited in place (humanInTheLoop's edit, `updateState`) leaves its result a stray between the call
  // and the other result. Core groups the call with the result it answers and the stray as an orphan
  // group after it, so the call's group left and the stray stayed hot: the thread read back
  // (archive, then hot) had the two results swapped against a run without the archive.
  it("a stray result inside a call's span: what leaves is still a prefix of the thread, whole groups", () => {
    const call = (id: string) => ({ id, name: "lookup", args: { q: "서울" }, type: "tool_call" as const });
    const thread = [
      new HumanMessage({ id: "u0", content: "저는 서울에 살아요. Where do I live?" }),
      new AIMessage({ id: "a0", content: "", tool_calls: [call("call_edit0"), call("c2")] }),
      new ToolMessage({ id: "t1", content: "lookup 서울: ok", tool_call_id: "c1" }),
      new ToolMessage({ id: "t2", content: "lookup short: ok", tool_call_id: "c2" }),
      new AIMessage({ id: "a0-final", content: "You live in Seoul." }),
      new HumanMessage({ id: "u1", content: "u1" }),
      new AIMessage({ id: "a1", content: "a1" }),
      new HumanMessage({ id: "u2", content: "u2" }),
      new AIMessage({ id: "a2", content: "a2" }),
    ];
    const prefixes = (keep: number) => {
      const leaving = messagesToArchive(thread, undefined, keep).map((m) => m.id);
      return { leaving, prefix: thread.slice(0, leaving.length).map((m) => m.id) };
    };
    // Was ["u0", "a0", "t2"] at 6 groups kept: t1, between a0 and t2, stayed hot.
    for (const keep of [1, 2, 3, 4, 5, 6, 7]) {
      const { leaving, prefix } = prefixes(keep);
      expect(leaving, `keepGroups ${keep}`).toEqual(prefix);
      // Never the call without its result, nor the result without its call.
      expect(leaving.includes("a0"), `keepGroups ${keep}`).toBe(leaving.includes("t2"));
    }
    expect(prefixes(4).leaving).toEqual(["u0", "a0", "t1", "t2", "a0-final"]);
  });
});

describe("what may leave is bounded by the hot part", () => {
  // messageArchive skips the work when `messages.length - keepGroups < batchMessages`: this is
  // the bound that makes the skip exact (each kept group holds one message or more).
  it("messagesToArchive and alignedBatch never return more than messages.length - keepGroups, and a prefix of the thread", () => {
    const kinds = fc.constantFrom("human", "ai", "tool-call", "stray-result", "system");
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
            else if (kind === "stray-result") {
              // A parallel call whose first call id was edited in place: its result is a stray between the call and the other result.
              const calls = [`e${i}`, `d${i}`].map((id) => ({ id, name: "f", args: {}, type: "tool_call" as const }));
              thread.push(new AIMessage({ id: `m${i}`, content: "", tool_calls: calls }));
              thread.push(new ToolMessage({ id: `s${i}`, content: "r", tool_call_id: `c${i}` }));
              thread.push(new ToolMessage({ id: `t${i}`, content: "r", tool_call_id: `d${i}` }));
            } else {
              thread.push(
                new AIMessage({ id: `m${i}`, content: "", tool_calls: [{ id: `c${i}`, name: "f", args: {}, type: "tool_call" }] }),
              );
              thread.push(new ToolMessage({ id: `t${i}`, content: "r", tool_call_id: `c${i}` }));
            }
          }
          const last = thread.at(-1)?.id;
          const leaving = messagesToArchive(thread, summarized && last ? { coveredThroughId: last } : undefined, keep);
          expect(leaving.length).toBeLessThanOrEqual(Math.max(0, thread.length - keep));
          const batch = alignedBatch(thread, leaving, align);
          expect(batch.length).toBeLessThanOrEqual(leaving.length);
          // The archive holds a prefix of the thread (readers put it back as archive, then hot).
          expect(leaving).toEqual(thread.slice(0, leaving.length));
          expect(batch).toEqual(thread.slice(0, batch.length));
          // Whole groups: no group of the thread spans across where either ends.
          for (const end of [leaving.length, batch.length])
            expect(groupMessages(thread).filter((group) => group.start < end && group.end > end)).toEqual([]);
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
    // Under "human" the batch may end before a1 (the hot part's window then counts from u2, and
    // u0..a1 cost 4, a multiple of 1); under "any" only right before a user message.
    expect(alignedBatch(thread, leaving.slice(0, 3), 1).map((m) => m.id)).toEqual(["u0", "a0", "u1"]);
    expect(alignedBatch(thread, leaving.slice(0, 3), 1, "any").map((m) => m.id)).toEqual(["u0", "a0"]);
    expect(alignedBatch(thread, leaving, 4).map((m) => m.id)).toEqual(["u0", "a0", "u1", "a1"]);
    expect(alignedBatch(thread, leaving, 3).map((m) => m.id)).toEqual([]);
  });

  // Regression (found by test/stack.archive.test.ts with empty user messages drawn, after core's
  // view began leaving out an empty user message that is not the newest): a batch ended right
  // before such a message, so the hot part started on a message the view leaves out and the
  // assistant message after it was counted from another start than over the whole thread.
  it("never ends right before an empty user message the view leaves out; the newest user message counts even when empty", () => {
    const thread = [
      new HumanMessage({ id: "u0", content: "u0" }),
      new AIMessage({ id: "a0", content: "a0" }),
      new HumanMessage({ id: "empty", content: "" }),
      new AIMessage({ id: "a1", content: "a1" }),
      new HumanMessage({ id: "u2", content: "u2" }),
      new AIMessage({ id: "a2", content: "a2" }),
      new HumanMessage({ id: "last", content: [] }),
    ];
    expect(alignedBatch(thread, thread.slice(0, 4), 1).map((m) => m.id)).toEqual(["u0", "a0", "empty", "a1"]);
    // Never right before "empty": after a0 no end; after "empty" (the hot part then starts on a1,
    // counted from u2) under "human" only.
    expect(alignedBatch(thread, thread.slice(0, 3), 1).map((m) => m.id)).toEqual(["u0", "a0", "empty"]);
    expect(alignedBatch(thread, thread.slice(0, 3), 1, "any").map((m) => m.id)).toEqual([]);
    expect(alignedBatch(thread, thread.slice(0, 2), 1).map((m) => m.id)).toEqual([]);
    expect(alignedBatch(thread, thread.slice(0, 6), 1).map((m) => m.id)).toEqual(["u0", "a0", "empty", "a1", "u2", "a2"]);
  });
});

describe("alignedBatch and the summary's boundary", () => {
  // Issue 27: the summary covers through the answer right before the window's first user message
  // (its boundary, kept hot so summarize finds its coverage). A batch had to end right before a
  // user message at a multiple of the window's step, so the step of messages before the boundary
  // stayed hot with it (a LoCoMo replay held 33.2 messages per checkpoint read against LangChain's
  // 30.3). Now the batch ends right before the boundary: the hot part's window counts from the user
  // message after it, at the same multiple of the step over the whole thread.
  it("leaves everything before the boundary, which stays hot alone", () => {
    const thread = Array.from({ length: 30 }, (_, t) => [
      new HumanMessage({ id: `u${t}`, content: `u${t}` }),
      new AIMessage({ id: `a${t}`, content: `a${t}` }),
    ]).flat();
    // Window 20, step 10: the window starts at u20 (cost 40 before it); the summary covers through a19.
    const leaving = messagesToArchive(thread, { coveredThroughId: "a19" }, 20);
    expect(leaving.at(-1)?.id).toBe("u19");
    const batch = alignedBatch(thread, leaving, 10);
    expect(batch.map((m) => m.id)).toEqual(thread.slice(0, 39).map((m) => m.id));
    expect(thread[batch.length]?.id).toBe("a19");
    // Under "any" the window counts from the hot part's first message: the batch ends before u15.
    expect(alignedBatch(thread, leaving, 10, "any").map((m) => m.id)).toEqual(thread.slice(0, 30).map((m) => m.id));
  });
});

describe("alignedBatch and a chunked window", () => {
  const user = (id: string) => new HumanMessage({ id, content: id });
  const answer = (id: string) => new AIMessage({ id, content: id });
  const stray = (id: string) => new ToolMessage({ id, content: "stray result", tool_call_id: "call_9" });
  /** The first message windowTrim's view of `messages` starts with (its hook alone, chunked). */
  async function windowStart(messages: BaseMessage[], startOn: StartOn): Promise<string | undefined> {
    const window = windowTrim({ maxMessages: 7, eviction: "chunked", lowWatermark: 4, startOn, logger: false });
    let first: string | undefined;
    const request = { messages, systemMessage: new SystemMessage("sys"), state: { messages }, tools: [], model: {} };
    // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
    await (window.wrapModelCall as any)(request, async (r: { messages: BaseMessage[] }) => {
      first = r.messages[0]?.id;
      return new AIMessage("ok");
    });
    return first;
  }
  const step = 3; // maxMessages 7 - lowWatermark 4

  // Regression (issue 27; the slow archive fuzz, seed 20261203 cases 0 and 7): batches were aligned
  // on raw message counts, but windowTrim's chunked eviction counts the messages of non-orphan
  // groups from the first group a view may start on. A stray tool result in a batch shifted the cut
  // by one message: the window over the hot part started a group off the one over the whole thread,
  // so summarize saw another window (a summary one call early or late) than a run without the archive.
  /** A thread of `turns` turns drawn by `seed`: leading assistant messages, stray results, tool calls with results, plain answers. */
  function threadOf(seed: number, turns: number): BaseMessage[] {
    let state = seed;
    const next = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    const out: BaseMessage[] = [];
    for (let k = next(3); k > 0; k -= 1) out.push(answer(`pre${k}`));
    for (let t = 0; t < turns; t += 1) {
      out.push(user(`u${t}`));
      if (next(3) === 0) out.push(stray(`stray${t}`));
      if (next(2) === 0) {
        out.push(
          new AIMessage({ id: `c${t}`, content: "", tool_calls: [{ id: `call${t}`, name: "lookup", args: {}, type: "tool_call" }] }),
        );
        out.push(new ToolMessage({ id: `t${t}`, content: "r", tool_call_id: `call${t}` }));
      }
      if (next(4) !== 0) out.push(answer(`a${t}`));
    }
    return out;
  }

  it.each(["human", "any"] as const)(
    "startOn %s: the window over the hot part starts where it starts over the whole thread",
    async (startOn) => {
      let archived = 0;
      let beforeOther = 0;
      // Seed 0: an assistant message before the first user message and a stray result after it.
      const plain = [
        answer("pre0"),
        user("u0"),
        stray("stray0"),
        ...Array.from({ length: 10 }, (_, t) => [answer(`a${t}`), user(`u${t + 1}`)]).flat(),
      ];
      for (let seed = 0; seed <= 12; seed += 1) {
        const thread = seed === 0 ? plain : threadOf(seed, 14);
        const whole = await windowStart(thread, startOn);
        for (let keepGroups = 7; keepGroups <= 16; keepGroups += 1) {
          const batch = alignedBatch(thread, messagesToArchive(thread, undefined, keepGroups), step, startOn);
          expect(batch.map((m) => m.id)).toEqual(thread.slice(0, batch.length).map((m) => m.id));
          const start = await windowStart(thread.slice(batch.length), startOn);
          expect({ seed, keepGroups, start }).toEqual({ seed, keepGroups, start: whole });
          if (batch.length > 0) archived += 1;
          const next = thread[batch.length];
          if (batch.length > 0 && next !== undefined && next.getType() !== "human") beforeOther += 1;
        }
      }
      // Batches did leave (the comparison is not vacuous), and under "human" some ended right
      // before an answer or a tool call, which only that rule allows.
      expect(archived).toBeGreaterThan(30);
      if (startOn === "human") expect(beforeOther).toBeGreaterThan(5);
      else expect(beforeOther).toBe(0);
    },
  );
});
