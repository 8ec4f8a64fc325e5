/**
 * The summarize bench's figure lines (bench/summarize.ts): issue 4 quoted LangChain's figures on
 * LoCoMo conv-26, so a replay of another conversation (`--data`, `--conversation`) is not set
 * beside them.
 */
import { describe, expect, it } from "vitest";
import { figureLines, type RunResult } from "../bench/summarize.js";

const run = (stack: string, calls: number): RunResult => ({
  stack,
  summary: "extractive",
  calls,
  inputTokens: 3000,
  evictedTokens: 2000,
  storedMessages: 40,
  totalMessages: 360,
  modelTokensPerCall: 900,
});

describe("figureLines", () => {
  const results = [run("threadwise", 16), run("langchain", 12)];

  it("quotes issue 4's conv-26 figures on conv-26", () => {
    expect(figureLines("conv-26", results)[1]).toBe(
      "- LangChain: input / evicted 1.50x (issue 4 quotes 1.73x), 12 summarizer calls (issue 4 quotes 19), 40 of 360 messages stored.",
    );
  });

  it("sets another conversation's figures beside no quote", () => {
    const lines = figureLines("conv-30", results).join("\n");
    expect(lines).not.toContain("issue 4 quotes");
    expect(lines).toContain("- LangChain: input / evicted 1.50x, 12 summarizer calls, 40 of 360 messages stored.");
  });
});
