/** userMemory options that would be ignored without a word are refused by name at construction. */
import { scriptedModel } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { userMemory } from "./user-memory.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";

describe("userMemory options that do nothing", () => {
  const model = scriptedModel(() => "[]");
  const archivedAmong = async () => [];

  it("model with factsMode heuristic (given or the default) or off is refused", () => {
    for (const [options, said] of [
      [{ model }, 'got factsMode "heuristic", the default, which'],
      [{ model, factsMode: "heuristic" as const }, 'got factsMode "heuristic", which'],
      [{ model, factsMode: "off" as const }, 'got factsMode "off", which'],
    ] as const) {
      expect(() => userMemory({ ...options, env: {} })).toThrow(
        expect.objectContaining({
          code: "THREADWISE_INVALID_OPTION",
          option: "userMemory.model",
          message: expect.stringContaining(`applies only with factsMode "llm" (${said}`),
        }),
      );
    }
    expect(resolveUserMemoryOptions({ model, factsMode: "llm", env: {} }).model).toBe(model);
  });

  it("archivedAmong without trims: false (the default trims: true never asks it) is refused", () => {
    for (const options of [{ archivedAmong }, { archivedAmong, trims: true }]) {
      expect(() => userMemory({ ...options, env: {} })).toThrow(
        expect.objectContaining({
          code: "THREADWISE_INVALID_OPTION",
          option: "userMemory.archivedAmong",
          message: expect.stringContaining("applies only with trims: false"),
        }),
      );
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
