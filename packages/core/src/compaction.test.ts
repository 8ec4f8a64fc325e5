import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { assembleView, EMPTY_DECISIONS } from "./assemble-view.js";
import { compactionBoundary, isCompactionMessage } from "./compaction.js";

const compacted = (id: string, calls = false) =>
  new AIMessage({
    id,
    content: [
      { type: "compaction", content: "provider summary" },
      { type: "text", text: "answer" },
    ],
    ...(calls ? { tool_calls: [{ id: "call1", name: "f", args: {}, type: "tool_call" as const }] } : {}),
  });

function thread(): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let k = 1; k <= 10; k += 1) {
    out.push(new HumanMessage({ id: `u${k}`, content: `q${k}` }));
    out.push(k === 4 ? compacted("a4") : new AIMessage({ id: `a${k}`, content: `a${k}` }));
  }
  return out;
}

describe("compactionBoundary", () => {
  it("finds the newest compaction message and the end of its group (its tool results)", () => {
    expect(compactionBoundary(thread())).toMatchObject({ at: 7, end: 8, messageId: "a4" });
    const withCalls = [
      new HumanMessage({ id: "u1", content: "q" }),
      compacted("c1", true),
      new ToolMessage({ id: "t1", tool_call_id: "call1", content: "r" }),
      new AIMessage({ id: "a1", content: "done" }),
    ];
    expect(compactionBoundary(withCalls)).toMatchObject({ at: 1, end: 3 });
    expect(compactionBoundary([new HumanMessage("q"), new AIMessage("a")])).toBeUndefined();
    expect(isCompactionMessage(new HumanMessage({ content: [{ type: "compaction", content: "x" } as never] }))).toBe(false);
  });
});

describe("assembleView with a provider compaction", () => {
  const system = new SystemMessage("sys");
  it("a window past it: the compaction message goes ahead of the view with the user message of its turn", () => {
    const messages = thread();
    const cut = { producer: "t", reason: "window" as const, firstKept: messages[16] as BaseMessage, limit: 4 };
    const view = assembleView(messages, system, { ...EMPTY_DECISIONS, cuts: [cut] });
    expect(view.messages.map((m) => m.id)).toEqual(["u4", "a4", "u9", "a9", "u10", "a10"]);
    expect(view.report.compaction).toMatchObject({ at: 7, pinned: true });
    expect(view.report.droppedGroups).toBe(14);
  });

  it("no window: nothing before its turn is sent; messages before it are not unsummarized drops", () => {
    const messages = thread();
    const view = assembleView(messages, system, { ...EMPTY_DECISIONS, coverage: { producer: "s", firstUncovered: null } });
    expect(view.messages[0]?.id).toBe("u4");
    expect(view.messages).toHaveLength(14);
    expect(view.report.unsummarizedDropped).toBe(0);
    expect(view.report.compaction).toMatchObject({ pinned: false });
  });

  it("a cap past it with a summary covering nothing after it: only the messages after it count as unsummarized drops", () => {
    const messages = thread();
    const cap = { producer: "cap", reason: "cap" as const, firstKept: messages[16] as BaseMessage };
    const view = assembleView(messages, system, {
      ...EMPTY_DECISIONS,
      cuts: [cap],
      coverage: { producer: "s", firstUncovered: messages[8] as BaseMessage },
    });
    expect(view.messages.map((m) => m.id)).toEqual(["u4", "a4", "u9", "a9", "u10", "a10"]);
    expect(view.report.unsummarizedDropped).toBe(8);
  });
});

describe("compactionBoundary of an array changed in place", () => {
  it("answers what a fresh computation of the array's current messages answers", () => {
    const messages = thread();
    expect(compactionBoundary(messages)).toMatchObject({ at: 7, messageId: "a4" });
    // A caller replaces the compacted message by id in the same array (same length), then adds a newer one.
    messages[7] = new AIMessage({ id: "a4", content: "a4" });
    expect(compactionBoundary(messages)).toEqual(compactionBoundary([...messages]));
    expect(compactionBoundary(messages)).toBeUndefined();
    messages.push(new HumanMessage({ id: "u11", content: "q11" }), compacted("a11"));
    expect(compactionBoundary(messages)).toEqual(compactionBoundary([...messages]));
    expect(compactionBoundary(messages)).toMatchObject({ at: 21, messageId: "a11" });
  });
});
