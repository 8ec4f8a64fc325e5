/**
 * Keys that let a word written in Latin letters meet the same word written in Hangul (session 59):
 * Korean users write loan words and brands both ways (`Netflix`/`넷플릭스`, `Slack`/`슬랙`,
 * `Dyson`/`다이슨`, `AirPods`/`에어팟`, `LG`/`엘지`, `PT`/`피티`), and a question in one script should
 * find a message in the other. Two keys, both computed from a term as core's `tokenize` writes it:
 *
 * - `sound:` a consonant skeleton. A Hangul term is romanized first (es-hangul's `romanize`, the
 *   Revised Romanization of Korean with its pronunciation rules: `넷플릭스` -> `netpeullikseu`);
 *   then any Latin string is read as the consonant classes Korean loan spelling keeps apart (p/b/f/v,
 *   t/d/th, k/g/c/q, s/z/j/ch/sh, l/r, m, n; `x` as `ks`, `ph` as `p`, a soft `c` as `s`), vowels,
 *   `h`/`w`/`y` and an `r` before no vowel dropped (`airpod` -> `PT`, as `에어팟`), repeats merged:
 *   `netflix` and `넷플릭스` are both `sound:NTPLKS`.
 * - `spell:` an acronym spelled by its letters' Korean names (`pt` -> `피티`, `lg` -> `엘지`,
 *   `mbti` -> `엠비티아이`), for a Latin term of 2 to 5 letters; a Hangul term's is itself.
 *
 * The keys are coarse (`바다` is `sound:PT` too), so they are not terms of a document: a search
 * adds, for each query term, the terms of the other script that share one of its keys, at a lower
 * weight (recall's `MessageIndex`). Two Hangul words, or two Latin words, never meet by a key.
 */
import { createRequire } from "node:module";
import { setBounded } from "./bounded-map.js";

const requireFromHere = createRequire(import.meta.url);
let romanize: ((hangul: string) => string) | undefined;

/**
 * es-hangul's `romanize`, loaded on first use (session 60): importing core no longer loads
 * es-hangul; a process loads it when a query first keys a Hangul term.
 */
function romanizeHangul(hangul: string): string {
  romanize ??= (requireFromHere("es-hangul") as typeof import("es-hangul")).romanize;
  return romanize(hangul);
}

/** The script of a term that has cross-script keys. */
export type TermScript = "latin" | "hangul";

/** A term's script and its keys (see the module comment); `undefined` for any other term. */
export interface CrossScriptKeys {
  script: TermScript;
  keys: readonly string[];
}

const LATIN_TERM = /^[a-z]{2,}$/;
const HANGUL_TERM = /^[\uac00-\ud7a3]{2,}$/;

/** The Korean names of the Latin letters, as an acronym is read (`KT` -> `케이티`). */
const LETTER_NAMES: Readonly<Record<string, string>> = {
  a: "에이",
  b: "비",
  c: "씨",
  d: "디",
  e: "이",
  f: "에프",
  g: "지",
  h: "에이치",
  i: "아이",
  j: "제이",
  k: "케이",
  l: "엘",
  m: "엠",
  n: "엔",
  o: "오",
  p: "피",
  q: "큐",
  r: "알",
  s: "에스",
  t: "티",
  u: "유",
  v: "브이",
  w: "더블유",
  x: "엑스",
  y: "와이",
  z: "제트",
};

/** Longest acronym spelled by its letters' names (letters). */
const MAX_ACRONYM_LETTERS = 5;

/** The consonant class of each Latin letter (vowels, `h`, `w`, `y`: none). */
const CONSONANT_CLASS: Readonly<Record<string, string>> = {
  p: "P",
  b: "P",
  f: "P",
  v: "P",
  t: "T",
  d: "T",
  k: "K",
  g: "K",
  c: "K",
  q: "K",
  s: "S",
  z: "S",
  j: "S",
  l: "L",
  r: "L",
  m: "M",
  n: "N",
};

/**
 * The consonant skeleton of a Latin string (see the module comment): `netflix` -> `NTPLKS`,
 * `slack` -> `SLK`, `pigeuma` (`피그마`) -> `PKM`.
 */
export function consonantSkeleton(latin: string): string {
  const w = skeletonLetters(latin);
  let out = "";
  for (const letter of w) {
    const c = CONSONANT_CLASS[letter];
    if (c !== undefined && !out.endsWith(c)) out += c;
  }
  return out;
}

