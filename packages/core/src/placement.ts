import { createHash } from "node:crypto";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { envChoice } from "./env.js";
import { ThreadwiseConfigError } from "./errors.js";
import { messageType } from "./groups.js";
import { contentText } from "./token-counter.js";

/**
 * Where context blocks go in the prompt (spec R8, R36).
 * - `legacy_system`: labelled blocks at the end of the system prompt.
 * - `stable_tail`: the blocks in one message right after the newest real user message; the system
 *   prompt stays byte-identical so the provider's prompt cache keeps hitting.
 * - `cache_aware`: by block kind. Blocks that change rarely ({@link HEAD_BLOCK_KINDS}: the summary
 *   changes once per period, work memory once per completed task) go at the end of the system
 *   prompt, where the cache survives them between changes; blocks that change with each user
 *   message (facts, knowledge, recall, anything else) go in the stable_tail context message, so
 *   they never invalidate the prefix.
 */
export type PromptContextMode = "legacy_system" | "stable_tail" | "cache_aware";

/** Accepted values of {@link PromptContextMode}. */
export const PROMPT_CONTEXT_MODES: readonly PromptContextMode[] = ["legacy_system", "stable_tail", "cache_aware"];

/** Zod schema of a {@link PromptContextMode} option, for the options schemas of the middlewares. */
export const promptContextModeSchema = z.enum(["legacy_system", "stable_tail", "cache_aware"]);

/** Block kinds `cache_aware` places at the head (after the system prompt): they change rarely. */
export const HEAD_BLOCK_KINDS: readonly string[] = ["summary", "work_memory"];

/** Env variable that sets the placement mode when no option does. */
export const PROMPT_CONTEXT_MODE_ENV = "THREADWISE_PROMPT_CONTEXT_MODE";

/**
 * A labelled piece of memory for the current model call (spec R9): a summary, recalled facts,
 * retrieved knowledge, work memory, or anything a user's middleware adds.
 */
export interface ContextBlock {
  /** What the block holds; orders blocks: `summary`, `work_memory`, `facts`, `knowledge`, then others by name. */
  kind: string;
  /** Name of the middleware that added it (`threadwise/summarize`); second sort key. */
  producer: string;
  /** Heading rendered as `[label]`, e.g. `Previous conversation summary`. */
  label: string;
  /** The block's text. Blocks with empty text are not placed. */
  text: string;
}

/** Prefix of the ids of the stable_tail context messages threadwise renders. */
export const CONTEXT_MESSAGE_ID_PREFIX = "tw-context-";

/** First line of the stable_tail context message, so the model does not take it for the user's words. */
export const STABLE_TAIL_HEADER = "[Context from memory, added by the application; not written by the user]";

const KIND_ORDER = ["summary", "work_memory", "facts", "knowledge"];

/**
 * Resolves the placement mode: the option, else env `THREADWISE_PROMPT_CONTEXT_MODE`, else
 * `legacy_system`.
 * @throws ThreadwiseConfigError naming the option or variable and the accepted values.
 */
export function resolvePromptContextMode(option?: string, env: NodeJS.ProcessEnv = process.env): PromptContextMode {
  if (option !== undefined) {
    if (!PROMPT_CONTEXT_MODES.includes(option as PromptContextMode)) {
      throw new ThreadwiseConfigError(
        "promptContextMode",
        `expected one of ${PROMPT_CONTEXT_MODES.join(" | ")}, got ${JSON.stringify(option)}`,
      );
    }
    return option as PromptContextMode;
  }
  return envChoice(PROMPT_CONTEXT_MODE_ENV, PROMPT_CONTEXT_MODES, env) ?? "legacy_system";
}

