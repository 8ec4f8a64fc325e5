/**
 * A strict check of a chat request against the rules of four providers: what the real APIs
 * refuse, and what LangChain's converters throw on or silently rewrite, for the message list a
 * chat model receives (`[systemMessage, ...request.messages]` as `createAgent` sends it).
 *
 * Sources, per rule, are in {@link PROVIDER_RULES}. Converters read: `@langchain/openai` 1.5
 * (`convertMessagesToCompletionsMessageParams`), `@langchain/anthropic` 1.5
 * (`_convertMessagesToAnthropicPayload`, `utils/message_inputs`), `@langchain/google-genai` 2.3
 * (`convertBaseMessagesToContent`, `utils/common`), `@langchain/aws` 1.4
 * (`convertToConverseMessages`, `utils/message_inputs`).
 */
import type { AIMessage, BaseMessage, ToolMessage } from "@langchain/core/messages";
import { ThreadwiseError } from "../errors.js";
import { answersCallIn, messageType, programmaticCallIds, toolCallsOf, toolResultBlocksOf } from "../message-kinds.js";
import { responsesCallIds, responsesCallsMatch, responsesOutputOf } from "../responses-output.js";
import { loneSurrogateAt } from "../unicode.js";

/** The provider APIs the validator knows. */
export type Provider = "openai" | "anthropic" | "gemini" | "bedrock";

/** Every provider, in the order checks run and violations are reported. */
export const PROVIDERS: readonly Provider[] = ["openai", "anthropic", "gemini", "bedrock"];

