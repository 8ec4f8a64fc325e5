import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import type { BaseMessage } from "@langchain/core/messages";
import type { RawBytePairRanks } from "gpt-tokenizer/BytePairEncodingCore";
import { GptEncoding } from "gpt-tokenizer/GptEncoding";
import { getEncodingNameForModel, type TiktokenEncoding, type TiktokenModel } from "js-tiktoken/lite";
import { z } from "zod/v4";
import { setBounded } from "./bounded-map.js";
import {
  additionalReasoningTexts,
  type BlockPricing,
  blockPricingFor,
  contentBlockCost,
  responsesReasoningTexts,
} from "./content-block-tokens.js";
import { optionsObject, parseOptions } from "./errors.js";
import { messageType, toolCallsOf } from "./message-kinds.js";
import { responsesOutputOf } from "./responses-output.js";
import { renderToolDefinitions } from "./tool-definitions.js";

/** Encoding used when neither an encoding nor a known model name is given (spec R3). */
export const DEFAULT_ENCODING: TiktokenEncoding = "o200k_base";
/**
 * Per-message framing, in tokens: the 3 of OpenAI's chat format (`<|start|>`, the separator,
 * `<|end|>`; cookbook `num_tokens_from_messages`, `tokens_per_message = 3`) plus the role, one
 * token for each of `system`, `user`, `assistant` and `tool`.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Extra tokens of a message that has a `name` (cookbook `tokens_per_name = 1`), beside the name's own tokens. */
export const NAME_OVERHEAD_TOKENS = 1;
/** Framing of one tool call in an AI message, beside its name and arguments (as `openai-chat-tokens` counts a function call). */
export const TOOL_CALL_OVERHEAD_TOKENS = 3;
/** Tokens every request adds to prime the reply (`<|start|>assistant<|message|>`; cookbook: "every reply is primed"). */
export const REPLY_PRIMING_TOKENS = 3;
/** Framing of the tool definitions block, beside its text (measured by `openai-chat-tokens` against the API). */
export const TOOLS_OVERHEAD_TOKENS = 9;
/**
 * Correction when both a system message and tools are sent: the tool block reuses the system
 * turn (-4) and the system text gets a trailing newline (+1, as `openai-chat-tokens` found).
 */
export const SYSTEM_WITH_TOOLS_TOKENS = -3;
/** Upper bound on cached per-message counts; older entries are evicted first. */
export const TOKEN_CACHE_ENTRIES = 100_000;
/**
 * A message's text (not a system message's) at least this long (characters) is counted in
 * segments of at least {@link MESSAGE_SEGMENT_CHARACTERS}, each remembered by value; shorter ones
 * are counted whole and not remembered. A message's count is cached whole, so its lines rarely
 * come back: remembering every line would only churn the memo and tokenize in more, smaller
 * pieces on a thread's first count.
 */
const MESSAGE_SEGMENT_MIN_CHARACTERS = 256;
/** Consecutive lines of a message's text are counted together until a segment holds this many characters. */
const MESSAGE_SEGMENT_CHARACTERS = 128;
/** Segments longer than this (characters) are not remembered, to bound the memo's memory. */
const SEGMENT_MEMO_MAX_CHARACTERS = 65_536;
/** Most segments remembered by value per counter; the oldest goes first. */
const SEGMENT_MEMO_ENTRIES = 16_384;

/** Counts tokens of the parts of a model request. Every count is in tokens. */
export interface TokenCounter {
  /** Name of the encoding, or `"custom"` for a user-supplied function. */
  readonly encoding: string;
  /** Tokens of a plain string. */
  countText(text: string): number;
  /** Tokens of one message: text, content blocks, tool-call names and arguments, framing. Cached. */
  countMessage(message: BaseMessage): number;
  /** Sum of `countMessage` over a list. */
  countMessages(messages: readonly BaseMessage[]): number;
  /** Tokens of tool schemas as the model sees them (OpenAI's TypeScript rendering), framing included. */
  countTools(tools: readonly unknown[]): number;
  /** Characters handed to the tokenizer so far (what the caches missed); for tests and benches. */
  readonly encodedCharacters?: number;
  /**
   * An upper bound on `countText(text)` read without the tokenizer (issue 21): the text's UTF-8
   * bytes (a byte-level BPE token holds at least one byte), or the exact count for a text over
   * {@link LONG_RUN_EXACT_CHARACTERS} characters (whose long runs are estimated, see
   * {@link boundedEncodeLength}). O(characters), no cache, so a process that never counted the
   * text gets it as cheaply as one that did. Absent on a counter with a custom `countText`.
   */
  boundText?(text: string): number;
  /** An upper bound on `countMessage(message)`, its texts bounded as by {@link TokenCounter.boundText}. Absent with a custom `countText`. */
  boundMessage?(message: BaseMessage): number;
}

