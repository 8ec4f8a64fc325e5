import type { EmbeddingsInterface } from "@langchain/core/embeddings";
import type { BaseMessage } from "@langchain/core/messages";
import type { VectorStoreInterface } from "@langchain/core/vectorstores";
import {
  type ArchivedChangesReader,
  type ArchivedMessagesReader,
  envOptionSchema,
  envPositiveInt,
  loggerOptionSchema,
  optionsObject,
  PROMPT_CONTEXT_MODES,
  type PromptContextMode,
  type PromptLanguage,
  parseOptions,
  promptLanguageSchema,
  promptTexts,
  resolvePromptLanguage,
  statedPromptContextMode,
  type TextLanguage,
  THREADWISE_ENV,
  ThreadwiseConfigError,
  timerMsSchema,
} from "@threadwise/core";
import { z } from "zod/v4";
import type { RecallWords } from "./recall-block.js";

/** Env twin of `maxTokens`; also what turns recall on in `memoryStack`. */
export const RECALL_MAX_TOKENS_ENV = THREADWISE_ENV.recallMaxTokens;

/** Default budget of the recall block, label included (tokens). */
export const DEFAULT_RECALL_MAX_TOKENS = 300;
/** Default neighbours shown on each side of a recalled message (messages). */
export const DEFAULT_NEIGHBOURS = 2;
/**
 * Default cap of one recalled message's line (tokens). With {@link DEFAULT_MAX_NEIGHBOUR_TOKENS},
 * chosen on the dev split of the LoCoMo file (bench/recall.ts `--samples dev`; issue 25): shorter
 * lines fit more ranked messages in the block (60/25 placed 2-4 of them).
 */
export const DEFAULT_MAX_MESSAGE_TOKENS = 35;
/** Default cap of one neighbour's line (tokens); see {@link DEFAULT_MAX_MESSAGE_TOKENS}. */
export const DEFAULT_MAX_NEIGHBOUR_TOKENS = 15;
/** Default most items placed (messages and facts). */
export const DEFAULT_RECALL_MAX_ITEMS = 12;
/** Default most messages indexed per thread (messages). */
export const DEFAULT_MAX_INDEXED_MESSAGES = 5000;
/**
 * Default most threads whose index is held in the process (threads). The held indexes are bounded
 * by their characters ({@link DEFAULT_MAX_HELD_CHARACTERS}); this bounds what each held thread
 * costs besides its text (a few KiB) when a process serves many short threads.
 */
export const DEFAULT_MAX_THREADS = 10_000;
/**
 * Default most characters of indexed text held across the process's threads (UTF-16 code units):
 * about 470 MiB of heap at the 13 bytes per character measured on LoCoMo text (text, terms and
 * postings), about 250 threads of 1,000 LoCoMo messages (145 characters each on average); below
 * the former bound's worst case (64 threads of 5,000 such messages, about 620 MiB).
 */
export const DEFAULT_MAX_HELD_CHARACTERS = 36_000_000;
/** Default results each ranking contributes to the fusion (items). */
export const DEFAULT_DEPTH = 30;
/** Default time limit of one embeddings or vector-store call (milliseconds). */
export const DEFAULT_EMBEDDING_TIMEOUT_MS = 5000;
/** Default heading of the block, in English. */
export const DEFAULT_RECALL_LABEL = "Recalled from earlier in this conversation";
/** Default heading of the block in each prompt language; the `promptLanguage` option picks one. */
export const DEFAULT_RECALL_LABELS: Readonly<Record<TextLanguage, string>> = {
  en: DEFAULT_RECALL_LABEL,
  ko: "이 대화의 앞부분에서 찾은 내용",
};

