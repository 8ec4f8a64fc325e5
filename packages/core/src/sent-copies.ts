/**
 * The copies a view sends in place of stored messages (spec R4, R33, R37): without blank text,
 * without results that answer nothing, results first, without unanswered calls, with portable call
 * ids. Each copy is made once per stored message and kind (`viewCopy`); the stored message is never changed.
 */
import { AIMessage, type BaseMessage, type ToolMessage } from "@langchain/core/messages";
import {
  type ContentBlock,
  callIdsOf,
  isBlankText,
  messageType,
  toolCallsOf,
  toolMessageWith,
  toolResultBlocksOf,
  userMessageWith,
} from "./message-kinds.js";
import { GEMINI_THOUGHT_SIGNATURES, viewCopy, withPortableCallIds } from "./portable-call-ids.js";
import {
  type CalledTool,
  responseMetadataAsCalled,
  responseMetadataFor,
  responsesCallsMatch,
  responsesItemAgrees,
  responsesOutputOf,
  sameArguments,
} from "./responses-output.js";

/**
 * A copy of the user message `message` without the `tool_result` blocks at the content positions
 * `at` (same id, name and metadata): what a view sends for a user message whose results answer no
 * call right before it (a cut, a duplicate) beside words of the user's own. The stored message is
 * not changed; one copy per message and positions.
 */
export function withoutResults(message: BaseMessage, at: readonly number[]): BaseMessage {
  if (at.length === 0) return message;
  return viewCopy(message, `results:${at.join(",")}`, () => {
    const left = new Set(at);
    return userMessageWith(
      message,
      (message.content as unknown[]).filter((_, k) => !left.has(k)),
    );
  });
}

/**
 * The user message `message` with its `tool_result` blocks first: `message` itself when no other
 * block comes before one, else a copy (same id, name and metadata) with the results first and the
 * other blocks after them, each in stored order. Anthropic refuses text before a turn's results
 * (`tool_use ids were found without tool_result blocks immediately after`; its tool-use guide: the
 * results come first in the content, any text after them), and an import may store the user's
 * words first. The stored message is not changed.
 */
export function resultsFirst(message: BaseMessage): BaseMessage {
  const content = message.content as unknown[];
  const isResult = (block: unknown) => (block as ContentBlock | null)?.type === "tool_result";
  const firstOther = content.findIndex((block) => !isResult(block));
  if (firstOther === -1 || !content.slice(firstOther).some(isResult)) return message;
  return viewCopy(message, "results-first", () =>
    userMessageWith(message, [...content.filter(isResult), ...content.filter((block) => !isResult(block))]),
  );
}

/** What a view sends for a user message outside any call's run: without its `tool_result` blocks and blank text. */
export function userMessageSent(message: BaseMessage): BaseMessage {
  return withoutBlankText(
    withoutResults(
      message,
      toolResultBlocksOf(message).map((block) => block.at),
    ),
  );
}

/**
 * The message a view sends for `message`: `message` itself unless its content holds blank text
 * beside something else to send; then a copy without the blank text (same id, name, calls, call
 * id and metadata). A user message's blocks: a picture sent without a caption, as a chat UI sends
 * `[{ type: "text", text: "" }, { type: "image_url", ... }]`. An AI message's blocks beside other
 * blocks or its tool calls (an answer that carries an empty text block next to `tool_use`, a
 * client that stores `[{ type: "text", text: "" }]` with the calls); an AI message with calls
 * whose content is nothing but blank text (a blank string or blank blocks) is sent with `""`,
 * which every converter sends as the calls alone. A tool result's blocks (`@langchain/anthropic`
 * sends them inside its `tool_result`); a result of nothing but blank blocks is sent as `""`.
 * Anthropic (`text content blocks must contain non-whitespace text`, `text content blocks must be
 * non-empty`; its converter sends an AI message's non-empty string beside its calls as a text
 * block), Gemini (`empty text parameter`) and Bedrock Converse (`The text field in the
 * ContentBlock object ... is blank`, for a user message: `@langchain/aws` merges an AI message's
 * blank blocks away) refuse such a block; OpenAI accepts it. The stored message is not changed.
 * A user message with nothing but blank text is empty ({@link isEmptyContent}) and is sent as it
 * is when it is the newest user message (left out otherwise); an AI message with neither text nor
 * calls is left out by the view's role step.
 */
