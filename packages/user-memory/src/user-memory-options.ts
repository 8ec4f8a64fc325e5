import type { BaseStore } from "@langchain/langgraph-checkpoint";
import {
  type ArchivedAmongReader,
  chatModelOptionSchema,
  envBoolean,
  envOptionSchema,
  envPositiveInt,
  envString,
  loggerOptionSchema,
  optionsObject,
  type PromptLanguage,
  parseOptions,
  promptContextModeSchema,
  promptLanguageSchema,
  promptTexts,
  resolvePromptLanguage,
  statedPromptContextMode,
  type TextLanguage,
  THREADWISE_ENV,
  ThreadwiseConfigError,
  timerMsSchema,
} from "@threadwise/core";
import { isKeyring, type Keyring, keyringOptionSchema, loadKeyring, PRINCIPAL_ID_ENV, TENANT_ENV } from "@threadwise/encryption";
import type { FactExtractionModel } from "@threadwise/fact-recall";
import { z } from "zod/v4";
import type { DeletedThreadsLookup } from "./deleted-threads.js";
import { storeOptionSchema } from "./store-shape.js";
import { DEFAULT_TENANT_ID, DEFAULT_TENANT_ID_KEY, DEFAULT_USER_ID_KEY } from "./user-scope.js";

/** LangGraph's own `configurable` keys: naming one as the user's (or tenant's) key makes each thread its own user. */
const LANGGRAPH_RUN_KEYS = new Set(["thread_id", "checkpoint_id", "checkpoint_ns"]);

/**
 * `userIdKey` / `tenantIdKey`: one property name of the run's `context` / `configurable`. A dotted
 * key (`"a.b"`) was accepted and read as the one property `"a.b"`, so a run passing
 * `context: { a: { b: "u1" } }` had no user memory (one warning).
 */
const runKeySchema = z
  .string()
  .regex(/^[\p{L}\p{N}_$-]+$/u, {
    message:
      'expected one property name of the run\'s context / configurable (letters, digits, _, -, $), read as is, not a path: context.a.b is never read for "a.b"',
  })
  .refine((key) => !LANGGRAPH_RUN_KEYS.has(key), {
    message: "names LangGraph's own key of the thread or checkpoint, so every thread would be a user of its own: use user_id (the default)",
  });

/** Env twin of `maxTokens`. */
export const USER_MEMORY_MAX_TOKENS_ENV = THREADWISE_ENV.userMemoryMaxTokens;
/** Env twin of `maxItems`. */
export const USER_MEMORY_MAX_ITEMS_ENV = THREADWISE_ENV.userMemoryMaxItems;
/** Env twin of `keepMessages`. */
export const USER_MEMORY_KEEP_MESSAGES_ENV = THREADWISE_ENV.userMemoryKeepMessages;

export const DEFAULT_USER_MEMORY_MAX_TOKENS = 300;
export const DEFAULT_USER_MEMORY_MAX_ITEMS = 1000;
export const DEFAULT_USER_MEMORY_MAX_BYTES = 1_000_000;
export const DEFAULT_MAX_MESSAGE_CHARACTERS = 2000;
export const DEFAULT_MAX_DIGEST_CHARACTERS = 400;
export const DEFAULT_STORE_TIMEOUT_MS = 5000;
/** Default heading of the block, in English. */
export const DEFAULT_USER_MEMORY_LABEL = "Memory from this user's other conversations";
/** Default heading of the block in each prompt language; the `promptLanguage` option picks one. */
export const DEFAULT_USER_MEMORY_LABELS: Readonly<Record<TextLanguage, string>> = {
  en: DEFAULT_USER_MEMORY_LABEL,
  ko: "이 사용자의 다른 대화에서 기억한 내용",
};

