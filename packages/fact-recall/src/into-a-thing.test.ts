import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Being into something: a thing is a liking, a pastime a hobby. English `is nine and obsessed with
 * Lego` (the state after `and`, without its verb) and `mad about horses` (not `mad about my boss`,
 * which is anger); Korean `공룡에 푹 빠졌어요` is a liking, `베이킹에 빠졌어` stays a hobby, and the fun
 * of something (`… 재미에 빠져 있어요`) is neither (bench/README.md, "session 63 (facts63)").
 * Sentences written for these tests, none from a bench set.
 */
describe("into a thing or a pastime", () => {
  it.each([
    ["my nephew is seven and obsessed with trains", "user's nephew:likes=trains"],
    ["my daughter is mad about horses", "user's daughter:likes=horses"],
    ["my son is ten and crazy about chess", "user's son:likes=chess"],
    ["조카가 요즘 공룡에 푹 빠졌어요", "user's 조카:likes=공룡"],
    ["딸이 요즘 포켓몬에 완전 빠져 있어요", "user's 딸:likes=포켓몬"],
    ["나 요즘 마라탕에 꽂혔어", "user:likes=마라탕"],
    ["와이프가 요즘 베이킹에 빠졌어", "user's 와이프:hobby=베이킹"],
    ["요즘 클라이밍에 꽂혀 있어요", "user:hobby=클라이밍"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["I'm mad about my boss cancelling my leave", "user:likes"],
    ["I'm mad about how they treated us", "user:likes"],
    ["요즘은 텃밭 가꾸는 재미에 푹 빠져 있어요", "user:likes"],
    ["요즘은 텃밭 가꾸는 재미에 푹 빠져 있어요", "user:hobby=재미"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
