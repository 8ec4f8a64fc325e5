import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * When, where or how a thing was bought, between the thing and the verb (`중고로`, `당근에서`,
 * `작년에`), is not the thing: `포터2 중고로 샀어요` was stored as the belonging `중고로`, and a model
 * ending in a digit without its particle (`아이오닉5 샀어`) was not read (bench/README.md, "session 62
 * (facts62)"). Sentences written for these tests, none from a bench set.
 */
describe("the thing bought, not how it was bought", () => {
  it.each([
    ["스타렉스 중고로 샀어요.", "user:belonging=스타렉스"],
    ["저 갤럭시탭 당근에서 싸게 샀어요", "user:belonging=갤럭시탭"],
    ["나 중고로 K5 샀어", "user:belonging=K5"],
    ["작년에 쏘렌토4 할부로 구입했습니다", "user:belonging=쏘렌토4"],
    ["캠핑카를 결국 중고로 장만했어요", "user:belonging=캠핑카"],
    ["에어프라이어 새로 샀다", "user:belonging=에어프라이어"],
    // The thing as the topic: without its particle (review62).
    ["차는 당근에서 샀어", "user:belonging=차"],
    ["폰은 중고로 샀어요", "user:belonging=폰"],
    ["포도 싸게 샀어", "user:belonging=포도"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    ["중고로 샀어요", "user:belonging"],
    ["저 작년에 샀어요", "user:belonging"],
    ["남편이 트럭을 중고로 샀어요", "user:belonging"],
    ["K5 중고로 살까?", "user:belonging"],
    ["만약 돈 있으면 중고로 모닝 샀겠지", "user:belonging"],
  ])("guard: %s", (text, prefix) => expectNo(text, prefix));
});
