import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * Korean classes added by kofacts9 (session 50, rules-korean.ts), one `describe` per class: a
 * company gone to with 다니다, a hobby said bare with its habit after it, a home at a parent's
 * house, a school in slang, a plural subject after relatives just named, leaving a school. The
 * sentences are written for these tests: none is taken from a labelled bench set.
 */
const pairs = (text: string) =>
  extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}${f.ended ? " (ended)" : ""}`);

const expectFact = (text: string, fact: string) => {
  const found = pairs(text);
  expect(found, `${text} -> ${found.join(", ")}`).toContain(fact);
};
const expectNo = (text: string, prefix: string) => {
  const found = pairs(text);
  expect(
    found.filter((p) => p.startsWith(prefix)),
    `${text} -> ${found.join(", ")}`,
  ).toEqual([]);
};

describe("a company gone to with 다니다 is the workplace by its name or when the message is about the job", () => {
  it.each([
    ["요번에 옮겼어 ㅎㅎ 지금 쿠팡 다녀", "user:work=쿠팡"],
    ["네이버 다닌 지 2년 됐어요", "user:work=네이버"],
    ["작년에 이직해서 요즘은 리디 다녀요", "user:work=리디"],
    ["연봉 올려서 옮겼어. 지금은 야놀자 다님", "user:work=야놀자"],
    ["형은 카카오 다녀요", "user's 형:work=카카오"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["퇴근하고 필라테스 다녀요", "user:hobby=필라테스"],
    ["회사 끝나고 클라이밍 다녀", "user:hobby=클라이밍"],
    ["이직 준비하느라 중국어 학원 다녀요", "user:hobby=중국어"],
    ["출근 전에 수영 다녀요", "user:hobby=수영"],
  ])("a pastime stays one: %s", (text, fact) => {
    expectFact(text, fact);
    expectNo(text, "user:work");
  });

  it("a friend's company is no fact of the speaker's", () => {
    expectNo("친구가 토스 다녀", "user:");
    expectNo("친구가 토스 다녀", "user:work");
  });
});
