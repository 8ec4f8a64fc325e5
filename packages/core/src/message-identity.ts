import * as crypto from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";
import { messageType, toolCallsOf } from "./message-kinds.js";

/**
 * Everything of a stored message that a provider or a summarizer is sent, as one string: type, id,
 * `name`, content (text or blocks, in order), tool calls (id, name, arguments) and a ToolMessage's
 * `tool_call_id`. Two messages with the same identity send the same thing; a message edited in
 * place under its own id (LangGraph's `updateState` with a stored id) has another. O(content).
 */
export function messageIdentity(message: BaseMessage): string {
  const calls = toolCallsOf(message).map((call) => [call.id ?? null, call.name, call.args ?? null]);
  const callId = (message as { tool_call_id?: unknown }).tool_call_id ?? null;
  return JSON.stringify([messageType(message), message.id ?? null, message.name ?? null, message.content, calls, callId]);
}

/**
 * Whether `a` and `b` are the same stored message with the same content (see
 * {@link messageIdentity}); `true` at once for the same object. Spec R37: a per-thread structure
 * that kept a message checks it with this before it trusts what it derived from it.
 */
export function sameMessage(a: BaseMessage | undefined, b: BaseMessage | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.id !== b.id) return false;
  return messageIdentity(a) === messageIdentity(b);
}

/** Characters of a {@link messageDigest} (48 bits of SHA-1, base64). */
export const MESSAGE_DIGEST_CHARACTERS = 8;

/**
 * A stored message's digest: SHA-1 of its {@link messageIdentity}, the first
 * {@link MESSAGE_DIGEST_CHARACTERS} base64 characters. What summarize's covered digests and the
 * message archive's cleared digests (memory's `archiveClearedDigests`) hold per message, and what
 * a fact keeps of the message it was stated in (fact-recall's `sourceDigest`). O(content).
 */
export function messageDigest(message: BaseMessage): string {
  return sha1Base64(messageIdentity(message)).slice(0, MESSAGE_DIGEST_CHARACTERS);
}

/**
 * Node's one-shot `crypto.hash` (Node 20.12+; no Hash object per digest, about twice as fast on
 * a message's identity), else a `createHash` stream: the same digest either way.
 */
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: "base64") => string }).hash;

/** SHA-1 of `text` (its UTF-8), base64. */
function sha1Base64(text: string): string {
  return oneShotHash ? oneShotHash("sha1", text, "base64") : crypto.createHash("sha1").update(text).digest("base64");
}
