/**
 * Every factory refuses what it cannot use, at construction, with a typed error that names the
 * option (issue 13):
 * - a misspelt or unknown key (`maxMessage`) throws `ThreadwiseUnknownOptionError` naming the key
 *   and, when one is close, the accepted key it was probably meant to be;
 * - every `timeoutMs` and its env twin accept 1..2,147,483,647 ms (Node's timer limit) and refuse
 *   0 and 2^31 (which used to overflow the timer and fire after 1 ms) naming the limit.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { createTokenCounter, MAX_TIMER_MS, ThreadwiseConfigError, ThreadwiseUnknownOptionError } from "@threadwise/core";
import { encryptCheckpointer, encryptedSerializer, reencrypt } from "@threadwise/encryption";
import { factRecall } from "@threadwise/fact-recall";
import { historyAware } from "@threadwise/history-aware";
import { historySeed } from "@threadwise/history-seed";
import {
  cacheBreakpoints,
  createCheckpointer,
  createMemoryPool,
  MemoryThreadRegistry,
  memoryMiddleware,
  memoryStack,
  messageArchive,
  migrate,
  resolveMemoryConfig,
  ThreadwiseSaver,
} from "@threadwise/memory";
import { persistTrim } from "@threadwise/persist-trim";
import { recall, resolveRecallOptions } from "@threadwise/recall";
import { extractiveSummarizer, resolveSummarizeOptions, summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { resolveUserMemoryOptions, userMemory } from "@threadwise/user-memory";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { describe, expect, it } from "vitest";

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the factory to throw");
}

async function rejected(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("expected the factory to reject");
}

// factory, the misspelt options, the full option name, and the suggested key.
const misspelt: [string, () => unknown, string, string | undefined][] = [
  ["windowTrim", () => windowTrim({ maxMessage: 20 } as never), "windowTrim.maxMessage", "maxMessages"],
  ["tokenCap", () => tokenCap({ maxTokens: 100, maxToken: 100 } as never), "tokenCap.maxToken", "maxTokens"],
  ["summarize", () => summarize({ windowSize: 4, treshold: 10 } as never), "summarize.treshold", "threshold"],
  ["factRecall", () => factRecall({ maxItem: 3 } as never), "factRecall.maxItem", "maxItems"],
  ["historyAware", () => historyAware({ notes: "x" } as never), "historyAware.notes", "note"],
  ["workMemory", () => workMemory({ timeout_ms: 100 } as never), "workMemory.timeout_ms", "timeoutMs"],
  ["historySeed", () => historySeed({ maxMessage: 5 } as never), "historySeed.maxMessage", "maxMessages"],
  ["persistTrim", () => persistTrim({ keepGroups: 3, keepGroup: 3 } as never), "persistTrim.keepGroup", "keepGroups"],
  ["recall", () => recall({ maxItem: 3 } as never), "recall.maxItem", "maxItems"],
  ["userMemory", () => userMemory({ maxToken: 300 } as never), "userMemory.maxToken", "maxTokens"],
  ["memoryStack (config)", () => memoryStack({ windowSise: 5, env: {} } as never), "memory.windowSise", "windowSize"],
  ["memoryStack (models)", () => memoryStack({ models: { sumarize: {} }, env: {} } as never), "memory.models.sumarize", "summarize"],
  [
    "memoryStack (encryption)",
    () => memoryStack({ encryption: { agentID: "a" }, env: {} } as never),
    "memory.encryption.agentID",
    "agentId",
  ],
  [
    "encryptCheckpointer",
    () => encryptCheckpointer(new MemorySaver(), { agentID: "a" } as never, {}),
    "encryptCheckpointer.agentID",
    "agentId",
  ],
  ["encryptedSerializer", () => encryptedSerializer({ tenant: "t" } as never, {}), "encryptedSerializer.tenant", "tenantId"],
  ["createTokenCounter", () => createTokenCounter({ encodig: "o200k_base" } as never), "createTokenCounter.encodig", "encoding"],
  ["extractiveSummarizer", () => extractiveSummarizer({ maxSentence: 3 } as never), "extractiveSummarizer.maxSentence", "maxSentences"],
  [
    "createMemoryPool",
    () => createMemoryPool("postgresql://127.0.0.1:1/x", { idleTimeoutMilis: 5 } as never),
    "createMemoryPool.idleTimeoutMilis",
    "idleTimeoutMillis",
  ],
  ["cacheBreakpoints", () => cacheBreakpoints({ tll: "1h" } as never), "cacheBreakpoints.tll", "ttl"],
  ["windowTrim (far off)", () => windowTrim({ colour: "red" } as never), "windowTrim.colour", undefined],
];

describe("unknown option keys throw ThreadwiseUnknownOptionError naming the key", () => {
  it.each(misspelt)("%s", (_name, make, option, suggestion) => {
    const error = thrown(make);
    expect(ThreadwiseUnknownOptionError.isInstance(error)).toBe(true);
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    const typed = error as ThreadwiseUnknownOptionError;
    expect(typed.code).toBe("THREADWISE_INVALID_OPTION");
    expect(typed.option).toBe(option);
    expect(typed.key).toBe(option.split(".").at(-1));
    expect(typed.suggestion).toBe(suggestion);
    if (suggestion) expect(typed.message).toContain(`did you mean "${suggestion}"?`);
    expect(typed.accepted.length).toBeGreaterThan(0);
  });

  it("migrate", async () => {
    const error = await rejected(() => migrate({ dsn: "postgresql://127.0.0.1:1/x", shema: "s" } as never));
    expect(error).toMatchObject({ option: "migrate.shema", key: "shema", suggestion: "schema" });
  });

  it("reencrypt", async () => {
    const error = await rejected(() => reencrypt({ saver: {} as never, batchSise: 10 } as never));
    expect(error).toMatchObject({ option: "reencrypt.batchSise", key: "batchSise", suggestion: "batchSize" });
  });

  it("the accepted keys are listed in the message", () => {
    const error = thrown(() => windowTrim({ maxMessage: 20 } as never)) as Error;
    expect(error.message).toBe(
      'windowTrim.maxMessage: unknown option "maxMessage"; did you mean "maxMessages"? accepted: maxMessages, startOn, eviction, lowWatermark, archived, logger, env',
    );
  });
});

// A ThreadwiseSaver for the factories that take one (messageArchive) or are one.
const memorySaver = () => createCheckpointer(resolveMemoryConfig({ backend: "in_memory" }, {})) as ThreadwiseSaver;

// Each factory and the scope its errors name, with one option of a wrong type (its full name). From
// JavaScript anything can be passed as the options.
const factories: [string, (options: unknown) => unknown, Record<string, unknown>, string][] = [
  ["windowTrim", (options) => windowTrim(options as never), { maxMessages: "20" }, "windowTrim.maxMessages"],
  ["tokenCap", (options) => tokenCap(options as never), { maxTokens: "100" }, "tokenCap.maxTokens"],
  ["summarize", (options) => summarize(options as never), { threshold: "many" }, "summarize.threshold"],
  ["factRecall", (options) => factRecall(options as never), { maxItems: [3] }, "factRecall.maxItems"],
  ["historyAware", (options) => historyAware(options as never), { note: 5 }, "historyAware.note"],
  ["workMemory", (options) => workMemory(options as never), { timeoutMs: "1s" }, "workMemory.timeoutMs"],
  ["historySeed", (options) => historySeed(options as never), { maxMessages: -1 }, "historySeed.maxMessages"],
  ["persistTrim", (options) => persistTrim(options as never), { keepGroups: "3" }, "persistTrim.keepGroups"],
  ["recall", (options) => recall(options as never), { maxItems: true }, "recall.maxItems"],
  ["userMemory", (options) => userMemory(options as never), { maxTokens: {} }, "userMemory.maxTokens"],
  ["memory", (options) => memoryStack(options as never), { windowSize: "5", env: {} }, "memory.windowSize"],
  [
    "memoryMiddleware",
    (options) => memoryMiddleware(resolveMemoryConfig({}, {}), options as never),
    { structuredResponse: "yes" },
    "memoryMiddleware.structuredResponse",
  ],
  ["messageArchive", (options) => messageArchive(memorySaver(), options as never), { keepGroups: 0.5 }, "messageArchive.keepGroups"],
  [
    "ThreadwiseSaver",
    (options) => new ThreadwiseSaver(new MemorySaver(), new MemoryThreadRegistry(new MemorySaver()), options as never),
    { turnLeaseMs: "10s" },
    "ThreadwiseSaver.turnLeaseMs",
  ],
  ["createTokenCounter", (options) => createTokenCounter(options as never), { encoding: 200 }, "createTokenCounter.encoding"],
  ["cacheBreakpoints", (options) => cacheBreakpoints(options as never), { ttl: "10m" }, "cacheBreakpoints.ttl"],
  ["extractiveSummarizer", (options) => extractiveSummarizer(options as never), { maxSentences: "3" }, "extractiveSummarizer.maxSentences"],
];

/** What building with `options` gives: "built", or the message it throws. */
const outcome = (make: (options: unknown) => unknown, options: unknown) => {
  try {
    make(options);
    return "built";
  } catch (error) {
    return (error as Error).message;
  }
};

