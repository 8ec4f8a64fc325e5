import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/**
 * Korean classes added by kofacts8 (session 50, rules-korean.ts), one `describe` per class: a full
 * name given alone as an answer, facts stated with a reason in `-니까`/`-거든`, facts that ended
 * with the current one after them, family counts. The sentences are written for these tests: none
 * is taken from a labelled bench set.
 */
const pairs = (text: string) =>
  extractFactsHeuristic(text).map((f) => `${f.subject}:${f.attribute}=${f.value}${f.ended ? " (ended)" : ""}`);

const expectFact = (text: string, fact: string) => {
  const found = pairs(text);
  expect(
    found.some((p) => p === fact || (p.startsWith(fact.split("=")[0] as string) && p.includes(fact.split("=")[1] as string))),
    `${text} -> ${found.join(", ")}`,
  ).toBe(true);
};
const expectNo = (text: string, prefix: string) => {
  const found = pairs(text);
  expect(
    found.filter((p) => p.startsWith(prefix)),
    `${text} -> ${found.join(", ")}`,
  ).toEqual([]);
};

describe("a full name given alone as an answer", () => {
  it.each([
    ["김서윤이에요", "김서윤"],
    ["박준혁입니다. 잘 부탁드립니다.", "박준혁"],
    ["이름은요, 한지민", "한지민"],
    ["제 이름요? 오승현이요", "오승현"],
    ["저요? 윤하린 ㅎㅎ", "윤하린"],
    ["이름은 ㅋㅋ 제갈 윤 이에요", "제갈윤"],
  ])("%s", (text, value) => expectFact(text, `user:name=${value}`));

  it("words of three syllables that start like a surname are no name (`고구마`, `정류장`, `이태원`)", () => {
    for (const text of ["고구마예요", "정류장이요", "이태원이에요", "김치전이요 ㅋㅋ", "오늘이요?", "한번이요"])
      expectNo(text, "user:name");
  });

  it("a name asked about, or someone else's, is not the speaker's", () => {
    for (const text of ["김서윤이에요?", "동생은 박준혁이에요", "그 사람 이름요? 한지민"]) expectNo(text, "user:name");
  });
});

describe("family counts (형이 둘, 아이가 셋이에요)", () => {
  it.each([
    ["딸이 셋이에요", "user:family=딸"],
    ["오빠가 둘이라 어릴 때 싸움을 많이 했어요", "user:family=오빠"],
    ["손주가 다섯입니다", "user:family=손주"],
    ["애가 둘인데 둘 다 초등학생이야", "user:family=애"],
    ["누나랑 여동생 하나씩 있어", "user:family=여동생"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("the clauses after a count with -인데 are about those relatives", () => {
    expectFact("형이 둘인데 둘 다 인천 살아요", "user's 형:residence=인천");
    expectNo("형이 둘인데 둘 다 인천 살아요", "user:residence");
  });

  it("someone else's children, a question or a count of other things are no family of the speaker's", () => {
    expectFact("언니가 애가 셋이에요", "user's 언니:family=애");
    expectNo("언니가 애가 셋이에요", "user:family=애");
    expectNo("친구는 아이가 둘이래요", "user:");
    expectNo("형제가 몇이에요?", "user:");
    expectNo("사과가 셋이에요", "user:");
  });
});
