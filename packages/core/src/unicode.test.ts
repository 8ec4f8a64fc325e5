import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isCharacterHead } from "./testing/client-text.js";
import {
  analysisText,
  characterHead,
  codePointHead,
  countCharacters,
  headWithinUnits,
  loneSurrogateAt,
  TRUNCATION_MARKER,
  truncateCharacters,
  wellFormed,
} from "./unicode.js";

describe("headWithinUnits, characterHead (and the deprecated codePointHead)", () => {
  // Decomposed Hangul (NFD, as macOS and iOS send it), a flag, an emoji with a skin tone, a family.
  const text = `a😀${"한국".normalize("NFD")}🇰🇷b👋🏽👨‍👩‍👧${"서울".normalize("NFD")}`;

  it("never cuts a character in two, at every cut of a mixed text (a code-point cut split the jamo and the flag)", () => {
    for (let length = 0; length <= text.length + 1; length += 1) {
      const head = headWithinUnits(text, length);
      expect(loneSurrogateAt(head), `length ${length}`).toBe(-1);
      expect(isCharacterHead(head, text), `length ${length}: ${JSON.stringify(head)}`).toBe(true);
      expect(head.length).toBeLessThanOrEqual(Math.max(0, length));
      // The longest such head: the next character would not fit.
      const next = characterHead(text, countCharacters(head) + 1);
      if (next.length > head.length) expect(next.length, `length ${length}`).toBeGreaterThan(length);
      expect(codePointHead(text, length)).toBe(head);
    }
  });

  it("characterHead keeps the first max characters as a user counts them", () => {
    for (let max = 0; max <= countCharacters(text) + 1; max += 1) {
      const head = characterHead(text, max);
      expect(isCharacterHead(head, text), `max ${max}`).toBe(true);
      expect(countCharacters(head)).toBe(Math.min(max, countCharacters(text)));
    }
    expect(characterHead("부산 👨‍👩‍👧 가요", 4)).toBe("부산 👨‍👩‍👧");
  });

  it("counts and cuts a long text (segmented in pieces) exactly as ICU segments it whole", () => {
    const units = ["a", " ", "\r\n", "\n", "한", "ᄒ", "ᅡ", "ᆫ", "\u0301", "😀", "👋🏽", "👨‍👩‍👧", "🇰🇷", "🇰", "\u200D", "國", "e"];
    const whole = (t: string) => Array.from(new Intl.Segmenter("und", { granularity: "grapheme" }).segment(t), (x) => x.segment);
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...units), { minLength: 300, maxLength: 1500 }), (parts) => {
        const t = parts.join("");
        const expected = whole(t);
        expect(countCharacters(t)).toBe(expected.length);
        const half = Math.floor(expected.length / 2);
        expect(characterHead(t, half)).toBe(expected.slice(0, half).join(""));
      }),
      { numRuns: 40, seed: 20261203 },
    );
  });

  it("cuts where asked when nothing is split, and clamps the length", () => {
    expect(headWithinUnits("ab😀", 3)).toBe("ab");
    expect(headWithinUnits("ab😀", 4)).toBe("ab😀");
    expect(headWithinUnits("ab👋🏽", 5)).toBe("ab");
    expect(headWithinUnits("abc", 2)).toBe("ab");
    expect(headWithinUnits("abc", -1)).toBe("");
    expect(headWithinUnits("abc", 10)).toBe("abc");
  });
});

describe("loneSurrogateAt", () => {
  it("finds a lone high or low surrogate, and none in well-formed text", () => {
    expect(loneSurrogateAt("ok 😀")).toBe(-1);
    expect(loneSurrogateAt(`x${"😀".slice(0, 1)}`)).toBe(1);
    expect(loneSurrogateAt(`${"😀".slice(1)}x`)).toBe(0);
  });
});

describe("wellFormed", () => {
  it("replaces each lone surrogate by U+FFFD and keeps pairs and well-formed text as they are", () => {
    const [high, low] = ["😀".slice(0, 1), "😀".slice(1)];
    expect(wellFormed(`Mina likes 🍣 and ${high}`)).toBe("Mina likes 🍣 and \uFFFD");
    expect(wellFormed(`${low}x${high}${high}😀`)).toBe("\uFFFDx\uFFFD\uFFFD😀");
    const fine = "부산 👨‍👩‍👧";
    expect(wellFormed(fine)).toBe(fine);
    fc.assert(fc.property(fc.string({ unit: "binary" }), (text) => loneSurrogateAt(wellFormed(text)) === -1));
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

// Escapes, so the test reads the same in any editor: a family (man ZWJ woman ZWJ girl), a waving
// hand with a skin tone, the Korean flag, and 부산 decomposed (NFD) as macOS and iOS send it.
const FAMILY = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}";
const WAVE = "\u{1F44B}\u{1F3FD}";
const FLAG = "\u{1F1F0}\u{1F1F7}";
const BUSAN_NFD = "부산".normalize("NFD");

describe("countCharacters / truncateCharacters: characters as a user counts them", () => {
  it("counts grapheme clusters: a syllable composed or not, an emoji sequence, a flag, CR LF are one each", () => {
    expect(countCharacters("안녕하세요")).toBe(5);
    expect(BUSAN_NFD.length).toBe(5);
    expect(countCharacters(BUSAN_NFD)).toBe(2);
    expect([FAMILY.length, [...FAMILY].length, countCharacters(FAMILY)]).toEqual([8, 5, 1]);
    expect([WAVE.length, [...WAVE].length, countCharacters(WAVE)]).toEqual([4, 2, 1]);
    expect(countCharacters(FLAG)).toBe(1);
    expect(countCharacters("a\r\nb")).toBe(3);
    expect(countCharacters("plain ascii")).toBe(11);
    expect(countCharacters("")).toBe(0);
  });

  it("cuts to the limit with a one-character marker, never inside a cluster", () => {
    expect(truncateCharacters("가나다라마바사", 4)).toBe(`가나다${TRUNCATION_MARKER}`);
    expect(truncateCharacters(`${FAMILY}${FAMILY}${FAMILY}`, 2)).toBe(`${FAMILY}${TRUNCATION_MARKER}`);
    expect(truncateCharacters(`${BUSAN_NFD}${BUSAN_NFD}`, 3)).toBe(`${BUSAN_NFD}${TRUNCATION_MARKER}`);
    expect(truncateCharacters("ab cd", 4)).toBe(`ab${TRUNCATION_MARKER}`);
    expect(truncateCharacters("short", 10)).toBe("short");
    expect(truncateCharacters("short", 0)).toBe("");
  });

  it("a cut text is a prefix plus the marker, within the limit, and never splits a cluster", () => {
    const piece = fc.constantFrom("a", " ", "가", BUSAN_NFD, FAMILY, WAVE, FLAG, "\r\n", "x\u0301");
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), fc.integer({ min: 0, max: 40 }), (pieces, max) => {
        const text = pieces.join("");
        const cut = truncateCharacters(text, max);
        expect(countCharacters(cut)).toBeLessThanOrEqual(Math.max(0, max));
        if (cut === text) return;
        const head = cut.slice(0, -TRUNCATION_MARKER.length);
        expect(cut.endsWith(TRUNCATION_MARKER) || cut === "").toBe(true);
        expect(text.startsWith(head)).toBe(true);
        // The head ends on a cluster boundary: its clusters are the text's first ones.
        expect(countCharacters(head) + countCharacters(text.slice(head.length))).toBe(countCharacters(text));
      }),
    );
  });
});
