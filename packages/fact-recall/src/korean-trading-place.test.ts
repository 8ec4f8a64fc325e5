import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A shop run in a market, a station or a mall (`중앙시장에서 국밥집 하셔`) says where the work is, not
 * where anyone lives: the market was stored as the residence (bench/README.md, "session 62
 * (facts62)"). A shop in a town still gives the town as the home, as before. Sentences written for
 * these tests, none from a bench set.
 */
describe("a market or a station is no home", () => {
  it.each([
    ["아빠는 남대문시장에서 국밥집 하셔", "user's 아빠:work=국밥집"],
    ["삼촌은 강남역에서 카페 운영하세요", "user's 삼촌:work=카페"],
    ["저 동대문 쇼핑몰에서 카페 해요", "user:work=카페"],
    ["이모는 버스터미널에서 식당 하세요", "user's 이모:work=식당"],
  ])("work, no residence: %s", (text, fact) => {
    expectFact(text, fact);
    expectNo(text, `${fact.split(":")[0]}:residence`);
  });

  it.each([
    ["엄마는 부산에서 국밥집 하세요", "user's 엄마:residence=부산"],
    ["저 전주에서 식당 해요", "user:residence=전주"],
  ])("a town is still the home: %s", (text, fact) => expectFact(text, fact));
});
