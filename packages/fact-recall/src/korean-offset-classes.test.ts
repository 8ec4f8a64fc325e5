import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Korean extraction classes that shrank off the tuning data (facts35, session 55; issue theme 4):
 * a negated status (`결혼 안 했어` is 미혼), a habit or pastime given up with `이제 안/못` (spaced or
 * not), a job held `-로 있다가` then left, a job with two words before it, and the bare `퇴사` of a
 * message that names the workplace left. The sentences are written for these tests: none is taken
 * from a bench set. 반말 and 존댓말, with and without the space after 안.
 */

describe("결혼 안 했어: 미혼", () => {
  it.each([
    ["나 결혼 안했어", "user:marital=미혼"],
    ["저 아직 결혼 안 했어요 ㅎㅎ", "user:marital=미혼"],
    ["결혼은 아직 안 했습니다.", "user:marital=미혼"],
    ["저는 결혼 안 함", "user:marital=미혼"],
  ])("%s", (text, fact) => expectFact(text, fact));
  it.each([
    ["결혼 안 했어?", "user:marital"],
    ["언니는 결혼 안 했어", "user:marital"],
    ["결혼 안 할 거야", "user:marital=미혼"],
  ])("no fact: %s", (text, prefix) => expectNo(text, prefix));
});

describe("a habit given up with 이제 안/못", () => {
  it.each([
    ["술 이제 안마셔", "user:health=술 (ended)"],
    ["커피는 이제 안 마셔요", "user:health=커피 (ended)"],
    ["담배 이제 안 피워", "user:health=담배 (ended)"],
    ["저 탄산 더 이상 안 마십니다", "user:health=탄산 (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));
  it.each([
    ["술 이제 안마셔", "user:constraint"],
    ["커피 안 마셔요", "user:health=커피 (ended)"],
  ])("no fact: %s", (text, prefix) => expectNo(text, prefix));
});

describe("a pastime given up with 이제 못", () => {
  it.each([
    ["수영은 이제 어깨 때문에 못 해요", "user:hobby=수영 (ended)"],
    ["저는 테니스는 이제 못 칩니다.", "user:hobby=테니스 (ended)"],
    ["나 요가 이제 못해", "user:hobby=요가 (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));
});

describe("a job held -로 있다가, then left", () => {
  it.each([
    ["이십 년 동안 고등학교 교사로 있다가 작년에 퇴직했어요", "user:work=교사 (ended)"],
    // The workplace comes first where both are named (`은행에서 …로`).
    ["은행에서 지점장으로 있다가 은퇴했습니다.", "user:work=은행 (ended)"],
    ["저는 공무원으로 있다가 은퇴했습니다.", "user:work=공무원 (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));
});

describe("a job after two words, and the bare 퇴사 beside the workplace left", () => {
  it.each([
    ["나 종합병원 중환자실 간호사야", "user:work=간호사"],
    ["저 강남 치과 위생사예요", "user:work=위생사"],
  ])("%s", (text, fact) => expectFact(text, fact));
  it.each([
    ["예전엔 현대차 다녔는데 작년 3월에 퇴사했어", "user:work=퇴사"],
    ["전에는 LG전자 다녔는데 재작년에 퇴사했어요", "user:work=퇴사"],
  ])("no bare 퇴사: %s", (text, prefix) => expectNo(text, prefix));
  it("the workplace left stays", () => expectFact("전에는 LG전자 다녔는데 재작년에 퇴사했어요", "user:work=LG전자 (ended)"));
});

describe("a habit almost given up is no ended fact", () => {
  it.each([
    ["소주는 이제 거의 안 마셔", "user:health"],
    ["커피 이제 별로 안 마셔요", "user:health"],
  ])("no fact: %s", (text, prefix) => expectNo(text, prefix));
});
