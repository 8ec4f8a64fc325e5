/**
 * English words that mean the same or a kind of the same thing, from a compact extract of WordNet
 * 3.1 (`data/english-lexicon.txt`, built by `scripts/build-english-lexicon.ts`; session 61): a
 * question's `bird` meets a message's `cockatiel`, `beverage` meets `tea`, `frighten` meets
 * `scare`, though they share no letter. Read in core's term space (`tokenize`'s terms): a word is
 * looked up as `tokenize` writes it.
 *
 * Two functions, one per side: {@link lexiconSenses} of a query term (its most frequent senses) and
 * {@link lexiconKeys} of an indexed term (its senses and the kinds they are, up to
 * {@link LEXICON_DEPTH} hypernym steps, never through a synset too general to gather its kinds).
 * A query term meets an indexed term when one of its senses is among the indexed term's keys;
 * {@link lexiconMembers} inverts the keys (a sense -> the words it meets), so an index looks up
 * only the words under a query's senses instead of keying its whole vocabulary (session 61, lex61).
 * The extract is read on the first call, not at import (about 1.0 MB of text); the inversion is
 * built on the first {@link lexiconMembers} call.
 */
import { readFileSync } from "node:fs";

/** Hypernym steps an indexed term's keys climb: `cockatiel` -> `parrot` -> `bird` is 2. */
export const LEXICON_DEPTH = 2;
/** Senses of a word read on either side, per part of speech (WordNet's order, most frequent first). */
export const LEXICON_SENSES = 1;

interface Lexicon {
  /** One line per synset (`*` when too general, then its hypernyms), parsed when walked ({@link parentsOf}). */
  synsets: string[];
  /** One line per word, sorted by word (`word noun-ranks;verb-ranks`): found by binary search. */
  words: string[];
}

let lexicon: Lexicon | undefined;

/** The extract inverted (built once, on the first {@link lexiconMembers} call). */
interface Inverted {
  /** Synset `s`'s words (line numbers in the words' lines, with `s` among their {@link lexiconSenses}): `wordList[wordCount[s] .. wordCount[s + 1]]`. */
  wordCount: Int32Array;
  wordList: Int32Array;
  /** Synset `s`'s direct kinds (the synsets it is a hypernym of): `kindList[kindCount[s] .. kindCount[s + 1]]`. */
  kindCount: Int32Array;
  kindList: Int32Array;
  /** Sense -> {@link lexiconMembers}' answer, computed when first asked. */
  members: Map<number, readonly string[]>;
}

let inverted: Inverted | undefined;

/**
 * The extract's file: `data/english-lexicon.txt` of this package, beside `src/` and `dist/` alike
 * (published in the package's files).
 */
const LEXICON_FILE = new URL("../data/english-lexicon.txt", import.meta.url);

/**
 * Reads the extract on first use (not at import: a process that never asks for a related word
 * reads nothing) and splits it into lines, parsing none: `#` comments, then one line per synset,
 * then, after the second comment, one line per word.
 */
function load(): Lexicon {
  if (lexicon !== undefined) return lexicon;
  const lines = readFileSync(LEXICON_FILE, "utf8").split("\n");
  const synsetsAt = lines.findIndex((line) => line.startsWith("# Synsets")) + 1;
  const wordsAt = lines.findIndex((line) => line.startsWith("# Words")) + 1;
  const end = lines[lines.length - 1] === "" ? lines.length - 1 : lines.length;
  lexicon = { synsets: lines.slice(synsetsAt, wordsAt - 1), words: lines.slice(wordsAt, end) };
  return lexicon;
}

/** The senses part of `term`'s word line, or `undefined` (binary search over the sorted lines). */
function wordLine(words: readonly string[], term: string): string | undefined {
  let low = 0;
  let high = words.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const line = words[mid] as string;
    const word = line.slice(0, line.indexOf(" "));
    if (word === term) return line.slice(word.length + 1);
    if (word < term) low = mid + 1;
    else high = mid;
  }
  return undefined;
}

