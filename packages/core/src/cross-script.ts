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
import { romanize } from "es-hangul";
import { setBounded } from "./bounded-map.js";

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
  const w = latin
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
    .replace(/r(?![aeiouy])/g, "");
  let out = "";
  for (const letter of w) {
    const c = CONSONANT_CLASS[letter];
    if (c !== undefined && !out.endsWith(c)) out += c;
  }
  return out;
}

/** Most terms whose keys {@link crossScriptKeys} keeps; past it the oldest go first. */
const KEYS_MEMO_ENTRIES = 50_000;
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
    const sound = consonantSkeleton(term);
    if (sound.length >= 2) keys.push(`sound:${sound}`);
    if (term.length <= MAX_ACRONYM_LETTERS) keys.push(`spell:${[...term].map((letter) => LETTER_NAMES[letter]).join("")}`);
    return keys.length === 0 ? undefined : { script: "latin", keys };
  }
  if (HANGUL_TERM.test(term)) {
    const keys: string[] = [];
    const sound = consonantSkeleton(romanize(term));
    if (sound.length >= 2) keys.push(`sound:${sound}`);
    keys.push(`spell:${term}`);
    return { script: "hangul", keys };
  }
  return undefined;
}
