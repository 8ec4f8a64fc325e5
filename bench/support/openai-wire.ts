/**
 * What the OpenAI chat-completions provider would put in the request's `messages` field for one
 * model call, and helpers to compare consecutive calls as a prompt cache sees them.
 *
 * Serialization uses `@langchain/openai`'s own converter (`convertMessagesToCompletionsMessageParams`,
 * the function `ChatOpenAICompletions` calls before sending), so the bytes are the provider's,
 * not an imitation. Used by `bench/placement.ts` and byte-level placement tests.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { createTokenCounter, type TokenCounter } from "@threadwise/core";

/** The model name passed to the converter; a non-reasoning model keeps the `system` role. */
export const WIRE_MODEL = "gpt-4o";

/** The `messages` array of a chat-completions request, as plain JSON values. */
export function toOpenAIMessages(messages: readonly BaseMessage[], model = WIRE_MODEL): unknown[] {
  return convertMessagesToCompletionsMessageParams({ messages: [...messages], model }) as unknown[];
}

/**
 * The serialized input of one call: the JSON text of its `messages` array (system message first,
 * as the agent sends it). Two calls share a cacheable prefix exactly when these texts do.
 */
export function serializeInput(messages: readonly BaseMessage[], model = WIRE_MODEL): string {
  return JSON.stringify(toOpenAIMessages(messages, model));
}

/**
 * `true` when `current` starts with the whole of `previous`: the previous request's messages are
 * an unchanged prefix of this one. Compared on the JSON array text without its closing `]`.
 */
export function startsWithPrevious(previous: string, current: string): boolean {
  return current.startsWith(previous.slice(0, -1));
}

let counter: TokenCounter | undefined;

/** o200k_base tokens of a text (the encoding of gpt-4o and later OpenAI models), via core's counter. */
export function countO200k(text: string): number {
  counter ??= createTokenCounter({ encoding: "o200k_base" });
  return counter.countText(text);
}

/** Length of the longest common prefix of two texts, in characters. */
export function commonPrefixLength(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i += 1;
  return i;
}

/**
 * Token accounting of serialized inputs, per message: a call's tokens are the sum of the
 * o200k_base tokens of each message's JSON text (the `[`, `,` and `]` between messages are not
 * counted). Counts are cached by the message's JSON, so a long replay costs O(new messages).
 */
export class WireTokenizer {
  private readonly cache = new Map<string, number>();

  /** Tokens of one serialized message. */
  messageTokens(json: string): number {
    let n = this.cache.get(json);
    if (n === undefined) {
      n = countO200k(json);
      this.cache.set(json, n);
    }
    return n;
  }

  /** Tokens of a call's input: the sum over its serialized messages. */
  inputTokens(messages: readonly string[]): number {
    let total = 0;
    for (const json of messages) total += this.messageTokens(json);
    return total;
  }

  /**
   * Tokens `current` shares at its start with `previous`: the whole messages they share, plus
   * the tokens of the common prefix text of the first message that differs.
   */
  cacheableTokens(previous: readonly string[], current: readonly string[]): number {
    let total = 0;
    const n = Math.min(previous.length, current.length);
    for (let i = 0; i < n; i += 1) {
      const a = previous[i] as string;
      const b = current[i] as string;
      if (a === b) {
        total += this.messageTokens(b);
        continue;
      }
      const shared = commonPrefixLength(a, b);
      return total + (shared > 0 ? countO200k(b.slice(0, shared)) : 0);
    }
    return total;
  }
}

/** The serialized messages of one call, one JSON text per message (see {@link serializeInput}). */
export function serializeMessages(messages: readonly BaseMessage[], model = WIRE_MODEL): string[] {
  return toOpenAIMessages(messages, model).map((m) => JSON.stringify(m));
}

/**
 * Tokens two serialized inputs share at their start: the o200k_base tokens of their longest
 * common prefix text. Tokenizing the shared text can differ from the provider's token boundary
 * by a token at the cut; the bench reports means over hundreds of calls, where that is noise.
 */
export function cacheableTokens(previous: string, current: string): number {
  return countO200k(current.slice(0, commonPrefixLength(previous, current)));
}