/**
 * What a request broke. Each rule, with the providers that enforce it and the source:
 *
 * - `unsupported_message`: a message type the converter cannot send (`remove`, `generic`, ...).
 *   All four: the Anthropic and Bedrock converters throw `Message type ... is not supported`;
 *   the OpenAI and Google converters have no role for it.
 * - `empty_request`: no message besides system messages. Anthropic (`messages: at least one
 *   message is required`), Gemini (`contents is not specified`), Bedrock (`messages` required);
 *   OpenAI only when the list is empty altogether.
 * - `tool_result_without_call`: a ToolMessage whose `tool_call_id` is not an open call of the AI
 *   message right before its run of results. OpenAI (`messages with role 'tool' must be a
 *   response to a preceding message with 'tool_calls'`), Anthropic (`unexpected tool_use_id found
 *   in tool_result blocks ... Each tool_result block must have a corresponding tool_use block in
 *   the previous message`), Gemini (`function response turn comes immediately after a function
 *   call turn`), Bedrock (`toolResult blocks ... exceeds the number of toolUse blocks of previous
 *   turn`).
 *   Anthropic also on its own wire (`anthropicTurnFindings`): consecutive messages of one role
 *   are one turn (the API combines them), an assistant turn calls the ids of its `tool_use`
 *   content blocks (ChatAnthropic stores its calls there too; the converter sends them as they
 *   are and appends the `tool_calls` they lack), and a user turn answers with its ToolMessages
 *   and the `tool_result` content blocks of its user messages (a thread imported in Anthropic's
 *   own format); every `tool_result` must name a `tool_use` of the assistant turn right before
 *   it (`unexpected tool_use_id found in tool_result blocks`). Where a call is only a `tool_use`
 *   block (no `tool_calls` entry) answered by a ToolMessage or a `tool_result` block, the common
 *   rules stand for the other providers and Anthropic's turn pairing decides for Anthropic (also
 *   when a user message of only `tool_result` blocks comes between the call and the ToolMessage:
 *   `@langchain/anthropic` sends both in one user turn, which Anthropic takes); the
 *   `tool_call_id` rule's pattern and uniqueness apply to `tool_use` block ids too. A user
 *   message with other content before its `tool_result` blocks is refused (`tool_use ids were
 *   found without tool_result blocks immediately after`: the results must come first).
 * - `duplicate_tool_result`: a second result for one call. Anthropic and Bedrock (result count
 *   must match the `tool_use`/`toolUse` blocks), Gemini (`the number of function response parts
 *   is equal to the number of function call parts`); OpenAI accepts it but the model sees two
 *   answers: refused here as spec R4 does.
 * - `unanswered_tool_call`: an AI message whose calls are not all answered before the next
 *   non-tool message (or the end). OpenAI (`An assistant message with 'tool_calls' must be
 *   followed by tool messages responding to each 'tool_call_id'`), Anthropic (`tool_use ids were
 *   found without tool_result blocks immediately after`), Gemini (response parts count), Bedrock
 *   (`Expected toolResult blocks at messages.N.content for the following Ids`). Anthropic also
 *   for a `tool_use` content block of an AI message that no result of the next user turn names
 *   (a call edited or dropped from `tool_calls` but left in the content).
 * - `system_count`: more than one system message. Anthropic, Gemini and Bedrock take one system
 *   prompt (`system`, `systemInstruction`, `system`); the Anthropic converter joins leading ones
 *   and the Bedrock one hoists every system message to the top, changing what the prompt says.
 *   OpenAI accepts any number.
 * - `system_position`: a system message after the first message. Anthropic (the converter sends
 *   it as `role: "system"` inside `messages`, which the API has no role for), Gemini (converter:
 *   `System message should be the first one`), Bedrock (converter moves it to the top). OpenAI
 *   accepts it.
 * - `first_message_role`: the first non-system message is not a user message. Anthropic
 *   (`first message must use the "user" role`), Gemini (`function call turn comes immediately
 *   after a user turn`), Bedrock (`A conversation must start with a user message`).
 * - `consecutive_roles`: Bedrock (`A conversation must alternate between user and assistant
 *   roles`; the converter merges only runs of tool results, so a user message after tool
 *   results, two user messages or two AI messages are refused). Gemini: a model turn with
 *   function calls must come right after a user turn or a function-response turn (`Please ensure
 *   that function call turn comes immediately after a user turn or after a function response
 *   turn`). Anthropic combines consecutive turns of one role and OpenAI accepts them.
 * - `empty_content`: a user, AI or system message with no content the provider accepts.
 *   Anthropic (`all messages must have non-empty content except for the optional final assistant
 *   message`, `text content blocks must contain non-whitespace text`), Gemini (`contents.parts
 *   must not be empty`, an AI message with `""` and no calls converts to no parts; `empty text
 *   parameter`), Bedrock (converter: `Invalid message content: empty string`; API: `The content
 *   field in the Message object ... is empty`, and for a user message's blank text block beside
 *   other blocks `The text field in the ContentBlock object at messages.N.content.M is blank`,
 *   OpenHands/OpenHands#5339, continuedev/continue#9767; the converter merges an AI message's
 *   blank blocks away). An AI message's blank text beside its tool calls: Anthropic, as a blank
 *   block, and as a blank string other than `""` (the converter sends that string as a text block
 *   before the `tool_use` blocks; `text content blocks must contain non-whitespace text`;
 *   anthropics/anthropic-sdk-python#461, anthropics/claude-code#59812). A tool result's blank
 *   text block: Anthropic (sent inside the `tool_result`); Bedrock accepts a blank `toolResult`
 *   text (measured, NousResearch/hermes-agent#55092), and an empty string result is accepted by
 *   all four; an empty content array Bedrock refuses (`@langchain/aws` sends it as
 *   `toolResult.content: []`: https://github.com/pydantic/pydantic-ai/issues/6115,
 *   https://github.com/strands-agents/harness-sdk/pull/2123). A message of only `reasoning` blocks (LangChain's standard block; an OpenAI answer
 *   that ran out during its reasoning): Anthropic, as no content (the converter drops the blocks;
 *   `all messages must have non-empty content`). OpenAI accepts empty strings and blank blocks.
 * - `malformed_text`: a lone UTF-16 surrogate in a message's text or tool call arguments (half of
 *   an emoji cut by a string slice); `JSON.stringify` sends it as a bare `\ud83d` escape. Anthropic
 *   (`The request body is not valid JSON: no low surrogate in string`,
 *   https://github.com/anthropics/claude-code/issues/56064), Gemini on Vertex (`The input data is
 *   not valid json`, https://github.com/vertesia/llumiverse/pull/462). OpenAI and Bedrock: not
 *   established, so not refused here.
 * - `responses_items`: OpenAI Responses API. `@langchain/openai` 1.5
 *   (`convertMessagesToResponsesInput`) sends an AI message that carries the answer's output items
 *   (`response_metadata.output`, stored since langchainjs#9954) as those items, not from its
 *   `tool_calls`: their `function_call` items must call exactly the message's `tool_calls` (a call
 *   item the message no longer has is sent unanswered: `400 No tool output found for function call
 *   ...`, https://github.com/langchain-ai/langchainjs/pull/11437; a call the items lack has its
 *   result sent without a call: `No tool call found for function call output`), and a `reasoning`
 *   item must be followed by an item of its own (`Item 'rs_...' of type 'reasoning' was provided
 *   without its required following item`, https://github.com/continuedev/continue/issues/8933).
 *   Chat Completions ignores the items; the rule is OpenAI's because only its Responses answers
 *   carry them.
 * - `tool_call_id`: a tool call without a usable id. OpenAI (`tool_calls[].id` required),
 *   Anthropic (converter: `Anthropic requires all tool calls to have an "id"`; API: id pattern
 *   `^[a-zA-Z0-9_-]+$`; `tool_use ids must be unique` within the whole request: a model that
 *   numbers its calls per answer (`call_0` every turn, Grok over Chat Completions,
 *   https://github.com/NVIDIA-NeMo/Switchyard/issues/502; Kimi's `functions.lookup:0`) makes a
 *   thread Anthropic refuses from its second tool turn on), Bedrock (`toolUseId`: 1-64 characters
 *   of `[a-zA-Z0-9_-]`). OpenAI Chat Completions also refuses an id over 40 characters (`Invalid
 *   'messages[10].tool_calls[0].id': string too long. Expected a string with maximum length 40`,
 *   `string_above_max_length`: https://github.com/agno-agi/agno/issues/5382 a Responses `fc_` id,
 *   https://github.com/openclaw/openclaw/pull/875 a thread continued by another model,
 *   https://github.com/BerriAI/litellm/issues/17343, https://github.com/anomalyco/opencode/issues/12653).
 *   An id repeated within one AI message: Anthropic (`tool_use ids must be unique`), OpenAI (the
 *   two results share the id: `Invalid parameter: Duplicate value for 'tool_call_id' of 'call_...'
 *   in messages[7] and messages[8]`, https://github.com/agno-agi/agno/issues/5116) and Bedrock
 *   (`The toolUse blocks at messages.2.content contain duplicate Ids`,
 *   https://github.com/double16/Cyber-AutoAgent-ng/issues/27).
 *   Gemini pairs by name and position and sends no ids.
 * - `thinking_first`: a request whose last user turn holds tool results (a tool loop), whose final
 *   assistant turn (its AI messages, which the API combines) holds Anthropic thinking blocks (`thinking`,
 *   `redacted_thinking`: extended thinking is on) but does not start with one. Anthropic
 *   (`Expected thinking or redacted_thinking, but found text. When thinking is enabled, a final
 *   assistant message must start with a thinking block`,
 *   https://github.com/anomalyco/opencode/issues/3077). The others do not read these blocks.
 * - `programmatic_result_cache`: a `cache_control` on the result (a ToolMessage's content, or a
 *   `tool_result` block) of a call made by Anthropic's code execution (programmatic tool calling:
 *   its `tool_use` block has a `caller` of type `code_execution_*`). Anthropic (`Tool use result for
 *   toolu_... called by code execution cannot have cache_control. These blocks are not rendered in
 *   Claude's context.`, https://github.com/langchain-ai/langchain/issues/34542).
 * - `tool_result_parts`: a ToolMessage whose content holds a part other than text, which
 *   `@langchain/openai` 1.5 (`convertMessagesToCompletionsMessageParams`) sends inside the `tool`
 *   message as it is (an `image_url` block, or a standard `image`/`file`/`audio` block converted to
 *   an `image_url`/`file`/`input_audio` part; it drops only `tool_use`, `tool_call`, `reasoning`,
 *   `reasoning_content` and `thinking` blocks). OpenAI Chat Completions: a tool message's content
 *   parts are text only (`ChatCompletionRequestToolMessageContentPart` in the OpenAPI spec; `Invalid
 *   'messages[234]'. Image URLs are only allowed for messages with role 'user', but this message
 *   with role 'tool' contains an image URL.`, https://github.com/OpenHands/OpenHands/issues/7700;
 *   models that no longer refuse it ignore the image, https://github.com/openai/openai-openapi/issues/523).
 *   Anthropic (`tool_result` content takes images and documents), Bedrock (`toolResult` content
 *   takes images and documents) and Gemini: not refused here.
 * - `assistant_prefill`: the request ends on an AI message (its last non-system message), which
 *   Anthropic takes as a prefill to continue. Anthropic since Claude Opus 4.6 / Sonnet 4.6
 *   (`This model does not support assistant message prefill. The conversation must end with a user
 *   message.`; breaking change listed in https://platform.claude.com/docs/en/about-claude/models/whats-new-claude-4-6,
 *   https://github.com/aaif-goose/goose/issues/7425, https://github.com/agenticloops-ai/agentic-ai-engineering/issues/43).
 *   Opt-in ({@link ProviderCheckOptions.noPrefill}): older models take a prefill, and a thread the
 *   user ended on an assistant message (`invoke({ messages: [] })` on a finished thread sends
 *   `[system, human, ai]`, as plain LangGraph does) is the user's shape; a middleware must never
 *   make a request end on an AI message when the thread does not.
 * - `message_name`: a `name` OpenAI Chat Completions refuses. `@langchain/openai` 1.5 sends a
 *   message's `name` whenever it is set (an AI message's is `createAgent`'s `name`, its node's),
 *   and each tool call's `function.name`; both must match `^[a-zA-Z0-9_-]+$` (`Invalid
 *   'messages[5].name': string does not match pattern. Expected a string that matches the pattern
 *   '^[a-zA-Z0-9_-]+$'`, https://github.com/FlowiseAI/Flowise/issues/2948; `Invalid
 *   'messages[9].tool_calls[0].function.name': string does not match pattern`,
 *   https://github.com/mcp-use/mcp-use/issues/90): a space, a dot or a slash, or an empty name.
 *   The others send no message name (Anthropic, Gemini, Bedrock converters drop it).
 * - `media_parts`: an image, file, audio or document block in a system or AI message. OpenAI Chat
 *   Completions (an assistant message's parts are text or refusal, a system message's text only:
 *   `Image URLs are only allowed for messages with role 'user'`; `@langchain/openai` sends the
 *   block as an `image_url`/`file`/`input_audio` part), Bedrock (`@langchain/aws` 1.4 throws:
 *   `Unsupported content block type` for an AI message, `System message content must be either a
 *   string, or an array of text blocks` for a system one), Anthropic for a system message (its
 *   `system` takes text blocks only). A summary or context message that carries an image from
 *   the messages it replaces is refused so.
 */
