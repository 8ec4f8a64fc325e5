import { afterEach, describe, expect, it, vi } from "vitest";
import { consoleLine, formatMultiturnLine, resolveLogger } from "./logger.js";

afterEach(() => vi.restoreAllMocks());

describe("logger: console", () => {
  const fields = { thread_msgs: 3, window: "20+4000tok", sent_to_llm: 3, summary_from: null };
  const line = formatMultiturnLine({
    threadMessages: 3,
    window: "20+4000tok",
    sentToLlm: 3,
    hasPrior: true,
    summary: { firstId: null, lastId: "m2", count: 2, passes: 1 },
  });

  it("writes each line once, on one line (was: the text, then the same values again as an object)", () => {
    const calls: unknown[][] = [];
    vi.spyOn(console, "info").mockImplementation((...args: unknown[]) => void calls.push(args));
    resolveLogger(console).info(line, fields);
    expect(calls).toEqual([[line]]);
  });

  it("keeps the fields the text does not give, as JSON on the same line (en/ko)", () => {
    const calls: unknown[][] = [];
    vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void calls.push(args));
    resolveLogger(console).warn("user_memory: store_error", { thread_id: "스레드-1", reason: "closed" });
    expect(calls).toEqual([['user_memory: store_error {"thread_id":"스레드-1","reason":"closed"}']]);
  });

  it("a logger given by the application gets the fields as they are", () => {
    const seen: unknown[][] = [];
    const mine = { info: (...args: unknown[]) => void seen.push(args), warn() {} };
    resolveLogger(mine).info(line, fields);
    expect(seen).toEqual([[line, fields]]);
  });

  it("consoleLine reads `-` in the text as a null field and leaves a value that differs", () => {
    expect(consoleLine("a: x=- y=2", { x: null, y: 2 })).toBe("a: x=- y=2");
    expect(consoleLine("a: y=2", { y: 3 })).toBe('a: y=2 {"y":3}');
    expect(consoleLine("a", undefined)).toBe("a");
    // Only a whole `key=value` counts: `thread_id=t12` gives neither `id` nor `t1`.
    expect(consoleLine("a: thread_id=t12", { id: "t12" })).toBe('a: thread_id=t12 {"id":"t12"}');
    expect(consoleLine("a: thread_id=t12", { thread_id: "t1" })).toBe('a: thread_id=t12 {"thread_id":"t1"}');
    expect(consoleLine("a: n=10 m=2", { n: 10, m: 2 })).toBe("a: n=10 m=2");
  });
});
