import { withTimeout } from "./timeout.js";

/** Metadata key every internal call carries; its value is the call's {@link internalCallName}. */
export const INTERNAL_CALL_METADATA_KEY = "threadwise_internal";

/**
 * Tag of every internal call (R13): easy to find in traces. `nostream` keeps the call's tokens out
 * of `streamMode: "messages"` (LangGraph's messages handler skips runs tagged with it).
 */
export const INTERNAL_CALL_TAGS = ["threadwise:internal", "nostream"] as const;

/** Who makes an internal call: the middleware (kebab-case, `summarize`) and what for (`summary`). */
export interface InternalCallId {
  /** The middleware's short name, as in `threadwise/<middleware>`: `summarize`, `fact-recall`, `work-memory`. */
  middleware: string;
  /** What the call does, one kebab-case word or two: `summary`, `extract`, `condense`. */
  purpose: string;
}

/** The run name of an internal call: `threadwise/<middleware>:<purpose>` (`threadwise/summarize:summary`). */
export function internalCallName(id: InternalCallId): string {
  return `threadwise/${id.middleware}:${id.purpose}`;
}

/** The run config of an internal call: what {@link internalCallConfig} returns. */
export interface InternalCallConfig {
  /** `threadwise/<middleware>:<purpose>`. */
  runName: string;
  /** {@link INTERNAL_CALL_TAGS} plus `threadwise:<middleware>`. */
  tags: string[];
  /** `{ threadwise_internal: "<runName>" }`. */
  metadata: Record<string, string>;
}

/**
 * The one way threadwise names a model call it makes on its own (spec R13): run name
 * `threadwise/<middleware>:<purpose>`, tags `threadwise:internal`, `nostream` and
 * `threadwise:<middleware>`, metadata `threadwise_internal: <run name>`. Pass it as the call's
 * `RunnableConfig` (the second argument of `invoke`).
 *
 * @example
 * model.invoke(messages, { ...internalCallConfig({ middleware: "summarize", purpose: "summary" }), signal });
 */
export function internalCallConfig(id: InternalCallId): InternalCallConfig {
  const runName = internalCallName(id);
  return {
    runName,
    tags: [...INTERNAL_CALL_TAGS, `threadwise:${id.middleware}`],
    metadata: { [INTERNAL_CALL_METADATA_KEY]: runName },
  };
}

/** Anything with a chat model's `invoke(input, config)`: a chat model or a runnable. */
export interface InternalCallModel {
  invoke(input: never, options?: never): Promise<unknown>;
}

/** Options of {@link invokeInternal}. */
export interface InvokeInternalOptions extends InternalCallId {
  /** Time allowed, in milliseconds, 1..2,147,483,647. */
  timeoutMs: number;
  /** The run's signal: a cancelled run also cancels the internal call. */
  signal?: AbortSignal;
}

/**
 * Makes one internal model call: named and tagged by {@link internalCallConfig}, bounded by
 * `timeoutMs` through core's {@link withTimeout}, with the combined signal passed to the model.
 *
 * @returns the model's answer, unchanged (a message, or whatever the runnable returns).
 * @throws ThreadwiseTimeoutError when `timeoutMs` passes; the run's abort reason when the run is
 *   cancelled; whatever the model throws otherwise.
 */
export async function invokeInternal(model: InternalCallModel, input: unknown, options: InvokeInternalOptions): Promise<unknown> {
  const config = internalCallConfig(options);
  const invoke = model.invoke.bind(model) as (input: unknown, options: unknown) => Promise<unknown>;
  return withTimeout((signal) => invoke(input, { ...config, signal }), {
    timeoutMs: options.timeoutMs,
    label: config.runName,
    signal: options.signal,
  });
}
