/**
 * A long message's excerpt (the part of a recalled message that fits its line) is cut at sentences
 * found window by window (core's sentenceSegments): the segmenter is never handed the whole message
 * (V8 copies its whole input on every step, which made recall's first render of a 20,000-character
 * Korean message grow with the square of its length), and the excerpt is the one the segmenter over
 * the whole message gives.
 */
import * as core from "@threadwise/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RecallEntry } from "./message-index.js";
import { excerpt } from "./recall-block.js";

vi.mock("@threadwise/core", async (importOriginal) => {
  const actual = await importOriginal<typeof import("@threadwise/core")>();
  return { ...actual, sentenceSegments: vi.fn(actual.sentenceSegments) };
});

const whole = (text: string): string[] =>
  Array.from(new Intl.Segmenter("und", { granularity: "sentence" }).segment(text), (s) => s.segment);

const countText = (text: string) => (text === "" ? 0 : Math.ceil(text.length / 4) + 1);

afterEach(() => {
  vi.restoreAllMocks();
});

describe("excerpt of a long message", () => {
  for (const [lang, filler, needle, query] of [
    [
      "en",
      ["I kept a diary of the whole move. ", "The boxes were heavy, so we rested often. ", "Was it worth it? Yes! "],
      "My cat Mochi hid under the piano for two days. ",
      "where did the cat hide",
    ],
    [
      "ko",
      ["나는 이사하는 동안 일기를 꼼꼼하게 썼다. ", "상자가 무거워서 자주 쉬었어요. ", "그럴 가치가 있었나? 네! "],
      "우리 고양이 모찌는 이틀 동안 피아노 밑에 숨어 있었어요. ",
      "고양이 어디 숨었어",
    ],
  ] as const) {
    const parts: string[] = [];
    for (let i = 0; parts.join("").length < 40_000; i += 1) parts.push(i === 700 ? needle : (filler[i % filler.length] as string));
    const text = parts.join("");
    const make = (): RecallEntry => ({ seq: 0, id: "m1", position: 1, role: "user", text, terms: core.tokenize(text) });
    const terms = new Set(core.tokenize(query));

    it(`never hands the segmenter the whole 40,000-character message (${lang})`, () => {
      const lengths: number[] = [];
      const original = Intl.Segmenter.prototype.segment;
      vi.spyOn(Intl.Segmenter.prototype, "segment").mockImplementation(function (this: Intl.Segmenter, input: string) {
        lengths.push(input.length);
        return original.call(this, input);
      });
      const got = excerpt(make(), terms, 60, countText);
      expect(got.text).toContain(needle.trim());
      expect(Math.max(...lengths)).toBeLessThanOrEqual(2 * core.SENTENCE_WINDOW);
    });

    it(`gives the excerpt the segmenter over the whole message gives (${lang})`, () => {
      let oracleRuns = 0;
      for (const maxTokens of [8, 60, 400]) {
        const got = excerpt(make(), terms, maxTokens, countText);
        vi.mocked(core.sentenceSegments).mockImplementationOnce((t) => {
          oracleRuns += 1;
          return whole(t);
        });
        const oracle = excerpt(make(), terms, maxTokens, countText);
        expect(got).toEqual(oracle);
      }
      // The oracle runs did take the whole-message path.
      expect(oracleRuns).toBe(3);
    });
  }
});
