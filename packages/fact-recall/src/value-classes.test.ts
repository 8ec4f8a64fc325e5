import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * What a fact's value holds, by grammar class (quality session, 4 December 2026): English values
 * end before a time, a companion, a clause or a purpose said after them; Korean values are never
 * an adverb, a predicate or a verb in a connective form, and a sentence keeps its topic across its
 * connectives. The sentences are written for these tests: none is taken from a labelled bench set.
 */
const facts = (text: string) =>
  extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}${f.ended ? " (ended)" : ""}`);
const value = (text: string, pair: string) => extractFactsHeuristic(text).find((f) => `${f.subject}:${f.attribute}` === pair)?.value;

describe("English: a value ends before a time said after it", () => {
  it.each([
    ["I moved to Lisbon last summer.", "user:residence", "Lisbon"],
    ["I've been living in Leeds for about four years.", "user:residence", "Leeds"],
    ["I moved here from Manila two years ago.", "user:hometown", "Manila"],
    ["I work at a law firm since 2020.", "user:work", "law firm"],
    ["I've been working as a paramedic for a decade now.", "user:work", "paramedic"],
    ["I'm going to visit Hanoi in October.", "user:plan", "visit Hanoi"],
    ["I adopted a kitten named Miso on Sunday.", "user:pet", "kitten named Miso"],
    ["I play the drums every Friday.", "user:hobby", "drums"],
  ])("%s", (text, pair, expected) => expect(value(text, pair), facts(text).join(", ")).toBe(expected));
});

describe("English: a value ends before a companion, a clause or a purpose", () => {
  it.each([
    ["I live in Perth with my two brothers.", "user:residence", "Perth"],
    ["My aunt lives in Cork with her partner.", "user's aunt:residence", "Cork"],
    ["I went to Kyoto with my in-laws.", "user:event", "went to Kyoto"],
    ["I moved to Oslo after I finished school.", "user:residence", "Oslo"],
    ["We're going to Crete for our honeymoon.", "user:plan", "Crete"],
    ["I moved to Austin for work.", "user:residence", "Austin"],
    ["I moved back to Dublin from Madrid.", "user:residence", "Dublin"],
  ])("%s", (text, pair, expected) => expect(value(text, pair), facts(text).join(", ")).toBe(expected));

  it("a workplace without its article, place or job after it; a job without the place", () => {
    expect(value("I work for a nonprofit in Denver as an accountant.", "user:work")).toBe("nonprofit");
    expect(value("My uncle works as a mechanic in Ohio.", "user's uncle:work")).toBe("mechanic");
  });

  it("keeps what is not a time or a companion: an instrument, a place a verb needs, a value that starts with a preposition", () => {
    expect(value("I love painting with oils.", "user:likes")).toBe("painting with oils");
    expect(value("I love living in the countryside.", "user:likes")).toBe("living in the countryside");
    expect(value("I signed up for a pottery class.", "user:event")).toBe("signed up for a pottery class");
  });

  it("the fact's text keeps the words the value leaves out", () => {
    const [fact] = extractFactsHeuristic("I went to Kyoto with my in-laws last spring.");
    expect(fact?.value).toBe("went to Kyoto");
    expect(fact?.text).toContain("with User's in-laws last spring");
  });

  it("two trips to one place stay two facts (an event's key is what was said)", () => {
    const [a] = extractFactsHeuristic("I went to Kyoto with my in-laws.");
    const [b] = extractFactsHeuristic("I went to Kyoto last spring.");
    expect(a?.value).toBe(b?.value);
    expect(a?.keyValue).not.toBe(b?.keyValue);
  });
});

describe("English: degree adverbs after `am`, a school named after `graduated from`", () => {
  it.each([
    ["I'm really into bouldering.", "user:likes", "bouldering"],
    ["I'm so interested in astronomy.", "user:likes", "astronomy"],
    ["I graduated from Yale in 2012.", "user:school", "Yale"],
    ["I graduated from the University of Toronto.", "user:school", "the University of Toronto"],
  ])("%s", (text, pair, expected) => expect(value(text, pair), facts(text).join(", ")).toBe(expected));
});

describe("Korean: an adverb is never a value (a dropped particle leaves the adverb next to the verb)", () => {
  it.each([
    ["필라테스 학원 벌써 다니는 중이야", "user:hobby"],
    ["수영장 아직 다니고 있어요", "user:hobby"],
  ])("%s gives no adverb", (text, pair) => expect(value(text, pair) ?? "", facts(text).join(", ")).not.toMatch(/^(?:벌써|아직)$/));

  it("a comparative adverb before 좋아하다 leaves the object as the value", () => {
    expect(value("난 산보다 바다를 더 좋아해", "user:likes")).toBe("바다");
    expect(value("저는 홍차를 훨씬 좋아하는데 동생은 커피파예요", "user:likes")).toBe("홍차");
  });

  it("a bound noun keeps its modifier (`단 거`, `매운 거`)", () => {
    expect(value("나 짠 거 좋아해", "user:likes")).toBe("짠 거");
    expect(value("저 매운 거 못 먹어요", "user:constraint")).toContain("매운 거");
  });
});

describe("Korean: predicates, passives and reason clauses are no value", () => {
  it("`차는 없어요` states no car", () => {
    expect(facts("차는 없어요 그래서 버스 타요")).not.toContain("user:belonging=차 없어");
  });

  it("the passive 먹히다 (`약이 안 먹혀요`: it does not work) is no food constraint", () => {
    expect(facts("이 설정이 안 먹혀요")).toEqual([]);
    expect(value("저 오이 안 먹어요", "user:constraint")).toContain("오이");
  });

  it("a reason clause between the food and 못 먹다 leaves the food as the value", () => {
    expect(value("난 굴 비려서 못먹음", "user:constraint")).toContain("굴");
  });

  it("a kind of housing is no home (`원룸 살아`), a named place is", () => {
    expect(value("학교 앞 원룸 살아서 걸어다녀", "user:residence")).toBeUndefined();
    expect(value("나 부천 살아", "user:residence")).toBe("부천");
  });
});

describe("Korean: who a clause is about", () => {
  it("`-다며/-다면서` confirms what the listener said: no fact of the speaker's", () => {
    expect(facts("너 요즘 허리 아프다며")).toEqual([]);
    expect(facts("삼촌 다음 달에 이사한다면서?")).toEqual([]);
  });

  it("a sentence keeps the relative its first clause is about across its connectives", () => {
    expect(facts("우리 형은 작년에 결혼해서 지금 대구 살아")).toContain("user's 형:residence=대구");
    expect(facts("엄마는 간호사인데 지금 광주 사셔")).toEqual(["user's 엄마:work=간호사", "user's 엄마:residence=광주"]);
  });

  it("the speaker named in a later clause takes it back, and a new sentence starts afresh", () => {
    expect(facts("누나는 디자이너인데 나는 개발자야")).toEqual(["user's 누나:work=디자이너", "user:work=개발자"]);
    expect(facts("동생은 대학생이에요. 저는 인천 살아요")).toContain("user:residence=인천");
  });

  it("a place before a shift or a capacity with 일하다 is the workplace; a job named there joins it in one fact", () => {
    expect(value("공장에서 주간조로 일하고 있어요", "user:work")).toBe("공장");
    expect(facts("약국에서 약사로 일해요")).toEqual(["user:work=약국 약사"]);
  });

  it("`-려고요` alone is an intention only with a time (a request in passing is none)", () => {
    expect(facts("택배 문의 좀 하려고요")).toEqual([]);
    expect(value("다음 주에 치과 가려고요", "user:plan")).toContain("치과");
  });
});

describe("English: `I'm <verb>ing` is an activity only for a verb of doing, and a plan with a plan's verb or a time to come", () => {
  it.each([
    ["I'm planning a trip to Japan.", "user:plan", "trip to Japan"],
    ["I'm planning my sister's wedding.", "user:plan", "sister's wedding"],
    ["I'm preparing for the bar exam.", "user:plan", "bar exam"],
    ["I'm running a half marathon next month.", "user:plan", "running a half marathon"],
    ["I'm flying to Lima tomorrow.", "user:plan", "flying to Lima"],
    ["We're planning a road trip to Quebec.", "user:plan", "road trip to Quebec"],
  ])("%s", (text, pair, expected) => {
    expect(value(text, pair), facts(text).join(", ")).toContain(expected);
    expect(
      facts(text).some((f) => f.startsWith("user:hobby")),
      facts(text).join(", "),
    ).toBe(false);
  });

  it.each(["I'm waiting for the bus.", "I'm leaving now.", "I'm heading home.", "I'm considering it.", "I'm hoping for sunshine."])(
    "%s: a verb of intention, waiting or leaving is no hobby",
    (text) =>
      expect(
        facts(text).some((f) => f.startsWith("user:hobby")),
        facts(text).join(", "),
      ).toBe(false),
  );

  it.each([
    ["I've been learning the guitar.", "guitar"],
    ["I'm learning to play the cello.", "cello"],
    ["I have been practicing karate for a year.", "karate"],
    ["I've taken up pottery this year.", "pottery"],
    ["I have also started learning how to play the banjo.", "banjo"],
  ])("%s: what is learned or practiced is the hobby", (text, expected) =>
    expect(value(text, "user:hobby"), facts(text).join(", ")).toBe(expected),
  );

  it("`next` before anything but a time sets none, and an amount is no activity", () => {
    expect(facts("I'm using it to plan my next adventure.")).toEqual([]);
    expect(facts("I'm learning a ton from her.")).toEqual([]);
  });

  it("an activity done these days is still one (`I've been painting a lot`)", () => {
    expect(value("I've been painting a lot lately.", "user:hobby")).toBe("painting");
    expect(value("I'm planning to sell my car.", "user:plan")).toBe("sell my car");
    expect(value("We are planning to marry.", "user:plan")).toBe("marry");
  });
});