const embeddingsSchema = z.custom<EmbeddingsInterface>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as { embedQuery?: unknown }).embedQuery === "function" &&
    typeof (value as { embedDocuments?: unknown }).embedDocuments === "function",
  { message: "expected a LangChain Embeddings (an object with embedQuery() and embedDocuments())" },
);
const vectorStoreSchema = z.custom<VectorStoreInterface>(
  (value) =>
    typeof value === "object" &&
    value !== null &&
    typeof (value as { addDocuments?: unknown }).addDocuments === "function" &&
    typeof (value as { similaritySearch?: unknown }).similaritySearch === "function",
  { message: "expected a LangChain VectorStore (an object with addDocuments() and similaritySearch())" },
);
const fn = <T>(message: string) => z.custom<T>((value) => typeof value === "function", { message });

/** Options of {@link recall}. */
export const recallOptionsSchema = z
  .object({
    /** Most tokens of the recall block, its label line included (tokens). Env twin `MEMORY_RECALL_MAX_TOKENS`. @default 300 */
    maxTokens: z.number().int().min(16).optional(),
    /** Most items (messages and facts) in the block. @default 12 */
    maxItems: z.number().int().positive().optional(),
    /** Messages shown on each side of a recalled message when the budget allows (messages, 0-3). @default 2 */
    neighbours: z.number().int().min(0).max(3).optional(),
    /** Most tokens of one recalled message; a longer one is cut to its best-matching sentences (tokens). @default 35 */
    maxMessageTokens: z.number().int().min(8).optional(),
    /** Most tokens of one neighbour, cut like a long message (tokens); refused with `neighbours: 0`. @default 15 */
    maxNeighbourTokens: z.number().int().min(8).optional(),
    /** Recall facts from factRecall's slot (`_threadwise_facts`) as well, when it is there. @default true */
    facts: z.boolean().optional(),
    /**
     * Most messages indexed per thread (messages): the oldest leave the index first. Memory per
     * thread is about this many messages' text plus their postings. @default 5000
     */
    maxIndexedMessages: z.number().int().positive().optional(),
    /**
     * Most threads whose index is held in this process (threads); past it, or past
     * `maxHeldCharacters`, the least recently used thread's index goes first (it is built again
     * from the stored thread when that thread comes back; results are the same either way).
     * @default 10000
     */
    maxThreads: z.number().int().positive().optional(),
    /**
     * Most characters of indexed message text held across this process's threads (UTF-16 code
     * units; heap is about 13 bytes per character, postings included). The bound is in size, not
     * in threads, so a process serving many short threads holds all of them, and one serving long
     * threads holds fewer. The thread being served is always held. @default 36000000
     */
    maxHeldCharacters: z.number().int().positive().optional(),
    /** Results each ranking (messages, facts, embeddings) contributes to the fusion (items). @default 30 */
    depth: z.number().int().positive().optional(),
    /** Reads when a message was said; default: `additional_kwargs.timestamp`, else `response_metadata.timestamp`. */
    timestampOf: fn<(message: BaseMessage) => string | undefined>("expected a function (message) => string | undefined").optional(),
    /**
     * Any LangChain `Embeddings`: adds a semantic ranking of the messages, fused with BM25. New
     * texts are embedded once; the vectors are held in the process by text (re-embedded after a
     * restart; a message edited in place is embedded again), or in `vectorStore` when given. @default undefined (lexical only, offline)
     */
    embeddings: embeddingsSchema.optional(),
    /**
     * Any LangChain `VectorStore`, for vectors kept elsewhere: recall adds each new message with id
     * `<thread_id>:<message id>` and metadata `{ thread_id, message_id }` and searches it; after
     * the thread changed other than by appends (an edit in place, a removal, time travel), the
     * indexed messages are added again under the same ids, which the store replaces. Outside
     * threadwise's checkpointed state, so outside its encryption. @default undefined
     */
    vectorStore: vectorStoreSchema.optional(),
    /** Store-specific filter that scopes a `vectorStore` search to one thread; refused without `vectorStore`. @default none (other threads' hits are dropped) */
    vectorStoreFilter: fn<(threadId: string) => unknown>("expected a function (threadId) => filter").optional(),
    /**
     * Time limit of one embeddings or vector-store call, in milliseconds, 1..2,147,483,647 (Node's
     * timer limit); past it BM25 alone ranks. @default 5000
     */
    timeoutMs: timerMsSchema.optional(),
    /** Placement mode (spec R8); unset: env `THREADWISE_PROMPT_CONTEXT_MODE`, else `legacy_system`. @default undefined */
    promptContextMode: z.enum(PROMPT_CONTEXT_MODES as [PromptContextMode, ...PromptContextMode[]]).optional(),
    /** Heading of the block, used whatever the conversation's language. @default {@link DEFAULT_RECALL_LABELS} in the prompt language */
    label: z.string().min(1).optional(),
    /**
     * Language of the default heading: `en`, `ko`, or `auto` (per model call, the language of the
     * newest user messages, core's `conversationLanguage`). @default env `THREADWISE_PROMPT_LANGUAGE`, else `"en"`
     */
    promptLanguage: promptLanguageSchema.optional(),
    /** Token counter of the block (text to tokens); default core's counter (`o200k_base`, gpt-tokenizer's ranks). */
    countText: fn<(text: string) => number>("expected a function (text) => number").optional(),
    /**
     * Reads a thread's archived messages (issue 27), oldest first: messages that left the stored
     * thread but are kept, e.g. `(threadId) => checkpointer.archivedMessages(threadId)` with
     * `@threadwise/memory`'s archive. Recall then searches the archive and the stored thread as one
     * thread (an archived message also still stored counts once, where it is stored), so blocks
     * and positions are the ones of a thread that never archived. @default undefined (the stored thread only)
     */
    archived: fn<ArchivedMessagesReader>("expected a function (threadId) => Promise<BaseMessage[]>").optional(),
    /**
     * Reads what a thread's archive gained since a cursor (core's `ArchivedChangesReader`), e.g.
     * `(threadId, since) => checkpointer.archivedChanges(threadId, since)` with `@threadwise/memory`'s
     * archive (`memoryStack` passes it). The thread searched is the one `archived` gives, but a model
     * call pays for the messages archived since the last call and the stored ones, not for the
     * whole archive (which is read again only when it is not a pure append: a rewrite, a deletion,
     * another cursor). Takes precedence over `archived`. @default undefined
     */
    archivedChanges: fn<ArchivedChangesReader>(
      "expected a function (threadId, since) => Promise<{ cursor, appended, messages }>",
    ).optional(),
    /** Where warnings go (embedding failures); `false` for none. @default core's resolveLogger() */
    logger: loggerOptionSchema,
    /**
     * Where the env twin (`MEMORY_RECALL_MAX_TOKENS`), `THREADWISE_PROMPT_CONTEXT_MODE` and
     * `THREADWISE_LOG` are read instead of `process.env`; `memoryStack({ env })` passes its own.
     * @default process.env
     */
    env: envOptionSchema,
  })
  .strict();
