import { describe, expect, it } from "vitest";
import { isCommonEnglishTerm, nearSpelling } from "./near-spelling.js";
import { stemEnglish } from "./text-analysis.js";

describe("nearSpelling: one typo apart (session 60)", () => {
  it("is true for one letter inserted, dropped, replaced, or two neighbours swapped", () => {
    expect(nearSpelling("funraiser", "fundraiser")).toBe(true);
    expect(nearSpelling("fundraiser", "funraiser")).toBe(true);
    expect(nearSpelling("torunament", "tournament")).toBe(true);
    expect(nearSpelling("imposter", "impostor")).toBe(true);
    expect(nearSpelling("xenoblad", "xeonoblad")).toBe(true);
  });

  it("is false for equal terms, two edits, or lengths two apart", () => {
    expect(nearSpelling("tournament", "tournament")).toBe(false);
    expect(nearSpelling("external", "eternity")).toBe(false);
    expect(nearSpelling("practice", "practicing")).toBe(false);
    expect(nearSpelling("abcdef", "badcef")).toBe(false);
    expect(nearSpelling("", "ab")).toBe(false);
  });
});

describe("a common English word is no typo (session 61)", () => {
  it("reads common words as meant and rare words and misspellings as possible typos", () => {
    for (const word of ["project", "country", "brother", "through", "eternal", "response", "employer"]) {
      expect([word, isCommonEnglishTerm(stemEnglish(word))]).toEqual([word, true]);
    }
    for (const word of ["torunament", "funraiser", "xenoblade", "imposter", "himalayan"]) {
      expect([word, isCommonEnglishTerm(stemEnglish(word))]).toEqual([word, false]);
    }
  });
});
