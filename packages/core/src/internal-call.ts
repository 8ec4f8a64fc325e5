import { withTimeout } from "./timeout.js";
import { contentText } from "./token-counter.js";
import { wellFormed } from "./unicode.js";

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

/** An opening or closing `<think>` / `<thinking>` tag, as local reasoning models write them in their text. */
const THINK_TAG = /<(\/?)think(?:ing)?\s*>/gi;

/**
 * `text` without the reasoning a model wrote into it between `<think>` tags (Qwen3, DeepSeek-R1
 * and QwQ over Ollama or an OpenAI-compatible server; `<thinking>` too, any case): every closed
 * block is dropped; text before a closing tag that has no opening one (the chat template opened
 * the block in the prompt) is dropped; an opening tag that is never closed drops the rest (the
 * answer ran out while reasoning). `""` when the text is only reasoning. Text without tags is
 * returned as it is.
 *
 * @example
 * withoutThinking("<think>the user said...</think>\nThe user moved."); // "\nThe user moved."
 * withoutThinking("<think>still reasoning"); // ""
 */
export function withoutThinking(text: string): string {
  if (!/<\/?think/i.test(text)) return text;
  let out = "";
  let depth = 0;
  let at = 0;
  for (const tag of text.matchAll(THINK_TAG)) {
    const index = tag.index as number;
    if (tag[1] === "/") {
      // A closing tag with no opening one: everything before it was reasoning.
      if (depth === 0) out = "";
      else depth -= 1;
      if (depth === 0) at = index + tag[0].length;
      continue;
    }
    if (depth === 0) out += text.slice(at, index);
    depth += 1;
  }
  return depth === 0 ? out + text.slice(at) : out;
}

/**
 * The text of an internal call's answer ({@link invokeInternal}): a string as it is, a message's
 * content as LangChain reads it (`.text`: its text blocks joined as they came), without the
 * reasoning written between `<think>` tags ({@link withoutThinking}), well-formed (a lone UTF-16
 * surrogate as U+FFFD: core's `wellFormed`), trimmed. `""` for an answer with no text besides
 * reasoning (empty content beside a `reasoning_content`, only a `<think>` block).
 */
export function internalAnswerText(answer: unknown): string {
  const text = typeof answer === "string" ? answer : contentText((answer as { content?: unknown } | null)?.content);
  return wellFormed(withoutThinking(text)).trim();
}
