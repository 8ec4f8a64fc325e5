/**
 * The raw-turn baseline's block packer (bench/support/turn-block.ts) fills its budget by the rule
 * recall's `renderRecall` uses (session 59): a line is skipped for want of budget only after the
 * block so far was counted exactly, so `bm25_turns` and `recall` are compared on the same budget.
 */
import { createTokenCounter } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { turnPacker } from "../bench/support/turn-block.js";

// Counts words: a line counted alone pays for its newline (+1), the joined block does not, so the
// per-line estimate runs one token per line above the exact count, as BPE counts do.
const words = (text: string) => text.split(/\s+/).filter((w) => w !== "").length;
const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `D1:${i + 1}`, text: `Speaker${i}: word${i}` }));

describe("turnPacker (bench baseline) counts the block exactly before it skips a line (session 59)", () => {
  it("places the lines the exact count allows until fewer than 8 tokens are left, as recall does", () => {
    const pack = turnPacker(30, words);
    const block = pack(lines(20), "Earlier turns");
    // `[Earlier turns]` is 2 words, each line 2 (estimated 3). The estimate alone stopped at 8
    // lines (estimated 26, counted 18); counted exactly, 11 lines (24: 6 left, under 8, stops).
    expect(block.ids).toHaveLength(11);
    expect(block.tokens).toBe(24);
  });

  it("stays within the budget with the o200k counter on English and Korean lines", () => {
    const counter = createTokenCounter();
    const count = (text: string) => counter.countText(text);
    const pack = turnPacker(300, count);
    const mixed = Array.from({ length: 40 }, (_, i) => ({
      id: `D1:${i}`,
      text:
        i % 2 === 0
          ? `Gemma: We can do the park session on Saturday ${i}.`
          : `지수: 토요일 ${i}시에 공원에서 만나요. 넷플릭스는 해지했어요.`,
    }));
    const block = pack(mixed, "Earlier turns");
    const text = `[Earlier turns]\n${block.ids.map((id) => mixed.find((l) => l.id === id)?.text).join("\n")}`;
    expect(block.tokens).toBe(count(text));
    expect(block.tokens).toBeLessThanOrEqual(300);
    // No line left out would still fit after the placed ones.
    const left = mixed.filter((l) => !block.ids.includes(l.id));
    for (const line of left) expect(count(`${text}\n${line.text}`)).toBeGreaterThan(300);
  });
});
