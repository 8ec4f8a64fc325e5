import { describe, expect, it } from "vitest";
import { expectFact, expectNo, pairs } from "./test-support.js";

/**
 * A move said with where it started (`광주에서 세종으로 이사했어요`, `대전에서 살다가 청주로
 * 내려왔어요`): the town left is a residence that ended, beside the one moved to, as English
 * `moved from Denver to Austin` gives both (bench/README.md, "session 63 (facts63)"). Sentences
 * written for these tests, none from a bench set.
 */
describe("a Korean move from one town to another", () => {
  it.each([
    ["작년에 광주에서 세종으로 이사했어요.", ["user:residence=광주 (ended)", "user:residence=세종"]],
    ["지난달에 인천에서 수원으로 이사 왔어.", ["user:residence=인천 (ended)", "user:residence=수원"]],
    ["재작년 봄에 부산에서 서울로 올라왔어요.", ["user:residence=부산 (ended)", "user:residence=서울"]],
    ["대전에서 살다가 작년에 청주로 내려왔어요.", ["user:residence=대전 (ended)", "user:residence=청주"]],
    ["분당에서 판교로 이사해서 출근이 편해요.", ["user:residence=분당 (ended)", "user:residence=판교"]],
    ["우리 언니가 대구에서 김해로 이사했어요.", ["user's 언니:residence=대구 (ended)", "user's 언니:residence=김해"]],
    ["I relocated from Denver to Austin last year", ["user:residence=Denver (ended)", "user:residence=Austin"]],
  ])("%s", (text, facts) => {
    for (const fact of facts) expectFact(text, fact);
  });

  // No town left: a place that is no home, someone else's move, a move wished for.
  it.each([
    "회사에서 가까운 곳으로 이사했어요.",
    "집에서 학교로 올라왔어요.",
    "민수가 울산에서 포항으로 이사했대요.",
    "부산에서 서울로 이사 가면 좋겠다.",
  ])("guard: %s", (text) => {
    expect(pairs(text).filter((p) => p.startsWith("user:") && p.endsWith("(ended)"))).toEqual([]);
  });

  // A move wished for, said with `-서` before the wish, is no residence.
  it.each(["제주로 이사해서 살고 싶어요.", "광주에서 세종으로 이사해서 살면 좋겠다.", "강릉으로 이사와서 카페 하고 싶어"])(
    "guard: %s",
    (text) => expectNo(text, "user:residence"),
  );
});
