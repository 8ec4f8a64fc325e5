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
 *
 * The update is kept with the response's own message objects (a `WeakMap`), never by thread id
 * (spec R37, issue 21): `afterModel` writes it only when the state it reads still holds those very
 * objects, which is the case in the step that made them and in no other. After an interrupt between
 * the model call and this `afterModel` (another middleware's review), the resumed run reads the
 * thread back from the checkpointer (new objects) and writes nothing, as a process that never
 * made the update writes nothing; the update is derived again on a later call (the summary is
 * still due, the facts' cursor did not move). Nothing is kept for a thread whose step never reached
 * `afterModel`.
 */
export class StructuredResponseWrites<U> {
  readonly #deferred = new WeakMap<object, U>();
  readonly #warned = new Set<string>();
  readonly #options: StructuredResponseWritesOptions<U>;

  constructor(options: StructuredResponseWritesOptions<U>) {
    this.#options = options;
  }

  /**
   * Keeps `update` for the `afterModel` of the step that returned `response` (when enabled: a
   * response without messages keeps nothing), else warns once for `threadId`.
   *
   * @param response - what the model call returned: `{ structuredResponse, messages }`
   */
  defer(threadId: string, update: U, response: unknown): void {
    if (this.#options.enabled) {
      const last = (response as { messages?: unknown } | null)?.messages;
      const key = Array.isArray(last) ? last.at(-1) : undefined;
      if (key !== null && typeof key === "object") this.#deferred.set(key, update);
      return;
    }
    if (this.#warned.has(threadId)) return;
    if (this.#warned.size >= WARNED_THREADS_BOUND) this.#warned.clear();
    this.#warned.add(threadId);
    this.#options.logger.warn(this.#options.warning, {});
  }

  /** `{ afterModel }` to spread into `createMiddleware` when enabled, else `{}`. */
  hooks(): { afterModel?: (state: unknown, runtime: unknown) => never } {
    if (!this.#options.enabled) return {};
    return {
      afterModel: (state) => {
        // The step's response messages come after the newest user message: look no further back.
        const messages = ((state as { messages?: unknown } | null)?.messages ?? []) as readonly object[];
        for (let i = messages.length - 1; i >= 0; i -= 1) {
          const message = messages[i] as object;
          const update = this.#deferred.get(message);
          if (update !== undefined) {
            this.#deferred.delete(message);
            return this.#options.toState(update) as never;
          }
          if ((message as { getType?: () => string }).getType?.() === "human") break;
        }
        return undefined as never;
      },
    };
  }
}
