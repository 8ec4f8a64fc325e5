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
 * line that does not fit is skipped, and packing stops when fewer than 8 tokens are left.
 */
export function turnPacker(budget: number, countText: (text: string) => number) {
  return (lines: Array<{ id: string; text: string }>, label: string): { ids: string[]; tokens: number } => {
    const header = `[${label}]\n`;
    let used = countText(header);
    const ids: string[] = [];
    const kept: string[] = [];
    for (const line of lines) {
      const c = countText(line.text) + 1;
      if (used + c > budget) continue;
      used += c;
      ids.push(line.id);
      kept.push(line.text);
      if (budget - used < 8) break;
    }
    return { ids, tokens: kept.length === 0 ? 0 : countText(header + kept.join("\n")) };
  };
}
