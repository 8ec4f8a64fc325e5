import { describe, expect, it } from "vitest";
import { analysisText, codePointHead, loneSurrogateAt } from "./unicode.js";

describe("codePointHead", () => {
  it("never ends on half a surrogate pair, at every cut of a mixed text", () => {
    const text = "a😀한국🇰🇷b😀";
    for (let length = 0; length <= text.length + 1; length += 1) {
      const head = codePointHead(text, length);
      expect(loneSurrogateAt(head), `length ${length}`).toBe(-1);
      expect(text.startsWith(head)).toBe(true);
      expect(head.length === Math.min(length, text.length) || head.length === length - 1).toBe(true);
    }
  });

  it("cuts where asked when no pair is split, and clamps the length", () => {
    expect(codePointHead("ab😀", 3)).toBe("ab");
    expect(codePointHead("ab😀", 4)).toBe("ab😀");
    expect(codePointHead("abc", 2)).toBe("ab");
    expect(codePointHead("abc", -1)).toBe("");
    expect(codePointHead("abc", 10)).toBe("abc");
  });
});

describe("loneSurrogateAt", () => {
  it("finds a lone high or low surrogate, and none in well-formed text", () => {
    expect(loneSurrogateAt("ok 😀")).toBe(-1);
    expect(loneSurrogateAt(`x${"😀".slice(0, 1)}`)).toBe(1);
    expect(loneSurrogateAt(`${"😀".slice(1)}x`)).toBe(0);
  });
});

describe("analysisText: one form of a text however a client encoded it", () => {
  it("composes decomposed Hangul, folds full-width and half-width forms, drops invisible characters", () => {
    expect(analysisText("부산으로 이사했어요".normalize("NFD"))).toBe("부산으로 이사했어요");
    expect(analysisText("ＰＲ 리뷰 ３시에 ｍｅｅｔｉｎｇ")).toBe("PR 리뷰 3시에 meeting");
    expect(analysisText("\uFEFF회의\u200B실 예\u2060약 co\u00ADoperate 가\u200D나\u200C다")).toBe("회의실 예약 cooperate 가나다");
    expect(analysisText("\uFFD7\uFFD7 \uFFBE")).toBe("ㅠㅠ ㅎ"); // half-width jamo
  });

  it("writes jamo outside a syllable as the compatibility jamo a keyboard types, from any jamo block", () => {
    expect(analysisText("ㅋㅋ 좋아")).toBe("ㅋㅋ 좋아");
    expect(analysisText("\u110F\u110F 좋아")).toBe("ㅋㅋ 좋아"); // conjoining initials
    expect(analysisText("ㅇㅋ ㅠㅠ ㄳ")).toBe("ㅇㅋ ㅠㅠ ㄳ");
    expect(analysisText("했\u11BB")).toBe("했ㅆ"); // a lone final (cut input)
  });

  it("is idempotent and leaves plain NFC text as it is", () => {
    for (const text of ["Where do I live? Busan's nice", "나 요즘 성수동 살아 ㅋㅋ 🙌", "👨‍👩‍👧 가족", "ㅎㅎ", "①②"]) {
      const once = analysisText(text);
      expect(analysisText(once)).toBe(once);
    }
    expect(analysisText("나 요즘 성수동 살아 ㅋㅋ 🙌")).toBe("나 요즘 성수동 살아 ㅋㅋ 🙌");
  });
});
