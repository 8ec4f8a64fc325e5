import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Classes the brief of session 58 (facts38) lists among the Korean misses (bench/README.md,
 * "session 58 (facts38)"): a sport one goes out to with 나가다, alone or as a club (`조기축구
 * 나가요`, `배드민턴 동호회 나가`), and a shop run on a selling platform (`스마트스토어 해요`,
 * `아이디어스에서 수제 캔들 팔아요`). The sentences are written for these tests: none is taken from a
 * labelled bench set.
 */
describe("a sport or a club gone out to with 나가다", () => {
  it.each([
    ["저 주말마다 조기축구 나가요", "user:hobby=조기축구"],
    ["나 일요일마다 조기축구 나가", "user:hobby=조기축구"],
    ["토요일 아침엔 동네 풋살 나갑니다", "user:hobby=풋살"],
    ["배드민턴 동호회 나가요", "user:hobby=배드민턴"],
    ["요즘 테니스 동호회에 나가고 있어요", "user:hobby=테니스"],
    ["우리 남편은 토요일마다 조기야구 나가요", "user's 남편:hobby=조기야구"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a race entered, a wish, a question, someone else give no pastime", () => {
    expectNo("다음 달에 마라톤 대회 나가요", "user:hobby");
    expectNo("조기축구 나가고 싶어요", "user:hobby");
    expectNo("조기축구 나가요?", "user:hobby");
    expectNo("민수는 조기축구 나가요", "user:hobby");
    expectNo("밖에 잠깐 나가요", "user:hobby");
  });
});

describe("a shop run on a selling platform", () => {
  it.each([
    ["스마트스토어 해요", "user:work=스마트스토어"],
    ["부업으로 스마트스토어 운영하고 있어요", "user:work=스마트스토어"],
    ["아이디어스에서 수제 캔들 팔아요", "user:work=수제 캔들"],
    ["나 쿠팡에서 캠핑용품 팔고 있어", "user:work=캠핑용품"],
    ["저는 네이버 스마트스토어에서 반찬 판매해요", "user:work=반찬"],
    ["우리 언니는 인스타로 케이크 팔아", "user's 언니:work=케이크"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("a thing sold once, a wish, a question give no work", () => {
    expectNo("당근에서 의자 팔았어요", "user:work");
    expectNo("당근에서 자전거 팔아요", "user:work");
    expectNo("스마트스토어 해보고 싶어요", "user:work");
    expectNo("쿠팡에서 뭐 팔아요?", "user:work");
  });
});