/** Options of {@link createTokenCounter}. */
export interface TokenCounterOptions {
  /** Model name; picks the encoding js-tiktoken knows for it (`gpt-4o` -> `o200k_base`). */
  model?: string;
  /** Encoding name; wins over `model`. @default "o200k_base" */
  encoding?: TiktokenEncoding;
  /** Replace the tokenizer: a function from text to token count. */
  countText?: (text: string) => number;
}

/** {@link TokenCounterOptions} as a strict schema: a misspelt key (`encodig`) is refused by name. */
export const tokenCounterOptionsSchema = z.strictObject({
  model: z.string().min(1).optional(),
  encoding: z.string().min(1).optional(),
  countText: z.custom<(text: string) => number>((value) => typeof value === "function", "expected a function (text) => number").optional(),
});

// By encoding name: an encoder is a pure function of its name (its ranks ship with the package).
const encoders = new Map<string, GptEncoding>();

const requireFromHere = createRequire(import.meta.url);

/**
 * The rank table of one encoding, loaded on first use. gpt-tokenizer's `resolveEncoding` module
 * imports all four tables (4.6 MB of source) wherever this module is imported; a process reads
 * only the ones its counters use. Throws gpt-tokenizer's error on an unknown encoding name.
 */
function bytePairRanks(name: string): RawBytePairRanks {
  const table = (path: string) => (requireFromHere(path) as { default: RawBytePairRanks }).default;
  switch (name) {
    case "gpt2":
    case "r50k_base":
      return table("gpt-tokenizer/bpeRanks/r50k_base");
    case "p50k_base":
    case "p50k_edit":
      return table("gpt-tokenizer/bpeRanks/p50k_base");
    case "cl100k_base":
      return table("gpt-tokenizer/bpeRanks/cl100k_base");
    case "o200k_base":
    case "o200k_harmony":
      return table("gpt-tokenizer/bpeRanks/o200k_base");
    default:
      throw new Error(`Unknown encoding name: ${String(name)}`);
  }
}

/**
 * Special-token strings (`<|endoftext|>`) in a text are counted as the plain text they are, as
 * the chat API tokenizes what a message says.
 */
const PLAIN_TEXT = { allowedSpecial: new Set<string>(), disallowedSpecial: new Set<string>() };

/**
 * The encoding to use: `encoding` when given, else the one js-tiktoken knows for `model` (a
 * provider prefix such as `openai:` is ignored), else {@link DEFAULT_ENCODING} (spec R3).
 * Never throws: an unknown model name gives the default.
 */
export function resolveEncoding(model?: string, encoding?: string): TiktokenEncoding {
  if (encoding) return encoding as TiktokenEncoding;
  if (!model) return DEFAULT_ENCODING;
  try {
    return getEncodingNameForModel(model.replace(/^[a-z-]+[:/]/i, "") as TiktokenModel);
  } catch {
    return DEFAULT_ENCODING;
  }
}

/** One encoder per encoding name for the whole process: building one parses its rank table (slow). */
function encoderFor(options: TokenCounterOptions): { name: string; encoder: GptEncoding } {
  const name = resolveEncoding(options.model, options.encoding);
  let encoder = encoders.get(name);
  if (!encoder) {
    encoder = GptEncoding.getEncodingApi(name, () => bytePairRanks(name));
    encoders.set(name, encoder);
  }
  return { name, encoder };
}

