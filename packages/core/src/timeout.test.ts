import { AsyncLocalStorage } from "node:async_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { ThreadwiseConfigError } from "./errors.js";
import { INTERNAL_CALL_METADATA_KEY, internalCallConfig, internalCallName, invokeInternal } from "./internal-call.js";
import { envTimerMs, MAX_TIMER_MS, ThreadwiseTimeoutError, timerMsSchema, withTimeout } from "./timeout.js";

const never = () => new Promise<never>(() => {});

describe("timerMsSchema (Node's timer range)", () => {
  it.each([1, 1000, MAX_TIMER_MS])("accepts %d ms", (value) => {
    expect(timerMsSchema.parse(value)).toBe(value);
  });

  it.each([0, -1, 1.5, MAX_TIMER_MS + 1, 2 ** 32, Number.POSITIVE_INFINITY, Number.NaN])("refuses %d ms, naming the limit", (value) => {
    const result = timerMsSchema.safeParse(value);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain(String(MAX_TIMER_MS));
  });

  it("refuses 2^31 (the value that used to fire after 1 ms)", () => {
    const result = z.object({ timeoutMs: timerMsSchema }).safeParse({ timeoutMs: 2 ** 31 });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/overflow/);
  });
});

describe("envTimerMs", () => {
  it("reads 1 and 2147483647, unset and blank as undefined", () => {
    expect(envTimerMs("T", { T: "1" })).toBe(1);
    expect(envTimerMs("T", { T: " 2147483647 " })).toBe(MAX_TIMER_MS);
    expect(envTimerMs("T", {})).toBeUndefined();
    expect(envTimerMs("T", { T: "  " })).toBeUndefined();
  });

  it.each(["0", "2147483648", "4294967296", "1e3", "0x10", "-5", "1.5", "abc"])("refuses %j, naming the variable and the limit", (raw) => {
    let error: unknown;
    try {
      envTimerMs("MEMORY_X_TIMEOUT_MS", { MEMORY_X_TIMEOUT_MS: raw });
    } catch (caught) {
      error = caught;
    }
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe("MEMORY_X_TIMEOUT_MS");
    expect((error as Error).message).toContain("2147483647");
  });
});

