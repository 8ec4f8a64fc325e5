/**
 * `memoryStack({ env })` is the whole env of the stack: every middleware reads its own variables
 * from it (not only the config twins), and none reads `process.env`. Found by a new user and by
 * the ops trial of stop 36: `MEMORY_SUMMARIZE_MAX_PASSES`, `MEMORY_USER_MEMORY_MAX_ITEMS`,
 * `MEMORY_USER_MEMORY_KEEP_MESSAGES` and `THREADWISE_LOG` given in the stack's env were never
 * read (a bad value built a stack without error), and the same names in `process.env` were read
 * instead.
 */
import { HumanMessage } from "@langchain/core/messages";
import { THREADWISE_ENV, ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it, vi } from "vitest";
import { memoryStack } from "./memory-stack.js";

const KNOWN: ReadonlySet<string> = new Set(Object.values(THREADWISE_ENV));

/** The error `build` throws, or `undefined`. */
function thrownBy(build: () => unknown): unknown {
  try {
    build();
  } catch (error) {
    return error;
  }
  return undefined;
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe("memoryStack({ env }): every middleware reads the stack's env", () => {
  it.each([
    ["MEMORY_SUMMARIZE_MAX_PASSES", {}],
    ["MEMORY_SUMMARIZE_MAX_INPUT_TOKENS", {}],
    ["MEMORY_SUMMARIZE_TIMEOUT_MS", {}],
    ["MEMORY_SUMMARIZE_MODEL_MAX_INPUT_TOKENS", {}],
    ["MEMORY_USER_MEMORY_MAX_ITEMS", { MEMORY_USER_MEMORY: "true" }],
    ["MEMORY_USER_MEMORY_KEEP_MESSAGES", { MEMORY_USER_MEMORY: "true" }],
  ])("a bad %s in the stack's env throws naming it (was: never read, the stack built)", (name, enable) => {
    const error = thrownBy(() => memoryStack({ env: { ...enable, [name]: "many" } }));
    expect(ThreadwiseConfigError.isInstance(error), String(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe(name);
  });

  it("THREADWISE_LOG=info in the stack's env prints the multiturn line (was: process.env's level)", async () => {
    const lines: string[] = [];
    vi.spyOn(console, "info").mockImplementation((line: unknown) => void lines.push(String(line)));
    const agent = createAgent({ model: scriptedModel(() => "noted"), ...memoryStack({ env: { THREADWISE_LOG: "info" } }) });
    await agent.invoke({ messages: [new HumanMessage("hello")] }, { configurable: { thread_id: "log-1" } });
    expect(lines.filter((line) => line.startsWith("multiturn:"))).toHaveLength(1);
  });

  it("logger: console prints each multiturn line once, on one line (was: every value twice, the fields object spread over lines)", async () => {
    const calls: unknown[][] = [];
    vi.spyOn(console, "info").mockImplementation((...args: unknown[]) => void calls.push(args));
    const agent = createAgent({ model: scriptedModel(() => "noted"), ...memoryStack({ env: {}, logger: console, userMemory: true }) });
    for (const words of ["I live in Busan.", "부산에 살아요."])
      await agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: "once-1", user_id: "u1" } });
    const multiturn = calls.filter((args) => String(args[0]).startsWith("multiturn:"));
    expect(multiturn).toHaveLength(2);
    for (const args of multiturn) {
      expect(args).toHaveLength(1);
      expect(String(args[0]).match(/thread_msgs/g)).toHaveLength(1);
      expect(String(args[0])).not.toContain("\n");
    }
  });

  // By design the env option is the whole env (not merged with process.env); the level in code is
  // the logger option. Was: a near miss in the stack's env was warned about at process.env's level.
  it("THREADWISE_LOG in process.env is not read with an env given; `logger` sets the level in code", async () => {
    vi.stubEnv("THREADWISE_LOG", "info");
    const lines: string[] = [];
    vi.spyOn(console, "info").mockImplementation((line: unknown) => void lines.push(String(line)));
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const turn = async (options: Parameters<typeof memoryStack>[0], threadId: string) => {
      const agent = createAgent({ model: scriptedModel(() => "noted"), ...memoryStack(options) });
      for (const words of ["I live in Busan.", "부산에 살아요."])
        await agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: threadId } });
      return lines.splice(0).filter((line) => line.startsWith("multiturn:")).length;
    };
    expect(await turn({ env: {} }, "level-env")).toBe(0);
    expect(await turn({ env: {}, logger: console }, "level-logger")).toBe(2);
    // A near miss is reported at the stack env's level: silent there, whatever the process sets.
    vi.stubEnv("THREADWISE_LOG", "warn");
    memoryStack({ env: { THREADWISE_LOG: "silent", MEMORY_BACKND: "sqlite" } });
    expect(warn).not.toHaveBeenCalled();
    memoryStack({ env: { MEMORY_BACKND: "sqlite" } });
    expect(warn).toHaveBeenCalledTimes(1);
  });

  it("process.env is never read when an env is given: not at construction, not in a turn, whatever the stack holds", async () => {
    // Values that would throw or change the stack if any middleware read them from process.env.
    for (const name of ["MEMORY_SUMMARIZE_MAX_PASSES", "MEMORY_USER_MEMORY_MAX_ITEMS", "MAX_HISTORY_TOKENS", "MEMORY_WINDOW_SIZE"])
      vi.stubEnv(name, "many");
    const env = {
      MEMORY_USER_MEMORY: "true",
      MEMORY_FACTS_MODE: "heuristic",
      MEMORY_WORK_MEMORY: "true",
      MEMORY_ARCHIVE: "true",
      MAX_HISTORY_TOKENS: "4000",
      A2A_HISTORY_MAX_MESSAGES: "10",
      MEMORY_PERSIST_TRIM_KEEP_GROUPS: "60",
      MEMORY_WINDOW_SIZE: "4",
      MEMORY_SUMMARIZE_THRESHOLD: "6",
    };
    const real = process.env;
    const read = new Set<string>();
    process.env = new Proxy(real, {
      get(target, key, receiver) {
        if (typeof key === "string" && KNOWN.has(key)) read.add(key);
        return Reflect.get(target, key, receiver);
      },
    });
    try {
      const agent = createAgent({ model: scriptedModel((_m, call) => `answer ${call}`), ...memoryStack({ env }) });
      for (const [i, words] of ["I live in Busan.", "Book a flight.", "And a hotel.", "Where do I live?", "Thanks."].entries())
        await agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: "proxy", user_id: "u1" } }).catch((e) => {
          throw new Error(`turn ${i}: ${String(e)}`);
        });
    } finally {
      process.env = real;
    }
    expect([...read]).toEqual([]);
  });
});

