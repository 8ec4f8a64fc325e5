import { type BaseMessage, SystemMessage, type ToolMessage } from "@langchain/core/messages";
import { tailContextOf } from "./assemble-view.js";
import {
  answersCallIn,
  isContextMessage,
  isResultOnly,
  messageType,
  programmaticCallIds,
  toolMessageWith,
  userMessageWith,
} from "./message-kinds.js";
import { type ContextBlock, placeContextBlocks, resolvePromptContextMode, sortContextBlocks } from "./placement.js";
import { type PlacementRequest, viewDecisionsOf, viewSystemMessage } from "./view-request.js";

/** Lifetime of an Anthropic cache entry: 5 minutes (writes 1.25x) or 1 hour (writes 2x). */
export type CacheTtl = "5m" | "1h";

/** Options of {@link withCacheBreakpoints}. */
export interface CacheBreakpointOptions {
  /** Lifetime of the entries the breakpoints write. @default "5m" */
  ttl?: CacheTtl;
  /**
   * Also mark the end of the context blocks rendered into the system prompt (a summary placed at
   * the head changes once per period, so its prefix is worth a breakpoint). Leave off when those
   * blocks change on every call (`legacy_system` with facts): a write there is never read.
   * @default false
   */
  markSystemContext?: boolean;
}

/** Most breakpoints Anthropic accepts in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

type Block = Record<string, unknown>;

function marker(ttl: CacheTtl): Block {
  return ttl === "5m" ? { type: "ephemeral" } : { type: "ephemeral", ttl };
}

function blocksOf(content: unknown): Block[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((block) => (typeof block === "string" ? { type: "text", text: block } : (block as Block)));
}

/** `blocks` with `cache_control` on the block at `index` (a new array; the block is copied). */
function markAt(blocks: readonly Block[], index: number, ttl: CacheTtl): Block[] {
  return blocks.map((block, i) => (i === index ? { ...block, cache_control: marker(ttl) } : block));
}

/**
 * A copy of a user or tool message with the breakpoint on its last content block, or, with
 * `beforeTail`, on the block before the stable_tail context block placed at its end; `undefined`
 * when there is no such block.
 */
function markMessage(message: BaseMessage, ttl: CacheTtl, beforeTail = false): BaseMessage | undefined {
  const blocks = blocksOf(message.content);
  const at = blocks.length - (beforeTail ? 2 : 1);
  if (at < 0) return undefined;
  const content = markAt(blocks, at, ttl) as never;
  const type = messageType(message);
  if (type === "human") return userMessageWith(message, content);
  if (type === "tool") return toolMessageWith(message as ToolMessage, content);
  return undefined;
}

/**
 * Places Anthropic prompt-cache breakpoints (`cache_control`) on a model request, where the next
 * request can read what they write (spec R36):
 *
 * 1. the end of the operator's system prompt (its own blocks, before any rendered context), so
 *    tools and the system prompt stay cached when a summary or the window changes;
 * 2. with `markSystemContext`, the end of the context blocks rendered into the system prompt;
 * 3. the newest user message's own content, before the stable_tail context block placed at its
 *    end (or the newest user or tool message when nothing is in the tail): the next turn's request
 *    starts with everything up to it, and reads it back through the provider's 20-block lookback;
 * 4. when the model is called again inside a tool loop, the newest tool result after the tail,
 *    so the loop's next call reads the loop so far.
 *
 * Never on the stable_tail context: it is not stored and is not a prefix of any later request. Never
 * on the result of a call made by Anthropic's code execution ({@link programmaticCallIds}): the
 * search for 3. goes on to the message before it, and 4. is left out. At most
 * {@link MAX_CACHE_BREAKPOINTS}; blocks and tool definitions that already carry `cache_control`
 * count against the limit and are kept, and a mark placed after a 5-minute one gets 5 minutes
 * (none is placed where a 1-hour mark would follow it; Anthropic refuses a 1h mark after a 5m one). The request is a new object; no message object is changed (marked messages are
 * copies with the same id). The marks only mean something to Anthropic models; other providers
 * may reject the field, so apply it only to requests for an Anthropic model.
 */
