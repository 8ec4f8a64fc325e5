import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A count read as the value (`PT 20회 끊었어요` gave hobby `20회`, `콘서트 세번 갔어요` event `세번`)
 * and a class after a nursery's name (`햇살어린이집 만3세반`, ko19's miss):
 * what it counts is the noun before it, or no fact (bench/README.md, "session 60 (facts60)"). The
 * sentences are written for these tests: none is taken from a labelled bench set.
 */
describe("a count is no value: what it counts is", () => {
  it.each([
    ["필라테스 30회 끊었어요", "user:hobby=필라테스"],
    ["PT 열 번 끊었어", "user:hobby=PT"],
    ["수영장 6개월 끊었습니다", "user:hobby=수영장"],
    ["요가를 20회 등록했어요", "user:hobby=요가"],
    ["뮤지컬 다섯번 갔어요", "user:event=뮤지컬"],
    ["팬미팅 2번 갔다 왔어", "user:event=팬미팅"],
    ["올해 일본 세 번 갔어요", "user:event=일본"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["필라테스 30회 끊었어요", "user:hobby=30회"],
    ["PT 열 번 끊었어", "user:hobby=번"],
    ["뮤지컬 다섯번 갔어요", "user:event=다섯번"],
  ])("%s gives no count as a value", (text, wrong) => expectNo(text, wrong));

  it.each(["일주일에 세 번 갔어요", "한 달에 두 번 갔어", "3개월 끊었어요"])("no noun before the count, no fact: %s", (text) => {
    expectNo(text, "user:event");
    expectNo(text, "user:hobby");
  });

  it("guards: a question, someone else, a plain activity", () => {
    expectNo("PT 몇 회 끊었어요?", "user:hobby");
    expectNo("민지는 콘서트 세 번 갔대", "user:event");
    expectFact("수영 등록했어요", "user:hobby=수영");
  });

  it("guards: hanging up by a count, quitting for a span (review60)", () => {
    expectNo("전화 두 번 끊었어", "user:hobby");
    expectNo("술 한 달 끊었어요", "user:hobby");
    expectFact("술 한 달 끊었어요", "user:health=술 (ended)");
    expectFact("헬스 한 달 끊었어", "user:hobby=헬스");
  });
});

describe("a class named after a nursery or a kindergarten is no part of its name", () => {
  it.each([
    ["저희 딸 이번에 구립 별님어린이집 만2세반 들어갔어요", "user's 딸:school=별님어린이집"],
    ["아들 이번에 별빛유치원 햇님반 다녀요", "user's 아들:school=별빛유치원"],
    ["우리 아들은 무지개유치원 7세반 다녀", "user's 아들:school=무지개유치원"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("guards: a question, someone else by name", () => {
    expectNo("딸은 어느 어린이집 무슨 반 다녀요?", "user's 딸:school");
    expectNo("민지는 별님어린이집 만2세반 다녀요", "user:school");
    expectNo("아들 이번에 별빛유치원 햇님반 다녀요", "user's 아들:hobby");
  });
});