/** Options of {@link userMemory}. */
export const userMemoryOptionsSchema = z.strictObject({
  /**
   * Token budget of the placed block, its `[label]` line included (tokens, o200k_base). Env twin
   * `MEMORY_USER_MEMORY_MAX_TOKENS`. @default 300
   */
  maxTokens: z.number().int().min(16).optional(),
  /** Most items kept per user (facts, messages and digests). Env twin `MEMORY_USER_MEMORY_MAX_ITEMS`. @default 1000 */
  maxItems: z.number().int().positive().optional(),
  /** Most bytes kept per user: UTF-8 bytes of the items' plaintext JSON (bytes). @default 1000000 */
  maxBytes: z.number().int().positive().optional(),
  /**
   * Keep the user's own messages as `message` items, so a later thread recalls what was said (as
   * Mastra's resource-scoped recall does); `false` keeps only facts and digests. Env twin
   * `MEMORY_USER_MEMORY_KEEP_MESSAGES`. @default true
   */
  keepMessages: z.boolean().optional(),
  /**
   * Whether a middleware of the stack that leaves no trim mark deletes the oldest messages of the
   * stored thread (LangChain's `summarizationMiddleware`). `true`: a stored message of the thread
   * gone together with every older one is taken as trimmed, and its item and facts stay (what it
   * said was still said). `false`: only persistTrim and the message archive delete them, and they
   * name what they took in the thread's summary slot (`trimmed`, core's `TrimMark`): a message they
   * took stays, any other gone was removed (`RemoveMessage`, of the oldest messages too), and its
   * item and facts go like any removed message's (R37). `memoryStack` sets `false`. @default true
   */
  trims: z.boolean().optional(),
  /**
   * Reads which of some message ids a thread's message archive holds (core's
   * `ArchivedAmongReader`; `memoryStack({ archive: true })` passes its checkpointer's
   * `archivedAmong`). With `trims: false`, a message of the thread gone from the checkpoint that
   * the archive holds was archived, and its item and facts stay. Never asked otherwise: given
   * without `trims: false`, construction throws `ThreadwiseConfigError` naming
   * `userMemory.archivedAmong`. @default undefined
   */
  archivedAmong: z
    .custom<ArchivedAmongReader>((value) => typeof value === "function", {
      message: "expected a function (threadId, messageIds) => Promise<string[]>",
    })
    .optional(),
  /**
   * Longest stored message, in characters as a user counts them (graphemes: a Korean syllable or
   * an emoji sequence is one; core's `countCharacters`); longer ones are cut to it, ending in `…`.
   * With `keepMessages: false` no message item is written; it then only decides whether a
   * message item kept before (while `keepMessages` was on) still reads as its message (longer
   * ones stored cut), so it is accepted there.
   * @default 2000
   */
  maxMessageCharacters: z.number().int().positive().optional(),
  /** Longest thread digest, in characters (graphemes, as `maxMessageCharacters`). `0` stores no digest. @default 400 */
  maxDigestCharacters: z.number().int().nonnegative().optional(),
  /**
   * Fact extraction: `heuristic` (factRecall's rules), `llm` (`model`, else the agent's model,
   * with the rules as fallback), `off`. @default "heuristic"
   */
  factsMode: z.enum(["off", "heuristic", "llm"]).optional(),
  /**
   * Chat model of `llm` fact extraction, or a model named as `createAgent` takes one
   * (`"openai:gpt-4o-mini"`: LangChain's `initChatModel`, at the first model call; a provider
   * package that is not installed throws `ThreadwiseConfigError` naming `userMemory.model` there).
   * Without it the agent's model reads the run's user messages in the run's model call (after the
   * answer) and the facts wait in the thread's state for the commit. Only `llm` extraction calls
   * it: given with `factsMode` `heuristic` (the default) or `off`, construction throws
   * `ThreadwiseConfigError` naming `userMemory.model`.
   * @default the agent's model
   */
  model: chatModelOptionSchema<FactExtractionModel>().optional(),
  /**
   * Key of the user id in the run's `context`, else `configurable`: one property name (letters,
   * digits, `_`, `-`, `$`), read as is, never a path: `"a.b"` would read `context["a.b"]`, not
   * `context.a.b`, so it is refused, as are LangGraph's own keys (`thread_id`, `checkpoint_id`,
   * `checkpoint_ns`: every thread would be a user of its own). A run without it has no
   * cross-thread memory. @default "user_id"
   */
  userIdKey: runKeySchema.optional(),
  /**
   * Key of the tenant id in the run's `context`, else `configurable`; the rules of `userIdKey`,
   * and not the same key. @default "tenant_id"
   */
  tenantIdKey: runKeySchema.optional(),
  /** Tenant of runs that name none. @default env `THREADWISE_MEMORY_TENANT_ID`, else "default" */
  tenantId: z.string().min(1).optional(),
  /**
   * The store when the run has none (`createAgent({ store })` is read first, from the runtime).
   * @default undefined
   */
  store: storeOptionSchema.optional(),
  /**
   * Seal every stored value with this keyring (a file path or a loaded `Keyring`): AES-256-GCM
   * bound to tenant, user and key. Unset: plaintext. @default undefined
   */
  keyring: keyringOptionSchema.optional(),
  /** Agent id of the sealing keys (as `@threadwise/encryption`). @default "default" */
  agentId: z.string().min(1).optional(),
  /** Principal bound into sealed values. @default env `THREADWISE_MEMORY_PRINCIPAL_ID`, else "default" */
  principalId: z.string().min(1).optional(),
  /**
   * Which of the given thread ids name deleted threads (tombstones, spec R24): called with the
   * thread ids the user's items come from (provenance, superseded values), it resolves to those of
   * them that were deleted. Items of a deleted thread are then recalled nowhere and are removed from
   * the store at the user's next commit (see `forgetDeletedThreads`). `memoryStack` passes its
   * checkpointer's tombstones (`ThreadwiseSaver.deletedThreads`); unset, deleting a thread does
   * not reach user memory (use `eraseUser` for that).
   * @default undefined
   */
  deletedThreads: z
    .custom<DeletedThreadsLookup>((value) => typeof value === "function", "expected a function (threadIds) => Promise<Iterable<string>>")
    .optional(),
  /** Time limit of one store read or write (milliseconds); past it the turn goes on without user memory. @default 5000 */
  timeoutMs: timerMsSchema.optional(),
  /** Placement mode (spec R8). @default env `THREADWISE_PROMPT_CONTEXT_MODE`, else `legacy_system` */
  promptContextMode: promptContextModeSchema.optional(),
  /** Heading of the block, used whatever the conversation's language. @default {@link DEFAULT_USER_MEMORY_LABELS} in the prompt language */
  label: z.string().min(1).optional(),
  /**
   * Language of the default heading: `en`, `ko`, or `auto` (per model call, the language of the
   * newest user messages, core's `conversationLanguage`). @default env `THREADWISE_PROMPT_LANGUAGE`, else `"en"`
   */
  promptLanguage: promptLanguageSchema.optional(),
  /** Where warnings go; `false` for none. @default core's resolveLogger() */
  logger: loggerOptionSchema,
  /**
   * Where the env twins (`MEMORY_USER_MEMORY_*`, `THREADWISE_MEMORY_TENANT_ID`,
   * `THREADWISE_MEMORY_PRINCIPAL_ID`), `THREADWISE_PROMPT_CONTEXT_MODE` and `THREADWISE_LOG` are
   * read instead of `process.env`; `memoryStack({ env })` passes its own. @default process.env
   */
  env: envOptionSchema,
  /**
   * Whether userMemory declares the thread's summary slot (`_threadwise_summary`, read for the
   * thread's digest) as its own state schema. LangChain parses the declared schema of a middleware
   * with `wrapModelCall` at every model call (a new zod object each time); `false` leaves the
   * declaration to core's `summarySlotMiddleware()` (no hook) anywhere in the same `middleware`
   * list, and userMemory reads the slot from the graph (`memoryStack` does this). With `false` and
   * no middleware declaring the slot, a model call throws `ThreadwiseConfigError` naming
   * `userMemory.declareState`.
   * @default true
   */
  declareState: z.boolean().optional(),
});
/** Options of {@link userMemory}, as accepted. */
export type UserMemoryOptions = z.input<typeof userMemoryOptionsSchema>;

