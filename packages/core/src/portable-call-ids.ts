/**
 * Tool call ids every provider accepts (spec R4, R33). A thread keeps the ids of the model that
 * made each call, and some models make ids that other providers refuse: Kimi K2 (`functions.lookup:0`),
 * OpenAI Codex's `call_id|item_id`, ids with `.` `:` `|` or over 40 characters. Anthropic requires
 * `^[a-zA-Z0-9_-]+$` (`messages.1.content.0.tool_use.id: String should match pattern ...`),
 * Bedrock Converse 1-64 of the same characters and OpenAI Chat Completions at most 40 characters
 * (`string too long. Expected a string with maximum length 40`: a Responses `fc_` id, Codex's ids,
 * https://github.com/openclaw/openclaw/pull/875), so a thread served by one model and continued by
 * another (`modelFallbackMiddleware`, a model switch, an imported history) is refused on every
 * later turn. Public reports: https://github.com/continuedev/continue/issues/10416,
 * https://github.com/openclaw/openclaw/issues/7107, https://github.com/farion1231/cc-switch/issues/1181.
 *
 * Decision: the view sends such an id as a portable one, the same wherever it occurs (the call, the
 * provider's copies of it, its results), derived from the id alone (a fresh process sends the same);
 * ids that are already portable are sent as stored, and the stored thread is never changed.
 */
