import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ThreadwiseConfigError } from "@threadwise/core";
import { ThreadwiseStrictModeError } from "@threadwise/encryption";
import { describe, expect, it } from "vitest";
import { MEMORY_ENV, memoryConfigFromEnv, resolveMemoryConfig } from "./config.js";
import { memoryStack } from "./memory-stack.js";

function configError(fn: () => unknown): ThreadwiseConfigError {
  try {
    fn();
  } catch (error) {
    if (ThreadwiseConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ThreadwiseConfigError");
}

function strictError(fn: () => unknown): ThreadwiseStrictModeError {
  try {
    fn();
  } catch (error) {
    if (ThreadwiseStrictModeError.isInstance(error)) return error;
    throw error;
  }
  throw new Error("expected a ThreadwiseStrictModeError");
}

describe("resolveMemoryConfig", () => {
  it("has documented defaults with no code and no env", () => {
    const config = resolveMemoryConfig({ project: "shop" }, {});
    expect(config).toMatchObject({
      backend: "in_memory",
      windowSize: 20,
      summarize: true,
      summarizeThreshold: 40,
      recallMaxTokens: 300,
      factsMode: "off",
      factRecallMaxItems: 3,
      promptContextMode: "legacy_system",
      historyAware: true,
      workMemory: false,
      userMemory: false,
      userMemoryMaxTokens: 300,
      postgresSchema: "public",
      pgPoolMode: "direct",
      pgPoolMax: 5,
      strictMode: false,
      sqlitePath: "./shop_memory.sqlite",
      postgresDsn: "postgresql://localhost:5432/shop_memory",
    });
    expect([config.maxHistoryTokens, config.persistTrimKeepGroups, config.historySeedMaxMessages, config.retentionDays]).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it("turns the preset's summary and recall off through their env twins (MEMORY_RECALL_MAX_TOKENS=0 is off)", () => {
    const config = resolveMemoryConfig({ project: "shop" }, { MEMORY_SUMMARIZE: "false", MEMORY_RECALL_MAX_TOKENS: "0" });
    expect([config.summarize, config.recallMaxTokens]).toEqual([false, false]);
    expect(resolveMemoryConfig({ project: "shop" }, { MEMORY_RECALL_MAX_TOKENS: "250" }).recallMaxTokens).toBe(250);
    expect(resolveMemoryConfig({ project: "shop", recallMaxTokens: false }, { MEMORY_RECALL_MAX_TOKENS: "250" }).recallMaxTokens).toBe(
      false,
    );
  });

  it("names the default database <project>_memory, project from ./package.json when not given", () => {
    // The repository root's package.json is named "threadwise".
    const config = resolveMemoryConfig({}, {});
    expect(config.project).toBe("threadwise");
    expect(config.postgresDsn).toBe("postgresql://localhost:5432/threadwise_memory");
    // A DSN without a database gets the default name; one with a database keeps it.
    expect(
      resolveMemoryConfig({ project: "a", backend: "postgres", allowPlaintext: true, postgresDsn: "postgresql://u@db:6432" }, {})
        .postgresDsn,
    ).toBe("postgresql://u@db:6432/a_memory");
    expect(
      resolveMemoryConfig({ project: "a", backend: "postgres", allowPlaintext: true, postgresDsn: "postgresql://u@db/other" }, {})
        .postgresDsn,
    ).toBe("postgresql://u@db/other");
  });

  it.each([
    ["off", "off"],
    ["in_memory", "in_memory"],
    ["sqlite", "sqlite"],
    ["postgres", "postgres"],
  ] as const)("selects backend %s from MEMORY_BACKEND", (value, expected) => {
    const env = { MEMORY_BACKEND: value, MEMORY_ALLOW_PLAINTEXT: "true" };
    expect(resolveMemoryConfig({}, env).backend).toBe(expected);
  });

  it("reads every env twin", () => {
    const env = {
      MEMORY_BACKEND: "sqlite",
      THREADWISE_PROJECT: "crm",
      MEMORY_WINDOW_SIZE: "12",
      MEMORY_START_ON: "any",
      MAX_HISTORY_TOKENS: "8000",
      MAX_HISTORY_TOKENS_OVERFLOW: "throw",
      MEMORY_SUMMARIZE: "true",
      MEMORY_SUMMARIZE_THRESHOLD: "30",
      MEMORY_FACTS_MODE: "heuristic",
      MEMORY_FACT_RECALL_MAX_ITEMS: "5",
      MEMORY_RECALL_MAX_TOKENS: "250",
      THREADWISE_PROMPT_CONTEXT_MODE: "stable_tail",
      THREADWISE_PROMPT_LANGUAGE: "auto",
      MEMORY_HISTORY_AWARE: "false",
      MEMORY_PERSIST_TRIM_KEEP_GROUPS: "40",
      MEMORY_ARCHIVE: "true",
      MEMORY_WORK_MEMORY: "yes",
      MEMORY_USER_MEMORY: "true",
      MEMORY_USER_MEMORY_MAX_TOKENS: "400",
      A2A_HISTORY_MAX_MESSAGES: "25",
      MEMORY_SQLITE_PATH: "/tmp/x.sqlite",
      POSTGRES_MEMORY_DSN: "postgresql://u:p@h/db",
      MEMORY_PG_SCHEMA: "mem",
      MEMORY_PG_POOL_MODE: "transaction",
      MEMORY_PG_POOL_MAX: "3",
      MEMORY_RETENTION_DAYS: "90",
      MEMORY_STRICT_MODE: "false",
      THREADWISE_MEMORY_KEYRING: "/etc/tw/keyring.json",
      MEMORY_ALLOW_PLAINTEXT: "false",
      MEMORY_TURN_LEASE_MS: "15000",
    };
    // One variable per field: the table in the README lists the same names.
    expect(Object.values(MEMORY_ENV).sort()).toEqual(Object.keys(env).sort());
    expect(resolveMemoryConfig({}, env)).toEqual({
      backend: "sqlite",
      project: "crm",
      windowSize: 12,
      startOn: "any",
      maxHistoryTokens: 8000,
      maxHistoryTokensOverflow: "throw",
      summarize: true,
      summarizeThreshold: 30,
      factsMode: "heuristic",
      factRecallMaxItems: 5,
      recallMaxTokens: 250,
      promptContextMode: "stable_tail",
      promptLanguage: "auto",
      historyAware: false,
      persistTrimKeepGroups: 40,
      archive: true,
      workMemory: true,
      userMemory: true,
      userMemoryMaxTokens: 400,
      historySeedMaxMessages: 25,
      sqlitePath: "/tmp/x.sqlite",
      postgresDsn: "postgresql://u:p@h/db",
      postgresSchema: "mem",
      pgPoolMode: "transaction",
      pgPoolMax: 3,
      retentionDays: 90,
      strictMode: false,
      keyringPath: "/etc/tw/keyring.json",
      allowPlaintext: false,
      turnLeaseMs: 15000,
    });
  });

  it("the README's table documents every env twin", () => {
    const readme = readFileSync(join(import.meta.dirname, "../README.md"), "utf8");
    for (const name of [...Object.values(MEMORY_ENV), "POSTGRES_MIGRATION_DSN"]) expect(readme).toContain(`| \`${name}\``);
  });

  it("lets code win over env, and MEMORY_WINDOW_SIZE=0 turn the window off", () => {
    expect(resolveMemoryConfig({ backend: "off" }, { MEMORY_BACKEND: "sqlite" }).backend).toBe("off");
    expect(resolveMemoryConfig({}, { MEMORY_WINDOW_SIZE: "0" }).windowSize).toBe(false);
  });

  it("memoryConfigFromEnv leaves unset variables out", () => {
    expect(memoryConfigFromEnv({ MEMORY_WINDOW_SIZE: "7", OTHER: "x" })).toEqual({ windowSize: 7 });
  });
});

describe("validation errors", () => {
  it('rejects "in-memory" in code and names in_memory', () => {
    const error = configError(() => resolveMemoryConfig({ backend: "in-memory" as never }, {}));
    expect(error.option).toBe("memory.backend");
    expect(error.message).toContain('"in_memory"');
  });

  it("rejects MEMORY_BACKEND=in-memory and names in_memory", () => {
    const error = configError(() => resolveMemoryConfig({}, { MEMORY_BACKEND: "in-memory" }));
    expect(error.option).toBe("MEMORY_BACKEND");
    expect(error.message).toContain('"in_memory"');
  });

  it("names the variable or field and the accepted values", () => {
    expect(configError(() => resolveMemoryConfig({}, { MEMORY_BACKEND: "redis" })).message).toContain(
      "off | in_memory | sqlite | postgres",
    );
    expect(configError(() => resolveMemoryConfig({}, { MEMORY_WINDOW_SIZE: "-3" })).option).toBe("MEMORY_WINDOW_SIZE");
    expect(configError(() => resolveMemoryConfig({}, { MEMORY_PG_POOL_MODE: "statement" })).message).toContain(
      "direct | session | transaction",
    );
    expect(configError(() => resolveMemoryConfig({ windowSize: 0 }, {})).option).toBe("memory.windowSize");
    // Was "memory.windowSize: Invalid input", naming neither what is accepted nor what was given.
    expect(configError(() => resolveMemoryConfig({ windowSize: "20" } as never, {})).message).toBe(
      'memory.windowSize: expected a positive integer (messages), or false for no window; got "20"',
    );
    expect(configError(() => resolveMemoryConfig({ windowSize: 2.5 }, {})).message).toContain(
      "expected a positive integer (messages), or false for no window; got 2.5",
    );
    expect(configError(() => resolveMemoryConfig({ recallMaxTokens: true } as never, {})).message).toBe(
      "memory.recallMaxTokens: expected an integer (tokens) from 16, or false for no recall; got true",
    );
    expect(configError(() => resolveMemoryConfig({ postgresSchema: "Drop Table" }, {})).option).toBe("memory.postgresSchema");
    expect(configError(() => resolveMemoryConfig({ colour: "red" } as never, {})).option).toBe("memory.colour");
  });

  // Was "memory.recallMaxTokens: Too small: expected number to be >=16" (and "MEMORY_WINDOW_SIZE:
  // expected a positive integer" for -1): zod reported the number's own issue, so the error left
  // out that false (env: 0) turns the part off, and the env error called 0 invalid.
  it("a number out of range says the range, its unit and how to turn the part off, in code and in env", () => {
    expect(configError(() => resolveMemoryConfig({ windowSize: 0 }, {})).message).toBe(
      "memory.windowSize: expected a positive integer (messages), or false for no window; got 0",
    );
    expect(configError(() => resolveMemoryConfig({ recallMaxTokens: 5 }, {})).message).toBe(
      "memory.recallMaxTokens: expected an integer (tokens) from 16, or false for no recall; got 5",
    );
    expect(configError(() => resolveMemoryConfig({}, { MEMORY_WINDOW_SIZE: "-1" })).message).toBe(
      'MEMORY_WINDOW_SIZE: expected a whole number of messages from 1 (decimal digits), or 0 for no window; got "-1"',
    );
    for (const value of ["5", "-1", "1e3"]) {
      const error = configError(() => resolveMemoryConfig({}, { MEMORY_RECALL_MAX_TOKENS: value }));
      expect(error.option).toBe("MEMORY_RECALL_MAX_TOKENS");
      expect(error.message).toBe(
        `MEMORY_RECALL_MAX_TOKENS: expected a whole number of tokens from 16 (decimal digits), or 0 for no recall; got "${value}"`,
      );
    }
    expect(resolveMemoryConfig({}, { MEMORY_RECALL_MAX_TOKENS: "16" }).recallMaxTokens).toBe(16);
  });

  // Was "memory.summarizeTrigger: Invalid input" (summarize's own `trigger` said what it takes).
  it("a summarizeTrigger of the wrong shape names both shapes and what was given", () => {
    expect(configError(() => resolveMemoryConfig({ summarizeTrigger: 40 } as never, {})).message).toBe(
      "memory.summarizeTrigger: expected { tokens?, messages?, fraction? } or a list of them, got 40",
    );
  });

  // Issue 24: outside strict mode this threw ThreadwiseStrictModeError, sending people to a setting they had not set.
  it("postgres needs a keyring unless plaintext is allowed explicitly (R30): a config error naming the keyring setting", () => {
    const error = configError(() => resolveMemoryConfig({ backend: "postgres" }, {}));
    expect(error.option).toBe("THREADWISE_MEMORY_KEYRING");
    expect(error.code).toBe("THREADWISE_INVALID_OPTION");
    expect(error.name).toBe("ThreadwiseConfigError");
    expect(error.message).toContain("THREADWISE_MEMORY_KEYRING");
    expect(error.message).toContain("threadwise keyring create");
    expect(resolveMemoryConfig({ backend: "postgres", allowPlaintext: true }, {}).backend).toBe("postgres");
    expect(resolveMemoryConfig({ backend: "postgres", keyringPath: "/k.json" }, {}).backend).toBe("postgres");
  });

  it("strict mode names every missing requirement (R30)", () => {
    const error = strictError(() => resolveMemoryConfig({}, { MEMORY_STRICT_MODE: "true", MEMORY_BACKEND: "sqlite" }));
    expect(error.missing).toEqual(["postgres", "keyring", "retention"]);
    expect(error.message).toContain("MEMORY_BACKEND=postgres");
    expect(error.message).toContain("THREADWISE_MEMORY_KEYRING");
    expect(error.message).toContain("MEMORY_RETENTION_DAYS");
    const partial = strictError(() =>
      resolveMemoryConfig({}, { MEMORY_STRICT_MODE: "true", MEMORY_BACKEND: "postgres", THREADWISE_MEMORY_KEYRING: "/k.json" }),
    );
    expect(partial.missing).toEqual(["retention"]);
    expect(partial.message).not.toContain("MEMORY_BACKEND=postgres");
    const ok = resolveMemoryConfig(
      {},
      { MEMORY_STRICT_MODE: "true", MEMORY_BACKEND: "postgres", THREADWISE_MEMORY_KEYRING: "/k.json", MEMORY_RETENTION_DAYS: "30" },
    );
    expect(ok.strictMode).toBe(true);
    const plaintext = strictError(() =>
      resolveMemoryConfig({ allowPlaintext: true }, { MEMORY_STRICT_MODE: "true", MEMORY_BACKEND: "postgres", MEMORY_RETENTION_DAYS: "3" }),
    );
    expect(plaintext.missing).toEqual(["keyring"]);
    expect(plaintext.message).toContain("MEMORY_ALLOW_PLAINTEXT");
  });

  // The README accepts true/false/1/0/yes/no/on/off for booleans; the message said "true or false" only.
  it("a bad boolean env value (MEMORY_ARCHIVE=maybe) names the variable and every accepted spelling", () => {
    const error = configError(() => resolveMemoryConfig({}, { MEMORY_ARCHIVE: "maybe" }));
    expect(error.option).toBe("MEMORY_ARCHIVE");
    expect(error.message).toBe('MEMORY_ARCHIVE: expected true or false (also 1/0, yes/no, on/off), got "maybe"');
    expect(resolveMemoryConfig({}, { MEMORY_ARCHIVE: "yes" }).archive).toBe(true);
  });

  it("memoryStack throws the same errors at construction", () => {
    expect(() => memoryStack({ backend: "in-memory" as never, env: {} })).toThrow(/in_memory/);
  });
});

describe("the summary's schedule with summarize: false", () => {
  it("refuses summarizeThreshold or summarizeTrigger given in code with summarize: false in code, naming it", () => {
    for (const [option, value] of [
      ["summarizeThreshold", 30],
      ["summarizeTrigger", { tokens: 4000 }],
    ] as const) {
      const error = configError(() => resolveMemoryConfig({ summarize: false, [option]: value }, {}));
      expect(error.option).toBe(`memory.${option}`);
      expect(error.message).toContain("applies only with summarize on (got summarize: false");
      expect(configError(() => memoryStack({ summarize: false, [option]: value, env: {} })).option).toBe(`memory.${option}`);
    }
  });

  it("leaves MEMORY_SUMMARIZE=false (env) with a threshold in code, and either in env, alone", () => {
    expect(resolveMemoryConfig({ summarizeThreshold: 30 }, { MEMORY_SUMMARIZE: "false" })).toMatchObject({ summarize: false });
    expect(resolveMemoryConfig({ summarize: false }, { MEMORY_SUMMARIZE_THRESHOLD: "30" })).toMatchObject({ summarize: false });
    expect(resolveMemoryConfig({ summarize: true, summarizeThreshold: 30 }, {})).toMatchObject({ summarizeThreshold: 30 });
  });
});