/** {@link UserMemoryOptions} after env and defaults. */
export interface ResolvedUserMemoryOptions {
  maxTokens: number;
  maxItems: number;
  maxBytes: number;
  keepMessages: boolean;
  trims: boolean;
  archivedAmong: ArchivedAmongReader | undefined;
  maxMessageCharacters: number;
  maxDigestCharacters: number;
  factsMode: "off" | "heuristic" | "llm";
  /** A model object, or a `"provider:model"` string `userMemory` makes at its first model call. */
  model: FactExtractionModel | string | undefined;
  userIdKey: string;
  tenantIdKey: string;
  tenantId: string;
  store: BaseStore | undefined;
  keyring: Keyring | undefined;
  agentId: string;
  principalId: string;
  deletedThreads: DeletedThreadsLookup | undefined;
  timeoutMs: number;
  promptContextMode: z.output<typeof promptContextModeSchema> | undefined;
  label: string;
  /** The heading in each language: `label` in both when given, else {@link DEFAULT_USER_MEMORY_LABELS}. */
  labels: Readonly<Record<TextLanguage, string>>;
  promptLanguage: PromptLanguage;
  logger: z.output<typeof loggerOptionSchema>;
  declareState: boolean;
}

/**
 * Resolves options against env and defaults; loads the keyring when one is named.
 * @throws ThreadwiseConfigError naming the option (`userMemory.maxTokens`) or env variable.
 * @throws ThreadwiseKeyringError for a keyring that cannot be used (never a plaintext fallback).
 */