export type ProviderRule =
  | "unsupported_message"
  | "empty_request"
  | "tool_result_without_call"
  | "duplicate_tool_result"
  | "unanswered_tool_call"
  | "system_count"
  | "system_position"
  | "first_message_role"
  | "consecutive_roles"
  | "empty_content"
  | "malformed_text"
  | "responses_items"
  | "tool_call_id"
  | "thinking_first"
  | "assistant_prefill"
  | "programmatic_result_cache"
  | "tool_result_parts"
  | "message_name"
  | "media_parts";

/** Which providers enforce each rule (see {@link ProviderRule} for the sources). */
export const PROVIDER_RULES: Readonly<Record<ProviderRule, readonly Provider[]>> = {
  unsupported_message: PROVIDERS,
  empty_request: PROVIDERS,
  tool_result_without_call: PROVIDERS,
  duplicate_tool_result: PROVIDERS,
  unanswered_tool_call: PROVIDERS,
  system_count: ["anthropic", "gemini", "bedrock"],
  system_position: ["anthropic", "gemini", "bedrock"],
  first_message_role: ["anthropic", "gemini", "bedrock"],
  consecutive_roles: ["gemini", "bedrock"],
  empty_content: ["anthropic", "gemini", "bedrock"],
  malformed_text: ["anthropic", "gemini"],
  responses_items: ["openai"],
  tool_call_id: ["openai", "anthropic", "bedrock"],
  thinking_first: ["anthropic"],
  assistant_prefill: ["anthropic"],
  programmatic_result_cache: ["anthropic"],
  tool_result_parts: ["openai"],
  message_name: ["openai"],
  media_parts: ["openai", "anthropic", "bedrock"],
};

/** One refusal: which provider, which rule, at which message of the request. */
export interface ProviderViolation {
  provider: Provider;
  rule: ProviderRule;
  /** Index into the request as the model receives it (system message included). */
  index: number;
  /** What is wrong, naming the message (type and id). */
  message: string;
}

/** Options of {@link validateProviderRequest}. */
export interface ProviderCheckOptions {
  /** Providers whose rules apply. @default every one of {@link PROVIDERS} */
  providers?: readonly Provider[];
  /**
   * Refuse a request that ends on an AI message (`assistant_prefill`, Anthropic): Claude 4.6 and
   * later models take no prefill. Off by default (older models take one, and a thread the user
   * ended on an assistant message is theirs to send). @default false
   */
  noPrefill?: boolean;
}

/**
 * A request a provider would refuse. `provider`, `rule` and `index` are those of the first
 * violation; `violations` holds all of them.
 */
