import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A home said by a place word with no town in it (`가까운 곳으로 이사했어요`, `조용한 곳에 살아요`,
 * `학교로 이사했어요`) gave `곳`, `데`, `앞`, `학교` as the residence: the move and residence rules took
 * whatever stood before `(으)로`/`에`. Now a bound noun after a modifier, a bare place word and a
 * workplace or a school name no home, and a town before a kind of housing is the home, as `살다`
 * already read it (`정자동 오피스텔로 이사 왔어요` -> `정자동`) (bench/README.md, "session 64
 * (facts64)"). English `I moved somewhere quieter` gives no residence either. Sentences written for
 * these tests, none from a bench set.
 */
describe("a home said without a town", () => {
  it.each([
    "회사에서 가까운 곳으로 이사했어요",
    "더 넓은 곳으로 이사 가요",
    "조용한 곳에 살아요",
    "아이 학교 때문에 학교 가까운 데로 이사했어요",
    "학교로 이사했어요",
    "학교에서 살아요",
    "앞으로 이사했어요",
    "I moved somewhere quieter last year",
  ])("no residence: %s", (text) => {
    expectNo(text, "user:residence");
    expectNo(text, "user:plan");
  });

  it.each([
    ["정자동 오피스텔로 지난달에 이사 왔어요", "user:residence=정자동"],
    ["다음 달에 합정 오피스텔로 이사가요", "user:plan=합정으로 이사 예정"],
    ["강릉 본가로 이사했어요", "user:residence=강릉"],
    ["오피스텔로 이사했어요", "user:residence=오피스텔"],
    ["학교 근처로 이사 왔어", "user:residence=학교 근처"],
    ["성수동으로 이사했어요", "user:residence=성수동"],
    ["I moved to Leeds last year", "user:residence=Leeds"],
  ])("%s", (text, fact) => expectFact(text, fact));
});