export function resolveUserMemoryOptions(
  options: UserMemoryOptions = {},
  env: NodeJS.ProcessEnv = options?.env ?? process.env,
): ResolvedUserMemoryOptions {
  // The env twin of maxTokens is parsed by the option's schema too (at least 16), and a refused value names the variable.
  const given = optionsObject<UserMemoryOptions>("userMemory", options);
  const maxTokensEnv = given.maxTokens === undefined ? envPositiveInt(USER_MEMORY_MAX_TOKENS_ENV, env) : undefined;
  const parsed =
    maxTokensEnv === undefined
      ? parseOptions("userMemory", userMemoryOptionsSchema, given)
      : parseOptions(
          "userMemory",
          userMemoryOptionsSchema,
          { ...given, maxTokens: maxTokensEnv },
          { maxTokens: USER_MEMORY_MAX_TOKENS_ENV },
        );
  if (parsed.userIdKey !== undefined && parsed.userIdKey === (parsed.tenantIdKey ?? DEFAULT_TENANT_ID_KEY))
    throw new ThreadwiseConfigError(
      "userMemory.userIdKey",
      `is also the tenant's key (${JSON.stringify(parsed.userIdKey)}), so each user would be a tenant of their own: give the user and the tenant different keys`,
    );
  if (parsed.tenantIdKey !== undefined && parsed.tenantIdKey === (parsed.userIdKey ?? DEFAULT_USER_ID_KEY))
    throw new ThreadwiseConfigError(
      "userMemory.tenantIdKey",
      `is also the user's key (${JSON.stringify(parsed.tenantIdKey)}), so each user would be a tenant of their own: give the user and the tenant different keys`,
    );
  const factsMode = parsed.factsMode ?? "heuristic";
  // Options that would be ignored without a word are refused (factsMode and trims have no env twin).
  if (parsed.model !== undefined && factsMode !== "llm")
    throw new ThreadwiseConfigError(
      "userMemory.model",
      `applies only with factsMode "llm" (got factsMode ${JSON.stringify(factsMode)}${parsed.factsMode === undefined ? ", the default" : ""}, which never calls it): set factsMode: "llm", or remove it`,
    );
  if (parsed.archivedAmong !== undefined && parsed.trims !== false)
    throw new ThreadwiseConfigError(
      "userMemory.archivedAmong",
      `applies only with trims: false (got trims ${parsed.trims === undefined ? "true, the default" : "true"}: a message gone with every older one stays, so the archive is never asked): set trims: false, or remove it`,
    );
  return {
    maxTokens: parsed.maxTokens ?? DEFAULT_USER_MEMORY_MAX_TOKENS,
    maxItems: parsed.maxItems ?? envPositiveInt(USER_MEMORY_MAX_ITEMS_ENV, env) ?? DEFAULT_USER_MEMORY_MAX_ITEMS,
    maxBytes: parsed.maxBytes ?? DEFAULT_USER_MEMORY_MAX_BYTES,
    keepMessages: parsed.keepMessages ?? envBoolean(USER_MEMORY_KEEP_MESSAGES_ENV, env) ?? true,
    trims: parsed.trims ?? true,
    archivedAmong: parsed.archivedAmong,
    maxMessageCharacters: parsed.maxMessageCharacters ?? DEFAULT_MAX_MESSAGE_CHARACTERS,
    maxDigestCharacters: parsed.maxDigestCharacters ?? DEFAULT_MAX_DIGEST_CHARACTERS,
    factsMode,
    model: parsed.model,
    userIdKey: parsed.userIdKey ?? DEFAULT_USER_ID_KEY,
    tenantIdKey: parsed.tenantIdKey ?? DEFAULT_TENANT_ID_KEY,
    tenantId: parsed.tenantId ?? envString(TENANT_ENV, env) ?? DEFAULT_TENANT_ID,
    store: parsed.store,
    keyring:
      parsed.keyring === undefined
        ? undefined
        : isKeyring(parsed.keyring)
          ? parsed.keyring
          : loadKeyring(parsed.keyring, env, "userMemory.keyring"),
    agentId: parsed.agentId ?? "default",
    principalId: parsed.principalId ?? envString(PRINCIPAL_ID_ENV, env) ?? "default",
    deletedThreads: parsed.deletedThreads,
    timeoutMs: parsed.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS,
    promptContextMode: statedPromptContextMode(parsed.promptContextMode, parsed.env),
    label: parsed.label ?? DEFAULT_USER_MEMORY_LABEL,
    labels: promptTexts(parsed.label, DEFAULT_USER_MEMORY_LABELS),
    promptLanguage: resolvePromptLanguage(parsed.promptLanguage, env),
    logger: parsed.logger,
    declareState: parsed.declareState ?? true,
  };
}