/**
 * What {@link messageText} puts between two text blocks whose texts meet without white space: a
 * line break, so that `[{ text: "Kim" }, { text: "I live in Seoul" }]` is analysed as two pieces
 * ("Kim\nI live in Seoul"), not as the word "KimI". English and Korean both separate words with
 * white space, and the fact rules and the summarizer's transcript read a line break as the end of
 * a piece.
 */
export const TEXT_BLOCK_SEPARATOR = "\n";

const WHITE_AT_END = /\s$/u;
const WHITE_AT_START = /^\s/u;

/**
 * The text of message content, as LangChain's `BaseMessage.text` reads it (what is sent): a
 * string as is; of an array, the `text` of its text blocks (and plain strings) joined with `""`.
 * Other blocks (images, tool calls, reasoning) are skipped. With `separator`, two texts that meet
 * without white space on either side get it between them (empty texts add nothing): the form
 * {@link messageText} reads for analysis.
 */
export function contentText(content: unknown, separator = ""): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const block of content) {
    let text: string | undefined;
    if (typeof block === "string") text = block;
    else if (block && typeof block === "object") {
      const b = block as { type?: unknown; text?: unknown };
      if (typeof b.text === "string" && (b.type === "text" || b.type === undefined)) text = b.text;
    }
    if (text === undefined || text === "") continue;
    if (separator !== "" && out !== "" && !WHITE_AT_END.test(out) && !WHITE_AT_START.test(text)) out += separator;
    out += text;
  }
  return out;
}

/**
 * The text of a message for analysis (facts, recall's index and query, the summarizer's
 * transcript, work memory's projection, token-free heuristics): {@link contentText} of its
 * content with {@link TEXT_BLOCK_SEPARATOR} between text blocks that would otherwise run together
 * (`"Kim"`, `"I live"` read `"Kim\nI live"`). The one place threadwise turns a message's blocks
 * into text to analyse; what is sent is never rebuilt from it. To read a model's answer as
 * LangChain does (`.text`), use `contentText(message.content)`.
 */
export function messageText(message: BaseMessage): string {
  return contentText((message as { content?: unknown }).content, TEXT_BLOCK_SEPARATOR);
}

/**
 * Tokens a request adds beside its messages and tools: {@link REPLY_PRIMING_TOKENS}, plus
 * {@link SYSTEM_WITH_TOOLS_TOKENS} when it sends both a system message and tools.
 */
export function requestOverheadTokens(request: { system: boolean; tools: boolean }): number {
  return REPLY_PRIMING_TOKENS + (request.system && request.tools ? SYSTEM_WITH_TOOLS_TOKENS : 0);
}

/** What one message sends, as texts to tokenize plus fixed costs. */
interface MessageParts {
  texts: string[];
  fixed: number;
}

/** A message's count and what it was counted from (see `cacheKey`). */
interface CountedParts {
  type: string;
  parts: MessageParts;
  total: number;
}

/** Whether two messages' parts are the same texts and fixed cost: what `cacheKey` hashes, besides the type. */
function sameParts(a: MessageParts, b: MessageParts): boolean {
  if (a.fixed !== b.fixed || a.texts.length !== b.texts.length) return false;
  for (let i = 0; i < a.texts.length; i++) if (a.texts[i] !== b.texts[i]) return false;
  return true;
}

/**
 * The parts of a message a provider's converter sends, each once: text blocks, images, files,
 * documents and reasoning by `contentBlockCost`; reasoning kept beside the content (OpenAI
 * Responses output items in `response_metadata.output`, else `additional_kwargs.reasoning`) in
 * place of the `reasoning` blocks @langchain/openai copies from it (one item, counted once); each tool call's name and arguments (a `tool_use` /
 * `tool_call` content block that repeats a `tool_calls` entry, as Anthropic AI messages carry
 * them, is the same call: the Anthropic converter sends it once and the OpenAI one drops the
 * block), the `name`, and a ToolMessage's `tool_call_id`.
 */
