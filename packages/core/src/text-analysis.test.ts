import { describe, expect, it } from "vitest";
import { isStopword, stemEnglish, stripKoreanSuffix, tokenize } from "./text-analysis.js";

describe("tokenizer", () => {
  it("strips Korean particles and endings and adds bigrams for long stems", () => {
    expect(tokenize("부산으로 이사했어요")).toEqual(["부산", "이사"]);
    expect(tokenize("개발자로 일해요")).toEqual(["개발자", "개발", "발자", "일"]);
    expect(stripKoreanSuffix("바다")).toBe("바다");
    expect(stripKoreanSuffix("살죠")).toBe("살");
  });

  it("stems English lightly and drops function words", () => {
    expect(["live", "lives", "lived", "living"].map(stemEnglish)).toEqual(["liv", "liv", "liv", "liv"]);
    expect(tokenize("Where do I live? Busan's nice")).toEqual(["liv", "busan", "nic"]);
    expect(tokenize("how are you doing today 뭐 해요?")).toEqual(["today"]);
    expect(tokenize("what is it")).toEqual([]);
  });
});

describe("stop words", () => {
  it("covers both languages in one list", () => {
    expect(["the", "what", "뭐", "어디", "그리고"].every(isStopword)).toBe(true);
    expect(isStopword("busan")).toBe(false);
    expect(tokenize("그리고 저는 서울에서 일하고 서울은 좋아요")).toEqual(["서울", "일", "서울", "좋"]);
  });
});
