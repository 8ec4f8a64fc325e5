import { createHash } from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";
import { messageType, toolCallsOf } from "./groups.js";

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

// Pure function of the message object's fields, so a copy per object can never change an answer;
// it spares a tool loop hashing the same stored messages at every model call.
const digests = new WeakMap<BaseMessage, string>();

/**
 * A short digest of {@link messageIdentity}: SHA-1, the first {@link MESSAGE_DIGEST_CHARACTERS}
 * base64 characters. What a per-thread record keeps of a message to tell, in a later process, an
 * edit in place (R37) from the message it read. Cached per message object (messages are not
 * mutated in threadwise; a caller that mutates one must not rely on the cache). O(content).
 */
export function messageDigest(message: BaseMessage): string {
  let digest = digests.get(message);
  if (digest === undefined) {
    digest = createHash("sha1").update(messageIdentity(message)).digest("base64").slice(0, MESSAGE_DIGEST_CHARACTERS);
    digests.set(message, digest);
  }
  return digest;
}