export type RecallOptions = z.input<typeof recallOptionsSchema>;

/** Settings after options, env and defaults. */
export interface ResolvedRecallOptions {
  maxTokens: number;
  maxItems: number;
  neighbours: number;
  maxMessageTokens: number;
  maxNeighbourTokens: number;
  facts: boolean;
  maxIndexedMessages: number;
  maxThreads: number;
  maxHeldCharacters: number;
  depth: number;
  timeoutMs: number;
  /** The heading {@link recallForQuery} renders: `label`, else the English default. */
  label: string;
  /** The heading in each language: `label` in both when given, else {@link DEFAULT_RECALL_LABELS}. */
  labels: Readonly<Record<TextLanguage, string>>;
  /** The speakers' and fact lines' words {@link recallForQuery} renders (`RECALL_WORDS`); unset: English. */
  words?: RecallWords;
  promptLanguage: PromptLanguage;
  promptContextMode: PromptContextMode | undefined;
  timestampOf: ((message: BaseMessage) => string | undefined) | undefined;
  embeddings: EmbeddingsInterface | undefined;
  vectorStore: VectorStoreInterface | undefined;
  vectorStoreFilter: ((threadId: string) => unknown) | undefined;
  countText: ((text: string) => number) | undefined;
  archived: ArchivedMessagesReader | undefined;
  archivedChanges: ArchivedChangesReader | undefined;
  logger: z.output<typeof loggerOptionSchema>;
}