export function withoutBlankText(message: BaseMessage): BaseMessage {
  const content = message.content as unknown;
  const type = messageType(message);
  if (type !== "human" && type !== "ai" && type !== "tool") return message;
  // Content that is nothing but blank text may be sent as "" (instead of a blank block) when the
  // message holds something else: an AI message's calls, a tool result's call id.
  const emptyAllowed = type === "tool" || toolCallsOf(message).length > 0;
  const blankString = emptyAllowed && type === "ai" && typeof content === "string" && content !== "" && content.trim() === "";
  if (!blankString && (!Array.isArray(content) || !content.some(isBlankText) || (content.every(isBlankText) && !emptyAllowed)))
    return message;
  // One copy per stored message, so every hook of a call shares one object.
  return viewCopy(message, "blank", () => {
    const kept = Array.isArray(content) ? content.filter((block) => !isBlankText(block)) : [];
    const fields = {
      id: message.id,
      name: message.name,
      content: (kept.length === 0 ? "" : kept) as never,
      additional_kwargs: message.additional_kwargs,
      response_metadata: message.response_metadata,
    };
    let copy: BaseMessage;
    if (type === "ai") {
      const from = message as AIMessage;
      copy = new AIMessage({
        ...fields,
        tool_calls: from.tool_calls,
        invalid_tool_calls: from.invalid_tool_calls,
        ...(from.usage_metadata ? { usage_metadata: from.usage_metadata } : {}),
      });
    } else if (type === "tool") copy = toolMessageWith(message as ToolMessage, fields.content);
    else copy = userMessageWith(message, fields.content);
    return copy;
  });
}

/**
 * A tool_call group's messages with every tool call id one all providers accept
 * (`portable-call-ids.ts`): the array itself when every id already is.
 */
export function portable(members: BaseMessage[]): BaseMessage[] {
  let out: BaseMessage[] | undefined;
  for (let k = 0; k < members.length; k += 1) {
    const m = members[k] as BaseMessage;
    const sent = withPortableCallIds(m);
    if (sent !== m) {
      out ??= members.slice();
      out[k] = sent;
    }
  }
  return out ?? members;
}

/**
 * The AI message a view sends for `message` with the calls `unanswered` left out: `message`
 * itself when there are none and its provider output items (OpenAI Responses, kept in
 * `response_metadata.output` and sent in place of the message's fields) call exactly its
 * `tool_calls`; otherwise {@link withoutCalls}'s copy, whose items match the calls it keeps. So an
 * AI message whose stored items name calls its `tool_calls` do not (langchain's HITL middleware
 * rewrites `tool_calls` in place; an edit by id that kept the metadata) is sent without them.
 * Either way without blank text beside other content ({@link withoutBlankText}).
 */
export function sendable(message: BaseMessage, unanswered: readonly string[]): BaseMessage {
  const stale = callsOnlyProviderCopiesName(message);
  if (stale.length > 0) return withoutBlankText(withoutCalls(message, [...unanswered, ...stale]));
  if (unanswered.length > 0) return withoutBlankText(withoutCalls(message, unanswered));
  const items = responsesOutputOf(message);
  if (
    (items === undefined ||
      responsesCallsMatch(
        items,
        toolCallsOf(message).map((call) => call.id ?? ""),
      )) &&
    !providerCopiesDisagree(message)
  )
    return withoutBlankText(message);
  return withoutBlankText(withoutCalls(message, []));
}

/**
 * Whether a provider copy of one of the AI message's `tool_calls` (the same id) names another tool
 * or holds other arguments: an `additional_kwargs.tool_calls` entry, a `tool_use` / `tool_call` /
 * `function_call` content block, an OpenAI Responses `function_call` item. langchain's
 * human-in-the-loop middleware writes an edited call (`edit` decision) into `tool_calls` only;
 * `@langchain/anthropic` sends the `tool_use` blocks and `@langchain/openai` the Responses items,
 * so the model was shown the call it made answered by the result of the edited one, and called
 * again (https://github.com/langchain-ai/langchain/issues/33787). False at once for a message
 * without calls.
 */
