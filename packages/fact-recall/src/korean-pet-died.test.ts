import { describe, it } from "vitest";
import { expectFact, expectNo } from "./test-support.js";

/**
 * A pet that died (`무지개다리 건넜어요`, `하늘나라 갔어요`, `죽었어요`) is a pet no longer had: the
 * sentence gave nothing when the pet was its subject (bench/README.md, "session 62 (facts62)").
 * Sentences written for these tests, none from a bench set.
 */
describe("a Korean pet that died", () => {
  it.each([
    ["키우던 푸들이 지난달에 무지개다리 건넜어요", "user:pet=푸들 (ended)"],
    ["우리 고양이 작년에 하늘나라 갔어 ㅠㅠ", "user:pet=고양이 (ended)"],
    ["예전에 키우던 거북이는 몇 년 전에 죽었어요", "user:pet=거북이 (ended)"],
    ["저희 강아지가 올봄에 하늘나라로 떠났어요", "user:pet=강아지 (ended)"],
    ["어릴 때 키운 햄스터는 금방 죽었어", "user:pet=햄스터 (ended)"],
  ])("%s", (text, fact) => expectFact(text, fact));

  it.each([
    "친구 강아지가 죽었대",
    "수아 고양이가 무지개다리 건넜대요",
    "언니네 강아지가 하늘나라 갔어",
    "우리 강아지 죽으면 어떡하지",
    "강아지가 무지개다리 건넜어요?",
    // A pet of a film, a dream or a game, and a death quoted or described, is no pet of the speaker's (review62).
    "영화에서 강아지가 죽었어",
    "드라마에서 고양이가 하늘나라 갔어",
    "어젯밤 꿈에서 우리 강아지가 죽었어",
    "강아지 죽었다는 영화 봤어",
    "고양이가 죽었다고 생각하니 슬퍼",
  ])("guard: %s", (text) => expectNo(text, "user:pet"));
});
