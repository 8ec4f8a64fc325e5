/**
 * The raw-turn baseline of the LoCoMo benchmarks: BM25+ over `Speaker: text` turns (MiniSearch, a
 * given tokenizer) and the block packer that places whole lines in rank order within a token
 * budget, label line included. Shared by `bench/recall.ts` and `bench/user-memory.ts`.
 */
import MiniSearch from "minisearch";
import type { LocomoTurn } from "./locomo.js";

/** A turn as the baselines index and place it: `Speaker: text`. */
export const turnLine = (turn: LocomoTurn) => `${turn.speaker}: ${turn.text}`;

/** BM25+ over whole turns (`Speaker: text`) with `tokenizer`; ids are the turns' dia ids. */
export function turnIndex(turns: readonly LocomoTurn[], tokenizer: (text: string) => string[]) {
  const index = new MiniSearch<{ id: string; text: string }>({
    fields: ["text"],
    tokenize: tokenizer,
    processTerm: (term) => term,
    searchOptions: { combineWith: "OR", prefix: false, fuzzy: false },
  });
  index.addAll(turns.map((t) => ({ id: t.diaId, text: turnLine(t) })));
  return index;
}

/**
 * Whole lines in rank order while they fit in `budget` tokens (the `[label]` line included); a
 * line that does not fit is skipped, and packing stops when fewer than 8 tokens are left. Each
 * line's cost is estimated as its own count plus one for the newline, which runs above the joined
 * text's count; before a line is skipped for want of budget, the block so far is counted exactly
 * and the budget left taken from that count, as recall's `renderRecall` does (session 59), so both
 * methods fill the same budget by the same rule.
 */
export function turnPacker(budget: number, countText: (text: string) => number) {
  return (lines: Array<{ id: string; text: string }>, label: string): { ids: string[]; tokens: number } => {
    const header = `[${label}]\n`;
    let used = countText(header);
    const ids: string[] = [];
    const kept: string[] = [];
    let counted = -1;
    const recount = () => {
      if (kept.length === counted) return false;
      counted = kept.length;
      const exact = countText(header + kept.join("\n"));
      if (exact >= used) return false;
      used = exact;
      return true;
    };
    for (const line of lines) {
      const c = countText(line.text) + 1;
      if (used + c > budget && !(recount() && used + c <= budget)) continue;
      used += c;
      ids.push(line.id);
      kept.push(line.text);
      if (budget - used < 8 && !(recount() && budget - used >= 8)) break;
    }
    let tokens = kept.length === 0 ? 0 : countText(header + kept.join("\n"));
    // The estimate is an upper bound of each line's share, so this only guards the rule: never over budget.
    while (kept.length > 0 && tokens > budget) {
      kept.pop();
      ids.pop();
      tokens = kept.length === 0 ? 0 : countText(header + kept.join("\n"));
    }
    return { ids, tokens };
  };
}