describe("English: `my hobby is <activity>` names a hobby of the speaker or of the relative named; `I hate <verb>ing` a dislike", () => {
  const all = (text: string, pair: string) =>
    extractFactsHeuristic(text)
      .filter((f) => `${f.subject}:${f.attribute}` === pair)
      .map((f) => f.value);

  it.each([
    ["My hobby is taking photos.", "user:hobby", ["taking photos"]],
    ["My main hobby is gardening these days.", "user:hobby", ["gardening"]],
    ["My hobbies are hiking and baking bread.", "user:hobby", ["hiking", "baking bread"]],
    ["My sister's hobby is knitting.", "user's sister:hobby", ["knitting"]],
    ["I hate drinking.", "user:dislikes", ["drinking"]],
    ["I can't stand running in the rain.", "user:dislikes", ["running"]],
  ])("%s", (text, pair, expected) => expect(all(text, pair), facts(text).join(", ")).toEqual(expected));

  it.each([
    // Past, negated, asked, wished, or someone else's.
    "My hobby was painting.",
    "My hobby isn't photography.",
    "Is my hobby weird?",
    "If my hobby were sailing I'd live by the sea.",
    "His hobby is golf.",
    "I hated drinking back then.",
    "She hates drinking.",
  ])("%s: no hobby or dislike of the speaker's", (text) =>
    expect(
      facts(text).filter((f) => /^user:(?:hobby|dislikes)/.test(f)),
      facts(text).join(", "),
    ).toEqual([]),
  );
});
