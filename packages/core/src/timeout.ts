import { z } from "zod/v4";
import { envString } from "./env.js";
import { ThreadwiseConfigError, ThreadwiseError } from "./errors.js";

/**
 * Longest delay Node's timers accept, in milliseconds (2^31 - 1, about 24.8 days). A longer one
 * overflows: Node warns and fires the timer after 1 ms, so every `timeoutMs`-like option is
 * validated against it.
 */
export const MAX_TIMER_MS = 2_147_483_647;

const TIMER_RANGE = `an integer from 1 to ${MAX_TIMER_MS} ms (Node's timer limit)`;

/**
 * The zod schema of a `timeoutMs`-like option: an integer number of milliseconds in
 * 1..{@link MAX_TIMER_MS}. Wrap it with `.default(...)` or `.optional()`.
 */
export const timerMsSchema = z
  .number({ error: `expected ${TIMER_RANGE}` })
  .int({ error: `expected ${TIMER_RANGE}` })
  .min(1, { error: `expected ${TIMER_RANGE}` })
  .max(MAX_TIMER_MS, { error: `expected ${TIMER_RANGE}; larger values overflow the timer, which then fires after 1 ms` });

/**
 * Reads a timer from env `name`, in milliseconds. Returns `undefined` when unset or blank.
 * @throws ThreadwiseConfigError naming the variable and the limit when the value is not a decimal
 *   integer in 1..{@link MAX_TIMER_MS}.
 */
export function envTimerMs(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const text = envString(name, env);
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_TIMER_MS)
    throw new ThreadwiseConfigError(name, `expected ${TIMER_RANGE}, got ${JSON.stringify(env[name])}`);
  return value;
}

/**
 * An internal call took longer than its `timeoutMs`. `label` names the call
 * (`threadwise/summarize:summary`); `timeoutMs` is the limit that passed.
 */
export class ThreadwiseTimeoutError extends ThreadwiseError {
  readonly label: string;
  readonly timeoutMs: number;
  constructor(label: string, timeoutMs: number) {
    super("THREADWISE_TIMEOUT", `${label} timed out after ${timeoutMs} ms`);
    this.label = label;
    this.timeoutMs = timeoutMs;
  }
  static override isInstance(error: unknown): error is ThreadwiseTimeoutError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_TIMEOUT";
  }
}

/** Options of {@link withTimeout}. */
export interface WithTimeoutOptions {
  /** Time allowed, in milliseconds, 1..{@link MAX_TIMER_MS}. */
  timeoutMs: number;
  /** Name of the call, used in the error (`threadwise/summarize:summary`). */
  label: string;
  /** An outer signal (the run's): when it aborts first, the call is aborted with its reason. */
  signal?: AbortSignal;
}

/**
 * Runs `call` with a signal that aborts after `timeoutMs` or when `options.signal` aborts,
 * whichever comes first (a timer aborting with a `TimeoutError` DOMException, as
 * `AbortSignal.timeout`'s does, + `AbortSignal.any`). Pass the signal on to the model call so the
 * request is cancelled, not just forgotten. The promise settles at the abort even when `call`
 * ignores its signal. The timer is cleared when the call settles: nothing of the caller's context
 * is held after it.
 *
 * @returns what `call` resolves to.
 * @throws ThreadwiseTimeoutError when `timeoutMs` passes first; the outer signal's reason when it
 *   aborts first; whatever `call` throws otherwise.
 * @throws ThreadwiseConfigError when `timeoutMs` is outside 1..{@link MAX_TIMER_MS}.
 * @example
 * const answer = await withTimeout((signal) => model.invoke(messages, { signal }), {
 *   timeoutMs: 30_000,
 *   label: "threadwise/work-memory:condense",
 *   signal: runtime.signal,
 * });
 */
export async function withTimeout<T>(call: (signal: AbortSignal) => Promise<T>, options: WithTimeoutOptions): Promise<T> {
  const { timeoutMs, label } = options;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMER_MS)
    throw new ThreadwiseConfigError(`${label}.timeoutMs`, `expected ${TIMER_RANGE}, got ${timeoutMs}`);
  // A timer of our own, cleared when the call settles. `AbortSignal.timeout`'s timer stays armed
  // for the whole `timeoutMs` (Node clears it only when the signal is garbage-collected), and the
  // timer keeps the async context it was made in: the caller's LangChain run (its RunTree, config
  // and graph loop) stayed alive, and was promoted to the old space, until a major GC.
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException("The operation was aborted due to timeout", "TimeoutError")), timeoutMs);
  // Like `AbortSignal.timeout`'s: it does not keep the process alive.
  timer.unref();
  const timeout = controller.signal;
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  const reasonOf = (): unknown => (timeout.aborted ? new ThreadwiseTimeoutError(label, timeoutMs) : signal.reason);
  let onAbort: (() => void) | undefined;
  try {
    if (signal.aborted) throw reasonOf();
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(reasonOf());
      signal.addEventListener("abort", onAbort, { once: true });
    });
    return await Promise.race([call(signal), aborted]);
  } catch (error) {
    // A call that honours the signal rejects with its own AbortError; report why it was aborted.
    if (signal.aborted) throw reasonOf();
    throw error;
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}
