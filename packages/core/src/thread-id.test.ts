import { describe, expect, it } from "vitest";
import { normalizeThreadId, normalizeUserId, ThreadwiseThreadIdError } from "./thread-id.js";

describe("normalizeThreadId", () => {
  // Was: "thread_id: expected a string, got undefined", which named the field but not where a run
  // passes it (a new user's first run without a config).
  it("a missing thread id (undefined) says where a run passes one", () => {
    let thrown: unknown;
    try {
      normalizeThreadId(undefined);
    } catch (error) {
      thrown = error;
    }
    expect(ThreadwiseThreadIdError.isInstance(thrown)).toBe(true);
    expect((thrown as ThreadwiseThreadIdError).limit).toBe("type");
    expect((thrown as Error).message).toMatch(/^thread_id: expected a string, got undefined; /);
    expect((thrown as Error).message).toContain('{ configurable: { thread_id: "..." } }');
  });

  it("other ids keep their own message, without the hint", () => {
    expect(() => normalizeThreadId(42)).toThrow(/^thread_id: expected a string, got number \(42\); pass String\(id\)$/);
    expect(() => normalizeThreadId("")).toThrow(/^thread_id: expected a non-empty string$/);
    expect(() => normalizeUserId(undefined, "configurable.user_id")).toThrow(/^configurable\.user_id: expected a string, got undefined$/);
    expect(normalizeThreadId("user-42")).toBe("user-42");
  });
});