describe("options that are not an object throw ThreadwiseConfigError naming the factory", () => {
  // Was: memoryStack("sqlite") named an unknown option "0", memoryStack(5) and summarize(5) were
  // accepted, memoryStack(null) and windowTrim(null) threw a TypeError; then null was taken for
  // no options, so windowTrim(null) built a 20-message window silently.
  it.each(
    factories.flatMap(([scope, make]) =>
      ["sqlite", 5, true, [], () => ({}), null].map(
        (value) => [scope, value === null ? "null" : Array.isArray(value) ? "array" : typeof value, value, make] as const,
      ),
    ),
  )("%s(%s)", (scope, type, value, make) => {
    const error = thrown(() => make(value));
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe(scope);
    expect((error as Error).message).toContain("expected an options object");
    expect((error as Error).message).toContain(type === "array" ? "an array" : type);
  });

  it.each(factories)("%s(undefined) uses the documented defaults, as {} does", (_scope, make) => {
    expect(outcome(make, undefined)).toBe(outcome(make, {}));
  });
});

describe("an option of the wrong type throws ThreadwiseConfigError naming it; an unknown key, ThreadwiseUnknownOptionError", () => {
  it.each(factories)("%s", (scope, make, wrong, option) => {
    const error = thrown(() => make(wrong));
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect(ThreadwiseUnknownOptionError.isInstance(error)).toBe(false);
    expect((error as ThreadwiseConfigError).option).toBe(option);
    const unknown = thrown(() => make({ ...(scope === "memory" ? { env: {} } : {}), colour: "red" }));
    expect(ThreadwiseUnknownOptionError.isInstance(unknown)).toBe(true);
    expect((unknown as ThreadwiseUnknownOptionError).option).toBe(`${scope}.colour`);
  });
});