export function withCacheBreakpoints<R extends PlacementRequest>(request: R, options: CacheBreakpointOptions = {}): R {
  const ttl = options.ttl ?? "5m";
  const existing = countMarks(request);
  let budget = MAX_CACHE_BREAKPOINTS - existing;
  if (budget <= 0) return request;

  // System prompt: the operator's blocks first, then what placement rendered after them.
  const { system: split, baseEnd } = splitSystem(blocksOf(viewSystemMessage(request).content), blocksOf(request.systemMessage.content));
  let system = split;
  let systemChanged = false;
  // Every mark in Anthropic's processing order, the request's own and each one placed here, so
  // that a placed mark's TTL never makes a 1h mark follow a 5m one.
  const marks = existingMarks(request, system);
  const place = (at: MarkAt): CacheTtl | undefined => {
    const given = ttlAt(at, ttl, marks);
    if (given !== undefined) marks.push({ at, ttl: given });
    return given;
  };
  if (baseEnd >= 0 && budget > 0 && !(system[baseEnd] as Block).cache_control) {
    const given = place([1, 0, baseEnd]);
    if (given) {
      system = markAt(system, baseEnd, given);
      systemChanged = true;
      budget -= 1;
    }
  }
  if (options.markSystemContext && system.length - 1 > baseEnd && budget > 0 && !(system.at(-1) as Block).cache_control) {
    const given = place([1, 0, system.length - 1]);
    if (given) {
      system = markAt(system, system.length - 1, given);
      systemChanged = true;
      budget -= 1;
    }
  }

  // Messages: the newest stored content before the tail, then the newest tool result after it.
  // The tail is a text block at the end of the newest user message (or, without a user message,
  // a context message of its own).
  const messages = [...request.messages];
  let tailAt = -1;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    if (tailContextOf(messages[i] as BaseMessage) !== undefined) {
      tailAt = i;
      break;
    }
  }
  // Results of calls made by code execution never take a mark: Anthropic refuses one there.
  const programmatic = programmaticCallIds(messages);
  const markable = (i: number) => !answersCallIn(messages[i] as BaseMessage, programmatic);
  const targets: Array<{ index: number; beforeTail: boolean }> = [];
  if (tailAt !== -1 && !isContextMessage(messages[tailAt] as BaseMessage)) targets.push({ index: tailAt, beforeTail: true });
  else {
    for (let i = (tailAt === -1 ? messages.length : tailAt) - 1; i >= 0; i -= 1) {
      const type = messageType(messages[i] as BaseMessage);
      if ((type === "human" || type === "tool") && markable(i)) {
        targets.push({ index: i, beforeTail: false });
        break;
      }
    }
  }
  const last = messages.length - 1;
  // A ToolMessage, or a user message of only tool_result blocks (Anthropic's native format).
  if (tailAt !== -1 && last > tailAt && isResultOnly(messages[last] as BaseMessage) && markable(last))
    targets.push({ index: last, beforeTail: false });
  let messagesChanged = false;
  for (const { index, beforeTail } of targets) {
    if (budget <= 0) break;
    const block = blocksOf((messages[index] as BaseMessage).content).length - (beforeTail ? 2 : 1);
    if (block < 0) continue;
    const given = place([2, index, block]);
    if (!given) continue;
    const marked = markMessage(messages[index] as BaseMessage, given, beforeTail);
    if (!marked) continue;
    messages[index] = marked;
    messagesChanged = true;
    budget -= 1;
  }
  if (!systemChanged && !messagesChanged) return request;
  const systemMessage = systemChanged
    ? new SystemMessage({ ...fieldsOf(request.systemMessage), content: system as never })
    : request.systemMessage;
  return { ...request, systemMessage, messages: messagesChanged ? messages : request.messages };
}

