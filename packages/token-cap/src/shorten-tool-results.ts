import { type BaseMessage, ToolMessage } from "@langchain/core/messages";
import { headWithinUnits, messageText, messageType, type TokenCounter } from "@threadwise/core";

/**
 * The marker that ends a shortened tool result: `[threadwise: truncated N tokens]`, where `N` is
 * the number of content tokens removed.
 */
export function truncationMarker(removedTokens: number): string {
  return `[threadwise: truncated ${removedTokens} tokens]`;
}

/** What {@link shortenToolResults} did. */
export interface ShortenResult {
  /** The messages, with shortened tool results replaced by new ToolMessage objects. */
  messages: BaseMessage[];
  /** Tokens saved, in tokens (as counted by the counter). */
  savedTokens: number;
  /** How many tool results were shortened. */
  shortened: number;
}

/**
 * Shortens ToolMessages among `messages[from..]`, oldest first, until `excessTokens` tokens are
 * saved or no tool result is left to shorten (spec R3 over-cap rule).
 *
 * Each shortened result keeps the head of its text and ends with {@link truncationMarker}; it
 * is a new `ToolMessage` with the same `id`, `tool_call_id`, `name`, `status` and `artifact`,
 * so the call/result pairing (R4) holds and the original object is never mutated. A result is
 * cut to about what covers the tokens still over (its head length estimated from its own
 * characters per token, then shrunk until it fits); one that cannot save enough becomes the marker
 * alone and the next result is cut. Non-text blocks of a shortened result (images, files) are
 * dropped with the rest. Deterministic: the same input gives the same output.
 */
export function shortenToolResults(
  messages: readonly BaseMessage[],
  from: number,
  excessTokens: number,
  counter: TokenCounter,
): ShortenResult {
  const out = [...messages];
  let left = excessTokens;
  let shortened = 0;
  for (let i = from; i < out.length && left > 0; i += 1) {
    const message = out[i] as BaseMessage;
    if (messageType(message) !== "tool") continue;
    const original = message as ToolMessage;
    const total = counter.countMessage(original);
    // Framing and name cost the same before and after; what can shrink is the content.
    const frame = counter.countMessage(rebuild(original, "", false));
    const contentTokens = total - frame;
    const text = messageText(original);
    const target = Math.max(0, contentTokens - left);
    const head = longestHead(text, contentTokens, target, counter);
    if (head === undefined) continue;
    const replacement = rebuild(original, head.content);
    const saved = total - (frame + counter.countText(head.content));
    if (saved <= 0) continue;
    out[i] = replacement;
    left -= saved;
    shortened += 1;
  }
  return { messages: out, savedTokens: excessTokens - left, shortened };
}

/**
 * A head of `text` such that head + marker costs at most `target` tokens (close to the longest
 * such head); the marker alone when none fits. `undefined` when shortening would not save anything.
 */
function longestHead(text: string, contentTokens: number, target: number, counter: TokenCounter): { content: string } | undefined {
  const compose = (length: number): string => {
    // Whole characters only: a lone surrogate makes Anthropic and Gemini refuse the request, and
    // a decomposed Korean syllable or an emoji sequence cut in two shows a broken character.
    const head = headWithinUnits(text, length);
    const removed = contentTokens - counter.countText(head);
    return head === "" ? truncationMarker(removed) : `${head}\n${truncationMarker(removed)}`;
  };
  const markerOnly = compose(0);
  const markerTokens = counter.countText(markerOnly);
  if (markerTokens >= contentTokens) return undefined;
  // Nothing but the marker fits: skip the search (the common case when far over the cap).
  if (markerTokens >= target || text === "") return { content: markerOnly };
  // Head length from this text's characters per token, then shrunk by the measured overshoot
  // until it fits: usually one or two tokenizations, only on this rare over-cap path.
  const perToken = text.length / Math.max(1, contentTokens);
  let length = Math.min(text.length, Math.max(0, Math.floor((target - markerTokens) * perToken)));
  for (let attempt = 0; attempt < 16 && length > 0; attempt += 1) {
    const content = compose(length);
    const over = counter.countText(content) - target;
    if (over <= 0) return { content };
    length = Math.max(0, Math.floor(length - (over + 1) * perToken));
  }
  return { content: markerOnly };
}

function rebuild(original: ToolMessage, content: string, keepId = true): ToolMessage {
  return new ToolMessage({
    content,
    // Without an id the probe used to measure framing stays out of the counter's id cache.
    id: keepId ? original.id : undefined,
    tool_call_id: original.tool_call_id,
    name: original.name,
    status: original.status,
    artifact: original.artifact,
    additional_kwargs: original.additional_kwargs,
    response_metadata: original.response_metadata,
  });
}
