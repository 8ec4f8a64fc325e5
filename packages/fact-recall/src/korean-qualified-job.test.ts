import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A class behind the nineteenth Korean held-out set's low recall (bench/README.md, "session 58
 * (facts38)"): a job qualified by a word and said with `-로 일하다` after the workplace
 * (`네이버웹툰에서 백엔드 개발자로 일합니다` gave only the workplace). The sentences are written for
 * these tests: none is taken from a labelled bench set.
 */
describe("a qualified job said with -로 일하다 after the workplace", () => {
  it.each([
    // One `work` fact of the workplace and the job (session 64: `work` holds one value).
    ["카카오뱅크에서 백엔드 개발자로 일합니다", "user:work=카카오뱅크 백엔드 개발자"],
    ["목동 학원에서 영어 강사로 일해요", "user:work=학원 영어 강사"],
    ["저 서울대병원에서 수술실 간호사로 일하고 있어요", "user:work=서울대병원 수술실 간호사"],
    ["우리 형은 쿠팡에서 데이터 엔지니어로 일해", "user's 형:work=쿠팡 데이터 엔지니어"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it("no job word after the workplace keeps the workplace alone", () => {
    expectFact("물류센터에서 야간조로 일해요", "user:work=물류센터");
    expectNo("물류센터에서 야간조로 일해요", "user:work=야간조");
    expectNo("민수는 삼성에서 반도체 엔지니어로 일해요", "user:work");
  });
});
