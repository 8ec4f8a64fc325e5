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
import { matchMessageShape, recordMessageShape } from "./message-shape.js";

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
/** A copy made by {@link viewCopy}, with the shape of the message it was made from (`recordMessageShape`). */
interface ViewCopy {
  copy: BaseMessage;
  shape: unknown[];
}

/** Copies made by {@link viewCopy}, per stored (or copied) message and change. */
const viewCopies = new WeakMap<BaseMessage, Map<string, ViewCopy>>();

/**
 * The copy a view sends in place of `message` for the change `key` names (`portable`,
 * `renamed:<ids>`, `calls:<ids>`, `blank`): made by `make` once per message and key while the
 * message holds the values it was copied from (a message edited in place since, its content, a
 * block's text or a call's arguments, is copied again: O(size of its fields) to check), so every
 * hook of a call shares one object, and recorded as a copy of `message`'s stored original
 * ({@link storedOriginal}). A pure function of the message and the key: a fresh process makes an
 * equal copy. @internal
 */
export function viewCopy<T extends BaseMessage>(message: BaseMessage, key: string, make: () => T): T {
  let copies = viewCopies.get(message);
  const known = copies?.get(key);
  if (known && matchMessageShape(message, known.shape, 0) === known.shape.length) return known.copy as T;
  const copy = make();
  if (!copies) {
    copies = new Map();
    viewCopies.set(message, copies);
  }
  const shape: unknown[] = [];
  recordMessageShape(message, shape);
  copies.set(key, { copy, shape });
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
  return viewCopy(message, "portable", () => copyWithIds(message, () => portableCallId));
}

/**
 * Tool call ids unique across a request (Anthropic: `tool_use ids must be unique`). A model that
 * numbers its calls per answer (`call_0` on every turn: Grok over Chat Completions,
 * https://github.com/NVIDIA-NeMo/Switchyard/issues/502; Kimi's `functions.lookup:0`) stores the same
 * id in many AI messages, and the results of each answer its own AI message by position. Some
 * give two parallel calls of one answer the same id (Kimi's Anthropic-compatible endpoint,
 * https://github.com/HKUDS/nanobot/issues/4473; MiMo and Kimi through proxies,
 * https://github.com/can1357/oh-my-pi/issues/2055; https://github.com/OpenRouterTeam/ai-sdk-provider/pull/471):
 * LangChain runs both and stores their results in call order under that id.
 *
 * Decision: in the request only (the stored thread is never changed), a call id an earlier AI
 * message of the request already used is sent as {@link repeatedCallId} of it and the AI message's
 * id, in that AI message and the results that follow it; a call that repeats an id of its own AI
 * message is sent as {@link repeatedCallId} of it and the AI message's id with its place among the
 * calls of that id, and so is the result of that id at the same place among the results that
 * follow (the n-th result of an id answers its n-th call, as core's groups pair them). A pure
 * function of the request: a fresh process, and a run whose older messages are archived, send the
 * same request. The array itself when no id repeats (one set lookup per call).
 */
export function withUniqueCallIds(messages: BaseMessage[]): BaseMessage[] {
  let out: BaseMessage[] | undefined;
  const used = new Set<string>();
  // The names the latest AI message's calls are sent under (per stored id, one per call of that
  // id, in call order) when one differs, and how many results of each id were renamed since.
  let renamed: Renaming | undefined;
  for (let k = 0; k < messages.length; k += 1) {
    const m = messages[k] as BaseMessage;
    const type = messageType(m);
    if (type === "tool" || type === "human") {
      if (!renamed) continue;
      const answers = type === "tool" ? [(m as ToolMessage).tool_call_id] : toolResultIdsOf(m);
      const sent = answers.map((id) => nextName(renamed as Renaming, id));
      if (sent.every((id, n) => id === answers[n])) continue;
      out ??= messages.slice();
      out[k] = viewCopy(m, `answers:${JSON.stringify(sent)}`, () => copyWithIds(m, () => sequence(sent)));
      continue;
    }
    if (type !== "ai") continue;
    renamed = undefined;
    const ids = callIdsOf(m);
    if (ids.length === 0) continue;
    const own = new Set(ids);
    const names = new Map<string, string[]>();
    let changed = false;
    for (const id of ids) {
      const taken = names.get(id);
      if (id === "") {
        if (!taken) names.set(id, [id]);
        continue;
      }
      const salt = m.id ?? String(k);
      // The first call of an id keeps it unless an earlier AI message used it; a later one of the same message never does.
      let to = id;
      if (taken) to = repeatedCallId(id, `${salt}@${taken.length}`);
      else if (used.has(id)) to = repeatedCallId(id, salt);
      for (let n = 1; to !== id && (used.has(to) || own.has(to)); n += 1)
        to = repeatedCallId(id, taken ? `${salt}@${taken.length}#${n}` : `${salt}#${n}`);
      if (to !== id) changed = true;
      used.add(to);
      if (taken) taken.push(to);
      else names.set(id, [to]);
    }
    if (!changed) continue;
    renamed = { names, answered: new Map() };
    out ??= messages.slice();
    out[k] = viewCopy(m, `renamed:${JSON.stringify([...names])}`, () => copyWithIds(m, () => byPlace(names)));
  }
  return out ?? messages;
}

