import { describe, expect, it } from "vitest";
import { QueryWidening } from "./query-widening.js";
import { tokenize } from "./text-analysis.js";

describe("QueryWidening: the terms a query also meets, one copy for every index (session 61)", () => {
  it("meets the other script's terms and near spellings of what it noted, and forgets what it is told to", () => {
    const widening = new QueryWidening();
    widening.note(tokenize("브롬톤 자전거 샀어"));
    widening.note(tokenize("the chess tournament"));
    expect([...widening.widen(tokenize("Brompton")).crossed]).toEqual(["브롬톤"]);
    expect([...widening.widen(tokenize("torunament")).near]).toEqual(["tournament"]);
    // A query term a document holds is no typo.
    expect([...widening.widen(["tournament"]).near]).toEqual([]);
    widening.forget("브롬톤");
    widening.forget("tournament");
    expect(widening.widen(tokenize("Brompton torunament"))).toEqual({ crossed: new Set(), near: new Set() });
    widening.note(["브롬톤"]);
    expect([...widening.widen(tokenize("Brompton")).crossed]).toEqual(["브롬톤"]);
  });
});

describe("near spellings of a common word are other words (session 61)", () => {
  it("does not widen a common English query word to the real word one edit away, in an English or a Korean question", () => {
    const widening = new QueryWidening();
    widening.note(tokenize("protect the county, don't bother, a trough of water, the chess tournament"));
    for (const question of [
      "my project?",
      "which country?",
      "my brother?",
      "went through it?",
      "brother 선물 뭐 샀지?",
      "project 마감 언제야?",
    ]) {
      expect([question, [...widening.widen(tokenize(question)).near]]).toEqual([question, []]);
    }
    expect([...widening.widen(tokenize("torunament 어디서 했지?")).near]).toEqual(["tournament"]);
  });
});
