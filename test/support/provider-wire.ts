/**
 * The strict validator's second half: each request converted by the provider package a user would
 * run (`@langchain/openai` Chat Completions and Responses, `@langchain/anthropic`,
 * `@langchain/google-genai`), and the payload checked against what that API refuses. The message
 * rules (`validateProviderRequest`) read LangChain messages; these read what goes on the wire, so
 * a converter that merges, drops or reorders (Anthropic's merged turns, Gemini's one content per
 * message, Responses' output items) is judged by what it sends.
 *
 * Rules (`WireRule`), per API:
 * - `converter_throws`: the converter itself refuses the messages (all four).
 * - OpenAI Chat Completions: a `tool` message must answer a call of the assistant message before
 *   its run of tool messages (`messages with role 'tool' must be a response to a preceding message
 *   with 'tool_calls'`), and every call needs one (`An assistant message with 'tool_calls' must be
 *   followed by tool messages responding to each 'tool_call_id'`).
 * - OpenAI Responses: a `function_call_output` needs an earlier `function_call` of its `call_id`
 *   (`No tool call found for function call output with call_id`), a `function_call` needs an output
 *   (`No tool output found for function call`), and two input items may not share an `id`
 *   (`Duplicate item found with id msg_...`: one stored answer sent twice).
 * - Anthropic Messages (turns of one role are combined, as the API does): the first turn is the
 *   user's (`first message must use the "user" role`), no `system` role in `messages`, every
 *   `tool_use` answered by a `tool_result` at the start of the next user turn and every
 *   `tool_result` naming a `tool_use` of the turn before (`tool_use ids were found without
 *   tool_result blocks immediately after`, `unexpected tool_use_id found in tool_result blocks`),
 *   `tool_use` ids unique, no empty content but a final assistant turn's, no blank text block,
 *   also inside a `tool_result` (`text content blocks must contain non-whitespace text`), at most
 *   four `cache_control` blocks (`A maximum of 4 blocks with cache_control may be provided`), none
 *   on an empty text block (`cache_control cannot be set for empty text blocks`), and a final
 *   assistant turn (a prefill) not ending in whitespace (`final assistant content cannot end with
 *   trailing whitespace`).
 * - OpenAI Chat Completions also: a `name` (a message's, a tool call's `function.name`) matches
 *   `^[a-zA-Z0-9_-]+$` (`string does not match pattern`), no tool_call id twice in one assistant
 *   message (its results would share it: `Duplicate value for 'tool_call_id'`), and an assistant
 *   or system message's parts are text (or refusal) only (`Image URLs are only allowed for
 *   messages with role 'user'`). Anthropic also: `system` holds text blocks only.
 * - Gemini: the first content is the user's, no content without parts or with an empty text part,
 *   a function call turn comes right after a user turn or a function response turn, and the
 *   function responses right after it (consecutive response contents are one turn, as
 *   `@langchain/google-genai` sends one content per ToolMessage) answer each call once (`Please
 *   ensure that the number of function response parts is equal to the number of function call parts
 *   of the function call turn`).
 */
