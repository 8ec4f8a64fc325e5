import { parseOptions, ThreadwiseConfigError } from "@threadwise/core";
import { z } from "zod/v4";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";

const turnRetrySchema = z
  .object({
    maxAttempts: z.number().int().min(1).max(1000).optional(),
    baseDelayMs: z.number().int().min(0).max(2_147_483_647).optional(),
    maxDelayMs: z.number().int().min(0).max(2_147_483_647).optional(),
    maxTotalWaitMs: z.number().int().min(0).max(2_147_483_647).optional(),
    // z.custom, not z.function(): zod 3.25's zod/v4 has no schema for functions (packages accept zod ^3.25.76).
    random: z.custom<() => number>((value) => typeof value === "function", "expected a function").optional(),
    sleep: z.custom<(ms: number) => Promise<void>>((value) => typeof value === "function", "expected a function").optional(),
  })
  .strict();

/** Options of {@link withTurnRetry}. */
export interface TurnRetryOptions {
  /** Runs of the turn at most, the first included. @default 100 */
  maxAttempts?: number;
  /** First back-off after a `stale-parent` or `lease-lost` refusal, in milliseconds; doubles per attempt, with full jitter. @default 50 */
  baseDelayMs?: number;
  /** Longest single wait, in milliseconds. @default 5000 */
  maxDelayMs?: number;
  /**
   * Total of all waits, in milliseconds: a retry whose wait would pass it is not made and the
   * last refusal is thrown. Above the turn lease (10 s by default), so a crashed writer's lease
   * runs out within it.
   * @default 120000
   */
  maxTotalWaitMs?: number;
  /** Random source in [0, 1), for tests. @default Math.random */
  random?: () => number;
  /** Waits `ms` milliseconds, for tests. @default a setTimeout promise */
  sleep?: (ms: number) => Promise<void>;
}

/** Finds a {@link ThreadwiseConcurrentTurnError} in `error` or its `cause` chain (LangGraph may wrap it). */
export function concurrentTurnErrorOf(error: unknown): ThreadwiseConcurrentTurnError | undefined {
  return ThreadwiseConcurrentTurnError.find(error);
}

/**
 * Runs a turn (`() => agent.invoke(input, { configurable: { thread_id } })`) and runs it again
 * when the thread was busy (spec R34, R38): only on a {@link ThreadwiseConcurrentTurnError} whose
 * `retryable` is true (nothing of the refused turn was stored, so a retry never duplicates a
 * message; `duplicate-operation` is thrown at once). Each retry re-reads the thread, so the model
 * sees the turn that won.
 *
 * Waits: after `turn-in-progress`, the error's `retryAfterMs` (about as long as the running turn
 * has run so far, at most until its lease ends) times a jitter factor in [0.5, 1.5); after
 * `stale-parent` or `lease-lost`, exponential back-off with full jitter
 * (`baseDelayMs * 2^(attempt-1)` times a factor in [0, 1)). Every wait is at most `maxDelayMs`,
 * and all waits together at most `maxTotalWaitMs`.
 *
 * With `memoryStack`'s `turnAdmission`, a refused turn calls no model and runs no tool, so
 * retries cost no model calls. Without it (a bare `ThreadwiseSaver`), side effects of the refused
 * run's tools are not undone.
 *
 * @throws the last ThreadwiseConcurrentTurnError after `maxAttempts` runs or `maxTotalWaitMs` of
 *   waiting; any other error (and a non-retryable refusal) at once; ThreadwiseConfigError naming
 *   `withTurnRetry.<option>` for bad options, `withTurnRetry.run` when `run` is not a function.
 * @example
 * const result = await withTurnRetry(() => agent.invoke({ messages: [msg] }, { configurable: { thread_id } }));
 */
export async function withTurnRetry<T>(run: () => Promise<T>, options: TurnRetryOptions = {}): Promise<T> {
  // Not a function (the agent's result, a promise already running): one that cannot be run again.
  if (typeof run !== "function")
    throw new ThreadwiseConfigError(
      "withTurnRetry.run",
      `expected a function that runs the turn, withTurnRetry(() => agent.invoke(input, config)), got ${run === null ? "null" : typeof run}${(run as unknown) instanceof Promise ? " (a promise: the turn already ran once and cannot be retried)" : ""}`,
    );
  parseOptions("withTurnRetry", turnRetrySchema, options);
  const maxAttempts = options.maxAttempts ?? 100;
  const base = options.baseDelayMs ?? 50;
  const cap = options.maxDelayMs ?? 5000;
  const budget = options.maxTotalWaitMs ?? 120_000;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let waited = 0;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      const conflict = concurrentTurnErrorOf(error);
      if (!conflict?.retryable || attempt >= maxAttempts) throw error;
      const wait = Math.round(
        Math.min(
          cap,
          conflict.reason === "turn-in-progress" && conflict.retryAfterMs > 0
            ? conflict.retryAfterMs * (0.5 + random())
            : Math.min(cap, base * 2 ** (attempt - 1)) * random(),
        ),
      );
      if (waited + wait > budget) throw error;
      waited += wait;
      await sleep(wait);
    }
  }
}