function messageParts(message: BaseMessage, pricing: BlockPricing): MessageParts {
  const texts: string[] = [];
  let fixed = MESSAGE_OVERHEAD_TOKENS;
  const calls = toolCallsOf(message);
  const content = (message as { content?: unknown }).content;
  // Reasoning is sent once: as the Responses output items when the message carries them (the
  // converter sends those in place of its fields), else as `additional_kwargs.reasoning`. The
  // `reasoning` content block @langchain/openai makes from the same item is then a copy.
  const items = messageType(message) === "ai" ? responsesOutputOf(message) : undefined;
  const reasoningAside = items
    ? responsesReasoningTexts(items)
    : additionalReasoningTexts((message as { additional_kwargs?: unknown }).additional_kwargs);
  if (typeof content === "string") texts.push(content);
  else if (Array.isArray(content)) {
    const callIds = new Set(calls.map((call) => call.id));
    for (const block of content) {
      if (typeof block === "string") {
        texts.push(block);
        continue;
      }
      if (!block || typeof block !== "object") continue;
      const b = block as Record<string, unknown>;
      const type = String(b.type ?? "");
      if (typeof b.text === "string") {
        texts.push(b.text);
        continue;
      }
      if (type === "reasoning" && reasoningAside.length > 0) continue;
      if (type === "tool_result") {
        // Anthropic's native format: a user message's result of a call, counted as a ToolMessage's.
        const inner = toolResultParts(b, pricing);
        texts.push(...inner.texts);
        fixed += inner.fixed;
        continue;
      }
      const cost = contentBlockCost(b, pricing);
      if (cost) {
        texts.push(...cost.texts);
        fixed += cost.fixed;
      } else if (type === "tool_use" || type === "tool_call") {
        if (typeof b.id === "string" && callIds.has(b.id)) continue;
        texts.push(String(b.name ?? ""), safeJson(b.input ?? b.args ?? {}));
        fixed += TOOL_CALL_OVERHEAD_TOKENS;
      }
      // Unknown block types: count their JSON without binary-looking fields, never throw.
      else texts.push(safeJson(stripBinary(b)));
    }
  } else if (content != null) texts.push(safeJson(content));
  texts.push(...reasoningAside);
  for (const call of calls) {
    texts.push(call.name ?? "", safeJson(call.args ?? {}));
    fixed += TOOL_CALL_OVERHEAD_TOKENS;
  }
  if (message.name) {
    texts.push(message.name);
    fixed += NAME_OVERHEAD_TOKENS;
  }
  if (messageType(message) === "tool") texts.push(String((message as { tool_call_id?: unknown }).tool_call_id ?? ""));
  return { texts, fixed };
}

/**
 * What a `{ type: "tool_result", tool_use_id, content }` block of a user message sends (Anthropic's
 * native format for a tool result): its `tool_use_id` and its content (a string, or blocks: text,
 * images and documents priced as in a message, other blocks as their JSON without binary), plus
 * {@link TOOL_CALL_OVERHEAD_TOKENS} for the block's framing, as a `tool_use` block is counted.
 */
function toolResultParts(block: Record<string, unknown>, pricing: BlockPricing): MessageParts {
  const texts = [String(block.tool_use_id ?? "")];
  let fixed = TOOL_CALL_OVERHEAD_TOKENS;
  const content = block.content;
  if (typeof content === "string") texts.push(content);
  else if (Array.isArray(content))
    for (const inner of content) {
      if (typeof inner === "string") texts.push(inner);
      else if (!inner || typeof inner !== "object") continue;
      else if (typeof (inner as { text?: unknown }).text === "string") texts.push((inner as { text: string }).text);
      else {
        const cost = contentBlockCost(inner as Record<string, unknown>, pricing);
        if (cost) {
          texts.push(...cost.texts);
          fixed += cost.fixed;
        } else texts.push(safeJson(stripBinary(inner)));
      }
    }
  else if (content != null) texts.push(safeJson(content));
  return { texts, fixed };
}

/** Longest string of an unknown block that is tokenized; longer ones are taken for binary (base64). */
const MAX_UNKNOWN_STRING_CHARACTERS = 1024;