/**
 * English letters left unsaid, which a Hangul loan spelling leaves out (session 60): a `p` between
 * `m` and `t`/`s` (`Brompton` -> `브롬톤`, `Simpson` -> `심슨`), initial `kn`/`gn`/`pn`/`ps`/`wr`
 * (`knife` -> `나이프`), a final `mb` (`climb` -> `클라임`), an `l` after `a`/`o` before `k`/`m`
 * (`talk` -> `토크`, `palm` -> `팜`), the `t` of `-stle`/`-sten` (`castle` -> `캐슬`). The word without
 * them gives a second key; the written letters keep theirs (`Hampton` is also `햄프턴`).
 */
function withoutSilentLetters(latin: string): string {
  return latin
    .replace(/^(?:k|g|p)(?=n)|^p(?=s)|^w(?=r)/, "")
    .replace(/(?<=m)b$/, "")
    .replace(/(?<=m)p(?=[ts])/g, "")
    .replace(/(?<=[ao])l(?=[km])/g, "")
    .replace(/(?<=s)t(?=le?$|en$)/, "");
}

/** The Korean vowels (romanized) a Latin vowel group may be spelled with, by its first letters. */
function latinVowelClasses(group: string): readonly string[] {
  if (group.startsWith("au") || group.startsWith("aw")) return ["o", "a"];
  if (group.startsWith("a")) return ["a", "ae", "e"];
  if (group.startsWith("ea") || group.startsWith("ee")) return ["i", "e"];
  if (group.startsWith("e")) return ["e", "i", "eo"];
  if (group.startsWith("i") || group.startsWith("y")) return ["i", "a"];
  if (group.startsWith("oo") || group.startsWith("ou")) return ["u", "a", "o"];
  if (group.startsWith("o")) return ["o", "a", "eo"];
  return ["eo", "u", "yu"];
}

/** Romanized Korean vowels, longest first, as each is classed (a glide `w`/`y` kept where Korean keeps it apart). */
const KOREAN_VOWELS: ReadonlyArray<[string, string]> = [
  ["yeo", "eo"],
  ["wae", "ae"],
  ["yu", "yu"],
  ["yo", "o"],
  ["ya", "a"],
  ["ye", "e"],
  ["wa", "a"],
  ["wo", "eo"],
  ["wi", "i"],
  ["we", "e"],
  ["oe", "e"],
  ["ui", "i"],
  ["ae", "ae"],
  ["eo", "eo"],
  ["a", "a"],
  ["e", "e"],
  ["i", "i"],
  ["o", "o"],
  ["u", "u"],
];

/**
 * The vowel groups of a string read for its skeleton, after its first consonant (of
 * {@link CONSONANT_CLASS}): `airpod` -> `["o"]`, `eeopat` -> `["a"]`.
 */
function vowelGroupsAfterFirstConsonant(w: string): string[] {
  const first = [...w].findIndex((letter) => CONSONANT_CLASS[letter] !== undefined);
  if (first < 0) return [];
  return w.slice(first + 1).match(/[aeiouyw]+/g) ?? [];
}

/**
 * The vowel part of a two-consonant skeleton's key (session 60): whether the word starts with a
 * vowel (`V`, a glide `y`/`w` too) or a consonant (`C`), whether it ends with one, and the first
 * vowel after its first consonant: a Hangul term's as romanized (an epenthetic `eu`, which Korean
 * puts between consonants English writes together, skipped: `peuro` -> `o`), a Latin term's as
 * each Korean vowel its letters are spelled with. So `바다` (`bada`: ends in a vowel) and `bad` no
 * longer meet, nor `처음` (`eo`) and `zoom` (`oo`: `u`, `a`, `o`), nor `시험` and `zoom`, nor `받으`
 * and `pt` (no vowel: an acronym, spelled); `unity`/`유니티`, `airpod`/`에어팟`, `meet`/`미팅` do.
 */
function vowelTags(w: string, script: TermScript): string[] {
  // Korean ends a loan word's final consonant with an epenthetic `eu` (`드`, `크`), or `i` after
  // `j` (`브리지`, `페이지`): the word still ends as its consonant.
  const end = script === "hangul" ? w.replace(/eu$/, "").replace(/(?<=j)i$/, "") : w;
  const initial = `${/^[aeiouyw]/.test(w) ? "V" : "C"}${/[aeiouy]$/.test(end) ? "V" : "C"}`;
  const groups = vowelGroupsAfterFirstConsonant(w);
  if (script === "latin") {
    const group = groups[0];
    return group === undefined ? [`${initial}`] : latinVowelClasses(group).map((vowel) => `${initial}${vowel}`);
  }
  const group = groups.find((g) => g !== "eu");
  if (group === undefined) return [`${initial}`];
  const vowel = KOREAN_VOWELS.find(([spelled]) => group.startsWith(spelled))?.[1] ?? group;
  return [`${initial}${vowel}`];
}

