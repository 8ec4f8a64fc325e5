/** factRecall's `model` with a mode that never calls it is refused by name at construction. */
import { scriptedModel } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { factRecall, resolveFactRecallConfig } from "./fact-recall.js";

describe("factRecall.model with a mode other than llm", () => {
  const model = scriptedModel(() => "[]");

  it("is refused with mode heuristic or off given, and with the default mode (heuristic)", () => {
    for (const [options, said] of [
      [{ model, mode: "heuristic" as const }, 'got mode "heuristic", which'],
      [{ model, mode: "off" as const }, 'got mode "off", which'],
      [{ model }, 'got mode "heuristic", the default, which'],
      [{ model: "openai:gpt-4o-mini" }, 'got mode "heuristic", the default, which'],
    ] as const) {
      expect(() => factRecall({ ...options, env: {} })).toThrow(
        expect.objectContaining({
          code: "THREADWISE_INVALID_OPTION",
          option: "factRecall.model",
          message: expect.stringContaining(`applies only with mode "llm" (${said}`),
        }),
      );
    }
  });

  it("is accepted in llm mode (given or from env), and a mode set by env is left alone", () => {
    expect(resolveFactRecallConfig({ model, mode: "llm", env: {} }).mode).toBe("llm");
    expect(resolveFactRecallConfig({ model, env: { MEMORY_FACTS_MODE: "llm" } }).mode).toBe("llm");
    expect(resolveFactRecallConfig({ model, env: { MEMORY_FACTS_MODE: "off" } }).mode).toBe("off");
    expect(resolveFactRecallConfig({ mode: "heuristic", env: {} }).mode).toBe("heuristic");
  });
});
