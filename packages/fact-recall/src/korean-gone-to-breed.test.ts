import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Classes from the eighteenth Korean held-out set's false facts and misses (bench/README.md,
 * "session 57 (facts37)"): a workplace or an academy gone to with 다니다 by its name alone, read as a
 * pastime (`남편은 현대모비스 다녀요` gave hobby `현대모비스`), and a breed said right after a pet by its
 * kind (`강아지 키워 웰시코기고`). The sentences are written for these tests: none is taken from a
 * labelled bench set.
 */
describe("a name gone to with 다니다 is no pastime", () => {
  it.each([
    ["저희 남편은 한국타이어 다녀요", "user's 남편:work=한국타이어"],
    ["우리 아빠 대우조선 다니셔", "user's 아빠:work=대우조선"],
    ["와이프는 아모레퍼시픽 다녀", "user's 와이프:work=아모레퍼시픽"],
    ["큰딸은 이투스 다녀요", "user's 큰딸:school=이투스"],
    ["우리 아들 메가스터디 다녀", "user's 아들:school=메가스터디"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("the speaker's, which may be either, gives no fact", () => {
    expectNo("저 한국타이어 다녀요", "user:hobby");
    expectNo("나 이투스 다녀", "user:hobby");
    expectNo("저희 남편은 한국타이어 다녀요", "user's 남편:hobby");
    expectNo("형은 포스텍 다니고 기숙사 살아", "user's 형:work");
  });

  it("a pastime or a place of one stays the hobby", () => {
    expectFact("남편은 헬스 다녀요", "user's 남편:hobby=헬스");
    expectFact("딸은 태권도 다녀요", "user's 딸:hobby=태권도");
    expectFact("아들은 피아노 학원 다녀", "user's 아들:hobby=피아노");
    expectFact("나 요가 다녀", "user:hobby=요가");
    expectFact("주말마다 산에 다녀요", "user:hobby=산");
  });
});

describe("a breed said right after a pet by its kind", () => {
  it.each([
    ["나 강아지 키워 말티즈야", "user:pet=말티즈"],
    ["나 강아지 키워 비숑이고 두 살", "user:pet=비숑"],
    ["나 고양이 키워 랙돌이야", "user:pet=랙돌"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("what follows that is no breed leaves the kind", () => {
    expectFact("나 강아지 키워 엄청 귀여워", "user:pet=강아지");
    expectFact("저 고양이 키워요", "user:pet=고양이");
  });
});
