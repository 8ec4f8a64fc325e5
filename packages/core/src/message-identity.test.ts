import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { sameMessage } from "./message-identity.js";

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
