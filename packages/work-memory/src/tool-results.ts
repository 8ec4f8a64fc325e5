import type { BaseMessage } from "@langchain/core/messages";
import { callIdsOf, messageType, toolCallsOf, toolResultBlocksOf } from "@threadwise/core";

/** One tool result of a run, as {@link projectResponse} reads it, from either format. */
export interface ToolResult {
  /** Id of the call it answers: a ToolMessage's `tool_call_id`, a `tool_result` block's `tool_use_id`. */
  id: string;
  /** Name of the tool: the ToolMessage's `name`, else the name of the call it answers; `undefined` when neither is known. */
  name: string | undefined;
  /**
   * What the tool returned beside what the model reads, projected as metadata: a ToolMessage's
   * `artifact`; for a `tool_result` block (which has no such field), the non-text blocks of its
   * content (images, documents: the native format's only place for a tool's files), `undefined`
   * when it holds only text. Text is never projected, from either format: the answer states it.
   */
  artifact: unknown;
}

/** The blocks of `content` that are not text (a string is text), e.g. images, files, documents. */
export function nonTextBlocks(content: unknown): unknown[] {
  if (!Array.isArray(content)) return [];
  return content.filter((block) => block && typeof block === "object" && (block as { type?: unknown }).type !== "text");
}

/**
 * Name of the call `id` answered by the result in `messages[at]`: from the nearest AI message
 * before it that makes that call (core `callIdsOf`: its `tool_calls`, or its `tool_use` blocks in
 * Anthropic's native format).
 */
function callName(messages: readonly BaseMessage[], at: number, id: string): string | undefined {
  for (let i = at - 1; i >= 0; i -= 1) {
    const message = messages[i] as BaseMessage;
    if (messageType(message) !== "ai" || !callIdsOf(message).includes(id)) continue;
    const call = toolCallsOf(message).find((c) => c.id === id);
    if (call) return call.name;
    const block = (message.content as Array<{ type?: unknown; id?: unknown; name?: unknown }>).find(
      (b) => b && typeof b === "object" && b.type === "tool_use" && b.id === id,
    );
    return typeof block?.name === "string" ? block.name : undefined;
  }
  return undefined;
}

/**
 * The tool results of `messages[from..]`, in thread order: each ToolMessage, and each
 * `{ type: "tool_result", tool_use_id, content }` block of a user message (Anthropic's native
 * format: core `toolResultBlocksOf`, one result per block; a user message with words of its own
 * beside its results gives its results too). A call's name is looked up in all of `messages`
 * before the result, since the call may come before `from`. A negative `from` reads from the
 * start (core `newestUserAt` gives `-1` for a thread without a user message).
 */
export function toolResultsOf(messages: readonly BaseMessage[], from = 0): ToolResult[] {
  const out: ToolResult[] = [];
  for (let at = Math.max(from, 0); at < messages.length; at += 1) {
    const message = messages[at] as BaseMessage;
    if (messageType(message) === "tool") {
      const id = String((message as { tool_call_id?: unknown }).tool_call_id ?? "");
      out.push({ id, name: message.name ?? callName(messages, at, id), artifact: (message as { artifact?: unknown }).artifact });
      continue;
    }
    for (const block of toolResultBlocksOf(message)) {
      const files = nonTextBlocks(block.content);
      out.push({ id: block.id, name: callName(messages, at, block.id), artifact: files.length > 0 ? files : undefined });
    }
  }
  return out;
}
