/**
 * sentenceSegments: the sentences of `Intl.Segmenter("und", { granularity: "sentence" })` over the
 * whole text, found window by window so a long message is segmented in linear time (V8 copies the
 * whole input on every step of a segment iterator). The oracle is the segmenter over the whole text.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SENTENCE_WINDOW, sentenceSegments } from "./unicode.js";

const whole = (text: string): string[] =>
  Array.from(new Intl.Segmenter("und", { granularity: "sentence" }).segment(text), (s) => s.segment);

// Pieces that move sentence boundaries (UAX #29): terminators, closers, spaces, a lowercase or a
// digit after a period (no boundary), line breaks (CRLF split across a window), Korean and English
// sentences, a long run without any terminator (longer than a window).
const PIECES = [
  "I kept a diary of the whole move. ",
  "We met at 3.30 p.m. at the station. ",
  'She said "stop." and left! ',
  "Really?! ",
  "(It rained.) ",
  "etc. and so on. ",
  "e.g. this one. ",
  "v1.2 is out. ",
  "... ",
  ". ",
  "   ",
  "\n",
  "\r\n",
  "\r",
  "\u2029",
  "나는 이사하는 동안 일기를 꼼꼼하게 썼다. ",
  "정말요? 네! ",
  "3.5킬로를 걸었어요. ",
  "「좋아요.」 그래서 ",
  "😀. ",
  "a",
  "가",
  "1 2 3 ",
  // Single characters of every sentence-break class near a terminator.
  ...[".", "?", "!", " ", "\t", "\n", "A", "z", "가", "7", '"', ")", "」", "。", "\u00A0", "…", ",", ";", "-"],
];

const LONG_RUN_EN = "word ".repeat(1500);
const LONG_RUN_KO = "말 ".repeat(2500);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("sentenceSegments", () => {
  for (const [lang, sentence] of [
    ["en", "I kept a diary of the whole move. "],
    ["ko", "나는 이사하는 동안 일기를 꼼꼼하게 썼다. "],
  ] as const) {
    it(`gives the whole-text segments of a 40,000-character message, never handing the segmenter more than two windows (${lang})`, () => {
      const text = sentence.repeat(Math.ceil(40_000 / sentence.length)).slice(0, 40_000);
      const lengths: number[] = [];
      const original = Intl.Segmenter.prototype.segment;
      vi.spyOn(Intl.Segmenter.prototype, "segment").mockImplementation(function (this: Intl.Segmenter, input: string) {
        lengths.push(input.length);
        return original.call(this, input);
      });
      const got = sentenceSegments(text);
      vi.restoreAllMocks();
      expect(got).toEqual(whole(text));
      expect(got.join("")).toBe(text);
      expect(Math.max(...lengths)).toBeLessThanOrEqual(2 * SENTENCE_WINDOW);
    });

    it(`keeps a sentence longer than a window whole (${lang})`, () => {
      const run = lang === "en" ? LONG_RUN_EN : LONG_RUN_KO;
      const text = `${sentence.repeat(200)}${run}. ${sentence.repeat(200)}`;
      expect(run.length).toBeGreaterThan(SENTENCE_WINDOW);
      expect(sentenceSegments(text)).toEqual(whole(text));
    });
  }

  it("is the segmenter over the whole text, for mixed English and Korean texts of one to six windows", () => {
    let windowed = 0;
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...PIECES), { minLength: 300, maxLength: 1500 }),
        fc.option(fc.tuple(fc.nat(), fc.constantFrom(LONG_RUN_EN, LONG_RUN_KO))),
        (pieces, long) => {
          if (long) pieces.splice(long[0] % pieces.length, 0, long[1]);
          const text = pieces.join("");
          if (text.length > SENTENCE_WINDOW) windowed += 1;
          expect(sentenceSegments(text)).toEqual(whole(text));
        },
      ),
      { seed: 537, numRuns: 60, endOnFailure: true },
    );
    // Most texts go through the windows (the property is not only the short path).
    expect(windowed).toBeGreaterThan(30);
  });

  it("gives the short and empty texts' segments as they are", () => {
    for (const text of ["", " ", "Hi. 안녕하세요. Bye", "\r\n\r\n"]) expect(sentenceSegments(text)).toEqual(whole(text));
  });
});
