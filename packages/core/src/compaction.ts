import type { BaseMessage } from "@langchain/core/messages";
import { messageType, toolCallsOf } from "./message-kinds.js";

/**
 * Where a provider compacted a thread: the newest stored AI message that carries a provider
 * compaction block. The provider's compaction is its own summary of everything before the block
 * (Anthropic: "the API drops all message blocks prior to the compaction block"), so threadwise
 * treats the message as a boundary: it stays in every view, what precedes it is neither sent nor
 * summarized again, and summarize's own summary covers only what follows it.
 *
 * Recognised shape: `@langchain/anthropic` 1.5's, an `AIMessage` whose `content` array holds
 * `{ type: "compaction", content: string }` (from a response of `contextManagement: { edits: [{
 * type: "compact_20260112" }] }`; the converter sends the block back as it is). OpenAI Responses
 * compaction items are not recognised: `@langchain/openai` 1.5 keeps them in
 * `additional_kwargs.tool_outputs` and does not send them back, so the model would not see that
 * summary if the messages before it were dropped.
 */
export interface CompactionBoundary {
  /** Index in the thread of the AI message with the compaction block. */
  at: number;
  /** Index after that message's group (its tool results, when it has calls): what a summary may start at. */
  end: number;
  /** Id of the AI message (`undefined` when it has none). */
  messageId: string | undefined;
  /** Who compacted. */
  provider: "anthropic";
}

/** `true` for a content block of a provider's compaction (`{ type: "compaction", content }`). */
export function isCompactionBlock(block: unknown): boolean {
  return typeof block === "object" && block !== null && (block as { type?: unknown }).type === "compaction";
}

/** `true` for an AI message whose content holds a provider compaction block. */
export function isCompactionMessage(message: BaseMessage): boolean {
  const content = (message as { content?: unknown }).content;
  return messageType(message) === "ai" && Array.isArray(content) && content.some(isCompactionBlock);
}

/**
 * The newest provider compaction of `thread` ({@link CompactionBoundary}), `undefined` when none.
 * A scan from the end on every call, nothing kept: an array changed in place (a message replaced
 * by id, one appended) gets what a fresh process computes from it.
 */
export function compactionBoundary(thread: readonly BaseMessage[]): CompactionBoundary | undefined {
  for (let i = thread.length - 1; i >= 0; i -= 1) {
    const message = thread[i] as BaseMessage;
    if (!isCompactionMessage(message)) continue;
    const calls = new Set(toolCallsOf(message).map((call) => call.id));
    let end = i + 1;
    while (end < thread.length && messageType(thread[end] as BaseMessage) === "tool") {
      if (!calls.has((thread[end] as BaseMessage & { tool_call_id?: string }).tool_call_id)) break;
      end += 1;
    }
    return { at: i, end, messageId: message.id ?? undefined, provider: "anthropic" };
  }
  return undefined;
}
