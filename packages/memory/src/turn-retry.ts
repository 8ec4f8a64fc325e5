import { parseOptions } from "@threadwise/core";
import { z } from "zod/v4";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";

const turnRetrySchema = z
  .object({
    maxAttempts: z.number().int().min(1).max(1000).optional(),
    baseDelayMs: z.number().int().min(0).max(2_147_483_647).optional(),
    maxDelayMs: z.number().int().min(0).max(2_147_483_647).optional(),
    // z.custom, not z.function(): zod 3.25's zod/v4 has no schema for functions (packages accept zod ^3.25.76).
    random: z.custom<() => number>((value) => typeof value === "function", "expected a function").optional(),
    sleep: z.custom<(ms: number) => Promise<void>>((value) => typeof value === "function", "expected a function").optional(),
  })
  .strict();

/** Options of {@link withTurnRetry}. */
export interface TurnRetryOptions {
  /** Runs of the turn at most, the first included. @default 8 */
  maxAttempts?: number;
  /** First back-off, in milliseconds; doubles per attempt, with full jitter. @default 50 */
  baseDelayMs?: number;
  /** Longest single wait, in milliseconds. @default 5000 */
  maxDelayMs?: number;
  /** Random source in [0, 1), for tests. @default Math.random */
  random?: () => number;
  /** Waits `ms` milliseconds, for tests. @default a setTimeout promise */
  sleep?: (ms: number) => Promise<void>;
}

/** Finds a {@link ThreadwiseConcurrentTurnError} in `error` or its `cause` chain (LangGraph may wrap it). */
export function concurrentTurnErrorOf(error: unknown): ThreadwiseConcurrentTurnError | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    if (ThreadwiseConcurrentTurnError.isInstance(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Runs a turn (`() => agent.invoke(input, { configurable: { thread_id } })`) and runs it again
 * when another writer of the same thread won (spec R34): only on
 * {@link ThreadwiseConcurrentTurnError}, whose turn stored nothing, so a retry never duplicates a
 * message. Each retry re-reads the thread, so the model sees the turn that won. Waits with
 * exponential back-off and full jitter (`baseDelayMs * 2^(attempt-1)`, at most `maxDelayMs`,
 * times a random factor), not for the error's `retryAfterMs`: that is when a stalled turn's
 * lease ends at the latest, while a live turn usually ends much sooner.
 * Any other error is re-thrown at once.
 *
 * Retrying re-runs the model call: side effects of tools in the refused run are not undone.
 *
 * @throws the last ThreadwiseConcurrentTurnError after `maxAttempts` runs; any other error at once;
 *   ThreadwiseConfigError for bad options.
 * @example
 * const result = await withTurnRetry(() => agent.invoke({ messages: [msg] }, { configurable: { thread_id } }));
 */
export async function withTurnRetry<T>(run: () => Promise<T>, options: TurnRetryOptions = {}): Promise<T> {
  parseOptions("withTurnRetry", turnRetrySchema, options);
  const maxAttempts = options.maxAttempts ?? 8;
  const base = options.baseDelayMs ?? 50;
  const cap = options.maxDelayMs ?? 5000;
  const random = options.random ?? Math.random;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await run();
    } catch (error) {
      const conflict = concurrentTurnErrorOf(error);
      if (!conflict || attempt >= maxAttempts) throw error;
      await sleep(Math.round(Math.min(cap, base * 2 ** (attempt - 1)) * random()));
    }
  }
}