/** A synset's hypernyms, and whether it is too general to gather its kinds. */
function parentsOf(synsets: readonly string[], synset: number): { parents: number[]; general: boolean } {
  const line = synsets[synset] ?? "";
  const general = line.startsWith("*");
  const rest = general ? line.slice(1) : line;
  return { parents: rest === "" ? [] : rest.split(",").map((id) => Number.parseInt(id, 36)), general };
}

/** The synsets of a word line's senses (`noun ranks;verb ranks`, ranks split by `|`), the first `ranks` ranks of each part of speech. */
function readSenses(line: string, ranks: number): number[] {
  const out: number[] = [];
  for (const speech of line.split(";")) {
    if (speech === "") continue;
    for (const rank of speech.split("|").slice(0, ranks))
      for (const id of rank.split(",")) if (id !== "") out.push(Number.parseInt(id, 36));
  }
  return out;
}

/**
 * The most frequent senses of `term` (a term as core's `tokenize` writes it: `bird`, `frighten`),
 * {@link LEXICON_SENSES} per part of speech, as synset numbers of the extract; `[]` for a term
 * the extract does not hold (any Hangul term, a name, a number).
 */
export function lexiconSenses(term: string): number[] {
  // Only lowercase Latin words are in the extract: any other term is answered without reading it.
  const first = term.charCodeAt(0);
  if (!(first >= 0x61 && first <= 0x7a)) return [];
  const known = sensesOf.get(term);
  if (known !== undefined) return [...known];
  const ids = wordLine(load().words, term);
  const senses = ids === undefined ? [] : readSenses(ids, LEXICON_SENSES);
  // A query asks for the same few thousand words again and again: answers are kept, the store
  // emptied when full (a bounded memo of a pure function: no answer depends on it).
  if (sensesOf.size >= SENSES_KEPT) sensesOf.clear();
  sensesOf.set(term, senses);
  return [...senses];
}

/** Terms whose {@link lexiconSenses} are kept (the memo is emptied when it reaches this many). */
const SENSES_KEPT = 8192;
// By the term: its senses are a pure function of it and the shipped lexicon (read-only).
const sensesOf = new Map<string, readonly number[]>();

/**
 * What an indexed term is met by: its senses ({@link lexiconSenses}) and, for each, the synsets it
 * is a kind of, up to {@link LEXICON_DEPTH} hypernym steps, a synset too general to gather its
 * kinds (`act`, `object`) left out. A query term meets `term` when one of its senses is among
 * these: `bird` (a sense of it) is among `cockatiel`'s keys. `[]` for a term not in the extract.
 */
export function lexiconKeys(term: string): number[] {
  const senses = lexiconSenses(term);
  if (senses.length === 0) return senses;
  const keys = new Set(senses);
  let front = senses;
  for (let depth = 0; depth < LEXICON_DEPTH; depth += 1) {
    const next: number[] = [];
    for (const synset of front) {
      for (const parent of parentsOf(load().synsets, synset).parents) {
        if (keys.has(parent) || parentsOf(load().synsets, parent).general) continue;
        keys.add(parent);
        next.push(parent);
      }
    }
    front = next;
  }
  return [...keys];
}

/** Calls `each` with every hypernym of synset line `line` (`*` when too general, then base-36 ids split by `,`). */
function eachParent(line: string, each: (parent: number) => void): void {
  let at = line.charCodeAt(0) === 0x2a ? 1 : 0;
  while (at < line.length) {
    let end = line.indexOf(",", at);
    if (end < 0) end = line.length;
    each(Number.parseInt(line.slice(at, end), 36));
    at = end + 1;
  }
}

/**
 * Inverts the extract, every line read once, into two tables indexed by synset number (offsets
 * into flat arrays: about 50k synsets, 60k word senses).
 */