/** How {@link withUniqueCallIds} sends the calls of one AI message and the results that follow it. */
interface Renaming {
  /** Per stored id, the id each of its calls is sent under, in call order. */
  names: ReadonlyMap<string, readonly string[]>;
  /** Per stored id, how many results of it were sent so far. */
  answered: Map<string, number>;
}

/** The id the next result of `id` is sent under: its call's at the same place (the last one's past them). */
function nextName(renaming: Renaming, id: string): string {
  const names = renaming.names.get(id);
  if (!names) return id;
  const n = renaming.answered.get(id) ?? 0;
  renaming.answered.set(id, n + 1);
  return names[Math.min(n, names.length - 1)] as string;
}

/** A mapping that sends the n-th occurrence of an id (in one list of a message) as its n-th name in `names`. */
function byPlace(names: ReadonlyMap<string, readonly string[]>): (id: string) => string {
  const seen = new Map<string, number>();
  return (id) => {
    const list = names.get(id);
    if (!list) return id;
    const n = seen.get(id) ?? 0;
    seen.set(id, n + 1);
    return list[Math.min(n, list.length - 1)] as string;
  };
}

/** A mapping that answers the ids of `sent` in order, whatever it is asked (a message's results, in content order). */
function sequence(sent: readonly string[]): (id: string) => string {
  let n = 0;
  return (id) => (n < sent.length ? (sent[n++] as string) : id);
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

/**
 * A copy of a ToolMessage, AI message or user message with every call id it holds mapped. `fresh`
 * gives the mapping for one list of the message's ids (its `tool_calls`, its content blocks, ...),
 * asked once per id in the list's order: a mapping may send two calls of one id under two ids.
 */
function copyWithIds(message: BaseMessage, fresh: () => (id: string) => string): BaseMessage {
  const type = messageType(message);
  if (type === "tool") return toolCopy(message as ToolMessage, fresh());
  if (type === "human") return userCopy(message, fresh());
  return aiCopy(message as AIMessage, fresh);
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

function toolCopy(m: ToolMessage, map: (id: string) => string): ToolMessage {
  return toolMessageWith(m, m.content, map(m.tool_call_id));
}

function aiCopy(ai: AIMessage, fresh: () => (id: string) => string): AIMessage {
  const mapper = () => {
    const map = fresh();
    return (value: unknown): unknown => (typeof value === "string" ? map(value) : value);
  };
  const kwargs = { ...(ai.additional_kwargs ?? {}) } as Record<string, unknown>;
  if (Array.isArray(kwargs.tool_calls)) {
    const mapId = mapper();
    kwargs.tool_calls = (kwargs.tool_calls as Array<Record<string, unknown>>).map((call) => ({ ...call, id: mapId(call?.id) }));
  }
  const signatures = kwargs[GEMINI_THOUGHT_SIGNATURES];
  // One signature per id: the first call of a repeated id keeps it.
  if (signatures && typeof signatures === "object" && !Array.isArray(signatures))
    kwargs[GEMINI_THOUGHT_SIGNATURES] = Object.fromEntries(Object.entries(signatures).map(([id, signature]) => [fresh()(id), signature]));
  const blockId = mapper();
  const blockCallId = mapper();
  const content = Array.isArray(ai.content)
    ? (ai.content as Array<Record<string, unknown> | string>).map((block) =>
        typeof block !== "string" && ["tool_use", "tool_call", "function_call"].includes(String(block.type))
          ? {
              ...block,
              ...("id" in block ? { id: blockId(block.id) } : {}),
              ...("call_id" in block ? { call_id: blockCallId(block.call_id) } : {}),
            }
          : block,
      )
    : ai.content;
  const metadata = ai.response_metadata as Record<string, unknown> | undefined;
  const output = metadata?.output;
  const outputCallId = mapper();
  const callId = fresh();
  const invalidCallId = mapper();
  const response_metadata = Array.isArray(output)
    ? {
        ...metadata,
        output: (output as Array<Record<string, unknown>>).map((item) =>
          item && typeof item === "object" && "call_id" in item ? { ...item, call_id: outputCallId(item.call_id) } : item,
        ),
      }
    : metadata;
  return new AIMessage({
    id: ai.id,
    name: ai.name,
    content: content as never,
    tool_calls: (ai.tool_calls ?? []).map((call) => ({ ...call, id: call.id === undefined ? undefined : callId(call.id) })),
    invalid_tool_calls: (ai.invalid_tool_calls ?? []).map((call) => ({ ...call, id: invalidCallId(call.id) as string | undefined })),
    additional_kwargs: kwargs,
    response_metadata: response_metadata as never,
    ...(ai.usage_metadata ? { usage_metadata: ai.usage_metadata } : {}),
  });
}
