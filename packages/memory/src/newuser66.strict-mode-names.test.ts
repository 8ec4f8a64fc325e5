/**
 * Strict mode set in code (`memoryStack({ strictMode: true, backend: "sqlite" })`): the
 * ThreadwiseStrictModeError's message named only env variables (`MEMORY_STRICT_MODE=true requires
 * backend "postgres" (MEMORY_BACKEND=postgres, ...)`), so a stack configured in code read about
 * settings it never used. It now names each option as code sets it and its env twin; `missing` is
 * unchanged. From env it reads the same names.
 */
import { ThreadwiseStrictModeError } from "@threadwise/encryption";
import { describe, expect, it } from "vitest";
import { memoryStack } from "./memory-stack.js";

function strictError(call: () => unknown): ThreadwiseStrictModeError {
  try {
    call();
  } catch (error) {
    expect(ThreadwiseStrictModeError.isInstance(error), String(error)).toBe(true);
    return error as ThreadwiseStrictModeError;
  }
  throw new Error("no error");
}

describe("strict mode's error names the options and their env variables", () => {
  it("set in code: names memory.strictMode, memory.backend, memory.keyringPath, memory.retentionDays", () => {
    const error = strictError(() => memoryStack({ strictMode: true, backend: "sqlite", sqlitePath: ":memory:", env: {} }));
    expect([...error.missing]).toEqual(["postgres", "keyring", "retention"]);
    for (const name of ["memory.strictMode", "memory.backend", "memory.keyringPath", "memory.retentionDays"])
      expect(error.message).toContain(name);
    expect(error.message).toContain('got "sqlite"');
  });

  it("set in env: names the env variables too", () => {
    const error = strictError(() =>
      memoryStack({ env: { MEMORY_STRICT_MODE: "true", MEMORY_BACKEND: "postgres", MEMORY_ALLOW_PLAINTEXT: "true" } }),
    );
    expect([...error.missing]).toEqual(["keyring", "retention"]);
    for (const name of ["MEMORY_STRICT_MODE", "MEMORY_ALLOW_PLAINTEXT", "memory.allowPlaintext", "MEMORY_RETENTION_DAYS"])
      expect(error.message).toContain(name);
  });
});
