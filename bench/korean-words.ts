/**
 * Korean words and their terms: what a change to the Korean stemmer changes, over every distinct
 * Hangul word of the committed data (`bench/fixtures/*.json` and `data/**\/*.json`, the blind
 * held-out files left out: `BLIND_FIXTURES` in `support/blind.ts`).
 * A word is a run of letters and digits holding Hangul, as `tokenize` (`@threadwise/core`) splits
 * text; its terms are `tokenize(word)`, the word read alone.
 *
 * `--out <file>` writes `{ word: terms }` for every word (a snapshot to compare with later);
 * `--against <file>` prints every word whose terms differ from that snapshot's (`word: before ->
 * after`), with how many of the words' occurrences each change touches, most frequent first. Read
 * the list before committing a stemmer change: each changed word is a noun kept or junk made.
 * `--json` prints the comparison as one JSON document.
 *
 * Run: pnpm tsx bench/korean-words.ts --out /tmp/words-before.json
 *      (change the stemmer) pnpm tsx bench/korean-words.ts --against /tmp/words-before.json
 */
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { tokenize } from "@threadwise/core";
import { isBlindFixture } from "./support/blind.js";
import { exitOnHelp } from "./support/cli.js";

const HANGUL_WORD = /[\p{L}\p{N}]*[\uac00-\ud7a3][\p{L}\p{N}]*/gu;

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsonFiles(path);
    return entry.name.endsWith(".json") && !isBlindFixture(entry.name) ? [path] : [];
  });
}

/** Every string inside a parsed JSON value. */
function* strings(value: unknown): Generator<string> {
  if (typeof value === "string") yield value;
  else if (Array.isArray(value)) for (const item of value) yield* strings(item);
  else if (value !== null && typeof value === "object") for (const item of Object.values(value)) yield* strings(item);
}

/**
 * Distinct Hangul words of the data files under `roots`, with how often each occurs.
 *
 * @param roots - folders searched for `*.json` (recursively; the blind held-out files skipped)
 * @returns word -> occurrences, in the order first met
 */
export function hangulWords(roots: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of roots.flatMap(jsonFiles))
    for (const text of strings(JSON.parse(readFileSync(file, "utf8"))))
      for (const [word] of text.matchAll(HANGUL_WORD)) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

function main(): void {
  exitOnHelp();
  const { values } = parseArgs({
    options: { out: { type: "string" }, against: { type: "string" }, json: { type: "boolean", default: false } },
  });
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const counts = hangulWords([join(root, "bench/fixtures"), join(root, "data")]);
  const terms = new Map([...counts.keys()].map((word) => [word, tokenize(word)]));
  if (values.out !== undefined) {
    writeFileSync(values.out, `${JSON.stringify(Object.fromEntries(terms))}\n`);
    console.error(`${terms.size} words written to ${values.out}`);
  }
  if (values.against === undefined) return;
  const before = JSON.parse(readFileSync(values.against, "utf8")) as Record<string, string[]>;
  const changed = [...terms]
    .filter(([word, after]) => JSON.stringify(before[word] ?? []) !== JSON.stringify(after))
    .map(([word, after]) => ({ word, occurrences: counts.get(word) ?? 0, before: before[word] ?? [], after }))
    .sort((a, b) => b.occurrences - a.occurrences || a.word.localeCompare(b.word));
  if (values.json) {
    console.log(JSON.stringify({ bench: "korean-words", words: terms.size, changed }, null, 2));
    return;
  }
  console.log(`${changed.length} of ${terms.size} words changed`);
  for (const c of changed) console.log(`${c.word}\t${c.occurrences}\t[${c.before.join(", ")}] -> [${c.after.join(", ")}]`);
}

// Run as a script; a test imports `hangulWords` without running it.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