/** Sorts blocks deterministically: by kind (known kinds first), then producer; stable otherwise. */
export function sortContextBlocks(blocks: readonly ContextBlock[]): ContextBlock[] {
  const rank = (kind: string) => {
    const i = KIND_ORDER.indexOf(kind);
    return i === -1 ? KIND_ORDER.length : i;
  };
  return blocks
    .map((block, index) => ({ block, index }))
    .sort(
      (a, b) =>
        rank(a.block.kind) - rank(b.block.kind) ||
        (rank(a.block.kind) === KIND_ORDER.length ? cmp(a.block.kind, b.block.kind) : 0) ||
        cmp(a.block.producer, b.block.producer) ||
        a.index - b.index,
    )
    .map((entry) => entry.block);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Renders blocks as text: `[label]\ntext`, separated by blank lines. Empty blocks are skipped. */
export function renderContextBlocks(blocks: readonly ContextBlock[]): string {
  return sortContextBlocks(blocks)
    .filter((block) => block.text.trim() !== "")
    .map((block) => `[${block.label}]\n${block.text.trim()}`)
    .join("\n\n");
}

/** `true` for a stable_tail context message threadwise rendered (never a real user message). */
export function isContextMessage(message: BaseMessage): boolean {
  return typeof message.id === "string" && message.id.startsWith(CONTEXT_MESSAGE_ID_PREFIX);
}

/** Text of a system message: its text blocks joined with `""`, as core's `contentText` reads any message. */
export function systemText(message: SystemMessage | undefined): string {
  return message ? contentText(message.content) : "";
}

/**
 * Returns a new system message with `text` appended after a blank line. String content stays a
 * string; block content keeps every block as it was (provider cache markers such as
 * `cache_control` included) and gets one text block more. An empty system message becomes `text`.
 */
export function appendToSystemMessage(message: SystemMessage | undefined, text: string): SystemMessage {
  if (text === "") return message ?? new SystemMessage("");
  const content = message?.content as unknown;
  const fields = message
    ? { id: message.id, name: message.name, additional_kwargs: message.additional_kwargs, response_metadata: message.response_metadata }
    : {};
  if (Array.isArray(content) && content.length > 0) {
    return new SystemMessage({ ...fields, content: [...content, { type: "text", text: `\n\n${text}` }] });
  }
  const base = typeof content === "string" ? content : "";
  return new SystemMessage({ ...fields, content: base === "" ? text : `${base}\n\n${text}` });
}

/** What a model request looks like to placement: LangChain's `ModelRequest` fits. */
export interface PlacementRequest {
  messages: BaseMessage[];
  systemMessage: SystemMessage;
}

const PLACEMENT = Symbol.for("threadwise.placement");

interface PlacementState {
  /** Messages and system message before any block was rendered. */
  baseMessages: BaseMessage[];
  baseSystem: SystemMessage;
  blocks: ContextBlock[];
  mode: PromptContextMode | undefined;
  /** What the last render produced, to notice a change made by a middleware that is not ours. */
  renderedMessages: BaseMessage[];
  renderedSystemText: string;
}

function stateOf(request: PlacementRequest): PlacementState | undefined {
  return (request as unknown as Record<symbol, PlacementState | undefined>)[PLACEMENT];
}

/**
 * The base of the request: messages and system message without rendered context. A change made
 * after the last render by a middleware that is not threadwise's is kept (rendered context is
 * stripped from it).
 */
function baseOf(request: PlacementRequest): { messages: BaseMessage[]; system: SystemMessage; state: PlacementState | undefined } {
  const state = stateOf(request);
  if (!state) return { messages: request.messages, system: request.systemMessage, state };
  const messages = request.messages === state.renderedMessages ? state.baseMessages : request.messages.filter((m) => !isContextMessage(m));
  const system = systemText(request.systemMessage) === state.renderedSystemText ? state.baseSystem : request.systemMessage;
  return { messages, system, state };
}

function render<R extends PlacementRequest>(
  request: R,
  messages: BaseMessage[],
  system: SystemMessage,
  blocks: ContextBlock[],
  mode: PromptContextMode | undefined,
): R {
  const effective = mode ?? resolvePromptContextMode();
  const text = renderContextBlocks(blocks);
  let renderedMessages = messages;
  let renderedSystem = system;
  if (text !== "") {
    const head = effective === "legacy_system" ? blocks : effective === "cache_aware" ? blocks.filter(isHeadBlock) : [];
    const tail = effective === "legacy_system" ? [] : effective === "cache_aware" ? blocks.filter((b) => !isHeadBlock(b)) : blocks;
    const headText = renderContextBlocks(head);
    const tailText = renderContextBlocks(tail);
    if (headText !== "") renderedSystem = appendToSystemMessage(system, headText);
    if (tailText !== "") renderedMessages = insertAfterNewestUserMessage(messages, contextMessage(`${STABLE_TAIL_HEADER}\n\n${tailText}`));
  }
  const state: PlacementState = {
    baseMessages: messages,
    baseSystem: system,
    blocks,
    mode,
    renderedMessages,
    renderedSystemText: systemText(renderedSystem),
  };
  return { ...request, messages: renderedMessages, systemMessage: renderedSystem, [PLACEMENT]: state };
}

/** A stable_tail context message; its id is derived from its text so equal inputs give equal bytes. */
export function contextMessage(text: string): HumanMessage {
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 24);
  return new HumanMessage({ content: text, id: `${CONTEXT_MESSAGE_ID_PREFIX}${digest}` });
}

