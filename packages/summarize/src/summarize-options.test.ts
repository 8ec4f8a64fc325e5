/** Options of summarize that contradict each other or would be ignored are refused by name at construction. */
import { describe, expect, it } from "vitest";
import { summarize } from "./summarize.js";
import { resolveSummarizeOptions } from "./summarize-options.js";

describe("summarize.modelMaxInputTokens without a fraction", () => {
  it("is refused when neither trigger nor keep has a fraction (the default, tokens, messages)", () => {
    for (const options of [
      { modelMaxInputTokens: 128_000 },
      { modelMaxInputTokens: 128_000, trigger: { tokens: 4000 } },
      { modelMaxInputTokens: 128_000, trigger: [{ messages: 40 }, { tokens: 8000 }], keep: { tokens: 2000 } },
      { modelMaxInputTokens: 128_000, threshold: 30, windowSize: 10 },
    ]) {
      expect(() => summarize({ ...options, env: {} })).toThrow(
        expect.objectContaining({
          code: "THREADWISE_INVALID_OPTION",
          option: "summarize.modelMaxInputTokens",
          message: expect.stringContaining("applies only with a fraction in trigger or keep"),
        }),
      );
    }
  });

  it("is accepted with a fraction in trigger (one condition of a list) or keep, or a trigger or keep from env", () => {
    expect(resolveSummarizeOptions({ modelMaxInputTokens: 128_000, trigger: { fraction: 0.8 }, env: {} }).modelMaxInputTokens).toBe(
      128_000,
    );
    expect(
      resolveSummarizeOptions({ modelMaxInputTokens: 128_000, trigger: [{ messages: 40 }, { fraction: 0.5 }], env: {} }).trigger,
    ).toHaveLength(2);
    expect(resolveSummarizeOptions({ modelMaxInputTokens: 128_000, keep: { fraction: 0.2 }, env: {} }).keep).toEqual({ fraction: 0.2 });
    // The deployment shapes the trigger in env: the code's context window is left alone.
    expect(resolveSummarizeOptions({ modelMaxInputTokens: 128_000, env: { MEMORY_SUMMARIZE_TRIGGER_TOKENS: "4000" } }).trigger).toEqual([
      { tokens: 4000 },
    ]);
    // Env's own context window, with no fraction: one environment serves several stacks.
    expect(resolveSummarizeOptions({ env: { MEMORY_SUMMARIZE_MODEL_MAX_INPUT_TOKENS: "128000" } }).modelMaxInputTokens).toBe(128_000);
  });
});