export class ProviderRequestError extends ThreadwiseError {
  readonly provider: Provider;
  readonly rule: ProviderRule;
  readonly index: number;
  readonly violations: readonly ProviderViolation[];
  constructor(violations: readonly ProviderViolation[]) {
    const first = violations[0] as ProviderViolation;
    const more = violations.length > 1 ? ` (+${violations.length - 1} more)` : "";
    super(
      "THREADWISE_PROVIDER_REJECTED",
      `${first.provider} would refuse the request: ${first.rule} at message ${first.index}: ${first.message}${more}`,
    );
    this.provider = first.provider;
    this.rule = first.rule;
    this.index = first.index;
    this.violations = violations;
  }
  /** `true` for a {@link ProviderRequestError}, also across duplicate copies of the package. */
  static override isInstance(error: unknown): error is ProviderRequestError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_PROVIDER_REJECTED";
  }
  // `ProviderRequestError.find(error)` (inherited) finds one in the `cause` chain of a `MiddlewareError`.
}

const KNOWN_TYPES = new Set(["system", "human", "ai", "tool"]);
const ANTHROPIC_ID = /^[a-zA-Z0-9_-]+$/;
const BEDROCK_ID = /^[a-zA-Z0-9_-]{1,64}$/;
/** The longest tool call id OpenAI Chat Completions takes (`string_above_max_length`). */
const OPENAI_ID_MAX = 40;

/** A rule broken at one index, before it is spread over the providers that enforce it. */
interface Finding {
  rule: ProviderRule;
  index: number;
  message: string;
  /** Limits the finding to these providers (for rules whose detail differs by provider). */
  only?: readonly Provider[];
}

function describe(message: BaseMessage, index: number): string {
  return `${messageType(message)} message${message.id ? ` ${message.id}` : ""} (index ${index})`;
}

/** Whether a message carries content a provider can send: non-blank text or a non-text block. */
function hasContent(message: BaseMessage): boolean {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content.trim() !== "";
  if (!Array.isArray(content)) return false;
  return content.some((block) => {
    if (typeof block === "string") return block.trim() !== "";
    if (!block || typeof block !== "object") return false;
    const b = block as { type?: unknown; text?: unknown };
    if (b.type === "text" || (b.type === undefined && typeof b.text === "string")) return String(b.text ?? "").trim() !== "";
    return true;
  });
}

/** `true` when a content array holds `reasoning` blocks and otherwise only blank text: `@langchain/anthropic` sends none of it. */
function onlyReasoning(content: unknown): boolean {
  if (!Array.isArray(content)) return false;
  let reasoning = false;
  for (const block of content) {
    const b = (block ?? {}) as { type?: unknown; text?: unknown };
    if (b.type === "reasoning") reasoning = true;
    else if (typeof block === "string" ? block.trim() !== "" : b.type !== "text" || String(b.text ?? "").trim() !== "") return false;
  }
  return reasoning;
}

/** `true` when a content array holds a text block that is blank (refused even next to other blocks). */
function hasBlankTextBlock(message: BaseMessage): boolean {
  const content = (message as { content?: unknown }).content;
  if (!Array.isArray(content)) return false;
  return content.some((block) => {
    if (!block || typeof block !== "object") return false;
    const b = block as { type?: unknown; text?: unknown };
    return b.type === "text" && String(b.text ?? "").trim() === "";
  });
}

/** Index of the first lone surrogate in any string of `value` (text, blocks, arguments), or -1. */
function firstLoneSurrogate(value: unknown, depth = 0): number {
  if (typeof value === "string") return loneSurrogateAt(value);
  if (depth > 32 || value === null || typeof value !== "object") return -1;
  for (const item of Array.isArray(value) ? value : Object.values(value)) {
    const at = firstLoneSurrogate(item, depth + 1);
    if (at >= 0) return at;
  }
  return -1;
}

/** Text a provider cannot parse: a lone surrogate in a message's content or tool call arguments. */
function textFindings(messages: readonly BaseMessage[]): Finding[] {
  const out: Finding[] = [];
  messages.forEach((message, index) => {
    const inContent = firstLoneSurrogate((message as { content?: unknown }).content);
    const inArgs = inContent >= 0 ? -1 : firstLoneSurrogate(toolCallsOf(message).map((call) => call.args));
    if (inContent < 0 && inArgs < 0) return;
    const where = inContent >= 0 ? `its content, at UTF-16 index ${inContent} of a text` : "its tool call arguments";
    out.push({ rule: "malformed_text", index, message: `${describe(message, index)} holds a lone UTF-16 surrogate in ${where}` });
  });
  return out;
}

/** OpenAI Responses output items an AI message is sent as: their calls, and reasoning items' following items. */
function responsesFindings(messages: readonly BaseMessage[]): Finding[] {
  const out: Finding[] = [];
  messages.forEach((message, index) => {
    const items = messageType(message) === "ai" ? responsesOutputOf(message) : undefined;
    if (!items) return;
    const calls = toolCallsOf(message).map((call) => call.id ?? "");
    if (!responsesCallsMatch(items, calls)) {
      const sent = JSON.stringify(responsesCallIds(items));
      out.push({
        rule: "responses_items",
        index,
        message: `${describe(message, index)} is sent as its stored output items, which call ${sent}; its tool_calls are ${JSON.stringify(calls)}`,
      });
    }
    items.forEach((item, k) => {
      const next = items[k + 1];
      if (item.type === "reasoning" && (next === undefined || next.type === "reasoning"))
        out.push({
          rule: "responses_items",
          index,
          message: `${describe(message, index)}: reasoning item ${JSON.stringify(item.id ?? k)} is not followed by an item of its own`,
        });
    });
  });
  return out;
}

