import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * Farming is said with 짓다 (`딸기 농사 지어요`, `밤 농사 지으세요`): it was read only with 하다, so
 * a farmer's work was missed (bench/README.md, "session 62 (facts62)"). The crop is kept; a place
 * farmed in is the home, as for any local work. Sentences written for these tests, none from a
 * bench set.
 */
describe("farming said with 짓다", () => {
  it.each([
    ["저는 상주에서 포도 농사를 짓고 있어요", "user:work=포도 농사"],
    ["저는 상주에서 포도 농사를 짓고 있어요", "user:residence=상주"],
    ["삼촌은 사과 농사 짓습니다", "user's 삼촌:work=사과 농사"],
    ["할머니는 영천에서 고추 농사 지으셔", "user's 할머니:work=고추 농사"],
    ["남편은 김제에서 쌀농사 지어요", "user's 남편:work=쌀농사"],
    ["나 요즘 농사 지어", "user:work=농사"],
    ["우리 아빠 의성에서 마늘 농사 지으심", "user's 아빠:work=마늘 농사"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["주말마다 텃밭 농사 지어요", "user:work"],
    ["할아버지가 작년까지 농사 지으셨어요", "user:work"],
    ["농사 지을까?", "user:work"],
    ["나중에 귀농하면 딸기 농사 짓고 싶어", "user:work"],
    ["친구가 딸기 농사 지어요", "user:work"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
