import type { BaseMessage } from "@langchain/core/messages";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { getEncoding, getEncodingNameForModel, type Tiktoken, type TiktokenEncoding, type TiktokenModel } from "js-tiktoken";
import { z } from "zod";
import { parseOptions } from "./errors.js";
import { messageType, toolCallsOf } from "./groups.js";

/** Encoding used when neither an encoding nor a known model name is given (spec R3). */
export const DEFAULT_ENCODING: TiktokenEncoding = "o200k_base";
/** Fixed cost of one image block, in tokens: OpenAI's price of a 512x512 high-detail tile plus base (170 + 85). */
export const IMAGE_BLOCK_TOKENS = 255;
/** Fixed cost of a file, audio or other binary block, in tokens (its bytes are never tokenized). */
export const BINARY_BLOCK_TOKENS = 255;
/** Per-message framing overhead, in tokens, as in OpenAI's chat format (role and separators). */
export const MESSAGE_OVERHEAD_TOKENS = 3;
/** Upper bound on cached per-message counts; older entries are evicted first. */
export const TOKEN_CACHE_ENTRIES = 100_000;
/** Texts at least this long (characters) have their count remembered by value; shorter ones are cheap to encode. */
const TEXT_MEMO_MIN_CHARACTERS = 256;
/** Texts longer than this (characters) are not remembered by value, to bound the memo's memory. */
const TEXT_MEMO_MAX_CHARACTERS = 65_536;
/** Most texts remembered by value per counter; the oldest goes first. */
const TEXT_MEMO_ENTRIES = 128;

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
  /** Tokens of tool schemas as sent to the model (JSON of name, description and parameters). */
  countTools(tools: readonly unknown[]): number;
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

const encoders = new Map<string, Tiktoken>();

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
function encoderFor(options: TokenCounterOptions): { name: string; encoder: Tiktoken } {
  const name = resolveEncoding(options.model, options.encoding);
  let encoder = encoders.get(name);
  if (!encoder) {
    encoder = getEncoding(name);
    encoders.set(name, encoder);
  }
  return { name, encoder };
}

/** The text a message carries, joined over its text blocks; other blocks are skipped. */
export function messageText(message: BaseMessage): string {
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (typeof block === "string") parts.push(block);
    else if (block && typeof block === "object" && typeof (block as { text?: unknown }).text === "string") {
      parts.push((block as { text: string }).text);
    }
  }
  return parts.join("\n");
}