/** A copy of an unknown block without long strings at any depth (base64 payloads hide in `source.data`). */
function stripBinary(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.length > MAX_UNKNOWN_STRING_CHARACTERS ? undefined : value;
  if (!value || typeof value !== "object" || depth > 8) return typeof value === "object" && value ? undefined : value;
  if (Array.isArray(value)) return value.map((item) => stripBinary(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const kept = stripBinary(item, depth + 1);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return "";
  }
}

/**
 * Key under which a message's count is cached: a digest of everything that is counted (type,
 * every text part in order, fixed costs), never of the id. One counter serves every thread, and
 * ids are only unique within one (apps use `msg-1` everywhere); a key of id and shape once let a
 * message with 6,000 characters of tool-call arguments take the 9-token count of another
 * thread's message (issue 12). Hashing is linear in the text but far cheaper than tokenizing.
 */
function cacheKey(message: BaseMessage, parts: MessageParts): string {
  const hash = createHash("sha1").update(messageType(message)).update("\u0000").update(String(parts.fixed));
  for (const text of parts.texts) hash.update("\u0000").update(text);
  return hash.digest("base64");
}

/**
 * Where `text` may be cut without changing its token count: after a newline that is followed by
 * a character other than whitespace and `/`. The pre-tokenizers of cl100k_base, o200k_base and
 * the older GPT encodings never put such a newline and the next character in one piece (only
 * o200k's punctuation rule takes `\n/` along), and BPE never merges across pieces, so the counts
 * of the segments add up to the count of the whole text, exactly. By default every such cut is
 * made, so each line of a context block (a fact, its `[label]` heading) is a segment of its own and
 * a block whose facts changed costs only its new lines (issue 16); with `minCharacters`,
 * consecutive lines are kept together until a segment holds that many characters. A text without
 * a newline is one segment.
 */
const UNCUTTABLE_AFTER_NEWLINE = /[\s/]/u;

export function tokenSegments(text: string, minCharacters = 0): string[] {
  const out: string[] = [];
  let start = 0;
  let at = text.indexOf("\n");
  while (at !== -1 && at + 1 < text.length) {
    if (at + 1 - start >= minCharacters && !UNCUTTABLE_AFTER_NEWLINE.test(text[at + 1] as string)) {
      out.push(text.slice(start, at + 1));
      start = at + 1;
    }
    at = text.indexOf("\n", at + 1);
  }
  out.push(text.slice(start));
  return out;
}

/** Runs of letters (or of punctuation) longer than this are counted in pieces (see {@link boundedEncodeLength}). */
export const LONG_RUN_CHARACTERS = 64;
/** Characters of one long run that are counted exactly; the rest of the run is estimated. */
export const LONG_RUN_EXACT_CHARACTERS = 2048;
// Only runs the pre-tokenizer keeps as one piece are slow: letters (with marks), or punctuation.
// JSON, URLs and base64 alternate classes and split into short pieces, so they stay exact.
const LONG_RUN = new RegExp(`[\\p{L}\\p{M}]{${LONG_RUN_CHARACTERS + 1},}|[^\\s\\p{L}\\p{M}\\p{N}]{${LONG_RUN_CHARACTERS + 1},}`, "gu");
const LONG_RUN_PIECE = 32;

/**
 * Token count of `text` in time linear in its length. BPE merging (gpt-tokenizer's, as
 * js-tiktoken's) is quadratic in the length of one pre-tokenized word, so a 30,000-character word
 * (a run of letters, Korean text without spaces, a line of `=`) takes seconds to minutes. Ordinary text, JSON and base64 (their
 * classes alternate, so their pieces stay short) are counted exactly. A run of more than
 * {@link LONG_RUN_CHARACTERS} letters, or of punctuation, is counted in
 * 32-character pieces (at most one token per piece above the exact count); past its first
 * {@link LONG_RUN_EXACT_CHARACTERS} characters the rest of the run is estimated from the
 * tokens-per-character of that exact part, plus 10%. Both err high, which is the safe side for a
 * budget.
 */
export function boundedEncodeLength(text: string, encodeLength: (text: string) => number): number {
  if (text.length <= LONG_RUN_CHARACTERS) return text.length === 0 ? 0 : encodeLength(text);
  LONG_RUN.lastIndex = 0;
  if (!LONG_RUN.test(text)) return encodeLength(text);
  let total = 0;
  let last = 0;
  LONG_RUN.lastIndex = 0;
  for (const match of text.matchAll(LONG_RUN)) {
    const at = match.index ?? 0;
    if (at > last) total += encodeLength(text.slice(last, at));
    const run = Array.from(match[0]);
    const exact = Math.min(run.length, LONG_RUN_EXACT_CHARACTERS);
    let runTokens = 0;
    for (let i = 0; i < exact; i += LONG_RUN_PIECE) runTokens += encodeLength(run.slice(i, Math.min(i + LONG_RUN_PIECE, exact)).join(""));
    if (run.length > exact) runTokens += Math.ceil(((run.length - exact) * runTokens * 1.1) / exact);
    total += runTokens;
    last = at + match[0].length;
  }
  if (last < text.length) total += encodeLength(text.slice(last));
  return total;
}

/**
 * Creates a token counter (spec R3) over gpt-tokenizer's BPE of OpenAI's encodings (the model's
 * encoding as js-tiktoken maps it), counting what OpenAI's chat format sends
 * (cookbook `num_tokens_from_messages`): per message {@link MESSAGE_OVERHEAD_TOKENS} plus its
 * parts, each once (text blocks joined as LangChain's `.text` does, tool calls by name and
 * arguments plus {@link TOOL_CALL_OVERHEAD_TOKENS}, the name plus {@link NAME_OVERHEAD_TOKENS},
 * a ToolMessage's `tool_call_id`); tools as OpenAI renders them in the prompt (TypeScript
 * definitions, {@link renderToolDefinitions}) plus {@link TOOLS_OVERHEAD_TOKENS}. What a request
 * adds once (reply priming) is {@link requestOverheadTokens}. On the tau-bench airline dev set
 * this is within 1% of the provider-style count (`bench/token-count.ts`). Text is counted as
 * tiktoken counts it, token for token, except that a special-token string in a message
 * (`<|endoftext|>`) counts as the plain text it is, as the chat API reads a message (gpt-tokenizer
 * is about 4x faster than js-tiktoken on LoCoMo text and builds its pattern once).
 *
 * Caching, all exact: per-message counts by a digest of everything counted (a bounded map), and
 * by object (a `WeakMap`), so counting the same thread again on the next turn, even as fresh
 * objects from a checkpointer, tokenizes only the new messages. `countText` and system messages
 * remember their texts by value line by line ({@link tokenSegments}; a text without a newline is
 * one segment): the system prompt, the history note and every line of a context block, as parts
 * of a system message or in the stable_tail context, so a changed facts block costs the tokens of
 * its own new lines only. Other messages' long texts are remembered in segments of 128+ characters.
 * Content blocks cost what their provider charges (`content-block-tokens.ts`): images by their
 * size (OpenAI's tiles; Anthropic's width x height / 750; standard blocks by the rule of the
 * `model` option's provider, `claude*` Anthropic, else OpenAI), PDFs by their pages, text files
 * and documents by their text, reasoning (`additional_kwargs.reasoning` too) by its text; audio
 * and video a fixed cost. Unknown block types are counted by their JSON and never throw.
 *
 * @example
 * const counter = createTokenCounter({ model: "gpt-4o-mini" });
 * counter.countMessages([new HumanMessage("안녕하세요")]); // tokens incl. framing
 * @throws ThreadwiseConfigError naming the option (`createTokenCounter.encodig`) when an option is unknown or invalid.
 */
export function createTokenCounter(input: TokenCounterOptions = {}): TokenCounter {
  parseOptions("createTokenCounter", tokenCounterOptionsSchema, input);
  const options = optionsObject<TokenCounterOptions>("createTokenCounter", input);
  let encoded = 0;
  let name: string;
  let countText: (text: string) => number;
  // How the text parts of a message other than a system message are counted (see MESSAGE_SEGMENT_MIN_CHARACTERS).
  let countMessageText: (text: string) => number;
  if (options.countText) {
    name = "custom";
    const custom = options.countText;
    countText = (text) => {
      encoded += text.length;
      return custom(text);
    };
    countMessageText = countText;
  } else {
    const resolved = encoderFor(options);
    name = resolved.name;
    const encoder = resolved.encoder;
    const encodeText = (text: string) => {
      encoded += text.length;
      return boundedEncodeLength(text, (piece) => encoder.countTokens(piece, PLAIN_TEXT));
    };
    // By the segment's text, per counter (one encoder): a count is a pure function of the two.
    const bySegment = new Map<string, number>();
    const countSegment = (segment: string): number => {
      if (segment.length > SEGMENT_MEMO_MAX_CHARACTERS) return encodeText(segment);
      let count = bySegment.get(segment);
      if (count === undefined) {
        count = encodeText(segment);
        setBounded(bySegment, segment, count, SEGMENT_MEMO_ENTRIES);
      }
      return count;
    };
    countText = (text) => {
      // Every line is remembered, short texts whole: the system prompt, the history note and the
      // lines of a context block come back on every call, often in a new system message.
      let total = 0;
      for (const segment of tokenSegments(text)) total += countSegment(segment);
      return total;
    };
    countMessageText = (text) => {
      if (text.length < MESSAGE_SEGMENT_MIN_CHARACTERS) return encodeText(text);
      let total = 0;
      for (const segment of tokenSegments(text, MESSAGE_SEGMENT_CHARACTERS)) total += countSegment(segment);
      return total;
    };
  }
  // A message's count beside the parts it was counted from, reused only while its parts are the
  // same (the strings `cacheKey` hashes): a message changed in place is counted again, as a fresh
  // counter would count it; an unchanged one skips the hash.
  const byObject = new WeakMap<object, CountedParts>();
  // By `cacheKey`: the type and every part counted (texts by value), per counter.
  const byKey = new Map<string, number>();
  const pricing = blockPricingFor(options.model);
  const countedFor = (message: BaseMessage, parts: MessageParts): number | undefined => {
    const seen = byObject.get(message);
    return seen !== undefined && seen.type === messageType(message) && sameParts(seen.parts, parts) ? seen.total : undefined;
  };

  const countMessage = (message: BaseMessage): number => {
    const parts = messageParts(message, pricing);
    const seen = countedFor(message, parts);
    if (seen !== undefined) return seen;
    const key = cacheKey(message, parts);
    let total = byKey.get(key);
    if (total === undefined) {
      total = parts.fixed;
      const count = messageType(message) === "system" ? countText : countMessageText;
      for (const text of parts.texts) total += count(text);
      setBounded(byKey, key, total, TOKEN_CACHE_ENTRIES);
    }
    byObject.set(message, { type: messageType(message), parts, total });
    return total;
  };

  // Upper bounds (issue 21): UTF-8 bytes, which no byte-level BPE count exceeds (boundedEncodeLength
  // counts pieces of a long run exactly, so their sum stays within the run's bytes; past
  // LONG_RUN_EXACT_CHARACTERS it estimates, so longer texts are counted instead).
  const bounds = options.countText
    ? {}
    : {
        boundText: (text: string): number => (text.length > LONG_RUN_EXACT_CHARACTERS ? countText(text) : Buffer.byteLength(text, "utf8")),
        boundMessage: (message: BaseMessage): number => {
          const parts = messageParts(message, pricing);
          const seen = countedFor(message, parts);
          if (seen !== undefined) return seen;
          const count = messageType(message) === "system" ? countText : countMessageText;
          let total = parts.fixed;
          for (const text of parts.texts) total += text.length > LONG_RUN_EXACT_CHARACTERS ? count(text) : Buffer.byteLength(text, "utf8");
          return total;
        },
      };

  return {
    encoding: name,
    ...bounds,
    get encodedCharacters() {
      return encoded;
    },
    countText,
    countMessage,
    countMessages(messages) {
      let total = 0;
      for (const message of messages) total += countMessage(message);
      return total;
    },
    countTools(tools) {
      if (tools.length === 0) return 0;
      // Rendered from the tools as they are now; the text is counted through the by-value text
      // cache, so an unchanged list costs no tokenizing.
      return TOOLS_OVERHEAD_TOKENS + countText(renderToolDefinitions(tools));
    },
  };
}
