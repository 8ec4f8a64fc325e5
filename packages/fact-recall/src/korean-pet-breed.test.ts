import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Classes behind the nineteenth Korean held-out set's low recall (bench/README.md, "session 58
 * (facts38)"): one's pet by its kind then its breed (`저희 강아지는 말티즈예요` gave nothing), a breed
 * said as a sentence of its own after the pet (`강아지 키워요. 말티즈예요`), and breeds the rules did
 * not know (`보더콜리`). The sentences are written for these tests: none is taken from a labelled
 * bench set.
 */
describe("a pet by its kind and then its breed", () => {
  it.each([
    ["저희 강아지는 말티즈예요", "user:pet=말티즈"],
    ["우리 고양이 러시안블루야", "user:pet=러시안블루"],
    ["울 강아지 보더콜리고 엄청 순해", "user:pet=보더콜리"],
    ["강아지 키워요. 말티즈예요", "user:pet=말티즈"],
    ["고양이 한 마리 키워요. 노르웨이숲이에요", "user:pet=노르웨이숲"],
    ["나 개 키워. 사모예드야", "user:pet=사모예드"],
    ["저 프렌치불독 키워요", "user:pet=프렌치불독"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("the kind stays when what follows is no breed, and someone else's pet is not the speaker's", () => {
    expectFact("강아지 키워요. 진짜 귀여워요", "user:pet=강아지");
    expectNo("강아지 키워요. 말티즈예요", "user:pet=강아지");
    expectNo("민지네 강아지는 말티즈예요", "user:pet");
    expectNo("강아지 키우고 싶어요. 말티즈요", "user:pet");
    expectNo("말티즈예요?", "user:pet");
    expectNo("말티즈예요", "user:pet");
  });
});
