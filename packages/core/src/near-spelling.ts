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