function providerCopiesDisagree(message: BaseMessage): boolean {
  const calls = toolCallsOf(message);
  if (calls.length === 0) return false;
  const byId = new Map(calls.map((call) => [call.id ?? "", call]));
  const ai = message as AIMessage;
  const raw = ai.additional_kwargs?.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }> | undefined;
  if (Array.isArray(raw))
    for (const entry of raw) {
      const call = byId.get(String(entry?.id ?? ""));
      if (call && (entry.function?.name !== call.name || !sameArguments(entry.function?.arguments, call.args))) return true;
    }
  if (Array.isArray(ai.content))
    for (const block of ai.content as Array<Record<string, unknown> | string>) {
      if (typeof block === "string") continue;
      const call = callOfBlock(block, byId);
      if (call && !blockAgrees(block, call)) return true;
    }
  const items = responsesOutputOf(message);
  if (items)
    for (const item of items) {
      const call = item.type === "function_call" ? byId.get(String(item.call_id ?? "")) : undefined;
      if (call && !responsesItemAgrees(item, call)) return true;
    }
  return false;
}

/** The call of `calls` a `tool_use` / `tool_call` / `function_call` content block copies, by id (a Responses block: its `call_id`). */
function callOfBlock(block: Record<string, unknown>, calls: ReadonlyMap<string, CalledTool>): CalledTool | undefined {
  const type = String(block.type);
  if (type === "function_call") return calls.get(String(block.call_id ?? "")) ?? calls.get(String(block.id ?? ""));
  return type === "tool_use" || type === "tool_call" ? calls.get(String(block.id ?? "")) : undefined;
}

/** Whether a content block copy of `call` names its tool and holds its arguments (`input`, `args` or `arguments` JSON). */
function blockAgrees(block: Record<string, unknown>, call: CalledTool): boolean {
  const raw = block.type === "tool_use" ? block.input : block.type === "tool_call" ? block.args : block.arguments;
  // A streamed tool_use block may hold its input as partial JSON text; only a name or value that differs is an edit.
  return block.name === call.name && sameArguments(raw, call.args);
}

/** `block` saying what `call` says: its tool name and its arguments, in the block's own field. */
function blockAsCalled(block: Record<string, unknown>, call: CalledTool): Record<string, unknown> {
  if (block.type === "tool_use") return { ...block, name: call.name, input: call.args ?? {} };
  if (block.type === "tool_call") return { ...block, name: call.name, args: call.args ?? {} };
  return { ...block, name: call.name, arguments: JSON.stringify(call.args ?? {}) };
}

/**
 * Ids of calls the provider's copies of an AI message's calls name and its `tool_calls` do not:
 * `additional_kwargs.tool_calls` and `tool_use` / `tool_call` / `function_call` content blocks.
 * `@langchain/openai` stores a call whose arguments are not valid JSON (a small model, an answer
 * cut by `max_tokens`) in `invalid_tool_calls`, not `tool_calls`, and keeps the raw call in
 * `additional_kwargs.tool_calls`; the agent runs no tool for it, and when `tool_calls` is empty
 * the converter sends `additional_kwargs.tool_calls`, so every later request had a call without
 * its result (`400 An assistant message with 'tool_calls' must be followed by tool messages`).
 * Empty (one property read) for the usual message.
 */
function callsOnlyProviderCopiesName(message: BaseMessage): string[] {
  const ai = message as AIMessage;
  const raw = ai.additional_kwargs?.tool_calls as Array<{ id?: unknown }> | undefined;
  const blocks = Array.isArray(ai.content) ? (ai.content as Array<Record<string, unknown> | string>) : undefined;
  if (!Array.isArray(raw) && !blocks) return [];
  // A `tool_use` block tool_calls lack is a call of its own (Anthropic's native format): the grouping decides on it.
  const own = new Set(callIdsOf(message));
  const stale = new Set<string>();
  if (Array.isArray(raw)) for (const call of raw) if (!own.has(String(call?.id ?? ""))) stale.add(String(call?.id ?? ""));
  if (blocks)
    for (const block of blocks) {
      if (typeof block === "string" || !["tool_use", "tool_call", "function_call"].includes(String(block.type))) continue;
      // A Responses `function_call` block has its item id (`fc_...`) and the call's `call_id`.
      if (own.has(String(block.call_id ?? "")) || own.has(String(block.id ?? ""))) continue;
      stale.add(String(block.id ?? block.call_id ?? ""));
    }
  return [...stale];
}

