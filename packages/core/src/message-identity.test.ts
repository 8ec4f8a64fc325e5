import { createHash } from "node:crypto";
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { MESSAGE_DIGEST_CHARACTERS, messageDigest, messageIdentity, sameMessage } from "./message-identity.js";

describe("sameMessage (R37)", () => {
  it("tells an edit in place under the same id from the stored message, same length or not", () => {
    const stored = new HumanMessage({ id: "u1", content: "my seat is 12A" });
    expect(sameMessage(stored, new HumanMessage({ id: "u1", content: "my seat is 12A" }))).toBe(true);
    expect(sameMessage(stored, new HumanMessage({ id: "u1", content: "my seat is 14C" }))).toBe(false);
    expect(sameMessage(stored, new HumanMessage({ id: "u2", content: "my seat is 12A" }))).toBe(false);
    expect(sameMessage(stored, new AIMessage({ id: "u1", content: "my seat is 12A" }))).toBe(false);
  });

  it("sees tool calls and results: a call removed or its id changed, a result for another call", () => {
    const call = new AIMessage({ id: "a", content: "", tool_calls: [{ id: "t1", name: "seat", args: { row: 12 } }] });
    expect(sameMessage(call, new AIMessage({ id: "a", content: "", tool_calls: [{ id: "t2", name: "seat", args: { row: 12 } }] }))).toBe(
      false,
    );
    expect(sameMessage(call, new AIMessage({ id: "a", content: "", tool_calls: [{ id: "t1", name: "seat", args: { row: 14 } }] }))).toBe(
      false,
    );
    expect(sameMessage(call, new AIMessage({ id: "a", content: "" }))).toBe(false);
    const result = new ToolMessage({ id: "r", content: "12A", tool_call_id: "t1" });
    expect(sameMessage(result, new ToolMessage({ id: "r", content: "12A", tool_call_id: "t2" }))).toBe(false);
    expect(sameMessage(result, new ToolMessage({ id: "r", content: "12A", tool_call_id: "t1" }))).toBe(true);
  });
});

describe("messageDigest", () => {
  it("is the first 8 base64 characters of the SHA-1 of the message's identity, as stored digests were written (Korean, emoji, calls)", () => {
    const messages = [
      new HumanMessage({ id: "u1", content: "my seat is 12A" }),
      new HumanMessage({ id: "u2", content: "부산에 살아요 😀 \ud83d" }),
      new AIMessage({ id: "a", content: "", tool_calls: [{ id: "t1", name: "seat", args: { row: 12 } }] }),
      new ToolMessage({ id: "r", content: [{ type: "text", text: "12A" }], tool_call_id: "t1" }),
    ];
    for (const message of messages) {
      const expected = createHash("sha1").update(messageIdentity(message)).digest("base64").slice(0, MESSAGE_DIGEST_CHARACTERS);
      expect(messageDigest(message)).toBe(expected);
    }
    expect(messageDigest(messages[0] as HumanMessage)).toBe("kSKA/Gkq");
  });
});