/**
 * The rendered system prompt as blocks, with the index of the operator's last block: rendered
 * blocks appended after the operator's (block content), or the operator's text and the rest as two
 * blocks (string content, where placement appended text), or, when neither holds (another
 * middleware rewrote the prompt), the whole prompt as the operator's.
 */
function splitSystem(base: Block[], rendered: Block[]): { system: Block[]; baseEnd: number } {
  if (rendered.length === 0) return { system: rendered, baseEnd: -1 };
  const same = (a: Block, b: Block) => JSON.stringify(a) === JSON.stringify(b);
  if (base.length > 0 && base.length <= rendered.length && base.every((block, i) => same(block, rendered[i] as Block)))
    return { system: rendered, baseEnd: base.length - 1 };
  const text = (blocks: Block[]) => blocks.map((b) => (typeof b.text === "string" ? b.text : "")).join("");
  const isText = (blocks: Block[]) => blocks.every((b) => b.type === "text");
  if (base.length > 0 && isText(base) && isText(rendered) && text(rendered).startsWith(text(base))) {
    const rest = text(rendered).slice(text(base).length);
    return {
      system:
        rest === ""
          ? [{ type: "text", text: text(base) }]
          : [
              { type: "text", text: text(base) },
              { type: "text", text: rest },
            ],
      baseEnd: 0,
    };
  }
  return { system: rendered, baseEnd: rendered.length - 1 };
}

function fieldsOf(message: SystemMessage) {
  return { id: message.id, name: message.name, additional_kwargs: message.additional_kwargs, response_metadata: message.response_metadata };
}

/**
 * Breakpoints a request already carries on its system prompt, its messages and its tool
 * definitions. Anthropic counts the tools' marks in the same limit (`A maximum of 4 blocks with
 * cache_control may be provided. Found 5.`), and `@langchain/anthropic` sends a LangChain tool's
 * `extras.cache_control` (its documented way to cache the tool definitions), an Anthropic tool
 * definition's `cache_control`, and `extras.providerToolDefinition` as given.
 */
function countMarks(request: PlacementRequest): number {
  const count = (content: unknown) => blocksOf(content).filter((b) => b.cache_control !== undefined).length;
  return count(request.systemMessage.content) + request.messages.reduce((n, m) => n + count(m.content), 0) + toolMarks(request).length;
}

/** The `cache_control` marks on the request's tool definitions, in order (see {@link countMarks}). */
function toolMarks(request: PlacementRequest): unknown[] {
  const tools = (request as { tools?: unknown }).tools;
  if (!Array.isArray(tools)) return [];
  const out: unknown[] = [];
  for (const tool of tools) {
    if (tool === null || typeof tool !== "object") continue;
    const extras = (tool as { extras?: { cache_control?: unknown; providerToolDefinition?: { cache_control?: unknown } } }).extras;
    const definition = extras?.providerToolDefinition;
    const mark = definition ? definition.cache_control : (extras?.cache_control ?? (tool as { cache_control?: unknown }).cache_control);
    if (mark !== undefined && mark !== null) out.push(mark);
  }
  return out;
}

/** Where a mark sits in Anthropic's processing order: section (0 tools, 1 system, 2 messages), item, block. */
type MarkAt = readonly [number, number, number];

interface PlacedMark {
  at: MarkAt;
  ttl: CacheTtl;
}

const compareAt = (a: MarkAt, b: MarkAt): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** A mark's TTL as Anthropic reads it: `"1h"`, else the default 5 minutes. */
const ttlOfMark = (mark: unknown): CacheTtl => ((mark as { ttl?: unknown } | null)?.ttl === "1h" ? "1h" : "5m");

/** The marks the request already carries (tools, the rendered system blocks `system`, messages), with their TTLs. */
function existingMarks(request: PlacementRequest, system: readonly Block[]): PlacedMark[] {
  const out: PlacedMark[] = [];
  toolMarks(request).forEach((mark, i) => {
    out.push({ at: [0, i, 0], ttl: ttlOfMark(mark) });
  });
  system.forEach((block, j) => {
    if (block.cache_control !== undefined) out.push({ at: [1, 0, j], ttl: ttlOfMark(block.cache_control) });
  });
  request.messages.forEach((message, i) => {
    blocksOf(message.content).forEach((block, j) => {
      if (block.cache_control !== undefined) out.push({ at: [2, i, j], ttl: ttlOfMark(block.cache_control) });
    });
  });
  return out;
}

