/**
 * Recall over an index of several threads (`threadOf`, user memory's index of a user's threads in
 * the order they were stored). A question's reply and a line's neighbours come from the line's own
 * thread; the walk that finds them costs at most one pass over the index per ranking or block
 * (counted in `threadOf` calls, not timed), however far apart a thread's lines sit.
 */
import { HumanMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { MessageIndex } from "./message-index.js";
import { rankRecall, renderRecall } from "./recall-block.js";

const N = 10_000;
// Lines alone in their thread, spread over the index; every other line is thread "main".
const LONELY = [17, 2_500, 5_001, 7_777, 9_990];

function bigIndex() {
  const messages = Array.from({ length: N }, (_, i) =>
    LONELY.includes(i)
      ? new HumanMessage({ id: `m${i}`, content: `The lighthouse keeper number ${i} wrote about the harbour.`, name: "Ana" })
      : new HumanMessage({ id: `m${i}`, content: `Routine line ${i % 97} about the weather and the bus.`, name: i % 2 ? "Ben" : "Cho" }),
  );
  const index = new MessageIndex({ maxMessages: N });
  index.sync(messages);
  const thread = (id: string) => (LONELY.includes(Number(id.slice(1))) ? `lonely-${id}` : "main");
  return { index, thread };
}

describe("recall over several threads: a 10,000-line index", () => {
  it("places a line alone in its thread without neighbours, walking the index at most about once per call", () => {
    const { index, thread } = bigIndex();
    let calls = 0;
    const threadOf = (id: string) => {
      calls += 1;
      return thread(id);
    };
    const query = "What did the lighthouse keeper write?";
    const terms = tokenize(query);
    const items = rankRecall({ messages: index, terms, query, inView: () => false, depth: 30, threadOf });
    const ranking = calls;
    const block = renderRecall(items, index, {
      maxTokens: 300,
      neighbours: 2,
      maxMessageTokens: 35,
      maxNeighbourTokens: 15,
      maxItems: 12,
      label: "Recalled",
      countText: (text) => Math.ceil(text.length / 4),
      inView: () => false,
      terms,
      threadOf,
    });
    expect([...block.messageIds].sort()).toEqual(LONELY.map((i) => `m${i}`).sort());
    // A walk entry by entry scanned the whole index on each side of each lonely line (about 2 x N per line).
    expect(ranking).toBeLessThan(N + 1_000);
    expect(calls - ranking).toBeLessThan(N + 1_000);
  });

  it("gives the neighbours a walk entry by entry gives, wherever a thread's lines sit", () => {
    // Three threads, their lines interleaved in runs of uneven length (some runs longer than a walk's first steps).
    const runs = [3, 150, 1, 80, 2, 200, 5, 1, 130, 4, 70, 2];
    const messages: HumanMessage[] = [];
    const threads = new Map<string, string>();
    runs.forEach((run, r) => {
      for (let k = 0; k < run; k += 1) {
        const id = `r${r}-${k}`;
        threads.set(id, `t${r % 3}`);
        messages.push(new HumanMessage({ id, content: `${k === 0 ? "kayak" : "note"} ${r} ${k}`, name: r % 2 ? "Dee" : "Eli" }));
      }
    });
    const index = new MessageIndex({ maxMessages: 1_000 });
    index.sync(messages);
    const threadOf = (id: string) => threads.get(id);
    const query = "kayak";
    const terms = tokenize(query);
    const items = rankRecall({ messages: index, terms, query, inView: () => false, depth: 30, threadOf });
    const options = {
      maxTokens: 100_000,
      neighbours: 2,
      maxMessageTokens: 35,
      maxNeighbourTokens: 15,
      maxItems: 30,
      label: "Recalled",
      countText: (text: string) => Math.ceil(text.length / 4),
      inView: () => false,
      terms,
      threadOf,
    };
    const block = renderRecall(items, index, options);
    // The reference: each recalled line not yet shown, with up to two lines of its own thread on each side.
    const all = index.entries();
    const expected = new Set<string>();
    for (const item of items) {
      if (item.kind !== "message" || expected.has(item.entry.id)) continue;
      const own = all.filter((e) => threads.get(e.id) === threads.get(item.entry.id));
      const at = own.findIndex((e) => e.seq === item.entry.seq);
      for (const e of own.slice(Math.max(0, at - 2), at + 3)) expected.add(e.id);
    }
    expect(new Set(block.messageIds)).toEqual(expected);
  });
});