describe("memoryStack: MEMORY_WINDOW_SIZE=0 (no window)", () => {
  // summarize, given no window by the stack, read MEMORY_WINDOW_SIZE itself and refused the "0"
  // that means "no window" to the stack.
  it("builds with summarize on, which keeps its own default window, from process.env and from the stack's env", () => {
    vi.stubEnv("MEMORY_WINDOW_SIZE", "0");
    for (const stack of [memoryStack(), memoryStack({ env: { MEMORY_WINDOW_SIZE: "0" } })]) {
      const names = stack.middleware.map((m) => m.name);
      expect(names).not.toContain("threadwise/window-trim");
      expect(names).toContain("threadwise/summarize");
    }
  });
});

describe("memoryStack: MEMORY_SUMMARIZE_TRIGGER_* and MEMORY_SUMMARIZE_KEEP_*", () => {
  /** Summarizer calls over `turns` turns of a stack with window 2 (4 messages of history each 2 turns). */
  async function summarizerCalls(options: Parameters<typeof memoryStack>[0], turns = 4) {
    const summarizer = scriptedModel((_m, call) => `S${call + 1}`);
    const stack = memoryStack({ windowSize: 2, logger: false, models: { summarize: summarizer }, ...options });
    const agent = createAgent({ model: scriptedModel((_m, k) => `a${k + 1}`), ...stack });
    for (let k = 1; k <= turns; k += 1)
      await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, { configurable: { thread_id: "trigger" } });
    return summarizer.calls.length;
  }

  // Found last session: memoryStack passed its summarizeThreshold (default 40) to summarize, which
  // then ignored the trigger's env twins, where standalone summarize() follows them.
  it("the trigger's env twins take the place of the threshold, as for summarize(); a threshold in code wins", async () => {
    expect(await summarizerCalls({ env: {} })).toBe(0);
    expect(await summarizerCalls({ env: { MEMORY_SUMMARIZE_TRIGGER_MESSAGES: "4" } })).toBeGreaterThan(0);
    expect(await summarizerCalls({ env: { MEMORY_SUMMARIZE_TRIGGER_MESSAGES: "4", MEMORY_SUMMARIZE_THRESHOLD: "40" } })).toBeGreaterThan(0);
    expect(await summarizerCalls({ env: { MEMORY_SUMMARIZE_TRIGGER_MESSAGES: "4" }, summarizeThreshold: 40 })).toBe(0);
    expect(await summarizerCalls({ env: {}, summarizeTrigger: { messages: 4 } })).toBeGreaterThan(0);
    expect(thrownBy(() => memoryStack({ env: { MEMORY_SUMMARIZE_TRIGGER_MESSAGES: "four" } }))).toMatchObject({
      option: "MEMORY_SUMMARIZE_TRIGGER_MESSAGES",
    });
    const both = thrownBy(() => memoryStack({ env: {}, summarizeThreshold: 10, summarizeTrigger: { tokens: 100 } }));
    expect(ThreadwiseConfigError.isInstance(both) && both.option).toBe("memory.summarizeTrigger");
  });

  it("a keep twin with a window is refused naming the variable (the window is the stack's); with MEMORY_WINDOW_SIZE=0 it is summarize's", () => {
    const refused = thrownBy(() => memoryStack({ env: { MEMORY_SUMMARIZE_KEEP_TOKENS: "2000" } }));
    expect(ThreadwiseConfigError.isInstance(refused) && refused.option, String(refused)).toBe("MEMORY_SUMMARIZE_KEEP_TOKENS");
    expect(String((refused as Error).message)).toContain("MEMORY_WINDOW_SIZE");
    expect(thrownBy(() => memoryStack({ env: { MEMORY_SUMMARIZE_KEEP_MESSAGES: "6", MEMORY_WINDOW_SIZE: "0" } }))).toBeUndefined();
    expect(thrownBy(() => memoryStack({ env: { MEMORY_SUMMARIZE_KEEP_MESSAGES: "6" }, windowSize: false }))).toBeUndefined();
    // Summaries off: the variable has nothing to configure.
    expect(thrownBy(() => memoryStack({ env: { MEMORY_SUMMARIZE_KEEP_MESSAGES: "6", MEMORY_SUMMARIZE: "false" } }))).toBeUndefined();
  });
});
