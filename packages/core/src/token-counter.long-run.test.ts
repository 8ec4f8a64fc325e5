import { getEncoding } from "js-tiktoken";
import { describe, expect, it } from "vitest";
import { boundedEncodeLength, createTokenCounter, LONG_RUN_EXACT_CHARACTERS } from "./token-counter.js";

// Regression: js-tiktoken's BPE is quadratic in the length of one word; a 30,000-character line
// without spaces used to take minutes to count and hung tokenCap and summarize.
describe("counting long runs without spaces", () => {
  const encoder = getEncoding("o200k_base");
  const exact = (text: string) => encoder.encode(text, "all").length;

  it("is exact for ordinary text", () => {
    const text = "The flight to Busan leaves at 9. 부산행 비행기는 9시에 출발합니다. ".repeat(50);
    expect(boundedEncodeLength(text, exact)).toBe(exact(text));
  });

  it("errs high, never low, on a long run counted in pieces", () => {
    let run = "";
    for (let i = 0; i < 1500; i += 1) run += String.fromCharCode(97 + ((i * 7919) % 26));
    const bounded = boundedEncodeLength(`prefix ${run} suffix`, exact);
    const truth = exact(`prefix ${run} suffix`);
    expect(bounded).toBeGreaterThanOrEqual(truth);
    expect(bounded).toBeLessThanOrEqual(truth * 1.25);
  });

  it("counts a 30,000-character line (latin and Hangul) and estimates past the exact part", () => {
    const counter = createTokenCounter();
    const latin = "a".repeat(30_000);
    const hangul = "가나다라마바사".repeat(5_000);
    const latinTokens = counter.countText(latin);
    const hangulTokens = counter.countText(hangul);
    // 32 'a's are 4 tokens in o200k_base; the estimated tail adds 10%.
    const exactPart = (LONG_RUN_EXACT_CHARACTERS / 32) * 4;
    expect(latinTokens).toBe(exactPart + Math.ceil(((30_000 - LONG_RUN_EXACT_CHARACTERS) * exactPart * 1.1) / LONG_RUN_EXACT_CHARACTERS));
    expect(hangulTokens).toBeGreaterThan(hangul.length / 4);
    expect(hangulTokens).toBeLessThan(hangul.length * 1.5);
  });
});