/** Rules about tool calls and their results (the pairing every provider enforces). */
function toolFindings(messages: readonly BaseMessage[]): Finding[] {
  const out: Finding[] = [];
  let open: Map<string, number> | undefined;
  let answered = new Set<string>();
  let openAt = -1;
  /** `tool_use` ids `@langchain/anthropic` sends for the AI message before the current run of results. */
  let blockUses = new Set<string>();
  /** Call ids of earlier AI messages of the request (Anthropic: `tool_use` ids are unique across it). */
  const earlier = new Set<string>();
  const closeOpen = (next?: BaseMessage) => {
    if (open && open.size > 0) {
      const ids = [...open.keys()].map((id) => JSON.stringify(id)).join(", ");
      // Answered by `tool_result` blocks of the user turn after it (Anthropic's native format):
      // Anthropic's own pairing (`anthropicTurnFindings`) decides for it.
      const blocks = next !== undefined && anthropicToolResults(next).length > 0 && messageType(next) === "human";
      out.push({
        rule: "unanswered_tool_call",
        index: openAt,
        message: `${describe(messages[openAt] as BaseMessage, openAt)} has tool calls without a result right after it: ${ids}`,
        ...(blocks ? { only: ["openai", "gemini", "bedrock"] as const } : {}),
      });
    }
    open = undefined;
    answered = new Set();
  };
  messages.forEach((message, index) => {
    const type = messageType(message);
    if (type === "tool") {
      const id = (message as ToolMessage).tool_call_id ?? "";
      const left = open?.get(id);
      if (open && left !== undefined) {
        if (left <= 1) open.delete(id);
        else open.set(id, left - 1);
        answered.add(id);
      } else if (open && answered.has(id)) {
        out.push({
          rule: "duplicate_tool_result",
          index,
          message: `${describe(message, index)} is a second result for call ${JSON.stringify(id)}`,
        });
      } else {
        const where = open ? "is not a call of the AI message before its run of results" : "follows no AI message with tool calls";
        out.push({
          rule: "tool_result_without_call",
          index,
          message: `${describe(message, index)}: tool_call_id ${JSON.stringify(id)} ${where}`,
          // A `tool_use` block of that AI message (Anthropic's native format): Anthropic's own pairing decides.
          ...(blockUses.has(id) ? { only: ["openai", "gemini", "bedrock"] as const } : {}),
        });
      }
      return;
    }
    closeOpen(message);
    if (type === "ai") blockUses = new Set(anthropicToolUses(message));
    // A user message of only `tool_result` blocks is one user turn with the ToolMessages after it
    // on Anthropic's wire (`@langchain/anthropic` merges them): the AI message's `tool_use` blocks stay the ones answered.
    else if (type !== "system" && !(type === "human" && onlyToolResults(message))) blockUses = new Set();
    const calls = toolCallsOf(message);
    if (calls.length === 0) {
      // `@langchain/openai` sends `additional_kwargs.tool_calls` when `tool_calls` is empty (a call
      // whose arguments were not valid JSON is kept there and in `invalid_tool_calls`): no result follows it.
      const raw = type === "ai" ? (message as AIMessage).additional_kwargs?.tool_calls : undefined;
      if (Array.isArray(raw) && raw.length > 0)
        out.push({
          rule: "unanswered_tool_call",
          index,
          only: ["openai"],
          message: `${describe(message, index)} is sent with the calls in its additional_kwargs.tool_calls, which have no result`,
        });
      return;
    }
    open = new Map();
    openAt = index;
    const seen = new Set<string>();
    for (const call of calls) {
      const id = call.id ?? "";
      open.set(id, (open.get(id) ?? 0) + 1);
      if (id === "") out.push({ rule: "tool_call_id", index, message: `${describe(message, index)}: tool call ${call.name} has no id` });
      else {
        if (!ANTHROPIC_ID.test(id))
          out.push({
            rule: "tool_call_id",
            index,
            only: ["anthropic"],
            message: `${describe(message, index)}: id ${JSON.stringify(id)} is not [a-zA-Z0-9_-]+`,
          });
        if (!BEDROCK_ID.test(id))
          out.push({
            rule: "tool_call_id",
            index,
            only: ["bedrock"],
            message: `${describe(message, index)}: id ${JSON.stringify(id)} is not 1-64 of [a-zA-Z0-9_-]`,
          });
        if (id.length > OPENAI_ID_MAX)
          out.push({
            rule: "tool_call_id",
            index,
            only: ["openai"],
            message: `${describe(message, index)}: id ${JSON.stringify(id)} is over ${OPENAI_ID_MAX} characters`,
          });
        if (seen.has(id))
          out.push({
            rule: "tool_call_id",
            index,
            only: ["anthropic", "openai", "bedrock"],
            message: `${describe(message, index)}: id ${JSON.stringify(id)} repeats in one message`,
          });
        else if (earlier.has(id))
          out.push({
            rule: "tool_call_id",
            index,
            only: ["anthropic"],
            message: `${describe(message, index)}: id ${JSON.stringify(id)} was already used by an earlier AI message`,
          });
      }
      seen.add(id);
    }
    for (const id of seen) earlier.add(id);
  });
  closeOpen();
  return out;
}

/** `tool_use` ids `@langchain/anthropic` sends for an AI message: its `tool_use` content blocks, then the `tool_calls` they lack. */
function anthropicToolUses(message: BaseMessage): string[] {
  const ids: string[] = [];
  const content = (message as { content?: unknown }).content;
  // A v1 message is sent from its standard blocks (`_formatStandardContent`), where calls are `tool_call` blocks of `tool_calls`.
  const v1 = (message as AIMessage).response_metadata?.output_version === "v1";
  if (Array.isArray(content) && !v1)
    for (const block of content as Array<Record<string, unknown> | string>)
      if (typeof block !== "string" && block?.type === "tool_use") ids.push(String(block.id ?? ""));
  for (const call of toolCallsOf(message)) if (!ids.includes(call.id ?? "")) ids.push(call.id ?? "");
  return ids;
}