function invert(): Inverted {
  if (inverted !== undefined) return inverted;
  const { synsets, words } = load();
  const count = synsets.length;
  const senseOf: number[] = [];
  const wordAt: number[] = [];
  const wordCount = new Int32Array(count + 1);
  for (let i = 0; i < words.length; i += 1) {
    const line = words[i] as string;
    // readSenses(line after the word, LEXICON_SENSES), scanned in place: ids (base 36) split by
    // `,` within a rank, ranks by `|`, the noun part from the verb part by `;`.
    let rank = 0;
    let id = -1;
    for (let at = line.indexOf(" ") + 1; at <= line.length; at += 1) {
      const code = at < line.length ? line.charCodeAt(at) : 0x3b;
      const digit = code >= 0x30 && code <= 0x39 ? code - 0x30 : code >= 0x61 && code <= 0x7a ? code - 0x57 : -1;
      if (digit >= 0) {
        id = id < 0 ? digit : id * 36 + digit;
        continue;
      }
      if (id >= 0 && rank < LEXICON_SENSES) {
        senseOf.push(id);
        wordAt.push(i);
        wordCount[id + 1] = (wordCount[id + 1] as number) + 1;
      }
      id = -1;
      if (code === 0x7c) rank += 1;
      else if (code === 0x3b) rank = 0;
    }
  }
  const kindCount = new Int32Array(count + 1);
  for (const line of synsets) eachParent(line, (parent) => (kindCount[parent + 1] = (kindCount[parent + 1] as number) + 1));
  for (let i = 0; i < count; i += 1) {
    wordCount[i + 1] = (wordCount[i + 1] as number) + (wordCount[i] as number);
    kindCount[i + 1] = (kindCount[i + 1] as number) + (kindCount[i] as number);
  }
  const wordFill = wordCount.slice(0, count);
  const wordList = new Int32Array(senseOf.length);
  for (let i = 0; i < senseOf.length; i += 1) {
    const sense = senseOf[i] as number;
    wordList[wordFill[sense] as number] = wordAt[i] as number;
    wordFill[sense] = (wordFill[sense] as number) + 1;
  }
  const kindFill = kindCount.slice(0, count);
  const kindList = new Int32Array(kindCount[count] as number);
  for (let synset = 0; synset < count; synset += 1) {
    eachParent(synsets[synset] as string, (parent) => {
      kindList[kindFill[parent] as number] = synset;
      kindFill[parent] = (kindFill[parent] as number) + 1;
    });
  }
  inverted = { wordCount, wordList, kindCount, kindList, members: new Map() };
  return inverted;
}

/**
 * The words a query term's sense `sense` (one of its {@link lexiconSenses}) meets: every word of
 * the extract with `sense` among its {@link lexiconKeys}, in code-unit order: the words of that
 * sense and, unless it is too general to gather its kinds, of its kinds up to
 * {@link LEXICON_DEPTH} hypernym steps below it, through kinds not too general themselves
 * (`cockatiel` for `bird`'s sense). `[]` for a synset no word reaches. The first call builds the
 * inversion (every line of the extract parsed once); each sense's answer is kept for the process.
 */
export function lexiconMembers(sense: number): readonly string[] {
  const { wordCount, wordList, kindCount, kindList, members } = invert();
  const known = members.get(sense);
  if (known !== undefined) return known;
  const { synsets, words } = load();
  if (!(sense >= 0 && sense < synsets.length)) return [];
  const out = new Set<string>();
  const addWords = (synset: number) => {
    for (let i = wordCount[synset] as number; i < (wordCount[synset + 1] as number); i += 1) {
      const line = words[wordList[i] as number] as string;
      out.add(line.slice(0, line.indexOf(" ")));
    }
  };
  addWords(sense);
  if (!parentsOf(synsets, sense).general) {
    // Mirrors lexiconKeys' walk from the other end: a word's sense climbs to `sense` through
    // synsets not too general, at most LEXICON_DEPTH steps.
    let front = [sense];
    for (let depth = 0; depth < LEXICON_DEPTH; depth += 1) {
      const next: number[] = [];
      for (const synset of front) {
        for (let i = kindCount[synset] as number; i < (kindCount[synset + 1] as number); i += 1) {
          const kind = kindList[i] as number;
          addWords(kind);
          if (!parentsOf(synsets, kind).general) next.push(kind);
        }
      }
      front = next;
    }
  }
  const sorted = [...out].sort();
  members.set(sense, sorted);
  return sorted;
}
