import { describe, expect, it } from "vitest";
import { expectFact, expectNo, pairs } from "./test-support.js";

/**
 * A school year said of a child or the speaker is where they are at school: a level with its year
 * (`초등학교 4학년이고`, `고등학교 1학년 됐어요`: was no fact, "a level alone names none"; the labelled
 * sets label it, and English `my son is in 5th grade` gave it already), a year in slang going on to
 * another clause (`고1이고 요즘 …`, `중1고 작은애는 …`), a school by its short name (`청운중 3학년`, was
 * read as a major), a relative named with the particle dropped who is then described (`우리 막내
 * 이제 일곱 살인데 유치원 다녀요`: the kindergarten was the user's). English: `in year 9`, `started
 * Year 4`, `started first grade at …`. Sentences written for these tests, none from a bench set.
 */
describe("a school year (ko)", () => {
  it.each([
    ["작은딸은 초등학교 4학년이고 피아노를 배워요", "user's 작은딸:school=초등학교 4학년"],
    ["막내가 올해 고등학교 1학년 됐어요", "user's 막내:school=고등학교 1학년"],
    ["저 고등학교 2학년이에요", "user:school=고등학교 2학년"],
    ["큰애는 중1고 작은애는 초등학교 3학년이에요.", "user's 큰애:school=중1"],
    ["큰애는 중1고 작은애는 초등학교 3학년이에요.", "user's 작은애:school=초등학교 3학년"],
    ["아들은 고1이고 요즘 축구에 빠졌어요", "user's 아들:school=고1"],
    ["여동생이 고3이라 집이 조용해요", "user's 여동생:school=고3"],
    ["제 아들이 청운중 3학년이에요", "user's 아들:school=청운중"],
    ["우리 막내 이제 일곱 살인데 유치원 다녀요", "user's 막내:school=유치원"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["제 아들이 청운중 3학년이에요", "user's 아들:study"],
    ["우리 막내 이제 일곱 살인데 유치원 다녀요", "user:school"],
    ["큰애는 중1고 작은애는 초등학교 3학년이에요.", "user's 큰애:school=초등학교"],
    ["나 컴공 2학년이야", "user:school"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));

  it("a major by the year stays a major", () => expect(pairs("경영 3학년이에요")).toContain("user:study=경영"));
});

describe("a school year (en)", () => {
  it.each([
    ["my son's in year 9 at Park Lane", "user's son:school=year 9"],
    ["My niece just started Year 4", "user's niece:school=Year 4"],
    ["my nephew started reception this week", "user's nephew:school=reception"],
    ["My son just started first grade at Oakwood", "user's son:school=Oakwood"],
  ])("%s -> %s", (text, fact) => expectFact(text, fact));

  it.each([
    ["I started year 2 of my PhD", "user:school"],
    ["I'm in year 3 of my apprenticeship", "user:school"],
  ])("%s: nothing starting %s", (text, prefix) => expectNo(text, prefix));
});
