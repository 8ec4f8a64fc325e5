import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { alignedBatch, messagesToArchive } from "./message-archive.js";

describe("alignedBatch", () => {
  // Regression (found by hand, issue 27): with a stored system message first (kept hot by
  // messagesToArchive), the batch's group ends were read as thread positions, one short: the
  // batch ended after u1, before an assistant message, so the hot part started on a1.
  it("a stored system message before the leaving messages: the batch still ends right before a user message", () => {
    const thread = [
      new SystemMessage({ id: "sys", content: "be brief" }),
      new HumanMessage({ id: "u0", content: "u0" }),
      new AIMessage({ id: "a0", content: "a0" }),
      new HumanMessage({ id: "u1", content: "u1" }),
      new AIMessage({ id: "a1", content: "a1" }),
      new HumanMessage({ id: "u2", content: "u2" }),
      new AIMessage({ id: "a2", content: "a2" }),
    ];
    const leaving = messagesToArchive(thread, undefined, 2);
    expect(leaving.map((m) => m.id)).toEqual(["u0", "a0", "u1", "a1"]);
    expect(alignedBatch(thread, leaving, 1).map((m) => m.id)).toEqual(["u0", "a0", "u1", "a1"]);
    expect(alignedBatch(thread, leaving.slice(0, 3), 1).map((m) => m.id)).toEqual(["u0", "a0"]);
    expect(alignedBatch(thread, leaving, 4).map((m) => m.id)).toEqual(["u0", "a0", "u1", "a1"]);
    expect(alignedBatch(thread, leaving, 3).map((m) => m.id)).toEqual([]);
  });
});