// Factories with a timer option: construct with a value, throwing or not.
const timers: [string, (timeoutMs: number) => unknown, string][] = [
  ["summarize", (timeoutMs) => summarize({ timeoutMs, logger: false }), "summarize.timeoutMs"],
  ["factRecall", (timeoutMs) => factRecall({ mode: "llm", timeoutMs, logger: false }), "factRecall.timeoutMs"],
  ["workMemory", (timeoutMs) => workMemory({ timeoutMs, logger: false }), "workMemory.timeoutMs"],
  ["recall", (timeoutMs) => recall({ timeoutMs, logger: false }), "recall.timeoutMs"],
  [
    "createMemoryPool (idleTimeoutMillis)",
    (timeoutMs) => createMemoryPool("postgresql://127.0.0.1:1/x", { idleTimeoutMillis: timeoutMs }),
    "createMemoryPool.idleTimeoutMillis",
  ],
  [
    "createMemoryPool (connectionTimeoutMillis)",
    (timeoutMs) => createMemoryPool("postgresql://127.0.0.1:1/x", { connectionTimeoutMillis: timeoutMs }),
    "createMemoryPool.connectionTimeoutMillis",
  ],
];

describe("timer options are validated to Node's range (1..2147483647 ms)", () => {
  it.each(timers)("%s accepts 1 and 2147483647", (_name, make) => {
    expect(make(1)).toBeTruthy();
    expect(make(MAX_TIMER_MS)).toBeTruthy();
  });

  it.each(
    timers.flatMap(([name, make, option]) => [0, -1, 1.5, MAX_TIMER_MS + 1, 2 ** 32].map((value) => [name, value, make, option] as const)),
  )("%s refuses %d", (_name, value, make, option) => {
    const error = thrown(() => make(value));
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe(option);
    expect((error as Error).message).toContain("2147483647");
  });

  it("MEMORY_SUMMARIZE_TIMEOUT_MS: 2147483647 is read, 2147483648 and 0 refused naming the variable", () => {
    expect(resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_TIMEOUT_MS: "2147483647" }).timeoutMs).toBe(MAX_TIMER_MS);
    expect(resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_TIMEOUT_MS: "1" }).timeoutMs).toBe(1);
    for (const raw of ["2147483648", "0", "1e3"]) {
      const error = thrown(() => resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_TIMEOUT_MS: raw }));
      expect((error as ThreadwiseConfigError).option).toBe("MEMORY_SUMMARIZE_TIMEOUT_MS");
      expect((error as Error).message).toContain("2147483647");
    }
  });
});

