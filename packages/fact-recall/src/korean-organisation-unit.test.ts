import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A workplace that is a unit of an organisation (a branch, a plant, a centre, a ward) keeps the
 * organisation's word before it: `기아 판교지점` was stored as `판교지점`, `현대차 공장` as `공장`
 * (bench/README.md, "session 61 (facts61)"). Sentences written for these tests, none from a bench set.
 */
describe("a unit of an organisation keeps the organisation", () => {
  it.each([
    ["저는 신한은행 역삼지점에서 일해요.", "user:work=신한은행 역삼지점"],
    ["삼촌은 평택 LG 공장에서 일하세요.", "user's 삼촌:work=LG 공장"],
    ["나 마켓컬리 물류센터에서 일해", "user:work=마켓컬리 물류센터"],
    ["저는 세브란스 응급실에서 근무합니다.", "user:work=세브란스 응급실"],
    ["동생은 요즘 쿠팡 센터에서 일하고 있어요", "user's 동생:work=쿠팡 센터"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["울산 공장에서 일해요", "user:work=공장"],
    ["저는 요즘 공장에서 일해요", "user:work=공장"],
    ["형은 공장에서 일해요", "user's 형:work=공장"],
    ["저는 삼성전자에서 일해요", "user:work=삼성전자"],
  ])("no organisation before it: %s", (text, fact) => expectFact(text, fact));

  it.each(["신한은행 역삼지점에서 일하세요?", "친구가 쿠팡 물류센터에서 일해요", "나중에 기아 판교지점에서 일하면 좋겠다"])(
    "guard: %s",
    (text) => expectNo(text, "user:work"),
  );
});
