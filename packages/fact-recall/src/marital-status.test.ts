import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Relationship status said by a verb before a connective or by the noun: Korean `약혼했어요`,
 * `약혼했고`, `이혼하고 …` (engaged was an event, divorced before `-고` none), a fiancée as a relative
 * (`약혼녀`), English `I'm a widow`, `I was widowed` (bench/README.md, "session 64 (facts64)").
 * Sentences written for these tests, none from a bench set.
 */
describe("relationship status by the verb or the noun", () => {
  it.each([
    ["저 9월에 약혼했어요.", "user:marital=약혼"],
    ["저 작년 가을에 약혼했고 결혼은 봄이에요", "user:marital=약혼"],
    ["약혼한 지 석 달 됐어요", "user:marital=약혼"],
    ["이혼하고 혼자 살아요.", "user:marital=이혼"],
    ["언니가 재작년에 이혼하고 부산으로 내려갔어", "user's 언니:marital=이혼"],
    ["약혼녀는 대전에 살아요", "user's 약혼녀:residence=대전"],
    ["I'm a widow", "user:marital=widow"],
    ["I've been a widower since 2015", "user:marital=widower"],
    ["I was widowed in 2019", "user:marital=widowed"],
    ["my gran is a widow", "user's gran:marital=widow"],
    // Separated from a spouse is the status; from anything else it is none (below).
    ["I'm separated from my husband", "user:marital=separated"],
    ["I have been separated since last spring", "user:marital=separated"],
    ["남편이랑 이혼했어요", "user:marital=이혼"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["약혼하고 싶어", "user:marital"],
    ["민지는 이혼했대", "user:marital"],
    ["I am a widow's son", "user:marital"],
    ["I was engaged once", "user:marital"],
    ["저 9월에 약혼했어요.", "user:event"],
    ["I have been separated from my team for a week", "user:marital"],
    ["I am separated from the main office by a river", "user:marital"],
    ["팀이랑 떨어져서 일한 지 일주일 됐어요", "user:marital"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
