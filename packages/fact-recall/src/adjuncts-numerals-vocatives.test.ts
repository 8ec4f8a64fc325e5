import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { expectFact, expectNo, pairs } from "./test-support.js";

/**
 * Four extraction classes fixed by factfix33 (session 53), found by kore33: an English value before
 * a time adjunct kept the adjunct's preposition (`Busan for`); the Korean numeral `네` before a
 * counter was read as the yes-word and gave no age; a pet named with `이름이` after the clause that
 * names it gave no fact; a vocative opening a sentence was read into a plan. The sentences are
 * written for these tests: none is taken from a bench set.
 */

describe("an English value before a time adjunct keeps none of it", () => {
  it.each([
    ["I've lived in Busan for 10 years", "user:residence=Busan"],
    ["I moved to Incheon for 2 years", "user:residence=Incheon"],
    ["My sister has lived in Daegu for 5 years", "user's sister:residence=Daegu"],
    ["I've lived in New York City for 3 years now", "user:residence=New York City"],
    ["I have been living in Lyon for the past 4 years", "user:residence=Lyon"],
    ["I've lived in Austin over the last two years", "user:residence=Austin"],
    ["I have lived in Porto since 2019", "user:residence=Porto"],
    ["I live in Osaka until March", "user:residence=Osaka"],
    ["I've lived in Hanoi for a while", "user:residence=Hanoi"],
    ["I live in Quito these days", "user:residence=Quito"],
    ["I've been working at Kakao for 3 years", "user:work=Kakao"],
    ["I go to Yonsei University until March", "user:school=Yonsei University"],
    ["I've been playing tennis for 10 years", "user:hobby=tennis"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it("keeps the adjunct out of the text too, not its preposition alone", () => {
    const [fact] = extractFactsHeuristic("I've lived in Busan for 10 years");
    expect(fact?.text).toBe("User lives in Busan");
  });
});

describe("a native numeral before a counter is a number, not the yes-word", () => {
  it.each([
    ["우리 딸은 네 살이에요", "user's 딸:age=네"],
    ["우리 아들은 네살이야", "user's 아들:age=네"],
    ["막내는 네 살이에요", "user's 막내:age=네"],
    ["우리 딸은 세 살이에요", "user's 딸:age=세"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([["네, 살게요"], ["네 살게요"], ["네, 서울 살게요"]])("%s states no age", (text) => expectNo(text, "user:age"));

  it("still reads 네 before a statement as the yes-word", () => {
    expectFact("네, 서울 살아요", "user:residence=서울");
    expectFact("네 저는 간호사예요", "user:work=간호사");
  });
});

describe("a pet named with 이름이 after the clause that names it", () => {
  it.each([
    ["강아지 키우는데 이름이 초코예요", "user:pet=강아지 초코"],
    ["고양이를 키우는데 이름이 보리야", "user:pet=고양이 보리"],
    ["고양이를 키우는데 이름은 나비예요", "user:pet=고양이 나비"],
    ["햄스터를 키워요. 이름이 콩이에요", "user:pet=햄스터 콩"],
    ["우리 강아지 이름이 두부예요", "user:pet=강아지 두부"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([["강아지 키우는데 이름이 뭐예요?"], ["고양이 이름이 뭐야?"]])("%s asks, names no pet", (text) => expectNo(text, "user:pet"));
});

describe("a vocative opening a sentence is no part of a plan", () => {
  it.each([
    ["민서야 우리 이제 말 놓기로 했잖아", "user:plan=우리 이제 말 놓"],
    ["지훈아 나 내년에 이직하기로 했어", "user:plan=내년에 이직하"],
    ["수진아, 나 다음 달에 제주도 가기로 했어", "user:plan=다음 달에 제주도 가"],
    ["민수씨 저 다음 주에 부산 가기로 했어요", "user:plan=다음 주에 부산 가"],
    ["야 나 이사하기로 했어", "user:plan=이사하"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it("keeps a word in -아 that is no name (`좋아`)", () => {
    const found = pairs("좋아 나 이사하기로 했어").filter((p) => p.startsWith("user:plan="));
    expect(found.length).toBe(1);
  });
});
