import { createHash } from "node:crypto";
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { analysisText, callIdsOf, messageText, messageType, toolCallsOf } from "@threadwise/core";

/** Why a response was not stored. Logged as `reason=<code>`; never contains message text. */
export type SkipReason =
  | "no_thread"
  | "no_model_response"
  | "not_final"
  | "replaced"
  | "blocked"
  | "failed"
  | "input_required"
  | "empty"
  | "condensation_failed"
  | "condensation_empty"
  | "not_condensed";

/** The outcome of {@link decideStore}. */
export type StoreDecision = { store: true } | { store: false; reason: SkipReason };

/**
 * `finish_reason` / `stop_reason` values of a response that did not complete normally: cut at the
 * token limit, filtered or refused by the provider, or failed.
 */
export const INCOMPLETE_FINISH_REASONS: ReadonlySet<string> = new Set([
  "length",
  "max_tokens",
  "content_filter",
  "refusal",
  "error",
  "safety",
  "recitation",
]);

/** The failure text of LangChain's `modelRetryMiddleware` with `onFailure: "continue"`. */
const MODEL_RETRY_FAILURE = /^Model call failed after \d+ attempts? with /;

/**
 * What may follow a question's mark and still leave it the text's end: whitespace, closing quotes
 * and brackets, markdown emphasis, emoji (`😊`, `👍🏻`, `❤️`, joined sequences) and Hangul jamo
 * laughter or tears (`ㅎㅎ`, `ㅋㅋ`, `ㅠㅠ`), as chat answers end.
 */
const TRAILING = /(?:[\s"'`”’)\]」』】》〉*_~\p{Extended_Pictographic}\p{Emoji_Modifier}\u3131-\u318E]|\u{FE0F}|\u{200D})+$/u;

/**
 * The default detector of a response that asks the user for input (spec R18, "asks for input"):
 * its text, without trailing whitespace, quotes, brackets and markdown emphasis, ends with a
 * question mark (`?`, full-width `？`, or Arabic `؟`), read on core's `analysisText` (invisible
 * characters dropped), emoji and jamo laughter after the mark skipped. Such an answer waits on the
 * user, so what it says is not settled work.
 *
 * @example
 * asksForInput("Which city should I book?"); // true
 * asksForInput("서울로 예약할까요?"); // true
 * asksForInput("Booked. Your seat is 12A."); // false
 */
export function asksForInput(text: string): boolean {
  const end = analysisText(text).replace(TRAILING, "");
  return /[?？؟]$/u.test(end);
}

/** A fingerprint of what a message says: its text and its tool calls. */
export function responseFingerprint(message: BaseMessage): string {
  const calls = toolCallsOf(message).map((call) => `${call.name}:${JSON.stringify(call.args ?? {})}`);
  return `${messageText(message)}\u0000${calls.join("\u0001")}`;
}

/**
 * What a run's final answer was when the model returned it, as kept in the thread's state until
 * the run commits (core's `WorkMemoryPending`): the digest of its text and tool calls, and whether
 * it completed normally.
 */
export interface ModelResponseRecord {
  /** {@link responseDigest} of the response. */
  digest: string;
  /** {@link isIncomplete} of the response. */
  incomplete: boolean;
}

/**
 * SHA-256 of {@link responseFingerprint}, base64 (44 characters): what the state keeps of a model
 * response to tell a replaced answer, never its text.
 */
export function responseDigest(message: BaseMessage): string {
  return createHash("sha256").update(responseFingerprint(message)).digest("base64");
}

/** The {@link ModelResponseRecord} of a model response. */
export function modelResponseRecord(message: BaseMessage): ModelResponseRecord {
  return { digest: responseDigest(message), incomplete: isIncomplete(message) };
}

/** `true` when the message carries a block marker set by the provider or by an output check. */
export function hasBlockMarker(message: BaseMessage): boolean {
  const meta = ((message as AIMessage).response_metadata ?? {}) as Record<string, unknown>;
  const kwargs = ((message as AIMessage).additional_kwargs ?? {}) as Record<string, unknown>;
  if (meta.threadwise_blocked === true || kwargs.threadwise_blocked === true) return true;
  if (meta.blocked === true || kwargs.blocked === true) return true;
  if (typeof kwargs.refusal === "string" && kwargs.refusal.trim() !== "") return true;
  return false;
}

/** `true` when the message says the response did not complete normally. */
export function isIncomplete(message: BaseMessage): boolean {
  const meta = ((message as AIMessage).response_metadata ?? {}) as Record<string, unknown>;
  for (const key of ["finish_reason", "stop_reason", "finishReason"]) {
    const value = meta[key];
    if (typeof value === "string" && INCOMPLETE_FINISH_REASONS.has(value.toLowerCase())) return true;
  }
  if (meta.error !== undefined && meta.error !== null && meta.error !== false) return true;
  return MODEL_RETRY_FAILURE.test(messageText(message));
}

/** What {@link decideStore} looks at. */
export interface StoreCandidate {
  /** The last message of the thread when the run ended. */
  last: BaseMessage | undefined;
  /**
   * The final model response this run returned through workMemory's `wrapModelCall`, if any: the
   * message, or the {@link ModelResponseRecord} the thread's state kept of it.
   */
  modelResponse: BaseMessage | ModelResponseRecord | undefined;
  /** Whether a structured response came with it. */
  hasStructuredResponse: boolean;
  /** Custom block check from the options. */
  isBlocked?: (message: AIMessage) => boolean;
  /** Input-request detector from the options. */
  asksForInput: (text: string) => boolean;
}

/**
 * Decides whether the run's final answer may be stored (spec R18). Checked in this order:
 * 1. a model response was seen in this run (`no_model_response` otherwise: a hook ended the run
 *    before the model answered);
 * 2. the thread ends on an AI message that makes no call (`not_final`): no `tool_calls`, and no
 *    `tool_use` block they lack (core `callIdsOf`; Anthropic's native format, where such a call's
 *    result comes back in a user message of `tool_result` blocks);
 * 3. that message says what the model returned (`replaced`: a later `afterModel` or `afterAgent`
 *    hook, e.g. a guardrail, swapped or rewrote the answer);
 * 4. no block marker and `isBlocked` is false (`blocked`);
 * 5. it completed normally (`failed`: an incomplete `finish_reason`, an error in its metadata, or
 *    a `modelRetryMiddleware` failure text);
 * 6. it does not ask the user for input (`input_required`);
 * 7. it has text or structured output (`empty`).
 */
export function decideStore(candidate: StoreCandidate): StoreDecision {
  const { last } = candidate;
  if (!candidate.modelResponse) return { store: false, reason: "no_model_response" };
  const modelResponse =
    "digest" in candidate.modelResponse
      ? (candidate.modelResponse as ModelResponseRecord)
      : modelResponseRecord(candidate.modelResponse as BaseMessage);
  if (!last || messageType(last) !== "ai" || callIdsOf(last).length > 0) return { store: false, reason: "not_final" };
  if (responseDigest(last) !== modelResponse.digest) return { store: false, reason: "replaced" };
  if (hasBlockMarker(last) || candidate.isBlocked?.(last as AIMessage) === true) return { store: false, reason: "blocked" };
  if (isIncomplete(last) || modelResponse.incomplete) return { store: false, reason: "failed" };
  const text = messageText(last).trim();
  if (text !== "" && candidate.asksForInput(text)) return { store: false, reason: "input_required" };
  if (text === "" && !candidate.hasStructuredResponse) {
    const content = (last as { content?: unknown }).content;
    if (!Array.isArray(content) || content.length === 0) return { store: false, reason: "empty" };
  }
  return { store: true };
}