/**
 * A copy of the AI message `message` without the tool calls whose ids are in `ids`: its
 * `tool_calls`, `invalid_tool_calls`, the provider's copies of them (`additional_kwargs.tool_calls`,
 * OpenAI Responses output items in `response_metadata.output`: `responseMetadataFor`), their
 * content blocks (`tool_use`, `tool_call`, `function_call` with that id) and their Gemini thought
 * signatures (`additional_kwargs.__gemini_function_call_thought_signatures__`) left out; id, text and
 * other metadata kept. What a view sends for a parallel call that was partly answered (R37):
 * every provider refuses an unanswered call, and dropping the whole call would drop its answers.
 * With `ids` empty: a copy whose output items call exactly its `tool_calls`. Either way the
 * provider's copies of the calls it keeps say what `tool_calls` says (tool name, arguments): a
 * call edited in `tool_calls` alone (langchain's human-in-the-loop `edit` decision) is sent as
 * edited. The same object for the same message and ids. The stored message is not changed.
 */
export function withoutCalls(message: BaseMessage, ids: readonly string[]): AIMessage {
  return viewCopy(message, `calls:${ids.join("\u0000")}`, () => {
    const left = new Set(ids);
    const ai = message as AIMessage;
    const kwargs = { ...(ai.additional_kwargs ?? {}) } as Record<string, unknown>;
    if (Array.isArray(kwargs.tool_calls)) {
      kwargs.tool_calls = (kwargs.tool_calls as Array<{ id?: unknown }>).filter((call) => !left.has(String(call?.id ?? "")));
      if ((kwargs.tool_calls as unknown[]).length === 0) delete kwargs.tool_calls;
    }
    // Gemini's thought signatures, per call id: the dropped calls' entries leave with them.
    const signatures = kwargs[GEMINI_THOUGHT_SIGNATURES];
    if (left.size > 0 && signatures && typeof signatures === "object" && !Array.isArray(signatures))
      kwargs[GEMINI_THOUGHT_SIGNATURES] = Object.fromEntries(Object.entries(signatures).filter(([id]) => !left.has(id)));
    const calls = (ai.tool_calls ?? []).filter((call) => !left.has(call.id ?? ""));
    const byId = new Map<string, CalledTool>(calls.map((call) => [call.id ?? "", call]));
    if (Array.isArray(kwargs.tool_calls))
      kwargs.tool_calls = (kwargs.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>).map(
        (entry) => {
          const call = byId.get(String(entry?.id ?? ""));
          if (!call || (entry.function?.name === call.name && sameArguments(entry.function?.arguments, call.args))) return entry;
          return { ...entry, function: { ...entry.function, name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
        },
      );
    const content = Array.isArray(ai.content)
      ? (ai.content as Array<Record<string, unknown> | string>)
          .filter(
            (block) =>
              typeof block === "string" ||
              !(
                ["tool_use", "tool_call", "function_call"].includes(String(block.type)) && left.has(String(block.id ?? block.call_id ?? ""))
              ),
          )
          .map((block) => {
            if (typeof block === "string") return block;
            const call = callOfBlock(block, byId);
            return call && !blockAgrees(block, call) ? blockAsCalled(block, call) : block;
          })
      : ai.content;
    const copy = new AIMessage({
      id: ai.id,
      name: ai.name,
      content: content as never,
      tool_calls: calls,
      invalid_tool_calls: ai.invalid_tool_calls,
      additional_kwargs: kwargs,
      response_metadata: responseMetadataAsCalled(
        responseMetadataFor(
          ai,
          calls.map((call) => call.id ?? ""),
        ),
        calls,
      ) as never,
      ...(ai.usage_metadata ? { usage_metadata: ai.usage_metadata } : {}),
    });
    return copy;
  });
}
