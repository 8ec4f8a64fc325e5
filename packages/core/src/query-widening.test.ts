import { describe, expect, it } from "vitest";
import { QueryWidening, RELATED_WORD_WEIGHT } from "./query-widening.js";
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
    expect(widening.widen(tokenize("Brompton torunament"))).toEqual({ crossed: new Set(), near: new Set(), related: new Set() });
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

describe("QueryWidening: related words, only when asked (session 61, lex61)", () => {
  const related = (widening: QueryWidening, question: string, holds?: (term: string) => boolean) => [
    ...widening.widen(tokenize(question), holds, { related: true }).related,
  ];

  it("meets the noted words of the same meaning or a kind of an unheld English query term, in code-unit order, in English and Korean questions", () => {
    const widening = new QueryWidening();
    widening.note(tokenize("my parakeet, some sweet tea, the vacuum scared him"));
    widening.note(tokenize("우리 집 cockatiel 이름은 피클스예요"));
    expect(related(widening, "what bird is it?")).toEqual(["cockatiel", "parakeet"]);
    expect(related(widening, "무슨 bird 키워요?")).toEqual(["cockatiel", "parakeet"]);
    expect(related(widening, "which beverage?")).toEqual(["tea"]);
    // tokenize stems `scared` to `scar`, as it does the message.
    expect(related(widening, "what frightens him?")).toEqual(["scar"]);
    // Not asked: none, whatever the query.
    expect([...widening.widen(tokenize("what bird is it?")).related]).toEqual([]);
    expect(RELATED_WORD_WEIGHT).toBeLessThan(1);
  });

  it("a held query term, a more general word, a Hangul word or a query's own term does not widen", () => {
    const widening = new QueryWidening();
    widening.note(tokenize("a bird and a cockatiel"));
    widening.note(tokenize("새가 베란다에 앉았어요"));
    expect(related(widening, "the bird")).toEqual([]);
    // Held or not is the index's answer: a discarded message's term is not held.
    expect(related(widening, "the bird", (term) => term !== "bird")).toEqual(["cockatiel"]);
    expect(related(widening, "bird cockatiel", () => false)).toEqual([]);
    expect(related(widening, "my parrot?", () => false)).toEqual(["cockatiel"]);
    expect(related(widening, "앵무새", () => false)).toEqual([]);
  });

  it("asks holds only of the query terms the lexicon knows, once per term", () => {
    const widening = new QueryWidening();
    widening.note(tokenize("the cockatiel whistles"));
    const asked: string[] = [];
    related(widening, "what bird did the man buy, 새 bird xyzzy", (term) => {
      asked.push(term);
      return widening.has(term);
    });
    expect(asked.sort()).toEqual(["bird", "buy", "man"]);
  });

  it("forgets with forget and clear, and meets a word noted again", () => {
    const widening = new QueryWidening();
    widening.note(tokenize("the cockatiel and the parakeet"));
    widening.forget("cockatiel");
    expect(related(widening, "bird")).toEqual(["parakeet"]);
    widening.clear();
    expect(related(widening, "bird")).toEqual([]);
    widening.note(["cockatiel"]);
    expect(related(widening, "bird")).toEqual(["cockatiel"]);
  });
});
