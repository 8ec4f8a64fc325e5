/**
 * Threads arriving with 20,000 messages (issue 23): split into passes under caps of 256, 2,000 and
 * 8,000 tokens, and summarized to the end in the foreground and the background. Every message that
 * left the window is in exactly one summarizer input, in order; every pass input is within the cap.
 * Slow suite: tens of seconds on a 2-core machine.
 */
import { createTokenCounter } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { catchUp, importedThread } from "./fixtures/imported-thread.js";
import { DEFAULT_SUMMARY_PROMPT, summarizerPasses, transcriptLine } from "./summarizer-input.js";

const SIZE = 20_000;

describe("20,000 imported messages", () => {
  for (const cap of [256, 2000, 8000]) {
    it(`${cap}-token cap: consecutive passes covering every message`, () => {
      const span = importedThread(SIZE);
      const passes = summarizerPasses({ span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: cap, counter: createTokenCounter() });
      expect(passes.flat()).toEqual(span);
      expect(passes.length).toBeGreaterThan(SIZE / (cap === 256 ? 20 : 400));
    });
  }

  for (const background of [false, true])
    for (const cap of [2000, 8000]) {
      it(`${background ? "background" : "foreground"}, ${cap}-token cap: every evicted message in exactly one input, each within the cap`, async () => {
        const run = await catchUp({ size: SIZE, maxInputTokens: cap, background, maxPassesPerCall: 100 });
        expect(run.covered).toBeGreaterThanOrEqual(SIZE - 20);
        expect(run.inputs.flat()).toEqual(run.stored.slice(0, run.covered).map((m) => transcriptLine(m)));
        expect(run.summary?.passes).toBe(run.inputs.length);
        expect(run.summary?.coveredFromId).toBe("u0");
        expect(run.largestPass).toBeLessThanOrEqual(cap);
        expect(run.largestView).toBeLessThanOrEqual(20 + 22);
      }, 300_000);
    }
});
