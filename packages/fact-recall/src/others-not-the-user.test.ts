import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Facts read wrongly from sentences about something else: a move between employers read as a home
 * move (`moved from Deloitte to KPMG` gave the residence KPMG and Deloitte ended), the school of the
 * person one married (`서울대 나온 사람이랑 결혼했어` gave the user the school), a gift bought for a
 * relative read as having one (`I got a little brother a present` gave the family fact), a commute
 * read as a hobby (`I ride 20 km a day to work` gave the hobby `ride`) (bench/README.md, "session 65
 * (facts65)"). Sentences written for these tests, none from a bench set.
 */
describe("a job move is no home move", () => {
  it.each([
    ["I moved from Accenture to PwC in the spring", "user:work=PwC"],
    ["I moved from Accenture to PwC in the spring", "user:work=Accenture (ended)"],
    ["I switched from Google to Stripe last year", "user:work=Stripe"],
    ["my brother moved from Baird Capital to Hollis Group", "user's brother:work=Hollis Group"],
    // Places stay a home move.
    ["I moved from Denver to Boise last year", "user:residence=Boise"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each(["I moved from Accenture to PwC in the spring", "I switched from Google to Stripe last year"])("no residence: %s", (text) =>
    expectNo(text, "user:residence"),
  );
});

describe("someone else's school, a gift, a commute", () => {
  it.each([
    ["고려대 나온 사람이랑 결혼했어요", "user:school"],
    ["연대 다니는 남자랑 사귀어", "user:school"],
    ["카이스트 졸업한 선배가 추천해줬어", "user:school"],
    ["I got a little sister a birthday present", "user:family"],
    ["I got two brothers tickets to the match", "user:family"],
    ["I ride 20 km a day to work", "user:hobby"],
    ["I run 10 km a day to work", "user:hobby"],
  ])("%s: no %s", (text, prefix) => expectNo(text, prefix));

  it.each([
    ["저는 고려대 나왔어요", "user:school=고려대"],
    ["고려대 나온 사람이에요", "user:school=고려대"],
    ["I got a little sister last spring", "user:family=a little sister"],
    ["I have two brothers", "user:family=two brothers"],
    ["I run 10 km a day", "user:hobby=run"],
  ])("still: %s -> %s", (text, fact) => expectFact(text, fact));
});
