import { isDeepStrictEqual } from "node:util";
import type { BaseMessage } from "@langchain/core/messages";

/**
 * The OpenAI Responses API output items an AI message carries and the provider is sent back.
 *
 * `@langchain/openai` (1.5, `convertResponsesMessageToAIMessage`) stores a Responses answer's raw
 * output items in `response_metadata.output` (since https://github.com/langchain-ai/langchainjs/pull/9954:
 * reasoning models need their reasoning items back), and `convertMessagesToResponsesInput` sends
 * an AI message **as those items**, not from its `content` and `tool_calls`, whenever they are
 * there (an array of typed items, `output_version` not `"v1"`, zero data retention off). So a copy
 * of the message with other `tool_calls` still sends the stored `function_call` items: a call left
 * out of the view is sent unanswered (`400 No tool output found for function call ...`,
 * https://github.com/langchain-ai/langchainjs/pull/11437), a call put in place with a new id is
 * answered by a result whose call is not sent. A `reasoning` item must be followed by the item it
 * belongs to (`Item 'rs_...' of type 'reasoning' was provided without its required following
 * item`, https://github.com/continuedev/continue/issues/8933), and a `function_call` item needs its
 * reasoning item (https://github.com/mastra-ai/mastra/issues/8738).
 */
export type ResponsesOutputItem = Record<string, unknown> & { type: string };

/** Item types that are a client-side call: each needs a result with its `call_id`. */
const CALL_ITEM_TYPES = new Set(["function_call", "custom_tool_call", "computer_call"]);

/**
 * The output items `@langchain/openai` sends for the AI message `message` in place of its content
 * and tool calls: `response_metadata.output` when it is a non-empty array of typed items and
 * `output_version` is not `"v1"`; `undefined` otherwise (the message is sent from its fields).
 */
export function responsesOutputOf(message: BaseMessage): readonly ResponsesOutputItem[] | undefined {
  const metadata = (message as { response_metadata?: Record<string, unknown> }).response_metadata;
  const output = metadata?.output;
  if (!Array.isArray(output) || output.length === 0 || metadata?.output_version === "v1") return undefined;
  for (const item of output) if (item === null || typeof item !== "object" || !("type" in item)) return undefined;
  return output as ResponsesOutputItem[];
}

/** The `call_id`s of the client-side call items among `items`, in order. */
export function responsesCallIds(items: readonly ResponsesOutputItem[]): string[] {
  const out: string[] = [];
  for (const item of items) if (CALL_ITEM_TYPES.has(item.type)) out.push(String(item.call_id ?? ""));
  return out;
}

/**
 * Whether `items` call exactly the tools `callIds` name (as sets, each once), so that what the
 * Responses converter sends for the message is what its `tool_calls` say.
 */
export function responsesCallsMatch(items: readonly ResponsesOutputItem[], callIds: readonly string[]): boolean {
  const sent = responsesCallIds(items);
  if (sent.length !== callIds.length) return false;
  const wanted = new Set(callIds);
  return sent.every((id) => wanted.has(id));
}

/**
 * `output` for a copy of an AI message that calls only `callIds`: the call items of other calls
 * left out, then each `reasoning` item no longer followed by an item of its own (another
 * reasoning item or the end) left out; reasoning that still precedes a kept item stays with it.
 * `undefined` when a call of `callIds` has no item (a call edited in place under a new id: the
 * copy is then sent from its fields) or nothing is left.
 */
export function responsesOutputFor(items: readonly ResponsesOutputItem[], callIds: readonly string[]): ResponsesOutputItem[] | undefined {
  const keep = new Set(callIds);
  const present = new Set(responsesCallIds(items));
  for (const id of keep) if (!present.has(id)) return undefined;
  const calls = items.filter((item) => !CALL_ITEM_TYPES.has(item.type) || keep.has(String(item.call_id ?? "")));
  const out = calls.filter((item, k) => item.type !== "reasoning" || (calls[k + 1] !== undefined && calls[k + 1]?.type !== "reasoning"));
  return out.length > 0 ? out : undefined;
}

/**
 * `response_metadata` for a copy of `message` that calls only `callIds`: the same object when the
 * output items already match (or there are none), else a copy whose `output` is
 * {@link responsesOutputFor}'s (the key left out when that is `undefined`).
 */
export function responseMetadataFor(message: BaseMessage, callIds: readonly string[]): Record<string, unknown> | undefined {
  const metadata = (message as { response_metadata?: Record<string, unknown> }).response_metadata;
  const items = responsesOutputOf(message);
  if (!items || !metadata || responsesCallsMatch(items, callIds)) return metadata;
  const { output: _dropped, ...rest } = metadata;
  const output = responsesOutputFor(items, callIds);
  return output ? { ...rest, output } : rest;
}

/** A tool call as `tool_calls` holds it: what a provider copy of the call must say. */
export interface CalledTool {
  id?: string;
  name: string;
  args: unknown;
}

/**
 * Whether the `function_call` item `item` says what `call` says: the same tool and the same
 * arguments (its `arguments` JSON parsed; text that is not JSON never agrees).
 */
export function responsesItemAgrees(item: ResponsesOutputItem, call: CalledTool): boolean {
  if (item.type !== "function_call") return true;
  return item.name === call.name && sameArguments(item.arguments, call.args);
}

/** Whether `raw` (an object, or its JSON text as providers send arguments) holds `args`. */
export function sameArguments(raw: unknown, args: unknown): boolean {
  if (typeof raw !== "string") return isDeepStrictEqual(raw ?? {}, args ?? {});
  try {
    return isDeepStrictEqual(JSON.parse(raw), args ?? {});
  } catch {
    return false;
  }
}

/**
 * `response_metadata` with each `function_call` item of `output` saying what the call of its
 * `call_id` in `calls` says (name, `arguments` as JSON): the same object when every item agrees.
 * langchain's human-in-the-loop middleware writes an edited call into `tool_calls` only, and the
 * Responses converter sends the stored items, so the model was shown the call it made, not the
 * one that ran (https://github.com/langchain-ai/langchain/issues/33787).
 */
export function responseMetadataAsCalled(
  metadata: Record<string, unknown> | undefined,
  calls: readonly CalledTool[],
): Record<string, unknown> | undefined {
  const output = metadata?.output;
  if (!metadata || !Array.isArray(output)) return metadata;
  const byId = new Map(calls.map((call) => [call.id ?? "", call]));
  let changed = false;
  const items = (output as ResponsesOutputItem[]).map((item) => {
    const call = item?.type === "function_call" ? byId.get(String(item.call_id ?? "")) : undefined;
    if (!call || responsesItemAgrees(item, call)) return item;
    changed = true;
    return { ...item, name: call.name, arguments: JSON.stringify(call.args ?? {}) };
  });
  return changed ? { ...metadata, output: items } : metadata;
}

/**
 * `response_metadata` for one AI message made of `first` (no tool calls) and `second` (role
 * alternation, step 4 of `assembleView`): `second`'s, with `output` the items of both in order
 * when both carry them (what the two messages would have sent), and without `output` when only
 * one does (the merged message is then sent from its joined content and `second`'s calls; the
 * stored items of one message alone would leave the other's text out).
 */
export function mergedResponseMetadata(first: BaseMessage, second: BaseMessage): Record<string, unknown> | undefined {
  const a = responsesOutputOf(first);
  const b = responsesOutputOf(second);
  const metadata = (second as { response_metadata?: Record<string, unknown> }).response_metadata;
  if (!a && !b) return metadata;
  const { output: _dropped, ...rest } = metadata ?? {};
  return a && b ? { ...rest, output: [...a, ...b] } : rest;
}
