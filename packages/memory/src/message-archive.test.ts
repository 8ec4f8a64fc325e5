import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { selectWindow } from "@threadwise/window-trim";
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

describe("alignedBatch and a chunked window", () => {
  // Regression (issue 27; the slow archive fuzz, seed 20261203 case 0): batches were aligned on
  // raw message counts, but windowTrim's chunked eviction counts the messages of non-orphan
  // groups from the thread's first message. A stray tool result in the batch shifted the cut by
  // one message: the window over the hot part started a group earlier than over the whole thread,
  // so summarize found less pending and made its summary a call later than a run without the archive.
  it("the window over the hot part starts where it starts over the whole thread", () => {
    const user = (id: string) => new HumanMessage({ id, content: id });
    const answer = (id: string) => new AIMessage({ id, content: id });
    const thread = [
      user("u0"),
      new ToolMessage({ id: "stray", content: "stray result", tool_call_id: "call_9" }),
      user("u1"),
      answer("a1"),
      user("u2"),
      new AIMessage({ id: "a2", content: "", tool_calls: [{ id: "c1", name: "lookup", args: {}, type: "tool_call" }] }),
      new ToolMessage({ id: "t1", content: "r", tool_call_id: "c1" }),
      user("u3"),
      answer("a3"),
      user("u4"),
      answer("a4"),
      user("u5"),
      answer("a5"),
      user("u6"),
      answer("a6"),
    ];
    const settings = { maxMessages: 3, eviction: "chunked" as const, lowWatermark: 1, startOn: undefined };
    const step = settings.maxMessages - settings.lowWatermark;
    const firstKept = (messages: readonly BaseMessage[]) => selectWindow(messages, settings).firstKept?.id;
    expect(firstKept(thread)).toBe("u6");
    for (const keepGroups of [2, 4, 6, 8, 10]) {
      const batch = alignedBatch(thread, messagesToArchive(thread, undefined, keepGroups), step);
      const hot = thread.slice(batch.length);
      expect(batch.map((m) => m.id)).toEqual(thread.slice(0, batch.length).map((m) => m.id));
      expect({ keepGroups, firstKept: firstKept(hot) }).toEqual({ keepGroups, firstKept: "u6" });
    }
    // With 4 groups kept the batch reaches a4 (window cost 10, a multiple of the step); counting
    // raw messages it ended after a1 (4 messages, window cost 3) and the hot window began at a5.
    expect(alignedBatch(thread, messagesToArchive(thread, undefined, 4), step).at(-1)?.id).toBe("a4");
  });
});