describe("withTimeout", () => {
  it("holds nothing of the caller's async context once the call settled (its timer is cleared)", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    // The caller's context, as LangChain's run config is an AsyncLocalStorage store during a step.
    const context = new AsyncLocalStorage<object>();
    const settle = async (outcome: "resolve" | "reject") => {
      const store = { run: new Array(1000).fill(0) };
      const ref = new WeakRef(store);
      await context
        .run(store, () =>
          withTimeout(async () => (outcome === "resolve" ? 1 : Promise.reject(new Error("failed"))), {
            timeoutMs: 600_000,
            label: "threadwise/test:settle",
          }),
        )
        .catch(() => undefined);
      return ref;
    };
    for (const outcome of ["resolve", "reject"] as const) {
      const ref = await settle(outcome);
      await new Promise((resolve) => setImmediate(resolve));
      gc();
      // A timer still armed for 600 s would keep the store (its async context) until it fires.
      expect(ref.deref(), outcome).toBeUndefined();
    }
  });

  it("aborts the call's signal with a TimeoutError and throws ThreadwiseTimeoutError", async () => {
    let seen: unknown;
    const error = await withTimeout(
      (signal) =>
        new Promise((_, reject) => {
          signal.addEventListener("abort", () => {
            seen = signal.reason;
            reject(signal.reason);
          });
        }),
      { timeoutMs: 5, label: "threadwise/test:abort" },
    ).catch((caught: unknown) => caught);
    expect(ThreadwiseTimeoutError.isInstance(error)).toBe(true);
    expect((seen as DOMException).name).toBe("TimeoutError");
  });

  it("returns the call's value and hands it a signal that is not aborted", async () => {
    let seen: AbortSignal | undefined;
    const value = await withTimeout(
      async (signal) => {
        seen = signal;
        return 42;
      },
      { timeoutMs: 1000, label: "t" },
    );
    expect(value).toBe(42);
    expect(seen?.aborted).toBe(false);
  });

  it("rejects with ThreadwiseTimeoutError and aborts the signal when the call never answers", async () => {
    let seen: AbortSignal | undefined;
    const error = await withTimeout(
      (signal) => {
        seen = signal;
        return never();
      },
      { timeoutMs: 20, label: "threadwise/x:y" },
    ).catch((e: unknown) => e);
    expect(ThreadwiseTimeoutError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "THREADWISE_TIMEOUT", label: "threadwise/x:y", timeoutMs: 20 });
    expect((error as Error).message).toBe("threadwise/x:y timed out after 20 ms");
    expect(seen?.aborted).toBe(true);
  });

  it("reports the timeout, not the call's own AbortError, when the call honours the signal", async () => {
    const error = await withTimeout(
      (signal) => new Promise((_, reject) => signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")))),
      { timeoutMs: 20, label: "t" },
    ).catch((e: unknown) => e);
    expect(ThreadwiseTimeoutError.isInstance(error)).toBe(true);
  });

  it("aborts with the outer signal's reason when the run is cancelled first", async () => {
    const run = new AbortController();
    const reason = new Error("run cancelled");
    const pending = withTimeout(() => never(), { timeoutMs: MAX_TIMER_MS, label: "t", signal: run.signal }).catch((e: unknown) => e);
    run.abort(reason);
    expect(await pending).toBe(reason);
  });

  it("rejects at once when the outer signal is already aborted", async () => {
    const reason = new Error("gone");
    let called = false;
    const error = await withTimeout(
      async () => {
        called = true;
      },
      { timeoutMs: 100, label: "t", signal: AbortSignal.abort(reason) },
    ).catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(called).toBe(false);
  });

  it("passes the call's own error through", async () => {
    const boom = new Error("boom");
    expect(
      await withTimeout(
        async () => {
          throw boom;
        },
        { timeoutMs: 100, label: "t" },
      ).catch((e: unknown) => e),
    ).toBe(boom);
  });

  it.each([0, MAX_TIMER_MS + 1, 2 ** 31])("refuses timeoutMs %d with ThreadwiseConfigError before calling", async (timeoutMs) => {
    let called = false;
    const error = await withTimeout(
      async () => {
        called = true;
      },
      { timeoutMs, label: "threadwise/x:y" },
    ).catch((e: unknown) => e);
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe("threadwise/x:y.timeoutMs");
    expect(called).toBe(false);
  });
});

describe("internal calls", () => {
  it("are named threadwise/<middleware>:<purpose> with one metadata key", () => {
    const id = { middleware: "summarize", purpose: "summary" };
    expect(internalCallName(id)).toBe("threadwise/summarize:summary");
    expect(internalCallConfig(id)).toEqual({
      runName: "threadwise/summarize:summary",
      tags: ["threadwise:internal", "nostream", "threadwise:summarize"],
      metadata: { [INTERNAL_CALL_METADATA_KEY]: "threadwise/summarize:summary" },
    });
    expect(INTERNAL_CALL_METADATA_KEY).toBe("threadwise_internal");
  });

  it("invokeInternal passes the config and the combined signal to the model", async () => {
    const seen: Record<string, unknown>[] = [];
    const model = {
      invoke: async (_input: unknown, options?: Record<string, unknown>) => {
        seen.push(options ?? {});
        return "ok";
      },
    };
    const answer = await invokeInternal(model, ["hi"], { middleware: "work-memory", purpose: "condense", timeoutMs: 1000 });
    expect(answer).toBe("ok");
    expect(seen[0]).toMatchObject({
      runName: "threadwise/work-memory:condense",
      metadata: { threadwise_internal: "threadwise/work-memory:condense" },
      tags: ["threadwise:internal", "nostream", "threadwise:work-memory"],
    });
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);
  });
});