/** `true` for a user message whose content is `tool_result` blocks only (Anthropic's native format). */
function onlyToolResults(message: BaseMessage): boolean {
  const content = (message as { content?: unknown }).content;
  return (
    Array.isArray(content) &&
    content.length > 0 &&
    content.every((block) => typeof block !== "string" && (block as { type?: unknown } | null)?.type === "tool_result")
  );
}

/** `tool_use_id`s a non-AI message answers on Anthropic's wire: a ToolMessage's call id, a user message's `tool_result` blocks. */
function anthropicToolResults(message: BaseMessage): string[] {
  const type = messageType(message);
  if (type === "tool") return [(message as ToolMessage).tool_call_id ?? ""];
  const content = (message as { content?: unknown }).content;
  if (type !== "human" || !Array.isArray(content)) return [];
  return (content as Array<Record<string, unknown> | string>)
    .filter((block) => typeof block !== "string" && block?.type === "tool_result")
    .map((block) => String((block as Record<string, unknown>).tool_use_id ?? ""));
}

/**
 * Tool pairing as Anthropic sees it: turns of one role (the API combines consecutive messages of a
 * role), `tool_use` ids from content blocks and `tool_calls`, `tool_result` ids from ToolMessages
 * and user messages' `tool_result` blocks. Every result must name a `tool_use` of the assistant
 * turn right before its user turn, and every `tool_use` needs a result in the next user turn.
 */
function anthropicTurnFindings(messages: readonly BaseMessage[]): Finding[] {
  const out: Finding[] = [];
  const only = ["anthropic"] as const;
  /** The assistant turn before the current user turn: each tool_use id with the index of its AI message. */
  let uses = new Map<string, number>();
  let answered = new Set<string>();
  let role: "user" | "assistant" | undefined;
  /** Every `tool_use` id of the request's earlier AI messages (`tool_use ids must be unique`). */
  const sentUses = new Set<string>();
  const closeUser = () => {
    for (const [id, index] of uses)
      if (!answered.has(id))
        out.push({
          rule: "unanswered_tool_call",
          index,
          only,
          message: `${describe(messages[index] as BaseMessage, index)} sends tool_use ${JSON.stringify(id)} without a tool_result in the next user turn`,
        });
    uses = new Map();
    answered = new Set();
  };
  messages.forEach((message, index) => {
    const type = messageType(message);
    if (type === "system" || !KNOWN_TYPES.has(type)) return;
    if (type === "ai") {
      if (role === "user") closeUser();
      role = "assistant";
      for (const id of anthropicToolUses(message)) {
        if (!uses.has(id)) uses.set(id, index);
        // `tool_use.id` pattern and uniqueness across the request, for the ids of `tool_use` blocks too.
        if (id !== "" && !ANTHROPIC_ID.test(id))
          out.push({
            rule: "tool_call_id",
            index,
            only,
            message: `${describe(message, index)}: tool_use id ${JSON.stringify(id)} is not [a-zA-Z0-9_-]+`,
          });
        else if (id !== "" && sentUses.has(id))
          out.push({
            rule: "tool_call_id",
            index,
            only,
            message: `${describe(message, index)}: tool_use id ${JSON.stringify(id)} was already used in the request`,
          });
      }
      for (const id of anthropicToolUses(message)) sentUses.add(id);
      return;
    }
    role = "user";
    if (type === "human" && Array.isArray(message.content)) {
      // The results come first in a user message's content, any other block after them.
      const blocks = message.content as Array<Record<string, unknown> | string>;
      const other = blocks.findIndex((b) => typeof b === "string" || b?.type !== "tool_result");
      if (other !== -1 && blocks.slice(other).some((b) => typeof b !== "string" && b?.type === "tool_result"))
        out.push({
          rule: "unanswered_tool_call",
          index,
          only,
          message: `${describe(message, index)} holds other content before its tool_result blocks`,
        });
    }
    for (const id of anthropicToolResults(message)) {
      if (uses.has(id) && !answered.has(id)) answered.add(id);
      else if (!uses.has(id))
        out.push({
          rule: "tool_result_without_call",
          index,
          only,
          message: `${describe(message, index)}: tool_result ${JSON.stringify(id)} names no tool_use of the assistant turn before it`,
        });
    }
  });
  closeUser();
  return out;
}