import { convertPromptToAnthropic } from "@langchain/anthropic";
import type { BaseMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { ChatGoogleGenerativeAI } from "@langchain/google-genai";
import { convertMessagesToCompletionsMessageParams, convertMessagesToResponsesInput } from "@langchain/openai";

/** The APIs the wire check converts for. */
export type WireApi = "openai-chat" | "openai-responses" | "anthropic" | "gemini";
export const WIRE_APIS: readonly WireApi[] = ["openai-chat", "openai-responses", "anthropic", "gemini"];

export type WireRule =
  | "converter_throws"
  | "tool_pairing"
  | "duplicate_item_id"
  | "first_turn_role"
  | "system_in_messages"
  | "duplicate_tool_use_id"
  | "empty_content"
  | "blank_text_block"
  | "cache_control_count"
  | "cache_control_empty_text"
  | "prefill_trailing_whitespace"
  | "name_pattern"
  | "duplicate_tool_call_id"
  | "content_parts";

/** One refusal of a converted request. `at` indexes the payload's messages (contents, input items). */
export interface WireViolation {
  api: WireApi;
  rule: WireRule;
  at: number;
  message: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);
const blocksOf = (content: unknown): unknown[] =>
  typeof content === "string" ? (content === "" ? [] : [{ type: "text", text: content }]) : Array.isArray(content) ? content : [];

/** Chat Completions' pattern for a message `name` and a tool call's `function.name`. */
const OPENAI_NAME = /^[a-zA-Z0-9_-]+$/;

function openAiChat(messages: BaseMessage[]): WireViolation[] {
  const out: WireViolation[] = [];
  const params = convertMessagesToCompletionsMessageParams({ messages, model: "gpt-4o" }) as unknown as Json[];
  let open: Set<string> | undefined;
  let openAt = -1;
  const close = () => {
    if (open && open.size > 0)
      out.push({
        api: "openai-chat",
        rule: "tool_pairing",
        at: openAt,
        message: `calls ${JSON.stringify([...open])} have no tool message`,
      });
    open = undefined;
  };
  params.forEach((param, at) => {
    if (param.name !== undefined && !OPENAI_NAME.test(String(param.name)))
      out.push({ api: "openai-chat", rule: "name_pattern", at, message: `name ${JSON.stringify(param.name)} is not [a-zA-Z0-9_-]+` });
    const role = String(param.role);
    if ((role === "assistant" || role === "system" || role === "developer") && Array.isArray(param.content)) {
      const parts = (param.content as Json[]).map((part) => String(part?.type)).filter((type) => type !== "text" && type !== "refusal");
      if (parts.length > 0)
        out.push({ api: "openai-chat", rule: "content_parts", at, message: `${role} message with ${JSON.stringify(parts)} parts` });
    }
    if (param.role === "tool") {
      const id = String(param.tool_call_id ?? "");
      if (open?.has(id)) open.delete(id);
      else out.push({ api: "openai-chat", rule: "tool_pairing", at, message: `tool message ${JSON.stringify(id)} answers no open call` });
      return;
    }
    close();
    const calls = Array.isArray(param.tool_calls) ? (param.tool_calls as Json[]) : [];
    if (param.role === "assistant" && calls.length > 0) {
      open = new Set(calls.map((call) => String(call.id ?? "")));
      openAt = at;
      if (open.size < calls.length)
        out.push({ api: "openai-chat", rule: "duplicate_tool_call_id", at, message: "one tool_call id twice in one assistant message" });
      for (const call of calls) {
        const name = String((call.function as Json | undefined)?.name ?? "");
        if (!OPENAI_NAME.test(name))
          out.push({
            api: "openai-chat",
            rule: "name_pattern",
            at,
            message: `tool call name ${JSON.stringify(name)} is not [a-zA-Z0-9_-]+`,
          });
      }
    }
  });
  close();
  return out;
}

function openAiResponses(messages: BaseMessage[]): WireViolation[] {
  const out: WireViolation[] = [];
  const items = convertMessagesToResponsesInput({ messages, zdrEnabled: false, model: "gpt-4o" }) as unknown as Json[];
  const calls = new Map<string, number>();
  const answered = new Set<string>();
  const ids = new Set<string>();
  items.forEach((item, at) => {
    if (typeof item.id === "string" && item.id !== "") {
      if (ids.has(item.id)) out.push({ api: "openai-responses", rule: "duplicate_item_id", at, message: `item id ${item.id} sent twice` });
      ids.add(item.id);
    }
    if (item.type === "function_call") calls.set(String(item.call_id), at);
    if (item.type === "function_call_output") {
      const id = String(item.call_id);
      if (!calls.has(id) || answered.has(id))
        out.push({
          api: "openai-responses",
          rule: "tool_pairing",
          at,
          message: `function_call_output ${id} has no function_call before it`,
        });
      answered.add(id);
    }
  });
  for (const [id, at] of calls)
    if (!answered.has(id)) out.push({ api: "openai-responses", rule: "tool_pairing", at, message: `function_call ${id} has no output` });
  return out;
}

/** Counts `cache_control` markers and finds blank text blocks (nested in `tool_result` too). */
function walkAnthropicBlocks(content: unknown, visit: (block: Json, nested: boolean) => void, nested = false) {
  for (const block of blocksOf(content)) {
    if (!isObject(block)) continue;
    visit(block, nested);
    if (block.type === "tool_result") walkAnthropicBlocks(block.content, visit, true);
  }
}

function anthropic(messages: BaseMessage[]): WireViolation[] {
  const out: WireViolation[] = [];
  const api = "anthropic" as const;
  const payload = convertPromptToAnthropic(new ChatPromptValue(messages)) as unknown as { system?: unknown; messages: Json[] };
  let cacheMarks = 0;
  walkAnthropicBlocks(payload.system, (block) => {
    if (block.cache_control !== undefined) cacheMarks += 1;
    if (block.type !== "text") out.push({ api, rule: "content_parts", at: -1, message: `a ${String(block.type)} block in system` });
  });
  // Turns as the API reads them: consecutive messages of one role combined.
  const turns: Array<{ role: string; at: number; blocks: unknown[]; raw: unknown[] }> = [];
  payload.messages.forEach((message, at) => {
    const role = String(message.role);
    if (role === "system") out.push({ api, rule: "system_in_messages", at, message: "a system message inside messages" });
    const content = message.content;
    const last = at === payload.messages.length - 1;
    const empty =
      (typeof content === "string" && content.trim() === "") || (Array.isArray(content) && content.length === 0) || content === undefined;
    if (empty && !(last && role === "assistant"))
      out.push({ api, rule: "empty_content", at, message: `${role} message with empty content` });
    walkAnthropicBlocks(content, (block) => {
      if (block.cache_control !== undefined) {
        cacheMarks += 1;
        if (block.type === "text" && String(block.text ?? "") === "")
          out.push({ api, rule: "cache_control_empty_text", at, message: "cache_control on an empty text block" });
      }
      if (block.type === "text" && String(block.text ?? "").trim() === "")
        out.push({ api, rule: "blank_text_block", at, message: `${role} message holds a blank text block` });
    });
    const blocks = blocksOf(content);
    const previous = turns.at(-1);
    if (previous && previous.role === role) previous.blocks.push(...blocks);
    else turns.push({ role, at, blocks: [...blocks], raw: [content] });
  });
  if (cacheMarks > 4) out.push({ api, rule: "cache_control_count", at: 0, message: `${cacheMarks} cache_control blocks (at most 4)` });
  const first = turns[0];
  if (first && first.role !== "user")
    out.push({ api, rule: "first_turn_role", at: first.at, message: `the first turn is ${first.role}'s` });
  const lastTurn = turns.at(-1);
  if (lastTurn?.role === "assistant") {
    const tail = lastTurn.blocks.at(-1);
    if (isObject(tail) && tail.type === "text" && /\s$/.test(String(tail.text ?? "")))
      out.push({ api, rule: "prefill_trailing_whitespace", at: lastTurn.at, message: "the final assistant content ends in whitespace" });
  }
  const seenUses = new Set<string>();
  turns.forEach((turn, k) => {
    if (turn.role !== "assistant") return;
    const uses = turn.blocks.filter((b): b is Json => isObject(b) && b.type === "tool_use").map((b) => String(b.id));
    for (const id of uses) {
      if (seenUses.has(id)) out.push({ api, rule: "duplicate_tool_use_id", at: turn.at, message: `tool_use id ${id} used twice` });
      seenUses.add(id);
    }
    const next = turns[k + 1];
    const results: string[] = [];
    for (const block of next?.role === "user" ? next.blocks : []) {
      if (!isObject(block) || block.type !== "tool_result") break;
      results.push(String(block.tool_use_id));
    }
    const missing = uses.filter((id) => !results.includes(id));
    if (missing.length > 0)
      out.push({
        api,
        rule: "tool_pairing",
        at: turn.at,
        message: `tool_use ${JSON.stringify(missing)} without a tool_result at the start of the next turn`,
      });
  });
  turns.forEach((turn, k) => {
    if (turn.role !== "user") return;
    const before = k > 0 ? (turns[k - 1] as (typeof turns)[number]) : undefined;
    const uses = new Set(
      (before?.role === "assistant" ? before.blocks : [])
        .filter((b): b is Json => isObject(b) && b.type === "tool_use")
        .map((b) => String(b.id)),
    );
    const answered = new Set<string>();
    let started = false;
    turn.blocks.forEach((block) => {
      if (!isObject(block) || block.type !== "tool_result") {
        started = true;
        return;
      }
      const id = String(block.tool_use_id);
      if (!uses.has(id) || answered.has(id) || started)
        out.push({
          api,
          rule: "tool_pairing",
          at: turn.at,
          message: `tool_result ${id} answers no tool_use of the turn before, or not first`,
        });
      answered.add(id);
    });
  });
  return out;
}

let gemini: ChatGoogleGenerativeAI | undefined;
function geminiWire(messages: BaseMessage[]): WireViolation[] {
  const out: WireViolation[] = [];
  const api = "gemini" as const;
  gemini ??= new ChatGoogleGenerativeAI({ model: "gemini-2.5-flash", apiKey: "wire-check" });
  const request = (
    gemini as unknown as { _buildGenerateContentRequest(m: BaseMessage[], o: object): { contents: Json[] } }
  )._buildGenerateContentRequest(messages, {});
  const contents = request.contents;
  const kind = (content: Json) => {
    const parts = (content.parts as Json[] | undefined) ?? [];
    if (content.role === "model") return parts.some((p) => p.functionCall) ? "call" : "model";
    return parts.length > 0 && parts.every((p) => p.functionResponse) ? "response" : "user";
  };
  contents.forEach((content, at) => {
    const parts = (content.parts as Json[] | undefined) ?? [];
    if (parts.length === 0) out.push({ api, rule: "empty_content", at, message: `${String(content.role)} content without parts` });
    if (parts.some((p) => typeof p.text === "string" && p.text === "" && !p.thought))
      out.push({ api, rule: "blank_text_block", at, message: "an empty text part" });
  });
  const first = contents[0];
  if (first && kind(first) !== "user")
    out.push({ api, rule: "first_turn_role", at: 0, message: `the first content is a ${kind(first)} turn` });
  for (let at = 0; at < contents.length; at += 1) {
    const content = contents[at] as Json;
    const k = kind(content);
    if (k === "call") {
      const previous = at > 0 ? kind(contents[at - 1] as Json) : undefined;
      if (previous !== "user" && previous !== "response")
        out.push({ api, rule: "tool_pairing", at, message: "a function call turn not right after a user or function response turn" });
      const calls = ((content.parts as Json[]) ?? []).filter((p) => p.functionCall).length;
      let end = at + 1;
      let responses = 0;
      while (end < contents.length && kind(contents[end] as Json) === "response") {
        responses += ((contents[end] as Json).parts as Json[]).length;
        end += 1;
      }
      if (responses !== calls)
        out.push({ api, rule: "tool_pairing", at, message: `${calls} function calls answered by ${responses} function responses` });
      at = end - 1;
    } else if (k === "response")
      out.push({ api, rule: "tool_pairing", at, message: "a function response turn after no function call turn" });
  }
  return out;
}

const CHECKS: Record<WireApi, (messages: BaseMessage[]) => WireViolation[]> = {
  "openai-chat": openAiChat,
  "openai-responses": openAiResponses,
  anthropic,
  gemini: geminiWire,
};

/**
 * Converts `messages` (the model input, system message first) for each API in `apis` and returns
 * what each would refuse; a converter that throws is one `converter_throws` violation. Never throws.
 */
export function wireViolations(messages: readonly BaseMessage[], apis: readonly WireApi[] = WIRE_APIS): WireViolation[] {
  const out: WireViolation[] = [];
  const foreign = foreignBlockTypes(messages);
  for (const api of apis) {
    // Another provider's own blocks (Anthropic's `tool_use` and thinking, Bedrock's `reasoning_content`,
    // OpenAI's `reasoning` and `input_image`) are that thread's provider's to send: `@langchain/google-genai`
    // throws on them or sends a `tool_use` block as a second function call, for plain `createAgent` too.
    if (api === "gemini" && foreign.size > 0) continue;
    try {
      out.push(...CHECKS[api]([...messages]));
    } catch (error) {
      const message = String((error as Error)?.message ?? error);
      // Another provider's own blocks (a Bedrock `reasoning_content`, an Anthropic `server_tool_use`)
      // are that thread's provider's to send: a thread is not moved to Gemini with them.
      out.push({ api, rule: "converter_throws", at: -1, message });
    }
  }
  return out;
}

/** Block types another provider's answers carry, which `@langchain/google-genai` cannot send. */
const PROVIDER_NATIVE = /^(tool_use|server_tool_use|.+_tool_result|thinking|redacted_thinking|reasoning_content|reasoning|input_image)$/;

function foreignBlockTypes(messages: readonly BaseMessage[]): Set<string> {
  const types = new Set<string>();
  for (const message of messages)
    for (const block of Array.isArray(message.content) ? message.content : [])
      if (isObject(block) && typeof block.type === "string" && PROVIDER_NATIVE.test(block.type) && block.type !== "tool_result")
        types.add(block.type);
  return types;
}
