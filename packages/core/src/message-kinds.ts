/**
 * What kind of message a stored message is, read without class identity: its type, its tool calls
 * (`tool_calls` and Anthropic-native `tool_use` blocks), its tool results (ToolMessages and
 * `tool_result` blocks), a user turn, empty content. The leaf every grouping, view and count builds on.
 */
import type { AIMessage, BaseMessage } from "@langchain/core/messages";
import { HumanMessage, ToolMessage } from "@langchain/core/messages";

/** Prefix of the ids of the stable_tail context messages threadwise renders. */
export const CONTEXT_MESSAGE_ID_PREFIX = "tw-context-";

/** `true` for a stable_tail context message threadwise rendered (never a real user message). */
export function isContextMessage(message: BaseMessage): boolean {
  return typeof message.id === "string" && message.id.startsWith(CONTEXT_MESSAGE_ID_PREFIX);
}

/** The message type as `getType()` reports it, without depending on class identity. */
export function messageType(message: BaseMessage): string {
  const m = message as BaseMessage & { _getType?: () => string; type?: string };
  // `getType()` is `_getType()` is `this.type` in @langchain/core 1.x; reading the field skips two
  // calls per message on paths that scan a whole thread (measured in bench/overhead.ts).
  if (typeof m.type === "string" && m.type !== "") return m.type;
  if (typeof m.getType === "function") return m.getType();
  if (typeof m._getType === "function") return m._getType();
  return String(m.type ?? "");
}

/** Tool calls of an AI message (empty for any other message). */
export function toolCallsOf(message: BaseMessage): NonNullable<AIMessage["tool_calls"]> {
  if (messageType(message) !== "ai") return [];
  return (message as AIMessage).tool_calls ?? [];
}

/**
 * `true` for a user turn: a `HumanMessage` that holds the user's words (or is empty: the user's
 * input as typed). Not a user turn: a user message of nothing but `tool_result` blocks (and blank
 * text), which is how Anthropic's native format carries a tool's results (the run's tool loop, not
 * something the user said), and a stable_tail context message threadwise renders
 * (`isContextMessage`). A user message with `tool_result` blocks and words of its own is the
 * user's (as {@link groupMessages} sends it). What "the newest user message" means everywhere: a
 * summary's turn, the recall query, the stable_tail context's place, the protected tail's start.
 */
export function isUserMessage(message: BaseMessage): boolean {
  if (messageType(message) !== "human" || isContextMessage(message)) return false;
  return toolResultBlocksOf(message).length === 0 || holdsMoreThanResults(message);
}

/**
 * Ids of the `tool_use` content blocks of an AI message that its `tool_calls` lack, one per block
 * (empty for any other message). Anthropic's native format: an imported Anthropic transcript, or
 * an answer of an older `@langchain/anthropic`, holds its calls only as
 * `{ type: "tool_use", id, name, input }` blocks, with `tool_calls` `[]` or missing some of them;
 * `@langchain/anthropic` sends these blocks as calls. A v1 message (`output_version: "v1"`) is
 * sent from its standard blocks, where calls are `tool_calls`: none for it.
 */
export function blockCallIdsOf(message: BaseMessage): string[] {
  if (messageType(message) !== "ai" || !Array.isArray(message.content)) return [];
  if ((message as AIMessage).response_metadata?.output_version === "v1") return [];
  let own: Set<string> | undefined;
  const out: string[] = [];
  for (const block of message.content as Array<ContentBlock | string>) {
    if (typeof block === "string" || block?.type !== "tool_use") continue;
    own ??= new Set(toolCallsOf(message).map((call) => call.id ?? ""));
    const id = String(block.id ?? "");
    if (!own.has(id)) out.push(id);
  }
  return out;
}

/**
 * Every call an AI message makes, as ids: its `tool_calls`, then the `tool_use` blocks they lack
 * ({@link blockCallIdsOf}). Empty for any other message.
 */
export function callIdsOf(message: BaseMessage): string[] {
  const calls = toolCallsOf(message);
  const blocks = blockCallIdsOf(message);
  if (calls.length === 0) return blocks;
  const ids = calls.map((call) => call.id ?? "");
  return blocks.length === 0 ? ids : [...ids, ...blocks];
}

/** One `tool_result` block of a user message (Anthropic's native format for a tool result). */
export interface ToolResultBlock {
  /** The `tool_use_id`: the id of the call it answers. */
  id: string;
  /** Its position in the user message's content. */
  at: number;
  /** The block's `content` as stored: a string, or content blocks (text, images, documents). */
  content: unknown;
}

/**
 * The `{ type: "tool_result", tool_use_id, content }` blocks of a user message (Anthropic's native
 * format for tool results, in place of ToolMessages), in content order. Empty for any other message.
 */
export function toolResultBlocksOf(message: BaseMessage): ToolResultBlock[] {
  if (messageType(message) !== "human" || !Array.isArray(message.content)) return [];
  const out: ToolResultBlock[] = [];
  (message.content as Array<ContentBlock | string>).forEach((block, at) => {
    if (typeof block !== "string" && block?.type === "tool_result")
      out.push({ id: String(block.tool_use_id ?? ""), at, content: block.content });
  });
  return out;
}