/** Rules about system messages, the first message, alternation and empty content. */
function roleFindings(messages: readonly BaseMessage[]): Finding[] {
  const out: Finding[] = [];
  let systems = 0;
  let firstNonSystem = -1;
  messages.forEach((message, index) => {
    const type = messageType(message);
    if (!KNOWN_TYPES.has(type))
      out.push({ rule: "unsupported_message", index, message: `${describe(message, index)} has no provider role` });
    if (type === "system") {
      systems += 1;
      if (systems === 2) out.push({ rule: "system_count", index, message: `${describe(message, index)} is a second system message` });
      if (index > 0) out.push({ rule: "system_position", index, message: `${describe(message, index)} is not the first message` });
    } else if (firstNonSystem === -1) firstNonSystem = index;
    if (type === "tool") {
      // `@langchain/anthropic` sends a result's blocks inside its `tool_result`, where a blank text block is refused as anywhere.
      if (hasBlankTextBlock(message))
        out.push({ rule: "empty_content", index, only: ["anthropic"], message: `${describe(message, index)} holds a blank text block` });
      // `@langchain/aws` sends an empty content array as `toolResult.content: []`, which Converse refuses.
      const content = (message as { content?: unknown }).content;
      if (Array.isArray(content) && content.length === 0)
        out.push({ rule: "empty_content", index, only: ["bedrock"], message: `${describe(message, index)} has an empty content array` });
      return;
    }
    const last = index === messages.length - 1;
    const callsOnly = toolCallsOf(message).length > 0;
    const content = (message as { content?: unknown }).content;
    if (callsOnly && typeof content === "string" && content !== "" && content.trim() === "") {
      // `@langchain/anthropic` sends an AI message's string beside its calls as a text block unless it is "".
      out.push({
        rule: "empty_content",
        index,
        only: ["anthropic"],
        message: `${describe(message, index)} has blank text beside its tool calls`,
      });
    } else if (!callsOnly && hasContent(message) && onlyReasoning(content)) {
      out.push({
        rule: "empty_content",
        index,
        only: ["anthropic"],
        message: `${describe(message, index)} holds only reasoning blocks, which @langchain/anthropic does not send`,
      });
    } else if (!hasContent(message) && !callsOnly) {
      // Anthropic lets the request end on an empty assistant message (a prefill).
      const only: Provider[] | undefined = type === "ai" && last ? ["gemini", "bedrock"] : undefined;
      out.push({
        rule: "empty_content",
        index,
        message: `${describe(message, index)} has no non-blank content`,
        ...(only ? { only } : {}),
      });
    } else if (hasBlankTextBlock(message)) {
      // Bedrock: `@langchain/aws` sends a user message's text blocks as they are (an AI message's
      // blank ones it merges away), and Converse refuses them.
      out.push({
        rule: "empty_content",
        index,
        only: type === "human" ? ["anthropic", "gemini", "bedrock"] : ["anthropic", "gemini"],
        message: `${describe(message, index)} holds a blank text block`,
      });
    }
  });
  const nonSystem = messages.length - systems;
  if (nonSystem === 0) {
    out.push({
      rule: "empty_request",
      index: 0,
      message: "no message besides system messages",
      ...(messages.length > 0 ? { only: ["anthropic", "gemini", "bedrock"] } : {}),
    });
  } else if (messageType(messages[firstNonSystem] as BaseMessage) !== "human") {
    out.push({
      rule: "first_message_role",
      index: firstNonSystem,
      message: `${describe(messages[firstNonSystem] as BaseMessage, firstNonSystem)} comes first; a user message must`,
    });
  }
  // Alternation, on the wire roles: Bedrock merges runs of tool results into one user message.
  let previous: { role: "user" | "assistant"; toolResults: boolean; calls: boolean } | undefined;
  messages.forEach((message, index) => {
    const type = messageType(message);
    if (type === "system" || !KNOWN_TYPES.has(type)) return;
    const current = {
      role: type === "ai" ? ("assistant" as const) : ("user" as const),
      toolResults: type === "tool",
      calls: toolCallsOf(message).length > 0,
    };
    if (previous) {
      const merged = previous.toolResults && current.toolResults;
      if (!merged && previous.role === current.role) {
        out.push({
          rule: "consecutive_roles",
          index,
          only: ["bedrock"],
          message: `${describe(message, index)} is a second ${current.role} message in a row`,
        });
      }
      if (current.calls && previous.role === "assistant") {
        out.push({
          rule: "consecutive_roles",
          index,
          only: ["gemini"],
          message: `${describe(message, index)} calls tools right after another model turn`,
        });
      }
    }
    previous = current;
  });
  return out;
}

/** Anthropic thinking block types. */
const THINKING_TYPES = new Set(["thinking", "redacted_thinking"]);

/**
 * `thinking_first`: when the request's last user turn holds tool results, the final assistant
 * turn (the run of AI messages before it, one turn on Anthropic's wire) starts with a thinking
 * block if it holds any. Content as `@langchain/anthropic` sends it: a string is one text block, an empty one none.
 */
/** `true` when `value` (a content array, a block, or a block's nested `content`) holds a `cache_control`. */
function holdsCacheControl(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(holdsCacheControl);
  if (value === null || typeof value !== "object") return false;
  const block = value as { cache_control?: unknown; content?: unknown };
  return block.cache_control !== undefined || holdsCacheControl(block.content);
}

/** `programmatic_result_cache`: a `cache_control` on the result of a call made by code execution. */
function programmaticCacheFindings(messages: readonly BaseMessage[]): Finding[] {
  const ids = programmaticCallIds(messages);
  const out: Finding[] = [];
  messages.forEach((message, index) => {
    if (!answersCallIn(message, ids)) return;
    const marked =
      messageType(message) === "tool"
        ? holdsCacheControl(message.content)
        : toolResultBlocksOf(message).some((block) => ids.has(block.id) && holdsCacheControl((message.content as unknown[])[block.at]));
    if (marked)
      out.push({
        rule: "programmatic_result_cache",
        index,
        message: `${describe(message, index)} answers a call made by code execution and carries cache_control (these blocks are not rendered in Claude's context)`,
      });
  });
  return out;
}

function thinkingFindings(messages: readonly BaseMessage[]): Finding[] {
  let end = messages.length;
  let results = 0;
  // The last user turn: every message after the last AI message (the API combines them into one).
  while (end > 0) {
    const message = messages[end - 1] as BaseMessage;
    const type = messageType(message);
    if (type === "ai") break;
    if (type === "tool" || (type === "human" && anthropicToolResults(message).length > 0)) results += 1;
    end -= 1;
  }
  if (results === 0) return [];
  let start = end;
  while (start > 0 && messageType(messages[start - 1] as BaseMessage) === "ai") start -= 1;
  if (start === end) return [];
  const blocks = messages.slice(start, end).flatMap((m) => {
    const content = m.content as unknown;
    if (typeof content === "string") return content === "" ? [] : ["text"];
    return Array.isArray(content) ? content.map((b) => (typeof b === "string" ? "text" : String((b as { type?: unknown })?.type))) : [];
  });
  if (!blocks.some((type) => THINKING_TYPES.has(type)) || THINKING_TYPES.has(blocks[0] as string)) return [];
  return [
    {
      rule: "thinking_first",
      index: start,
      message: `${describe(messages[start] as BaseMessage, start)} opens the final assistant turn with ${blocks[0]}, not its thinking block`,
    },
  ];
}

/** Blocks `@langchain/openai` drops from a Chat Completions message's content. */
const OPENAI_DROPPED_BLOCKS = new Set(["tool_use", "tool_call", "reasoning", "reasoning_content", "thinking"]);