/**
 * The TTL a new mark at `at` may carry among `marks`: `wanted`, or 5 minutes when a mark before it
 * has 5 minutes; `undefined` (no mark there) when a 1-hour mark after it would then follow a
 * 5-minute one. Anthropic refuses that order: `a ttl='1h' cache_control block must not come after a
 * ttl='5m' cache_control block. Note that blocks are processed in the following order: tools,
 * system, messages` (a caller's tool or system prompt marked with the default TTL, the stack's
 * marks at `ttl: "1h"`).
 */
function ttlAt(at: MarkAt, wanted: CacheTtl, marks: readonly PlacedMark[]): CacheTtl | undefined {
  let ttl = wanted;
  for (const mark of marks) if (mark.ttl === "5m" && compareAt(mark.at, at) < 0) ttl = "5m";
  if (ttl === "5m") for (const mark of marks) if (mark.ttl === "1h" && compareAt(mark.at, at) > 0) return undefined;
  return ttl;
}

/** Kinds of context blocks that change rarely (once per summary period), worth a breakpoint after them. */
const RARELY_CHANGING_KINDS = new Set(["summary", "work_memory"]);

/** Blocks of this request rendered into the system prompt (by its placement mode), in rendering order. */
export function systemContextBlocksOf(request: PlacementRequest): readonly ContextBlock[] {
  const decisions = viewDecisionsOf(request);
  const blocks = sortContextBlocks(decisions.blocks).filter((b) => b.text.trim() !== "");
  return placeContextBlocks(blocks, decisions.mode ?? resolvePromptContextMode()).head;
}

/** `true` for a LangChain model that talks to Anthropic (`ChatAnthropic`, or `initChatModel` with provider anthropic). */
export function isAnthropicModel(model: unknown): boolean {
  const m = model as { getName?: () => string; _defaultConfig?: { modelProvider?: string } } | undefined;
  const name = typeof m?.getName === "function" ? m.getName() : undefined;
  return name === "ChatAnthropic" || (name === "ConfigurableModel" && m?._defaultConfig?.modelProvider === "anthropic");
}

/** What {@link cacheBreakpointsFor} needs from a model request. */
export interface BreakpointRequest extends PlacementRequest {
  model?: unknown;
  modelSettings?: Record<string, unknown>;
}

/**
 * {@link withCacheBreakpoints} for a request of an agent: does nothing unless the model is an
 * Anthropic one (or `anyModel`), and takes over a top-level `cache_control` that LangChain's
 * `anthropicPromptCachingMiddleware` put in `modelSettings` (its TTL is kept; the automatic
 * breakpoint would land on the last block, the unstored context message in stable_tail). The
 * context rendered into the system prompt gets its own breakpoint when it holds only blocks that
 * change rarely (`summary`, `work_memory`).
 */
export function cacheBreakpointsFor<R extends BreakpointRequest>(
  request: R,
  blocks: readonly { kind: string }[],
  options: { ttl?: CacheTtl; anyModel?: boolean } = {},
): R {
  if (!options.anyModel && !isAnthropicModel(request.model)) return request;
  const settings = request.modelSettings ?? {};
  const top = settings.cache_control as { ttl?: string } | undefined;
  const ttl: CacheTtl = options.ttl ?? (top?.ttl === "1h" ? "1h" : "5m");
  const markSystemContext = blocks.length > 0 && blocks.every((b) => RARELY_CHANGING_KINDS.has(b.kind));
  const marked = withCacheBreakpoints(request, { ttl, markSystemContext });
  if (!top) return marked;
  const { cache_control: _taken, ...rest } = settings;
  return { ...marked, modelSettings: rest };
}
