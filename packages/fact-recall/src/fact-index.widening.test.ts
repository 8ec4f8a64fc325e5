import { describe, expect, it } from "vitest";
import { createFactIndex } from "./fact-index.js";
import type { Fact } from "./fact-store.js";
import { userFact } from "./test-support.js";

const fact = (key: string, text: string, attribute = "belonging", language: "en" | "ko" = "en"): Fact =>
  userFact(key, text, attribute, language);

describe("fact recall meets what recall's message index meets: the other script, near spellings (session 61)", () => {
  const facts = [
    fact("user|belonging|bike", "User bought a Brompton bike for 800,000 won"),
    fact("user|pet", "User has a cat named Nabi", "pet"),
    fact("user|event|tournament", "User won the chess tournament last spring", "event"),
    fact("user|belonging|넷플릭스", "넷플릭스 구독 중이야", "belonging", "ko"),
  ];

  it("a Korean question's 브롬톤 finds the fact that wrote Brompton; an English question's netflix the fact that wrote 넷플릭스", () => {
    const index = createFactIndex(facts);
    expect(index.search("브롬톤 얼마였지?", 1).map((r) => r.fact.key)).toEqual(["user|belonging|bike"]);
    expect(index.search("do I have netflix?", 1).map((r) => r.fact.key)).toEqual(["user|belonging|넷플릭스"]);
  });

  it("a typo of a long word no fact holds meets the fact's word (torunament), not a word a fact holds", () => {
    const index = createFactIndex(facts);
    expect(index.search("that torunament?", 1).map((r) => r.fact.key)).toEqual(["user|event|tournament"]);
  });

  it("an index kept in step ranks the widened terms bit for bit as one built afresh", () => {
    const index = createFactIndex(facts.slice(0, 2));
    index.sync(facts);
    index.sync([...facts].reverse());
    const fresh = createFactIndex([...facts].reverse());
    for (const question of ["브롬톤 얼마였지?", "do I have netflix?", "which torunament did I win?"]) {
      expect(index.search(question, 4)).toEqual(fresh.search(question, 4));
    }
    // A fact removed takes its terms out of what a query meets.
    index.sync(facts.slice(1));
    expect(index.search("브롬톤", 3)).toEqual([]);
  });
});

describe("the attribute keywords, written in both languages, are no cross-script candidates (session 61)", () => {
  it("an English question's word does not meet a Korean attribute keyword by its sound (changed / 예정), a Korean question's does meet a fact's text", () => {
    const plan = fact("user|plan", "Dan will run a marathon in May", "plan");
    const index = createFactIndex([plan, fact("user|pet", "Dan has a cat named Nabi", "pet")]);
    // `chang` shares `sound:SNK` with the plan keywords' `예정` (yejeong): no fact says `changed`.
    expect(index.search("what changed?", 2)).toEqual([]);
    // A fact's own text still meets across scripts (`마라톤` is `marathon`).
    expect(index.search("마라톤 언제야?", 1).map((r) => r.fact.key)).toEqual(["user|plan"]);
  });
});

describe("fact recall meets an English word of the same meaning or a kind of it, as recall's message index (session 61, lex61)", () => {
  const facts = [
    fact("user|pet|pickles", "User has a cockatiel named Pickles", "pet"),
    fact("user|drink", "User quit sweet tea on the doctor's advice", "preference"),
    fact("user|belonging|bike", "User bought a Brompton bike", "belonging"),
    fact("user|pet|콩이", "우리 집 cockatiel 이름은 콩이", "pet", "ko"),
  ];

  it("English and Korean questions: `bird` finds the cockatiel facts, `beverage` the tea fact; a word a fact holds does not widen", () => {
    const index = createFactIndex(facts);
    expect(new Set(index.search("what bird does the user have?", 2).map((r) => r.fact.key))).toEqual(
      new Set(["user|pet|pickles", "user|pet|콩이"]),
    );
    expect(index.search("which beverage did the doctor ban?", 1).map((r) => r.fact.key)).toEqual(["user|drink"]);
    expect(index.search("무슨 bird 키워?", 2).map((r) => r.fact.key)).toContain("user|pet|콩이");
    const held = createFactIndex([...facts, fact("user|event|bird", "User saw a bird at the lake", "event")]);
    expect(held.search("the bird", 5).map((r) => r.fact.key)).toEqual(["user|event|bird"]);
  });
});