/** `tool_result_parts`: a ToolMessage content part OpenAI Chat Completions would receive that is not text. */
function toolPartFindings(messages: readonly BaseMessage[]): Finding[] {
  const out: Finding[] = [];
  messages.forEach((message, index) => {
    const content = (message as { content?: unknown }).content;
    if (messageType(message) !== "tool" || !Array.isArray(content)) return;
    const parts = content.flatMap((block) => {
      if (typeof block === "string" || block === null || typeof block !== "object") return [];
      const b = block as { type?: unknown; source_type?: unknown };
      if ((b.type === "text" && b.source_type === undefined) || OPENAI_DROPPED_BLOCKS.has(String(b.type))) return [];
      return [String(b.type)];
    });
    if (parts.length > 0)
      out.push({
        rule: "tool_result_parts",
        index,
        message: `${describe(message, index)} holds ${JSON.stringify(parts)} content, sent in a tool message, whose parts can only be text`,
      });
  });
  return out;
}

/** A `name` OpenAI Chat Completions takes (message `name`, tool call `function.name`). */
const OPENAI_NAME = /^[a-zA-Z0-9_-]+$/;

/** `message_name`: a message name or tool call name `@langchain/openai` sends that OpenAI refuses. */
function nameFindings(messages: readonly BaseMessage[]): Finding[] {
  const out: Finding[] = [];
  messages.forEach((message, index) => {
    const name = (message as { name?: unknown }).name;
    if (name !== undefined && name !== null && !OPENAI_NAME.test(String(name)))
      out.push({ rule: "message_name", index, message: `${describe(message, index)}: name ${JSON.stringify(name)} is not [a-zA-Z0-9_-]+` });
    for (const call of toolCallsOf(message))
      if (!OPENAI_NAME.test(call.name ?? ""))
        out.push({
          rule: "message_name",
          index,
          message: `${describe(message, index)}: tool call name ${JSON.stringify(call.name)} is not [a-zA-Z0-9_-]+`,
        });
  });
  return out;
}

/** Media block types (LangChain standard and OpenAI/Anthropic/Bedrock native ones). */
const MEDIA_TYPES = new Set(["image", "image_url", "file", "audio", "input_audio", "document", "video", "input_image", "input_file"]);

/** `media_parts`: a system or AI message holding an image, file, audio or document block. */
function mediaFindings(messages: readonly BaseMessage[]): Finding[] {
  const out: Finding[] = [];
  messages.forEach((message, index) => {
    const type = messageType(message);
    const content = (message as { content?: unknown }).content;
    if ((type !== "system" && type !== "ai") || !Array.isArray(content)) return;
    const media = content.flatMap((block) => {
      const kind = block !== null && typeof block === "object" ? (block as { type?: unknown }).type : undefined;
      return typeof kind === "string" && MEDIA_TYPES.has(kind) ? [kind] : [];
    });
    if (media.length > 0)
      out.push({
        rule: "media_parts",
        index,
        message: `${describe(message, index)} holds ${JSON.stringify(media)} content, which a ${type === "ai" ? "assistant" : "system"} message cannot carry`,
        ...(type === "ai" ? { only: ["openai", "bedrock"] as const } : {}),
      });
  });
  return out;
}

/** `assistant_prefill`: the last message besides system messages is an AI message. */
function prefillFindings(messages: readonly BaseMessage[]): Finding[] {
  let index = messages.length - 1;
  while (index >= 0 && messageType(messages[index] as BaseMessage) === "system") index -= 1;
  if (index < 0 || messageType(messages[index] as BaseMessage) !== "ai") return [];
  return [
    {
      rule: "assistant_prefill",
      index,
      message: `${describe(messages[index] as BaseMessage, index)} ends the request: a prefill, which Claude 4.6 and later refuse`,
    },
  ];
}

/**
 * Checks a request, as the chat model receives it, against the rules of each provider in
 * `options.providers` (all four by default). Returns every violation, ordered by provider, then
 * by message index; an empty array means every provider checked would accept the request.
 * Never throws; the input is not changed.
 *
 * @param messages The model input: the system message first when there is one, then the view.
 * @example
 * validateProviderRequest([new SystemMessage("Be brief."), new HumanMessage("hi")]); // []
 */
export function validateProviderRequest(messages: readonly BaseMessage[], options: ProviderCheckOptions = {}): ProviderViolation[] {
  const providers = options.providers ?? PROVIDERS;
  const findings = [
    ...toolFindings(messages),
    ...roleFindings(messages),
    ...textFindings(messages),
    ...responsesFindings(messages),
    ...thinkingFindings(messages),
    ...(options.noPrefill ? prefillFindings(messages) : []),
    ...programmaticCacheFindings(messages),
    ...toolPartFindings(messages),
    ...nameFindings(messages),
    ...mediaFindings(messages),
  ];
  // Anthropic's own pairing adds only what the common pairing rules did not already find for it at that message.
  const applies = (f: Finding, provider: Provider) =>
    PROVIDER_RULES[f.rule].includes(provider) && (f.only === undefined || f.only.includes(provider));
  for (const f of anthropicTurnFindings(messages))
    if (!findings.some((g) => g.rule === f.rule && g.index === f.index && applies(g, "anthropic"))) findings.push(f);
  const out: ProviderViolation[] = [];
  for (const provider of PROVIDERS) {
    if (!providers.includes(provider)) continue;
    const mine = findings.filter((f) => applies(f, provider)).sort((a, b) => a.index - b.index);
    for (const f of mine) out.push({ provider, rule: f.rule, index: f.index, message: f.message });
  }
  return out;
}

/**
 * Like {@link validateProviderRequest}, but throws on the first refusal.
 * @throws ProviderRequestError naming the provider, the rule and the message index.
 */
export function assertProviderRequest(messages: readonly BaseMessage[], options: ProviderCheckOptions = {}): void {
  const violations = validateProviderRequest(messages, options);
  if (violations.length > 0) throw new ProviderRequestError(violations);
}
