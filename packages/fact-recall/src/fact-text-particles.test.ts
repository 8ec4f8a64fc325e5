import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";

/** The texts of the facts `extractFactsHeuristic` finds in `statement`, joined by newlines. */
const factTexts = (statement: string): string =>
  extractFactsHeuristic(statement)
    .map((fact) => fact.text)
    .join("\n");

/** The syllables ending in ㄹ that `으로` follows in `text` (none in correct Korean). */
const roAfterRieul = (text: string): string[] =>
  [...text.matchAll(/([가-힣])으로/gu)].map((m) => m[1] as string).filter((s) => (s.charCodeAt(0) - 0xac00) % 28 === 8);

/**
 * A fact's Korean text picks `으로` or `로` by the place's last syllable: `로` after a vowel and
 * after ㄹ (`서울로`, `제주로`), `으로` after any other final consonant (`부산으로`). The ㄹ case
 * was written `서울으로`, which a Korean reader sees as a mistake, in the block the model receives
 * (factRecall's facts, userMemory's). Sentences written for this test.
 */
describe("Korean facts: 으로 / 로 after the place", () => {
  it.each([
    ["지난달에 서울로 이사했어요.", "서울로 이사해서 서울에 산다"],
    ["작년에 용인시 수지구로 이사 왔어요.", "수지구로 이사해서"],
    ["부산으로 이사했어요.", "부산으로 이사해서 부산에 산다"],
    ["제주로 이사했어요.", "제주로 이사해서 제주에 산다"],
    ["재작년에 청주시 상당구 용암동으로 이사 갔어요.", "용암동으로 이사해서"],
    ["작년 봄에 서울로 올라왔어요.", "서울로 옮겨서 서울에 산다"],
    ["다음 달에 대전 유성구 관평동으로 이사 가요.", "관평동으로 이사할 계획이다"],
    ["다음 달에 강서구 마곡동 근처 발산역 쪽 동네인 마곡 일대로 이사 가요.", "일대로 이사할 계획이다"],
    ["다음 주에 인천 송도로 이사해요.", "송도로 이사할 계획이다"],
    ["다음 달에 광주 북구 문흥동 쪽 동네 신안길로 이사 가요.", "신안길로 이사할 계획이다"],
  ])("%s -> %s", (statement, expected) => {
    const texts = factTexts(statement);
    expect(texts, texts).toContain(expected);
    expect(roAfterRieul(texts), texts).toEqual([]);
  });

  it.each([
    ["I moved to Seoul last month.", "Seoul"],
    ["Last year I moved to Busan.", "Busan"],
  ])("English: %s -> a fact naming %s", (statement, place) => {
    expect(factTexts(statement)).toContain(place);
  });
});

/**
 * A relative one has is written with `이` or `가` as the word asks (`딸 둘이 있다`, `언니가 있다`),
 * not the form-filler's `이(가)` the facts block showed the model. Sentences written for this test.
 */
describe("Korean facts: 이 / 가 after the relative", () => {
  it.each([
    ["딸이 둘 있어요.", "딸 둘이 있다"],
    ["저 언니 있어요.", "언니가 있다"],
    ["남동생이 있어요.", "남동생이 있다"],
    ["아이가 셋이에요.", "아이 셋이 있다"],
    ["아들 하나 있어.", "아들 하나가 있다"],
  ])("%s -> %s", (statement, expected) => {
    const texts = factTexts(statement);
    expect(texts, texts).toContain(expected);
    expect(texts, texts).not.toContain("이(가)");
  });

  // The English twin: a relative said with an age between count and kin was no fact at all
  // (`an older sister`, `a younger brother`), or an event (`I've got a big sister`).
  it.each([
    ["I have two daughters.", "User has two daughters (family)"],
    ["I have an older sister.", "User has an older sister (family)"],
    ["I have a younger brother.", "User has a younger brother (family)"],
    ["I've got a big sister.", "User has a big sister (family)"],
  ])("English: %s -> %s", (statement, expected) => {
    expect(factTexts(statement)).toContain(expected);
  });
});

/**
 * A device a make or model is used as is written once (`폰으로 아이폰을 쓴다`): it was written
 * twice, `폰폰으로`, `노트북노트북으로`. Sentences written for this test.
 */
describe("Korean facts: the device a thing is used as", () => {
  it.each([
    ["아이폰 써요.", "폰으로 아이폰을 쓴다"],
    ["맥북 쓰고 있어요.", "노트북으로 맥북을 쓴다"],
    ["키보드는 레오폴드 써요.", "키보드로 레오폴드를 쓴다"],
  ])("%s -> %s", (statement, expected) => {
    const texts = factTexts(statement);
    expect(texts, texts).toContain(` ${expected}`);
  });
  // English has no device rule (`I use an iPhone` states no fact): nothing to compare here.
});
