/** userMemory options that would be ignored without a word are refused by name at construction. */
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { userMemory } from "./user-memory.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";

function configError(fn: () => unknown): ThreadwiseConfigError {
  try {
    fn();
  } catch (error) {
    if (ThreadwiseConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ThreadwiseConfigError");
}

describe("userMemory options that do nothing", () => {
  const model = scriptedModel(() => "[]");
  const archivedAmong = async () => [];

  it("model with factsMode heuristic (given or the default) or off is refused", () => {
    for (const [options, said] of [
      [{ model }, 'got factsMode "heuristic", the default, which'],
      [{ model, factsMode: "heuristic" as const }, 'got factsMode "heuristic", which'],
      [{ model, factsMode: "off" as const }, 'got factsMode "off", which'],
    ] as const) {
      const error = configError(() => userMemory({ ...options, env: {} }));
      expect(error.option).toBe("userMemory.model");
      expect(error.message).toContain(`applies only with factsMode "llm" (${said}`);
    }
    expect(resolveUserMemoryOptions({ model, factsMode: "llm", env: {} }).model).toBe(model);
  });

  it("archivedAmong without trims: false (the default trims: true never asks it) is refused", () => {
    for (const options of [{ archivedAmong }, { archivedAmong, trims: true }]) {
      const error = configError(() => userMemory({ ...options, env: {} }));
      expect(error.option).toBe("userMemory.archivedAmong");
      expect(error.message).toContain("applies only with trims: false");
    }
    expect(resolveUserMemoryOptions({ archivedAmong, trims: false, env: {} }).archivedAmong).toBe(archivedAmong);
  });

  it("maxMessageCharacters with keepMessages: false is accepted: it still reads the message items kept before", () => {
    expect(resolveUserMemoryOptions({ keepMessages: false, maxMessageCharacters: 500, env: {} })).toMatchObject({
      keepMessages: false,
      maxMessageCharacters: 500,
    });
  });
});
