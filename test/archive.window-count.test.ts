// Known failure (session 54, found by stack.archive.slow seed 311 case 11 and seed 313 case 10; not
// fixed): with the archive on, a removal by id or an in-place edit (calls removed, a call renamed) in the hot part can move windowTrim's chunked cut where the same
// removal without the archive does not, so the two runs send different requests (R35's oracle).
// The chunked window counts from the first user message: over the whole thread (run without the archive)
// that is an archived one; over the hot part, the hot part's first user message. alignedBatch makes the
// cost between them a multiple of the step when it archives, but a later RemoveMessage in the hot part
// (1) of a message before the hot part's first user message (the groups rule 2 leaves hot, uncounted), or
// (2) of the hot part's first user message itself (after a rule-1 batch)
// changes that cost in the whole thread only: the cut moves by a step in one run and not the other.
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { groupMessageCount, selectView } from "@threadwise/core";
import { alignedBatch } from "@threadwise/memory";
import { expect, it } from "vitest";

const ai = (id: string, calls: string[] = []) =>
  new AIMessage({ id, content: calls.length ? "" : `답 ${id} text`, tool_calls: calls.map((c) => ({ id: c, name: "lookup", args: {} })) });
const tool = (id: string, call: string) => new ToolMessage({ id, content: `r ${id}`, tool_call_id: call, name: "lookup" });
const hu = (id: string) => new HumanMessage({ id, content: `질문 ${id} question` });
// windowTrim({ maxMessages: 6 }) as memoryStack makes it (chunked, step 3), counted from the first user message.
const cut = (thread: BaseMessage[]) => {
  const from = thread.findIndex((m) => m.getType() === "human");
  return selectView(thread.slice(from), { cost: groupMessageCount, limit: 6, lowWatermark: 3, eviction: "chunked", startOn: "human" })
    .firstKept?.id;
};
const thread = (extra: number) => {
  const whole = [
    ai("x1"),
    hu("u2"),
    ai("a2-0", ["c1", "c2", "c3"]),
    tool("t1", "c1"),
    tool("t2", "c2"),
    tool("t3", "c3"),
    ai("a2-final"),
    hu("u3"),
    ai("a3-final"),
    hu("u4"),
    ai("a4-final"),
    hu("u5"),
    ai("a5-0", ["c5"]),
    tool("t5", "c5"),
    ai("a5-final"),
    hu("u6"),
  ];
  for (let k = 0; k < extra; k += 1) whole.push(ai(`b${k}`), hu(`v${k}`));
  return whole;
};
// it.fails: the second expectation fails until the count is shared (see the paragraph above).
it.fails.each([
  { mode: "a tool result the batch left hot before the hot part's first user message", offered: 2, gone: "t1", extra: 2 },
  { mode: "the hot part's first user message", offered: 8, gone: "u3", extra: 0 },
])("removing $mode: the hot part's window cut is the whole thread's", ({ offered, gone, extra }) => {
  const whole = thread(extra);
  const hot = whole.slice(alignedBatch(whole, whole.slice(0, offered), 3).length);
  expect(cut(hot)).toBe(cut(whole)); // aligned when archived
  const without = (t: BaseMessage[]) => t.filter((m) => m.id !== gone);
  expect(cut(without(hot))).toBe(cut(without(whole)));
});

const edited = [
  ai("x1"),
  hu("u2"),
  ai("a2-0", ["c1", "c2"]),
  tool("t1", "c1"),
  tool("t2", "c2"),
  ai("a2-1"),
  ai("a2-final"),
  hu("u3"),
  ai("a3-final"),
  hu("u4"),
  ai("a4-final"),
  hu("u5"),
  ai("a5-0", ["c5", "c6"]),
  tool("t5", "c5"),
  tool("t6", "c6"),
  ai("a5-final"),
  hu("u6"),
  ai("b0"),
  hu("v0"),
  ai("b1"),
  hu("v1"),
  ai("b2"),
  hu("v2"),
];
// edit-cases' `calls-removed` (the seed's edit of s75) and `call-renamed`, in place under the same id.
const edits = {
  "calls-removed": (m: AIMessage) => new AIMessage({ id: m.id, content: "이제 text only 답" }),
  "call-renamed": (m: AIMessage) =>
    new AIMessage({ id: m.id, content: m.content, tool_calls: m.tool_calls?.map((c, i) => ({ ...c, id: i === 0 ? "call_edit1" : c.id })) }),
};
// it.fails: the last expectation fails until the count is shared (stack.archive.slow seed 313 case 10, found by trim34, cause found by cover34).
it.fails.each(Object.keys(edits) as (keyof typeof edits)[])(
  "an in-place edit (%s) of a group rule 2 left hot before the hot part's first user message: the hot part's window cut is the whole thread's",
  (kind) => {
    const hot = edited.slice(alignedBatch(edited, edited.slice(0, 2), 3).length);
    expect(hot[0]?.id).toBe("a2-0"); // the batch took x1, u2 (rule 2): a2-0 and its results stay hot, before u3
    expect(cut(hot)).toBe(cut(edited)); // aligned when archived
    const edit = (t: BaseMessage[]) => t.map((m) => (m.id === "a2-0" ? edits[kind](m as AIMessage) : m));
    expect(cut(edit(hot))).toBe(cut(edit(edited)));
  },
);
