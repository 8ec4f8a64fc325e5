// The chunked window's count over an archived thread's hot part (session 54's known failure, found by
// stack.archive.slow seed 311 case 11 and seed 313 case 10; fixed in session 55). With the archive on, a
// removal by id or an in-place edit (calls removed, a call renamed) in the hot part moved windowTrim's
// chunked cut where the same op without the archive did not, so the two runs sent different requests
// (R35's oracle). The chunked window counts from the first user message: over the whole thread (run
// without the archive) that is an archived one; over the hot part it was the hot part's first user
// message. alignedBatch made the cost between them a multiple of the step when it archived, but a later
// RemoveMessage or edit in the hot part
// (1) of a message before the hot part's first user message (the groups rule 2 leaves hot), or
// (2) of the hot part's first user message itself (after a rule-1 batch)
// changed that cost in the whole thread only: the cut moved by a step in one run and not the other.
// Now the archive stores, with each batch, the archived part's cost as the whole thread counts it
// (core's `ArchivedWindow`, memory's `nextArchivedWindow`), and the window over the hot part counts on
// from it at the hot part's first group (`costBefore`): the cut is the same function of the whole
// thread whatever is archived. `hotCut` is what windowTrim does with the mark; `legacyCut` what it did
// (and still does for an archive stored without a mark).
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { archivedWindowCost, groupMessageCount, indexThread, selectIndexedView, selectView } from "@threadwise/core";
import { alignedBatch, nextArchivedWindow } from "@threadwise/memory";
import { expect, it } from "vitest";

const ai = (id: string, calls: string[] = []) =>
  new AIMessage({ id, content: calls.length ? "" : `답 ${id} text`, tool_calls: calls.map((c) => ({ id: c, name: "lookup", args: {} })) });
const tool = (id: string, call: string) => new ToolMessage({ id, content: `r ${id}`, tool_call_id: call, name: "lookup" });
const hu = (id: string) => new HumanMessage({ id, content: `질문 ${id} question` });
// windowTrim({ maxMessages: 6 }) as memoryStack makes it (chunked, step 3), counted from the first user message.
const window = { cost: groupMessageCount, limit: 6, lowWatermark: 3, eviction: "chunked", startOn: "human" } as const;
const cut = (thread: BaseMessage[]) => {
  const from = thread.findIndex((m) => m.getType() === "human");
  return selectView(thread.slice(from), window).firstKept?.id;
};
// Over the hot part left by archiving `batch` of `whole`: counted on from the archived part's cost.
const hotCut = (whole: BaseMessage[], batch: BaseMessage[], hot: BaseMessage[]) => {
  const mark = nextArchivedWindow(whole, batch, undefined, "human");
  if (!mark) throw new Error("the batch holds no user message");
  return selectView(hot, { ...window, costBefore: mark.messages }).firstKept?.id;
};
const legacyCut = cut;
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
it.each([
  { mode: "a tool result the batch left hot before the hot part's first user message", offered: 2, gone: "t1", extra: 2 },
  { mode: "the hot part's first user message", offered: 8, gone: "u3", extra: 0 },
])("removing $mode: the hot part's window cut is the whole thread's", ({ offered, gone, extra }) => {
  const whole = thread(extra);
  const batch = alignedBatch(whole, whole.slice(0, offered), 3);
  const hot = whole.slice(batch.length);
  expect(hotCut(whole, batch, hot)).toBe(cut(whole)); // aligned when archived
  const without = (t: BaseMessage[]) => t.filter((m) => m.id !== gone);
  expect(hotCut(whole, batch, without(hot))).toBe(cut(without(whole)));
  // Counted from the hot part's first user message (an archive stored without a mark), the cut moved.
  expect(legacyCut(hot)).toBe(cut(whole));
  expect(legacyCut(without(hot))).not.toBe(cut(without(whole)));
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
it.each(Object.keys(edits) as (keyof typeof edits)[])(
  "an in-place edit (%s) of a group rule 2 left hot before the hot part's first user message: the hot part's window cut is the whole thread's",
  (kind) => {
    const batch = alignedBatch(edited, edited.slice(0, 2), 3);
    const hot = edited.slice(batch.length);
    expect(hot[0]?.id).toBe("a2-0"); // the batch took x1, u2 (rule 2): a2-0 and its results stay hot, before u3
    expect(hotCut(edited, batch, hot)).toBe(cut(edited)); // aligned when archived
    const edit = (t: BaseMessage[]) => t.map((m) => (m.id === "a2-0" ? edits[kind](m as AIMessage) : m));
    expect(hotCut(edited, batch, edit(hot))).toBe(cut(edit(edited)));
    expect(legacyCut(edit(hot))).not.toBe(cut(edit(edited)));
  },
);

// What the mark is and when it is used: a fresh process reads the slot and the archive, nothing else.
it("the mark: counted from the first user message, carried on from the previous mark, and used only while the archive still ends at it", async () => {
  const whole = thread(0);
  // A batch without a user message under "human": no mark (the window counts from the hot part's first user message).
  expect(nextArchivedWindow(whole, whole.slice(0, 1), undefined, "human")).toBeUndefined();
  // From u2 on: u2, a2-0 + 3 results, a2-final = 6 (x1 before it is not counted); under "any" x1 too.
  expect(nextArchivedWindow(whole, whole.slice(0, 7), undefined, "human")).toEqual({
    messages: 6,
    throughId: "a2-final",
    startOn: "human",
  });
  expect(nextArchivedWindow(whole, whole.slice(0, 7), undefined, "any")).toEqual({ messages: 7, throughId: "a2-final", startOn: "any" });
  // A later batch goes on from the previous mark's cost, every group counted.
  const hot = whole.slice(7);
  expect(nextArchivedWindow(hot, hot.slice(0, 2), 6, "human")).toEqual({ messages: 8, throughId: "a3-final", startOn: "human" });
  const mark = { messages: 6, throughId: "a2-final", startOn: "human" } as const;
  const archive = (messages: BaseMessage[]) => async () => messages;
  // The archive ends at the mark: its cost. A crash after the next batch's archive write (u3,
  // a3-final archived and still stored, the slot's mark not yet written): still the mark's cost.
  expect(await archivedWindowCost(archive(whole.slice(0, 7)), "t", hot, mark, "human")).toBe(6);
  expect(await archivedWindowCost(archive(whole.slice(0, 9)), "t", hot, mark, "human")).toBe(6);
  // No mark (an archive stored before it existed), another start rule, an archive that no longer
  // ends there (a rewrite emptied it, or archived again after): not used, the count is today's.
  expect(await archivedWindowCost(archive(whole.slice(0, 7)), "t", hot, undefined, "human")).toBeUndefined();
  expect(await archivedWindowCost(archive(whole.slice(0, 7)), "t", hot, mark, "any")).toBeUndefined();
  expect(await archivedWindowCost(archive([]), "t", hot, mark, "human")).toBeUndefined();
  expect(await archivedWindowCost(archive(whole.slice(0, 9)), "t", whole.slice(9), mark, "human")).toBeUndefined();
});

// core's indexed selection (what windowTrim runs) cuts where selectView does with the same cost before.
it("costBefore: the indexed chunked cut is selectView's", () => {
  const whole = thread(3);
  for (let before = 0; before <= 9; before += 1)
    for (const from of [0, 3, 7, 9]) {
      const part = whole.slice(from);
      const options = { ...window, costBefore: before };
      expect(selectIndexedView(indexThread(part), { ...options, costKey: "messages" }).firstKept?.id).toBe(
        selectView(part, options).firstKept?.id,
      );
    }
});
