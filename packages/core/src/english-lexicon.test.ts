import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { LEXICON_DEPTH, lexiconKeys, lexiconMembers, lexiconSenses } from "./english-lexicon.js";
import { tokenize } from "./text-analysis.js";

const term = (word: string) => tokenize(word)[0] as string;
const meets = (query: string, indexed: string) => {
  const keys = new Set(lexiconKeys(term(indexed)));
  return lexiconSenses(term(query)).some((sense) => keys.has(sense));
};

describe("english lexicon: a word meets its synonyms and its kinds (WordNet 3.1 extract, session 61)", () => {
  it("meets a synonym in either direction and a kind up to LEXICON_DEPTH steps below", () => {
    expect(meets("frighten", "scared")).toBe(true);
    expect(meets("scare", "frightened")).toBe(true);
    expect(meets("beverage", "tea")).toBe(true);
    expect(meets("car", "minivan")).toBe(true);
    expect(meets("bird", "cockatiel")).toBe(true);
    expect(LEXICON_DEPTH).toBe(2);
  });

  it("does not meet a more general word, an unrelated word, or a word the extract lacks", () => {
    expect(meets("cockatiel", "bird")).toBe(false);
    expect(meets("bird", "fence")).toBe(false);
    expect(lexiconSenses("xenoblad")).toEqual([]);
    expect(lexiconSenses("새")).toEqual([]);
    expect(lexiconKeys("새")).toEqual([]);
  });

  it("never gathers kinds under a synset close to WordNet's root (`object`, `act`)", () => {
    // `thing` and `object` are too general: a question's `thing` meets no `cockatiel`.
    expect(meets("object", "cockatiel")).toBe(false);
    expect(meets("entity", "minivan")).toBe(false);
  });
});

describe("lexiconMembers: lexiconKeys inverted (session 61, lex61)", () => {
  it("a sense's members are exactly the words with it among their keys, over every word of the extract", () => {
    const lines = readFileSync(new URL("../data/english-lexicon.txt", import.meta.url), "utf8").split("\n");
    const words = lines.slice(lines.findIndex((line) => line.startsWith("# Words")) + 1).filter((line) => line !== "");
    const senses = new Set<number>();
    const missing: string[] = [];
    for (const line of words) {
      const word = line.slice(0, line.indexOf(" "));
      for (const key of lexiconKeys(word)) {
        senses.add(key);
        if (!lexiconMembers(key).includes(word)) missing.push(`${word} not under ${key}`);
      }
    }
    const extra: string[] = [];
    for (const sense of senses)
      for (const word of lexiconMembers(sense)) if (!lexiconKeys(word).includes(sense)) extra.push(`${word} under ${sense}`);
    expect(words.length).toBeGreaterThan(50_000);
    expect(missing.slice(0, 5)).toEqual([]);
    expect(extra.slice(0, 5)).toEqual([]);
  });

  it("gives the kinds of a query's sense in code-unit order, and nothing for a synset out of range", () => {
    const [bird] = lexiconSenses("bird");
    const members = lexiconMembers(bird as number);
    expect(members).toContain("cockatiel");
    expect(members).toContain("parrot");
    expect(members).not.toContain("fence");
    expect([...members].sort()).toEqual(members);
    expect(lexiconMembers(-1)).toEqual([]);
    expect(lexiconMembers(10_000_000)).toEqual([]);
  });
});