/** The letters {@link consonantSkeleton} reads, after its spelling rules (`netflix` -> `netfliks`). */
function skeletonLetters(latin: string): string {
  return (
    latin
      .toLowerCase()
      .replace(/[^a-z]/g, "")
      .replace(/ph/g, "p")
      .replace(/th/g, "t")
      .replace(/ck/g, "k")
      .replace(/gh/g, "")
      .replace(/tch|ch|sh/g, "s")
      .replace(/x/g, "ks")
      .replace(/c(?=[eiy])/g, "s")
      // Korean spelling keeps an English `r` only before a vowel (`airpods` -> `에어팟`).
      .replace(/r(?![aeiouy])/g, "")
  );
}

/**
 * The `sound:` keys of a Latin string (a Latin term, or a Hangul term romanized): its skeleton; a
 * skeleton of two consonants also carries {@link vowelTags}, since two consonants alone pair
 * unrelated words (`바다`/`bad`, `처음`/`zoom`: session 60); fewer than two give no key.
 */
function soundKeys(latin: string, script: TermScript, out: string[]): void {
  const sound = consonantSkeleton(latin);
  if (sound.length < 2) return;
  if (sound.length > 2) {
    out.push(`sound:${sound}`);
    return;
  }
  for (const tag of vowelTags(skeletonLetters(latin), script)) out.push(`sound:${sound}/${tag}`);
}

/** Most terms whose keys {@link crossScriptKeys} keeps; past it the oldest go first. */
const KEYS_MEMO_ENTRIES = 50_000;
// By the term's text: its keys are a pure function of it (and of es-hangul's fixed tables).
const keysMemo = new Map<string, CrossScriptKeys | undefined>();

/**
 * The cross-script keys of one term as `tokenize` writes it (lowercase Latin, a Hangul stem): a
 * Latin term of two or more letters, or a Hangul term of two or more syllables; `undefined` for
 * any other (digits, one letter or syllable, mixed). A skeleton of fewer than two consonants is
 * no key (`iphone` -> `PN` is one, `ai` none). Pure; memoized by the term.
 *
 * @example
 * crossScriptKeys("netflix"); // { script: "latin", keys: ["sound:NTPLKS"] }
 * crossScriptKeys("넷플릭스"); // { script: "hangul", keys: ["sound:NTPLKS", "spell:넷플릭스"] }
 * crossScriptKeys("pt"); // { script: "latin", keys: ["sound:PT", "spell:피티"] }
 */
export function crossScriptKeys(term: string): CrossScriptKeys | undefined {
  if (keysMemo.has(term)) return keysMemo.get(term);
  const keys = keysOf(term);
  if (term.length <= 40) setBounded(keysMemo, term, keys, KEYS_MEMO_ENTRIES);
  return keys;
}

function keysOf(term: string): CrossScriptKeys | undefined {
  if (LATIN_TERM.test(term)) {
    const keys: string[] = [];
    // A word without a vowel is an acronym, read by its letters' names (the `spell:` key), never as a sound.
    if (/[aeiouy]/.test(term)) {
      soundKeys(term, "latin", keys);
      const said = withoutSilentLetters(term);
      if (said !== term) soundKeys(said, "latin", keys);
    }
    if (term.length <= MAX_ACRONYM_LETTERS) keys.push(`spell:${[...term].map((letter) => LETTER_NAMES[letter]).join("")}`);
    return keys.length === 0 ? undefined : { script: "latin", keys: [...new Set(keys)] };
  }
  if (HANGUL_TERM.test(term)) {
    const keys: string[] = [];
    const romanized = romanizeHangul(term);
    soundKeys(romanized, "hangul", keys);
    // English `-ing` is stemmed off (`meeting` -> `meet`), a Hangul loan keeps it (`미팅`, `마케팅`):
    // the Hangul word without it gives a key too (session 60).
    if (term.length > 1 && romanized.endsWith("ing")) soundKeys(romanized.slice(0, -3), "hangul", keys);
    keys.push(`spell:${term}`);
    return { script: "hangul", keys: [...new Set(keys)] };
  }
  return undefined;
}