function insertAfterNewestUserMessage(messages: BaseMessage[], context: BaseMessage): BaseMessage[] {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as BaseMessage;
    if (messageType(message) === "human" && !isContextMessage(message))
      return [...messages.slice(0, i + 1), context, ...messages.slice(i + 1)];
  }
  return [...messages, context];
}

/**
 * Adds context blocks to a model request and returns the new request, rendered by mode (spec R8,
 * R9). Call it from `wrapModelCall` and pass the result to the handler:
 *
 * ```ts
 * wrapModelCall: (request, handler) =>
 *   handler(addContextBlocks(request, [{ kind: "knowledge", producer: "my-rag", label: "Retrieved documents", text }]))
 * ```
 *
 * Every block added in one model call, by any middleware, is rendered together in one
 * deterministic order ({@link sortContextBlocks}), so adding order and middleware order do not
 * change the bytes. Nothing is written into the stored thread: the request is a new object and no
 * message object is mutated. The mode is the first one given explicitly for the request, else
 * env `THREADWISE_PROMPT_CONTEXT_MODE`, else `legacy_system`.
 *
 * @throws ThreadwiseConfigError when `options.mode` is not a known mode.
 */
export function addContextBlocks<R extends PlacementRequest>(
  request: R,
  blocks: readonly ContextBlock[],
  options: { mode?: PromptContextMode } = {},
): R {
  const mode = options.mode === undefined ? undefined : resolvePromptContextMode(options.mode);
  const base = baseOf(request);
  const all = [...(base.state?.blocks ?? []), ...blocks.filter((block) => block.text.trim() !== "")];
  return render(request, base.messages, base.system, all, base.state?.mode ?? mode);
}

/** Blocks added to this request so far. */
export function contextBlocksOf(request: PlacementRequest): readonly ContextBlock[] {
  return stateOf(request)?.blocks ?? [];
}

const isHeadBlock = (block: ContextBlock) => HEAD_BLOCK_KINDS.includes(block.kind);

/** Blocks of this request rendered into the system prompt (by its mode), in rendering order. */
export function systemContextBlocksOf(request: PlacementRequest): readonly ContextBlock[] {
  const state = stateOf(request);
  if (!state) return [];
  const mode = state.mode ?? resolvePromptContextMode();
  const blocks = sortContextBlocks(state.blocks).filter((b) => b.text.trim() !== "");
  return mode === "legacy_system" ? blocks : mode === "cache_aware" ? blocks.filter(isHeadBlock) : [];
}

/**
 * The request's messages without rendered context: what windowing and token capping work on.
 * Equal to `request.messages` when no block was added.
 */
export function viewMessages(request: PlacementRequest): BaseMessage[] {
  return baseOf(request).messages;
}

/** The request's system message without rendered context blocks. */
export function viewSystemMessage(request: PlacementRequest): SystemMessage {
  return baseOf(request).system;
}

/**
 * Replaces the view's messages (e.g. after trimming) and re-renders any context blocks already
 * added, so a block placed by an outer middleware stays after the newest user message.
 */
export function withViewMessages<R extends PlacementRequest>(request: R, messages: BaseMessage[]): R {
  const base = baseOf(request);
  if (!base.state) return { ...request, messages };
  return render(request, messages, base.system, base.state.blocks, base.state.mode);
}

/**
 * Appends `text` to the end of the system prompt (before any rendered context block), e.g. the
 * history note of R7. Keeps content blocks and cache markers as they are.
 */
export function withSystemSuffix<R extends PlacementRequest>(request: R, text: string): R {
  const base = baseOf(request);
  const system = appendToSystemMessage(base.system, text);
  if (!base.state) return { ...request, systemMessage: system };
  return render(request, base.messages, system, base.state.blocks, base.state.mode);
}