// Found trying the READMEs as a new user ("Bad values throw ThreadwiseConfigError naming the
// variable"): a value set in env that is a positive integer but outside its option's range was
// taken (recall and userMemory read MEMORY_RECALL_MAX_TOKENS=10 and MEMORY_USER_MEMORY_MAX_TOKENS=10,
// whose options refuse anything below 16), or refused naming an option the user never set
// (`summarize.maxInputTokens` for MEMORY_SUMMARIZE_MAX_INPUT_TOKENS=100, `memory.postgresSchema` for
// MEMORY_PG_SCHEMA=My-Schema).
describe("an env value its option refuses throws ThreadwiseConfigError naming the variable", () => {
  const cases: Array<[variable: string, value: string, resolve: (env: NodeJS.ProcessEnv) => unknown]> = [
    ["MEMORY_RECALL_MAX_TOKENS", "10", (env) => resolveRecallOptions({}, env)],
    ["MEMORY_USER_MEMORY_MAX_TOKENS", "10", (env) => resolveUserMemoryOptions({}, env)],
    ["MEMORY_SUMMARIZE_MAX_INPUT_TOKENS", "100", (env) => resolveSummarizeOptions({}, env)],
    ["MEMORY_SUMMARIZE_MAX_PASSES", "101", (env) => resolveSummarizeOptions({}, env)],
    ["MEMORY_RECALL_MAX_TOKENS", "10", (env) => resolveMemoryConfig({}, env)],
    ["MEMORY_USER_MEMORY_MAX_TOKENS", "10", (env) => resolveMemoryConfig({}, env)],
    ["MEMORY_PG_SCHEMA", "My-Schema", (env) => resolveMemoryConfig({}, env)],
  ];

  it.each(cases)("%s=%s", (variable, value, resolve) => {
    const error = thrown(() => resolve({ [variable]: value }));
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe(variable);
    expect((error as Error).message).toMatch(new RegExp(`^${variable}: `));
  });

  it("a value given in code still names the option, and wins over a valid env value", () => {
    expect((thrown(() => resolveRecallOptions({ maxTokens: 10 }, {})) as ThreadwiseConfigError).option).toBe("recall.maxTokens");
    expect(
      (thrown(() => resolveMemoryConfig({ recallMaxTokens: 10 }, { MEMORY_RECALL_MAX_TOKENS: "100" })) as ThreadwiseConfigError).option,
    ).toBe("memory.recallMaxTokens");
    expect(resolveRecallOptions({ maxTokens: 100 }, { MEMORY_RECALL_MAX_TOKENS: "10" }).maxTokens).toBe(100);
    expect(resolveRecallOptions({}, { MEMORY_RECALL_MAX_TOKENS: "16" }).maxTokens).toBe(16);
    expect(resolveUserMemoryOptions({}, { MEMORY_USER_MEMORY_MAX_TOKENS: "16" }).maxTokens).toBe(16);
  });
});

// Guards for the next factory: every exported options schema is strict, and no package keeps its
// own timer for an internal call (core's withTimeout is the one copy).
describe("one way to validate options and to time out", () => {
  const root = join(import.meta.dirname, "..");
  const packages = readdirSync(join(root, "packages")).filter((name) => existsSync(join(root, "packages", name, "src", "index.ts")));

  it.each(packages)("@threadwise/%s: every exported *OptionsSchema / *ConfigSchema is a strict object", async (name) => {
    const exports = (await import(`@threadwise/${name}`)) as Record<string, unknown>;
    for (const [key, value] of Object.entries(exports)) {
      if (!/(Options|Config)Schema$/.test(key)) continue;
      const def = (value as { _zod?: { def?: { type?: string; catchall?: { _zod?: { def?: { type?: string } } } } } })._zod?.def;
      expect(def?.type, `${name}.${key}`).toBe("object");
      expect(def?.catchall?._zod?.def?.type, `${name}.${key} must reject unknown keys`).toBe("never");
    }
  });

  it("no source file but core/src/timeout.ts races a timer or arms an abort signal of its own", () => {
    const offenders: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== "testing" && entry.name !== "fixtures") walk(path);
        } else if (/\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) {
          const text = readFileSync(path, "utf8");
          if (
            /Promise\.race\(|AbortSignal\.timeout\(|new AbortController\(/.test(text) &&
            !path.endsWith(join("core", "src", "timeout.ts"))
          )
            offenders.push(relative(root, path));
        }
      }
    };
    for (const name of packages) walk(join(root, "packages", name, "src"));
    expect(offenders).toEqual([]);
  });
});
