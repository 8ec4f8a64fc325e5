import { afterEach, describe, expect, it, vi } from "vitest";
import { checkEnvNames, closestEnvName, envBoolean, envCountOrOff, envPositiveInt, envString, envWholeNumber } from "./env.js";
import { THREADWISE_ENV } from "./env-names.js";
import { ThreadwiseConfigError } from "./errors.js";
import type { ThreadwiseLogger } from "./logger.js";

const caught = (run: () => unknown): unknown => {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
};

function recordingLogger(): ThreadwiseLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info() {}, warn: (message) => void warnings.push(message) };
}

afterEach(() => vi.unstubAllEnvs());

describe("checkEnvNames: a misspelt variable is never silently ignored", () => {
  it.each([
    ["THREADWISE_ARCHIVE", "ture", "MEMORY_ARCHIVE"],
    ["THREADWISE_ARCHVE", "1", "MEMORY_ARCHIVE"],
    ["THREADWISE_MEMORY_KEYRNG", "/etc/app/keyring.json", "THREADWISE_MEMORY_KEYRING"],
    ["THREADWISE_WINDOW_SIZE", "5", "MEMORY_WINDOW_SIZE"],
    ["THREADWISE_PROMPT_MODE", "stable_tail", undefined],
  ])("an unknown THREADWISE_* name (%s=%s) throws naming it and the closest known name", (name, value, suggestion) => {
    const error = caught(() => checkEnvNames({ [name]: value }));
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe(name);
    expect((error as Error).message).toContain("is not a variable threadwise reads");
    if (suggestion) expect((error as Error).message).toContain(`did you mean ${suggestion}?`);
    expect(closestEnvName(name)).toBe(suggestion);
  });

  it("every read of a threadwise variable checks the names first (a typo next to a good value still throws)", () => {
    const env = { MEMORY_WINDOW_SIZE: "5", THREADWISE_ARCHIVE: "true" };
    expect(() => envPositiveInt("MEMORY_WINDOW_SIZE", env)).toThrow(/THREADWISE_ARCHIVE: is not a variable.*MEMORY_ARCHIVE/);
    expect(() => envBoolean("MEMORY_ARCHIVE", env)).toThrow(ThreadwiseConfigError);
    expect(() => envString("MEMORY_BACKEND", env)).toThrow(ThreadwiseConfigError);
  });

  it("lets every known name, threadwise's own test/bench variables and other software's names pass", () => {
    const logger = recordingLogger();
    const env: NodeJS.ProcessEnv = Object.fromEntries(Object.values(THREADWISE_ENV).map((name) => [name, ""]));
    Object.assign(env, {
      THREADWISE_TEST_POSTGRES_URL: "postgresql://x",
      THREADWISE_BENCH_POSTGRES_URL: "postgresql://x",
      PATH: "/usr/bin",
      NODE_ENV: "production",
      POSTGRES_PASSWORD: "x",
      MEMORY_LIMIT: "512m",
      MAX_OLD_SPACE: "1",
    });
    expect(() => checkEnvNames(env, logger)).not.toThrow();
    expect(logger.warnings).toEqual([]);
  });

  it("reports near misses of other prefixes once, to the given logger, without throwing", () => {
    const logger = recordingLogger();
    const env = { MEMORY_BACKND: "sqlite", MEMORY_WINDOWSIZE: "5", memory_archive: "true", MAX_HISTORY_TOKEN: "4000" };
    checkEnvNames(env, logger);
    checkEnvNames(env, logger);
    expect(logger.warnings).toHaveLength(1);
    for (const hint of [
      "MEMORY_BACKND (did you mean MEMORY_BACKEND?)",
      "MEMORY_WINDOWSIZE (did you mean MEMORY_WINDOW_SIZE?)",
      "memory_archive (did you mean MEMORY_ARCHIVE?)",
      "MAX_HISTORY_TOKEN (did you mean MAX_HISTORY_TOKENS?)",
    ])
      expect(logger.warnings[0]).toContain(hint);
  });

  // Was: the default logger took its level from process.env, not from the env checked, so
  // `THREADWISE_LOG: "silent"` in a stack's env still printed the warning.
  it("without a logger, reports near misses at the level of the env checked, never process.env's", () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      checkEnvNames({ MEMORY_BACKND: "sqlite", THREADWISE_LOG: "silent" });
      expect(warn).not.toHaveBeenCalled();
      vi.stubEnv(THREADWISE_ENV.log, "silent");
      checkEnvNames({ MEMORY_BACKND: "sqlite" });
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain("MEMORY_BACKND (did you mean MEMORY_BACKEND?)");
    } finally {
      warn.mockRestore();
    }
  });

  it("THREADWISE_LOG must be a level (any case)", () => {
    expect(() => checkEnvNames({ THREADWISE_LOG: "INFO" })).not.toThrow();
    const error = caught(() => checkEnvNames({ THREADWISE_LOG: "verbose" }));
    expect((error as ThreadwiseConfigError).option).toBe("THREADWISE_LOG");
    expect((error as Error).message).toContain("silent | off | warn | info | debug");
  });

  it("bad values of known names name the variable", () => {
    expect(() => envBoolean("MEMORY_ARCHIVE", { MEMORY_ARCHIVE: "ture" })).toThrow(/MEMORY_ARCHIVE: expected true or false/);
    expect(() => envWholeNumber("MEMORY_TURN_LEASE_MS", { MEMORY_TURN_LEASE_MS: "10s" })).toThrow(/MEMORY_TURN_LEASE_MS/);
    expect(envWholeNumber("MEMORY_TURN_LEASE_MS", { MEMORY_TURN_LEASE_MS: " 0 " })).toBe(0);
    expect(envString("MEMORY_BACKEND", { MEMORY_BACKEND: "  " })).toBeUndefined();
  });
});

describe("envCountOrOff: a count whose 0 turns a part off", () => {
  const rule = { unit: "tokens", off: "no recall", min: 16 };
  it("reads 0 as false, a count from min as itself, unset or blank as undefined", () => {
    expect(envCountOrOff("MEMORY_RECALL_MAX_TOKENS", { MEMORY_RECALL_MAX_TOKENS: "0" }, rule)).toBe(false);
    expect(envCountOrOff("MEMORY_RECALL_MAX_TOKENS", { MEMORY_RECALL_MAX_TOKENS: " 16 " }, rule)).toBe(16);
    expect(envCountOrOff("MEMORY_RECALL_MAX_TOKENS", {}, rule)).toBeUndefined();
    expect(envCountOrOff("MEMORY_RECALL_MAX_TOKENS", { MEMORY_RECALL_MAX_TOKENS: " " }, rule)).toBeUndefined();
  });

  it("refuses anything else naming the variable, the range, the unit and what 0 does", () => {
    for (const value of ["15", "-1", "1e3", "0x10", "2.5", "ten"]) {
      const error = caught(() => envCountOrOff("MEMORY_RECALL_MAX_TOKENS", { MEMORY_RECALL_MAX_TOKENS: value }, rule));
      expect(ThreadwiseConfigError.isInstance(error), value).toBe(true);
      expect((error as ThreadwiseConfigError).option).toBe("MEMORY_RECALL_MAX_TOKENS");
      expect((error as Error).message).toBe(
        `MEMORY_RECALL_MAX_TOKENS: expected a whole number of tokens from 16 (decimal digits), or 0 for no recall; got ${JSON.stringify(value)}`,
      );
    }
  });
});