/**
 * Resolves options against env and defaults.
 * @throws ThreadwiseConfigError naming the option (`recall.maxTokens`) or env variable
 *   (`MEMORY_RECALL_MAX_TOKENS`) that is invalid.
 */
export function resolveRecallOptions(
  options: RecallOptions = {},
  env: NodeJS.ProcessEnv = options?.env ?? process.env,
): ResolvedRecallOptions {
  // The env twin is parsed by the option's schema too (at least 16), and a refused value names the variable.
  const given = optionsObject<RecallOptions>("recall", options);
  const maxTokensEnv = given.maxTokens === undefined ? envPositiveInt(RECALL_MAX_TOKENS_ENV, env) : undefined;
  const parsed =
    maxTokensEnv === undefined
      ? parseOptions("recall", recallOptionsSchema, given)
      : parseOptions("recall", recallOptionsSchema, { ...given, maxTokens: maxTokensEnv }, { maxTokens: RECALL_MAX_TOKENS_ENV });
  if (parsed.vectorStoreFilter !== undefined && parsed.vectorStore === undefined)
    throw new ThreadwiseConfigError(
      "recall.vectorStoreFilter",
      "applies only with vectorStore (got none: recall searches no vector store, so the filter would be ignored): remove it or give vectorStore",
    );
  if (parsed.maxNeighbourTokens !== undefined && parsed.neighbours === 0)
    throw new ThreadwiseConfigError(
      "recall.maxNeighbourTokens",
      "applies only with neighbours above 0 (got neighbours: 0, which shows no neighbour, so the cap would be ignored): remove it or raise neighbours",
    );
  return {
    maxTokens: parsed.maxTokens ?? DEFAULT_RECALL_MAX_TOKENS,
    maxItems: parsed.maxItems ?? DEFAULT_RECALL_MAX_ITEMS,
    neighbours: parsed.neighbours ?? DEFAULT_NEIGHBOURS,
    maxMessageTokens: parsed.maxMessageTokens ?? DEFAULT_MAX_MESSAGE_TOKENS,
    maxNeighbourTokens: parsed.maxNeighbourTokens ?? DEFAULT_MAX_NEIGHBOUR_TOKENS,
    facts: parsed.facts ?? true,
    maxIndexedMessages: parsed.maxIndexedMessages ?? DEFAULT_MAX_INDEXED_MESSAGES,
    maxThreads: parsed.maxThreads ?? DEFAULT_MAX_THREADS,
    maxHeldCharacters: parsed.maxHeldCharacters ?? DEFAULT_MAX_HELD_CHARACTERS,
    depth: parsed.depth ?? DEFAULT_DEPTH,
    timeoutMs: parsed.timeoutMs ?? DEFAULT_EMBEDDING_TIMEOUT_MS,
    label: parsed.label ?? DEFAULT_RECALL_LABEL,
    labels: promptTexts(parsed.label, DEFAULT_RECALL_LABELS),
    promptLanguage: resolvePromptLanguage(parsed.promptLanguage, env),
    promptContextMode: statedPromptContextMode(parsed.promptContextMode, parsed.env),
    timestampOf: parsed.timestampOf,
    embeddings: parsed.embeddings,
    vectorStore: parsed.vectorStore,
    vectorStoreFilter: parsed.vectorStoreFilter,
    countText: parsed.countText,
    archived: parsed.archived,
    archivedChanges: parsed.archivedChanges,
    logger: parsed.logger,
  };
}