import { createHash } from "node:crypto";
import { AIMessage, type BaseMessage, type HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { callIdsOf, messageType, toolMessageWith, toolResultIdsOf, userMessageWith } from "./message-kinds.js";

/** A tool call id Anthropic (`^[a-zA-Z0-9_-]+$`), Bedrock Converse (1-64 characters of it) and OpenAI Chat Completions (at most 40 characters) accept. */
export const PORTABLE_CALL_ID = /^[a-zA-Z0-9_-]{1,40}$/;

/**
 * Where `@langchain/google-genai` keeps the thought signature of each function call of an AI
 * message: `additional_kwargs[GEMINI_THOUGHT_SIGNATURES]`, `{ [callId]: signature }`. Its converter
 * sends each call with the entry of the call's id; a call without one is sent to a gemini-3 model
 * with a dummy signature (the model's reasoning state is lost,
 * https://ai.google.dev/gemini-api/docs/thought-signatures), so a renamed call's entry is renamed with it
 * (and a dropped call's entry dropped with it: `withoutCalls`). @internal
 */
export const GEMINI_THOUGHT_SIGNATURES = "__gemini_function_call_thought_signatures__";

/** Hex characters of the SHA-256 a mapped id ends with. */
const DIGEST_CHARACTERS = 12;
/** The longest id a view sends (OpenAI Chat Completions' limit, {@link PORTABLE_CALL_ID}). */
const MAX_SENT_CHARACTERS = 40;

/**
 * The id a view sends for the tool call id `id`: `id` itself when portable (or empty: a call
 * without id is not an id problem), else its characters outside `[a-zA-Z0-9_-]` as `_`, cut to
 * 27, then `_` and 12 hex characters of its SHA-256 (at most 40 characters; two ids that differ
 * only in the replaced characters stay apart). Pure: every process maps an id the same way.
 * @example
 * portableCallId("functions.lookup:0"); // "functions_lookup_0_" + 12 hex characters
 * portableCallId("call_abc"); // "call_abc"
 */
export function portableCallId(id: string): string {
  if (id === "" || PORTABLE_CALL_ID.test(id)) return id;
  const digest = createHash("sha256").update(id).digest("hex").slice(0, DIGEST_CHARACTERS);
  return `${id.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, MAX_SENT_CHARACTERS - 1 - DIGEST_CHARACTERS)}_${digest}`;
}

const isPortable = (id: unknown): boolean => typeof id !== "string" || id === "" || PORTABLE_CALL_ID.test(id);

/** The message each copy a view sends in place of a stored one was made from ({@link viewCopy}). */
const copiedFrom = new WeakMap<BaseMessage, BaseMessage>();
/** Copies made by {@link viewCopy}, per stored (or copied) message and change. */
const viewCopies = new WeakMap<BaseMessage, Map<string, BaseMessage>>();

/**
 * The copy a view sends in place of `message` for the change `key` names (`portable`,
 * `renamed:<ids>`, `calls:<ids>`, `blank`): made by `make` once per message and key, so every
 * hook of a call shares one object, and recorded as a copy of `message`'s stored original
 * ({@link storedOriginal}). A pure function of the message and the key: a fresh process makes an
 * equal copy. @internal
 */
export function viewCopy<T extends BaseMessage>(message: BaseMessage, key: string, make: () => T): T {
  let copies = viewCopies.get(message);
  const known = copies?.get(key);
  if (known) return known as T;
  const copy = make();
  if (!copies) {
    copies = new Map();
    viewCopies.set(message, copies);
  }
  copies.set(key, copy);
  copiedFrom.set(copy, copiedFrom.get(message) ?? message);
  return copy;
}

/** The stored message `message` is a view copy of, or `message` itself. @internal */
export function storedOriginal(message: BaseMessage): BaseMessage {
  return copiedFrom.get(message) ?? message;
}

/**
 * `message` with every tool call id made portable ({@link portableCallId}): an AI message's
 * `tool_calls`, `invalid_tool_calls`, `additional_kwargs.tool_calls`, `tool_use` / `tool_call` /
 * `function_call` content blocks, OpenAI Responses output items (`response_metadata.output`,
 * `call_id`) and the keys of Gemini's thought signatures ({@link GEMINI_THOUGHT_SIGNATURES}); a
 * ToolMessage's `tool_call_id`; a user message's `tool_result` blocks' `tool_use_id` (Anthropic's
 * native format, where the calls are `tool_use` blocks only). `message` itself when
 * every id is portable (the usual case: one regular-expression test per call). The same copy for
 * the same message; the message is not changed.
 */
export function withPortableCallIds(message: BaseMessage): BaseMessage {
  const type = messageType(message);
  if (type === "tool") {
    if (isPortable((message as ToolMessage).tool_call_id)) return message;
  } else if (type === "human") {
    if (toolResultIdsOf(message).every(isPortable)) return message;
  } else if (type !== "ai" || callIdsOf(message).every(isPortable)) return message;
  return viewCopy(message, "portable", () => copyWithIds(message, portableCallId));
}

/**
 * Tool call ids unique across a request (Anthropic: `tool_use ids must be unique`). A model that
 * numbers its calls per answer (`call_0` on every turn: Grok over Chat Completions,
 * https://github.com/NVIDIA-NeMo/Switchyard/issues/502; Kimi's `functions.lookup:0`) stores the same
 * id in many AI messages, and the results of each answer its own AI message by position.
 *
 * Decision: in the request only (the stored thread is never changed), a call id an earlier AI
 * message of the request already used is sent as {@link repeatedCallId} of it and the AI message's
 * id, in that AI message and the results that follow it. A pure function of the request: a fresh
 * process, and a run whose older messages are archived, send the same request. The array itself
 * when no id repeats (one set lookup per call).
 */
export function withUniqueCallIds(messages: BaseMessage[]): BaseMessage[] {
  let out: BaseMessage[] | undefined;
  const used = new Set<string>();
  let renamed: Map<string, string> | undefined;
  for (let k = 0; k < messages.length; k += 1) {
    const m = messages[k] as BaseMessage;
    const type = messageType(m);
    if (type === "tool" || type === "human") {
      const answers = type === "tool" ? [(m as ToolMessage).tool_call_id] : renamed ? toolResultIdsOf(m) : [];
      if (renamed && answers.some((id) => renamed?.has(id))) {
        out ??= messages.slice();
        out[k] = renamedCopy(m, renamed);
      }
      continue;
    }
    if (type !== "ai") continue;
    renamed = undefined;
    const ids = callIdsOf(m);
    if (ids.length === 0) continue;
    const own = new Set<string>();
    for (const id of ids) {
      if (id === "" || own.has(id)) continue;
      own.add(id);
      if (!used.has(id)) continue;
      renamed ??= new Map();
      let to = repeatedCallId(id, m.id ?? String(k));
      for (let n = 1; used.has(to) || own.has(to); n += 1) to = repeatedCallId(id, `${m.id ?? String(k)}#${n}`);
      renamed.set(id, to);
    }
    for (const id of own) used.add(renamed?.get(id) ?? id);
    if (renamed) {
      out ??= messages.slice();
      out[k] = renamedCopy(m, renamed);
    }
  }
  return out ?? messages;
}

/**
 * The id a request sends for the call id `id` an earlier AI message of it already used, in the
 * AI message `salt` names: 26 characters of `id`, `_r`, and 12 hex characters of the SHA-256 of
 * both (at most 40 characters of `[a-zA-Z0-9_-]` for a portable `id`).
 */
export function repeatedCallId(id: string, salt: string): string {
  const digest = createHash("sha256").update(`${id}\u0000${salt}`).digest("hex").slice(0, DIGEST_CHARACTERS);
  return `${id.slice(0, MAX_SENT_CHARACTERS - 2 - DIGEST_CHARACTERS)}_r${digest}`;
}

/** `message` with the call ids of `renamed` sent renamed ({@link withUniqueCallIds}); one copy per message and renaming. */
function renamedCopy(message: BaseMessage, renamed: ReadonlyMap<string, string>): BaseMessage {
  const map = (id: string) => renamed.get(id) ?? id;
  return viewCopy(message, `renamed:${JSON.stringify([...renamed])}`, () => copyWithIds(message, map));
}

/** A copy of a ToolMessage, AI message or user message with every call id it holds mapped by `map`. */
function copyWithIds(message: BaseMessage, map: (id: string) => string): BaseMessage {
  const type = messageType(message);
  if (type === "tool") return toolCopy(message as ToolMessage, map);
  if (type === "human") return userCopy(message, map);
  return aiCopy(message as AIMessage, map);
}

/** A user message with the `tool_use_id` of each `tool_result` block mapped by `map`. */
function userCopy(m: BaseMessage, map: (id: string) => string): HumanMessage {
  const content = (m.content as Array<Record<string, unknown> | string>).map((block) =>
    typeof block !== "string" && block?.type === "tool_result" && typeof block.tool_use_id === "string"
      ? { ...block, tool_use_id: map(block.tool_use_id) }
      : block,
  );
  return userMessageWith(m, content);
}

function toolCopy(m: ToolMessage, map: (id: string) => string = portableCallId): ToolMessage {
  return toolMessageWith(m, m.content, map(m.tool_call_id));
}

function aiCopy(ai: AIMessage, map: (id: string) => string = portableCallId): AIMessage {
  const mapId = (value: unknown): unknown => (typeof value === "string" ? map(value) : value);
  const kwargs = { ...(ai.additional_kwargs ?? {}) } as Record<string, unknown>;
  if (Array.isArray(kwargs.tool_calls))
    kwargs.tool_calls = (kwargs.tool_calls as Array<Record<string, unknown>>).map((call) => ({ ...call, id: mapId(call?.id) }));
  const signatures = kwargs[GEMINI_THOUGHT_SIGNATURES];
  if (signatures && typeof signatures === "object" && !Array.isArray(signatures))
    kwargs[GEMINI_THOUGHT_SIGNATURES] = Object.fromEntries(Object.entries(signatures).map(([id, signature]) => [map(id), signature]));
  const content = Array.isArray(ai.content)
    ? (ai.content as Array<Record<string, unknown> | string>).map((block) =>
        typeof block !== "string" && ["tool_use", "tool_call", "function_call"].includes(String(block.type))
          ? {
              ...block,
              ...("id" in block ? { id: mapId(block.id) } : {}),
              ...("call_id" in block ? { call_id: mapId(block.call_id) } : {}),
            }
          : block,
      )
    : ai.content;
  const metadata = ai.response_metadata as Record<string, unknown> | undefined;
  const output = metadata?.output;
  const response_metadata = Array.isArray(output)
    ? {
        ...metadata,
        output: (output as Array<Record<string, unknown>>).map((item) =>
          item && typeof item === "object" && "call_id" in item ? { ...item, call_id: mapId(item.call_id) } : item,
        ),
      }
    : metadata;
  return new AIMessage({
    id: ai.id,
    name: ai.name,
    content: content as never,
    tool_calls: (ai.tool_calls ?? []).map((call) => ({ ...call, id: call.id === undefined ? undefined : map(call.id) })),
    invalid_tool_calls: (ai.invalid_tool_calls ?? []).map((call) => ({ ...call, id: mapId(call.id) as string | undefined })),
    additional_kwargs: kwargs,
    response_metadata: response_metadata as never,
    ...(ai.usage_metadata ? { usage_metadata: ai.usage_metadata } : {}),
  });
}