function contentTokens(content: unknown, countText: (text: string) => number): number {
  if (typeof content === "string") return countText(content);
  if (!Array.isArray(content)) return content == null ? 0 : countText(safeJson(content));
  let total = 0;
  for (const block of content) {
    if (typeof block === "string") {
      total += countText(block);
      continue;
    }
    if (!block || typeof block !== "object") continue;
    const b = block as Record<string, unknown>;
    const type = String(b.type ?? "");
    if (typeof b.text === "string") total += countText(b.text);
    else if (type === "image_url" || type === "image") total += IMAGE_BLOCK_TOKENS;
    else if (type === "file" || type === "audio" || type === "input_audio" || type === "video") total += BINARY_BLOCK_TOKENS;
    else if (typeof b.reasoning === "string") total += countText(b.reasoning);
    else if (typeof b.thinking === "string") total += countText(b.thinking);
    else if (type === "tool_use" || type === "tool_call") total += countText(safeJson(b.input ?? b.args ?? ""));
    // Unknown block types: count their JSON without binary-looking fields, never throw.
    else total += countText(safeJson(stripBinary(b)));
  }
  return total;
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
 * Key under which a message's count is cached. Checkpointers hand back new message objects every
 * turn, so an object-identity cache would recount the whole thread each call; the id plus a cheap
 * shape fingerprint survives that while still catching an edited message with the same id.
 */
function cacheKey(message: BaseMessage): string | undefined {
  const id = message.id;
  if (!id) return undefined;
  const content = (message as { content?: unknown }).content;
  let size = 0;
  let sample = "";
  if (typeof content === "string") {
    size = content.length;
    sample = content.length <= 32 ? content : content.slice(0, 16) + content.slice(-16);
  } else if (Array.isArray(content)) {
    // Sum of lengths, not a joined string: building the text would cost O(characters) per message
    // on every call, which is what the cache is there to avoid.
    size = content.length * 7919;
    for (const block of content) {
      if (typeof block === "string") size += block.length;
      else if (block && typeof (block as { text?: unknown }).text === "string") size += (block as { text: string }).text.length;
    }
    const first = content[0] as { text?: unknown } | string | undefined;
    const last = content[content.length - 1] as { text?: unknown } | string | undefined;
    const textOf = (b: typeof first) => (typeof b === "string" ? b : typeof b?.text === "string" ? b.text : "");
    sample = textOf(first).slice(0, 16) + textOf(last).slice(-16);
  }
  // Ids are only unique within a thread (apps may use "msg-1" everywhere), and one counter serves
  // every thread: the start and end of the text guard against a same-id, same-length message of
  // another thread without hashing the whole text.
  return `${messageType(message)}|${id}|${size}|${toolCallsOf(message).length}|${sample}`;
}

/** Runs of non-space characters longer than this are counted in pieces (see {@link boundedEncodeLength}). */
export const LONG_RUN_CHARACTERS = 64;
/** Characters of one long run that are counted exactly; the rest of the run is estimated. */
export const LONG_RUN_EXACT_CHARACTERS = 2048;
const LONG_RUN = new RegExp(`\\S{${LONG_RUN_CHARACTERS + 1},}`, "gu");
const LONG_RUN_PIECE = 32;

/**
 * Token count of `text` in time linear in its length. BPE merging in js-tiktoken is quadratic in
 * the length of one pre-tokenized word, so a 30,000-character line without spaces (base64, a
 * minified file, Korean text without spaces) takes seconds to minutes. Ordinary text is counted
 * exactly. A run of more than {@link LONG_RUN_CHARACTERS} non-space characters is counted in
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
 * Creates a token counter over js-tiktoken (spec R3).
 *
 * Per-message counts are cached by message id plus a shape fingerprint (a bounded map), or by
 * object (a `WeakMap`) for messages without an id, so counting the same thread again on the next
 * turn tokenizes only the new messages; the rest is one map lookup per message. Images cost {@link IMAGE_BLOCK_TOKENS}; file and audio blocks
 * {@link BINARY_BLOCK_TOKENS}; unknown block types are counted by their JSON and never throw.
 *
 * @example
 * const counter = createTokenCounter({ model: "gpt-4o-mini" });
 * counter.countMessages([new HumanMessage("안녕하세요")]); // tokens incl. framing
 * @throws ThreadwiseConfigError naming the option (`createTokenCounter.encodig`) when an option is unknown or invalid.
 */
export function createTokenCounter(options: TokenCounterOptions = {}): TokenCounter {
  parseOptions("createTokenCounter", tokenCounterOptionsSchema, options);
  let name: string;
  let countText: (text: string) => number;
  if (options.countText) {
    name = "custom";
    countText = options.countText;
  } else {
    const resolved = encoderFor(options);
    name = resolved.name;
    const encoder = resolved.encoder;
    const encodeText = (text: string) => boundedEncodeLength(text, (piece) => encoder.encode(piece, "all").length);
    // System prompts and their context blocks come back as new objects without an id on every model
    // call, so the message cache misses them; their text repeats, so long texts are remembered by
    // value (bounded: entries and length). Exact: the same text always has the same count.
    const byText = new Map<string, number>();
    countText = (text) => {
      if (text.length < TEXT_MEMO_MIN_CHARACTERS || text.length > TEXT_MEMO_MAX_CHARACTERS) return encodeText(text);
      let count = byText.get(text);
      if (count === undefined) {
        count = encodeText(text);
        if (byText.size >= TEXT_MEMO_ENTRIES) byText.delete(byText.keys().next().value as string);
        byText.set(text, count);
      }
      return count;
    };
  }
  const byObject = new WeakMap<object, number>();
  const byKey = new Map<string, number>();
  // Tool objects are the same on every call of one agent; their schemas are converted once.
  const byTool = new WeakMap<object, number>();

  const countMessage = (message: BaseMessage): number => {
    // Messages with an id are cached by key only: a checkpointer hands back fresh objects every
    // turn, and remembering each of them in a WeakMap would cost more (GC) than the key lookup.
    const key = cacheKey(message);
    if (key !== undefined) {
      const hit = byKey.get(key);
      if (hit !== undefined) return hit;
    } else {
      const cached = byObject.get(message);
      if (cached !== undefined) return cached;
    }
    let total = MESSAGE_OVERHEAD_TOKENS + contentTokens((message as { content?: unknown }).content, countText);
    for (const call of toolCallsOf(message)) total += countText(call.name ?? "") + countText(safeJson(call.args ?? {}));
    if (message.name) total += countText(message.name);
    if (key === undefined) byObject.set(message, total);
    else {
      if (byKey.size >= TOKEN_CACHE_ENTRIES) byKey.delete(byKey.keys().next().value as string);
      byKey.set(key, total);
    }
    return total;
  };

  return {
    encoding: name,
    countText,
    countMessage,
    countMessages(messages) {
      let total = 0;
      for (const message of messages) total += countMessage(message);
      return total;
    },
    countTools(tools) {
      let total = 0;
      for (const tool of tools) {
        if (tool && typeof tool === "object") {
          let cost = byTool.get(tool);
          if (cost === undefined) {
            cost = countText(safeJson(toolSchema(tool)));
            byTool.set(tool, cost);
          }
          total += cost;
        } else total += countText(safeJson(tool));
      }
      return total;
    },
  };
}

/** The part of a tool that is sent to the model, as LangChain converts it for OpenAI. */
function toolSchema(tool: unknown): unknown {
  if (!tool || typeof tool !== "object") return tool;
  try {
    return convertToOpenAITool(tool as Parameters<typeof convertToOpenAITool>[0]);
  } catch {
    const t = tool as { name?: unknown; description?: unknown };
    return { name: t.name, description: t.description };
  }
}
