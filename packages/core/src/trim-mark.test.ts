import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { mergeSummarySlot } from "./summary-slot.js";
import { nextTrimMark, TRIM_MARK_MAX_IDS, trimmedThrough } from "./trim-mark.js";

const human = (id: string, content = "hi") => new HumanMessage({ id, content });

describe("trim mark (R37)", () => {
  it("names the user messages taken, not answers, tool results or messages without an id; undefined when none", () => {
    const taken = [
      human("u1", "I live in Seoul."),
      new AIMessage({ id: "a1", content: "", tool_calls: [{ id: "c1", name: "t", args: {} }] }),
      new ToolMessage({ id: "t1", tool_call_id: "c1", content: "ok" }),
      new HumanMessage("no id"),
      human("u2", "저는 부산에 살아요."),
    ];
    expect(nextTrimMark(undefined, taken)).toEqual({ taken: ["u1", "u2"], before: null });
    expect(nextTrimMark({ taken: ["u1"], before: null }, [new AIMessage({ id: "a9", content: "x" })])).toBeUndefined();
    // Taken again (persistTrim deleting archived messages): listed once.
    expect(nextTrimMark({ taken: ["u1", "u2"], before: null }, [human("u2"), human("u3")])).toEqual({
      taken: ["u1", "u2", "u3"],
      before: null,
    });
  });

  it(`keeps the newest ${TRIM_MARK_MAX_IDS} ids; the newest one dropped becomes before`, () => {
    const many = Array.from({ length: TRIM_MARK_MAX_IDS + 5 }, (_, i) => human(`u${i}`));
    const mark = nextTrimMark(undefined, many);
    expect(mark?.taken).toHaveLength(TRIM_MARK_MAX_IDS);
    expect(mark?.taken[0]).toBe("u5");
    expect(mark?.before).toBe("u4");
    const next = nextTrimMark(mark, [human("v0"), human("v1")]);
    expect(next?.taken.at(-1)).toBe("v1");
    expect(next?.before).toBe("u6");
  });

  it("trimmedThrough: up to the newest id the mark names (taken or before), 0 when it names none", () => {
    const ids = ["u1", "u2", "u3", "u4"];
    expect(trimmedThrough(ids, undefined)).toBe(0);
    expect(trimmedThrough(ids, { taken: ["u2"], before: null })).toBe(2);
    // u1 not named but older than a named one: it left with it or before it.
    expect(trimmedThrough(ids, { taken: ["x", "u3"], before: null })).toBe(3);
    expect(trimmedThrough(ids, { taken: ["x"], before: "u1" })).toBe(1);
    expect(trimmedThrough(ids, { taken: ["x", "y"], before: "z" })).toBe(0);
  });

  it("the summary slot's reducer replaces the mark and keeps the other parts", () => {
    const slot = mergeSummarySlot({ workMemory: { entries: [] } }, { trimmed: { taken: ["u1"], before: null } });
    expect(mergeSummarySlot(slot, { trimmed: { taken: ["u2"], before: "u1" } })).toEqual({
      workMemory: { entries: [] },
      trimmed: { taken: ["u2"], before: "u1" },
    });
    expect(mergeSummarySlot(slot, {})).toEqual(slot);
  });
});
