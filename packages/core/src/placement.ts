import { createHash } from "node:crypto";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { envChoice } from "./env.js";
import { THREADWISE_ENV } from "./env-names.js";
import { ThreadwiseConfigError } from "./errors.js";
import { CONTEXT_MESSAGE_ID_PREFIX } from "./message-kinds.js";
import { contentText } from "./token-counter.js";

/**
 * Where context blocks go in the prompt (spec R8, R36).
 * - `legacy_system`: labelled blocks at the end of the system prompt.
 * - `stable_tail`: the blocks at the end of the newest real user message, in the request only; the
 *   system prompt stays byte-identical so the provider's prompt cache keeps hitting.
 * - `cache_aware`: by block kind. Blocks that change rarely ({@link HEAD_BLOCK_KINDS}: the summary,
 *   once per summary period) go at the end of the system prompt, where the cache survives them
 *   between changes; blocks that change with each user message or answer (work memory, facts,
 *   knowledge, recall, anything else) go in the stable_tail context, so they never invalidate the
 *   cached prefix.
 */
export type PromptContextMode = "legacy_system" | "stable_tail" | "cache_aware";

/** Accepted values of {@link PromptContextMode}. */
export const PROMPT_CONTEXT_MODES: readonly PromptContextMode[] = ["legacy_system", "stable_tail", "cache_aware"];

/** Zod schema of a {@link PromptContextMode} option, for the options schemas of the middlewares. */
export const promptContextModeSchema = z.enum(["legacy_system", "stable_tail", "cache_aware"]);

/**
 * Block kinds `cache_aware` places at the head (end of the system prompt): they change rarely. Only
 * the summary: the work memory (`work_memory`) gains a note after each stored answer and, once full,
 * loses its oldest one (oldest out first, spec R18), so no part of it outlives `maxItems` stored
 * answers and any part kept in the system prompt would change it nearly every turn; it goes in the
 * tail, whole (every note once, in order).
 */
export const HEAD_BLOCK_KINDS: readonly string[] = ["summary"];

/**
 * Splits blocks by where `mode` places them: `head` at the end of the system prompt, `tail` in the
 * stable_tail context. `legacy_system` puts all in the head, `stable_tail` all in the tail,
 * `cache_aware` the {@link HEAD_BLOCK_KINDS} in the head and the rest in the tail.
 */
export function placeContextBlocks(
  blocks: readonly ContextBlock[],
  mode: PromptContextMode,
): { head: ContextBlock[]; tail: ContextBlock[] } {
  if (mode === "legacy_system") return { head: [...blocks], tail: [] };
  if (mode === "stable_tail") return { head: [], tail: [...blocks] };
  return { head: blocks.filter((b) => HEAD_BLOCK_KINDS.includes(b.kind)), tail: blocks.filter((b) => !HEAD_BLOCK_KINDS.includes(b.kind)) };
}

/** Env variable that sets the placement mode when no option does. */
export const PROMPT_CONTEXT_MODE_ENV = THREADWISE_ENV.promptContextMode;

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

/**
 * The placement mode a middleware states for its blocks: the option; else, when the middleware was
 * given an `env` (its `env` option, as `memoryStack({ env })` passes), that env's
 * `THREADWISE_PROMPT_CONTEXT_MODE`, else `legacy_system`; else `undefined`, so the mode is decided
 * per call (the first mode stated in the request, else `process.env`'s).
 * @throws ThreadwiseConfigError naming the option or variable and the accepted values.
 */
export function statedPromptContextMode(option: string | undefined, env: NodeJS.ProcessEnv | undefined): PromptContextMode | undefined {
  if (option === undefined && env === undefined) return undefined;
  return resolvePromptContextMode(option, env);
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

/** A stable_tail context message; its id is derived from its text so equal inputs give equal bytes. */
export function contextMessage(text: string): HumanMessage {
  const digest = createHash("sha256").update(text).digest("hex").slice(0, 24);
  return new HumanMessage({ content: text, id: `${CONTEXT_MESSAGE_ID_PREFIX}${digest}` });
}