/** The `tool_use_id`s of a user message's `tool_result` blocks, in content order (Anthropic's native format). */
export function toolResultIdsOf(message: BaseMessage): string[] {
  return toolResultBlocksOf(message).map((block) => block.id);
}

/**
 * Ids of the calls a request's AI messages make from Anthropic's code execution (programmatic tool
 * calling): `tool_use` content blocks whose `caller.type` starts with `code_execution` (e.g.
 * `{ type: "code_execution_20250825", tool_id: "srvtoolu_..." }`). Their results are not rendered in
 * Claude's context, so Anthropic refuses a `cache_control` on them (`Tool use result for toolu_...
 * called by code execution cannot have cache_control`, https://github.com/langchain-ai/langchain/issues/34542).
 */
export function programmaticCallIds(messages: readonly BaseMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (messageType(message) !== "ai" || !Array.isArray(message.content)) continue;
    for (const block of message.content as Array<ContentBlock | string>) {
      if (typeof block === "string" || block?.type !== "tool_use") continue;
      const caller = (block as { caller?: { type?: unknown } }).caller;
      if (typeof caller?.type === "string" && caller.type.startsWith("code_execution")) ids.add(String(block.id ?? ""));
    }
  }
  return ids;
}

/** Whether a result message (a ToolMessage, or a user message's `tool_result` blocks) answers one of `ids` ({@link programmaticCallIds}). */
export function answersCallIn(message: BaseMessage, ids: ReadonlySet<string>): boolean {
  if (ids.size === 0) return false;
  if (messageType(message) === "tool") return ids.has(String((message as ToolMessage).tool_call_id ?? ""));
  return toolResultIdsOf(message).some((id) => ids.has(id));
}

/** Whether an AI message makes any call ({@link callIdsOf}). */
export function hasCalls(message: BaseMessage): boolean {
  return toolCallsOf(message).length > 0 || blockCallIdsOf(message).length > 0;
}

/** Whether a user message holds something besides `tool_result` blocks and blank text: the user's own words. */
export function holdsMoreThanResults(message: BaseMessage): boolean {
  return blocksOf(message.content).some((block) => block.type !== "tool_result" && !isBlankText(block));
}

/** A tool result: a ToolMessage, or a user message holding `tool_result` blocks. */
export function isResultMessage(message: BaseMessage): boolean {
  return messageType(message) === "tool" || toolResultBlocksOf(message).length > 0;
}

/** A message that is a tool result and nothing else: a ToolMessage, or a user message of only `tool_result` blocks (Anthropic's native format). */
export function isResultOnly(message: BaseMessage): boolean {
  return messageType(message) === "tool" || (toolResultBlocksOf(message).length > 0 && !holdsMoreThanResults(message));
}

/**
 * A new user message with `message`'s id, name, `additional_kwargs` and `response_metadata` and
 * the given content: how a view's copy of a stored user message is made (results left out or
 * moved first, call ids renamed, roles merged). `message` is not changed.
 */
export function userMessageWith(message: BaseMessage, content: unknown): HumanMessage {
  return new HumanMessage({
    id: message.id,
    name: message.name,
    content: content as never,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

/**
 * A new ToolMessage with `message`'s id, name, call id, `status`, `artifact`, `additional_kwargs`
 * and `response_metadata`, and the given content (and call id, when given): how a view's copy of a
 * stored tool result is made (blank blocks left out, call ids made portable, a cache breakpoint
 * placed). `message` is not changed.
 */
export function toolMessageWith(message: ToolMessage, content: unknown, toolCallId: string = message.tool_call_id): ToolMessage {
  return new ToolMessage({
    id: message.id,
    name: message.name,
    content: content as never,
    tool_call_id: toolCallId,
    ...(message.status ? { status: message.status } : {}),
    ...(message.artifact !== undefined ? { artifact: message.artifact } : {}),
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
}

/** `true` for a text block (or a string part) whose text is blank. */
export function isBlankText(block: unknown): boolean {
  if (typeof block === "string") return block.trim() === "";
  const b = block as ContentBlock | null;
  return b !== null && typeof b === "object" && b.type === "text" && String(b.text ?? "").trim() === "";
}

/** A content block as LangChain messages hold it. */
export type ContentBlock = Record<string, unknown>;

/** Content as a list of blocks: a string is one text block (none when empty). */
export function blocksOf(content: unknown): ContentBlock[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((block) => (typeof block === "string" ? { type: "text", text: block } : (block as ContentBlock)));
}

/**
 * `true` when content holds no block other than blank text and `reasoning` blocks (spec R33: such
 * an AI message is not sent; such a user message is empty). A `reasoning` block (LangChain's
 * standard block, from an OpenAI Responses answer) is no answer on its own: an answer whose output
 * ran out during its reasoning holds nothing else. `@langchain/anthropic` does not send reasoning
 * blocks, so the message reached Anthropic with no content (`all messages must have non-empty
 * content`), and OpenAI refuses its reasoning item without an item of its own; the same answer
 * stored as `""` (content without standard blocks) was already left out. Anthropic's signed
 * `thinking` blocks count as content.
 */
export function isEmptyContent(content: unknown): boolean {
  if (typeof content === "string") return content.trim() === "";
  return blocksOf(content).every(
    (block) => (block.type === "text" && String(block.text ?? "").trim() === "") || block.type === "reasoning",
  );
}
