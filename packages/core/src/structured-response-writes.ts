import type { ThreadwiseLogger } from "./logger.js";

/** Threads remembered as already warned; the set is cleared past this many (bounded memory). */
const WARNED_THREADS_BOUND = 10_000;

/** Options of {@link StructuredResponseWrites}. */
export interface StructuredResponseWritesOptions<U> {
  /** The middleware's `structuredResponse` option: register `afterModel` and write deferred updates there. */
  enabled: boolean;
  /** Warning logged once per thread when a structured response arrives and `enabled` is false. */
  warning: string;
  /** Logger of the middleware. */
  logger: ThreadwiseLogger;
  /** Turns a deferred update into the state update `afterModel` returns, e.g. `{ [SLOT_KEY]: update }`. */
  toState: (update: U) => Record<string, unknown>;
}

/**
 * State writes of a `wrapModelCall` hook when the response is a structured response
 * (`{ structuredResponse, messages }`, an agent with a `responseFormat`) rather than an AIMessage:
 * a `Command` cannot carry it, so the update waits for the `afterModel` hook of the same step,
 * which is registered only when the middleware's `structuredResponse` option asks for it (every hook
 * is a graph node: a superstep and a checkpoint write). Without it the update is left for a later
 * call and one warning per thread says which option to pass.
 */
export class StructuredResponseWrites<U> {
  readonly #deferred = new Map<string, U>();
  readonly #warned = new Set<string>();
  readonly #options: StructuredResponseWritesOptions<U>;

  constructor(options: StructuredResponseWritesOptions<U>) {
    this.#options = options;
  }

  /** Keeps `update` for this step's `afterModel` (when enabled), else warns once for `threadId`. */
  defer(threadId: string, update: U): void {
    if (this.#options.enabled && threadId !== "") {
      this.#deferred.set(threadId, update);
      return;
    }
    if (this.#warned.has(threadId)) return;
    if (this.#warned.size >= WARNED_THREADS_BOUND) this.#warned.clear();
    this.#warned.add(threadId);
    this.#options.logger.warn(this.#options.warning, {});
  }

  /** `{ afterModel }` to spread into `createMiddleware` when enabled, else `{}`. */
  hooks(): { afterModel?: (state: unknown, runtime: { configurable?: unknown } | undefined) => never } {
    if (!this.#options.enabled) return {};
    return {
      afterModel: (_state, runtime) => {
        const threadId = String((runtime?.configurable as { thread_id?: unknown } | undefined)?.thread_id ?? "");
        const update = this.#deferred.get(threadId);
        if (update === undefined) return undefined as never;
        this.#deferred.delete(threadId);
        return this.#options.toState(update) as never;
      },
    };
  }
}
