import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import {
  type ArchivedMessagesReader,
  assembledRequest,
  type CacheTtl,
  cacheBreakpointsFor,
  chatModelOptionSchema,
  loggerOptionSchema,
  type PromptContextMode,
  parseOptions,
  resolveLogger,
  type StartOn,
  summarySlotMiddleware,
  systemContextBlocksOf,
  ThreadwiseConfigError,
  type ThreadwiseLogger,
  threadwiseMiddleware,
  type ViewDecision,
  withViewDecisions,
} from "@threadwise/core";
import { type EncryptionOptions, encryptionOptionsSchema } from "@threadwise/encryption";
import { factRecall } from "@threadwise/fact-recall";
import { historyAware } from "@threadwise/history-aware";
import { historySeed } from "@threadwise/history-seed";
import { persistTrim } from "@threadwise/persist-trim";
import { recall } from "@threadwise/recall";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { userMemory } from "@threadwise/user-memory";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { type AgentMiddleware, createMiddleware } from "langchain";
import { z } from "zod/v4";
import { archiveCheckpointerCheck } from "./archive-checkpointer-check.js";
import { assertEncryptionKeyring, loadConfigKeyring } from "./backends.js";
import { assertResolvedConfig, type MemoryConfig } from "./config.js";
import { DEFAULT_ARCHIVE_KEEP_GROUPS, messageArchive } from "./message-archive.js";
import { refuseAsMiddleware } from "./not-a-middleware.js";
import type { ThreadwiseSaver } from "./threadwise-saver.js";

/**
 * Groups `memoryStack` keeps hot beyond the window when `archive` is on (the margin of issue 27):
 * how far back, past what the window shows and what the summary does not cover yet, an edit by id
 * still finds its message hot. Small, because every hot message is read and written at every step
 * (4 groups: a whole LoCoMo replay at about LangChain's CPU; 20 groups cost 1.2-1.3x, see
 * bench/README.md "Replay cost and the archive").
 */
export const ARCHIVE_MARGIN_GROUPS = 4;

/** Code-only inputs of {@link memoryMiddleware}: things env cannot carry. */
export interface MemoryMiddlewareOptions {
  /**
   * Models for internal calls; each middleware falls back to the agent's own model. Each is a chat
   * model or a model named as `createAgent` takes one (`"openai:gpt-4o-mini"`), made by LangChain's
   * `initChatModel` at the first model call (a provider package that is not installed throws
   * `ThreadwiseConfigError` naming the middleware's option, e.g. `summarize.model`). `memoryStack`
   * refuses one for a part that calls none (`memory.models.summarize` with `summarize: false` in
   * code; a switch set by env is left alone); `memoryMiddleware` takes a resolved config and
   * cannot tell code from env, so it ignores such a model.
   */
  models?: {
    /** Summarizer model of `summarize`. */
    summarize?: BaseChatModel | string;
    /** Extractor model of `factRecall` in `llm` mode. */
    facts?: BaseChatModel | string;
    /** Condensation model of `workMemory`. */
    workMemory?: BaseChatModel | string;
  };
  /**
   * Logger handed to every middleware: the log level in code. `false` writes nothing; a logger of
   * yours (`console`, pino) gets every line, info included (the multiturn line); unset, the
   * threadwise default logger at the level of `env`'s `THREADWISE_LOG` (warnings only when unset).
   * @default the threadwise default logger
   */
  logger?: ThreadwiseLogger | false;
  /**
   * Set `true` when the agent has a `responseFormat`: `summarize`, `factRecall` and `workMemory`
   * then write their state from an `afterModel` hook, since a structured response cannot carry
   * their `Command` (one more graph node and checkpoint write per model call each; without it
   * `workMemory` stores no structured answer).
   * @default false
   */
  structuredResponse?: boolean;
  /** Encryption identity (`agentId`, `tenantId`, `principalId`): user memory seals with it when a keyring is configured. */
  encryption?: Omit<EncryptionOptions, "keyring">;
  /**
   * Env the config was read from. Every middleware reads its own env twins from it too
   * (`MEMORY_SUMMARIZE_MAX_PASSES`, `MEMORY_USER_MEMORY_MAX_ITEMS`, `THREADWISE_LOG`, ...), never
   * from `process.env` when it is given; it also names the keyring's source in its errors.
   * @default process.env
   */
  env?: NodeJS.ProcessEnv;
}

const isObject = (value: unknown): boolean => typeof value === "object" && value !== null;
// A chat model, or a "provider:model" string each middleware makes with LangChain's initChatModel.
const chatModel = chatModelOptionSchema().optional();

/**
 * {@link MemoryMiddlewareOptions} as a strict schema: a misspelt key (`models.summary`) throws
 * `ThreadwiseUnknownOptionError` naming it, a wrong type `ThreadwiseConfigError` naming the field.
 * `memoryStack` checks its code-only options with it (plus its own `serde`, `pool`, `store`).
 * @internal
 */
export const memoryMiddlewareOptionsShape = {
  env: z.custom((value) => isObject(value), { message: "expected an env object such as process.env" }).optional(),
  models: z.strictObject({ summarize: chatModel, facts: chatModel, workMemory: chatModel }).optional(),
  logger: loggerOptionSchema,
  encryption: encryptionOptionsSchema.omit({ keyring: true }).optional(),
  structuredResponse: z.boolean().optional(),
};

/** What {@link placementMode} reports when a run names something the stack has turned off. */
export interface UnusedRunInput {
  /** Where the warnings go (the stack's logger). */
  logger: ThreadwiseLogger;
  /** userMemory is off: a run's `context.user_id` / `configurable.user_id` is ignored. */
  userId: boolean;
  /** historySeed is off (no `historySeedMaxMessages`): a run's `context.seedHistory` is ignored. */
  seedHistory: boolean;
}

/**
 * Fixes the placement mode (spec R8) for every block any later middleware adds in this model
 * call (core's placement keeps the first mode given explicitly for a request) and, when given,
 * the stack-wide `startOn` (spec R33; core keeps the first one stated). With `unused` (what the
 * stack has turned off), the first run naming `context.user_id` or `configurable.user_id` while
 * userMemory is off, and the first run passing `context.seedHistory` while historySeed is off,
 * each get one warning that it is ignored and which option turns it on (was silent: a user
 * thought their user memory worked, or that a 2,000-message import was stored).
 */
export function placementMode(mode: PromptContextMode, options: { startOn?: StartOn; unused?: UnusedRunInput } = {}) {
  const name = "threadwise/placement-mode";
  const warned = { userId: false, seedHistory: false };
  return threadwiseMiddleware({
    name,
    wrapModelCall: (request, handler) => {
      const unused = options.unused;
      if (unused?.userId && !warned.userId) {
        const field = userIdField(request.runtime);
        if (field) {
          warned.userId = true;
          unused.logger.warn(
            `memoryStack: this run names ${field} but userMemory is off, so it is ignored and nothing is remembered across the user's threads; turn user memory on with memoryStack({ userMemory: true }) or MEMORY_USER_MEMORY=true (warned once)`,
            { field },
          );
        }
      }
      if (unused?.seedHistory && !warned.seedHistory) {
        const context = (request.runtime as { context?: unknown } | undefined)?.context;
        if (typeof context === "object" && context !== null && (context as { seedHistory?: unknown }).seedHistory != null) {
          warned.seedHistory = true;
          unused.logger.warn(
            "memoryStack: this run passes context.seedHistory but historySeed is off, so none of it is stored; turn it on with memoryStack({ historySeedMaxMessages: <n> }) or A2A_HISTORY_MAX_MESSAGES (warned once)",
            { field: "context.seedHistory" },
          );
        }
      }
      // The mode and the start rule in one assembly.
      const decisions: ViewDecision[] = options.startOn ? [{ kind: "startOn", producer: name, startOn: options.startOn }] : [];
      return handler(withViewDecisions(request, decisions, { blocks: [], mode }));
    },
  });
}

/** Where a run names its user (`context.user_id`, else `configurable.user_id`), if it does. */
function userIdField(runtime: unknown): string | undefined {
  const { context, configurable } = (runtime ?? {}) as { context?: unknown; configurable?: unknown };
  const has = (source: unknown) => typeof source === "object" && source !== null && (source as { user_id?: unknown }).user_id != null;
  return has(context) ? "context.user_id" : has(configurable) ? "configurable.user_id" : undefined;
}

/**
 * Options of {@link cacheBreakpoints}, strict like every options schema: an unknown key, a value
 * of the wrong type or `null` throws at construction naming `cacheBreakpoints.<option>`.
 */
export const cacheBreakpointsOptionsSchema = z.strictObject({
  /**
   * Lifetime of the cache entries: `"5m"` (writes 1.25x) or `"1h"` (writes 2x).
   * @default the TTL of anthropicPromptCachingMiddleware when it ran first, else "5m"
   */
  ttl: z.enum(["5m", "1h"] satisfies CacheTtl[]).optional(),
  /** Mark requests of any model, not only Anthropic ones (e.g. a proxy that accepts Anthropic's `cache_control`). @default false */
  anyModel: z.boolean().optional(),
});

/** Options of {@link cacheBreakpoints} (see {@link cacheBreakpointsOptionsSchema}). */
export type CacheBreakpointsOptions = z.input<typeof cacheBreakpointsOptionsSchema>;

/**
 * Anthropic prompt-cache breakpoints where the next request can read them (spec R36): the end of
 * the operator's system prompt, the end of a summary placed after it, the newest user message
 * before the stable_tail context, and the newest tool result of a tool loop; never the context
 * message, which is not stored. Put it last in the middleware list (innermost), so it sees the
 * final view. Used with LangChain's `anthropicPromptCachingMiddleware` (before it in the list),
 * it takes over that middleware's top-level `cache_control` and its TTL, so the request keeps
 * within Anthropic's 4 breakpoints. Requests for other models are left as they are.
 *
 * @throws ThreadwiseConfigError naming `cacheBreakpoints.<option>` for a bad option (`ttl: "10m"`),
 *   or `cacheBreakpoints` when the options are not an object; ThreadwiseUnknownOptionError for an
 *   unknown key (`cacheBreakpoints.tll`).
 * @example
 * createAgent({ model: "anthropic:claude-sonnet-4-5", middleware: [summarize(), factRecall(), cacheBreakpoints()] });
 */
export function cacheBreakpoints(given?: CacheBreakpointsOptions) {
  const options = parseOptions("cacheBreakpoints", cacheBreakpointsOptionsSchema, given);
  // createMiddleware, not threadwiseMiddleware: the marked request must reach the model as marked;
  // it is assembled before marking instead.
  return createMiddleware({
    name: "threadwise/cache-breakpoints",
    wrapModelCall: (request, handler) => {
      const assembled = assembledRequest(request);
      return handler(cacheBreakpointsFor(assembled, systemContextBlocksOf(assembled), options));
    },
  });
}

/** The array `memoryMiddleware` returns, throwing when nested in `middleware: [...]` instead of spread. */
const nestedRefused = (stack: AgentMiddleware[]): AgentMiddleware[] =>
  refuseAsMiddleware(
    stack,
    "memoryMiddleware() (an array of middlewares)",
    "spread it, middleware: [...memoryMiddleware(config, options, checkpointer), ...yours]",
  );

/**
 * The middleware list of a resolved config, in this fixed order (first = outermost in
 * `wrapModelCall`):
 *
 * 1. `placementMode`: the configured R8 mode for every block below, and the stack-wide `startOn`.
 * 2. `historySeed` (when `historySeedMaxMessages` is set): seeds an empty thread first.
 * 3. `windowTrim` (unless `windowSize: false`): the window of recent groups. Before summarize, so
 *    that summarize summarizes exactly what this window leaves out (`[windowTrim(), summarize()]`).
 * 4. `summarize` (default on), 5. `workMemory`, 6. `factRecall`: producers of context blocks.
 *    Before them, when summarize, workMemory, userMemory or persistTrim is on, core's
 *    `summarySlotMiddleware` declares the summary slot they share, with no hook; they are built
 *    with `declareState: false`, so LangChain parses no state schema of theirs at each model call. With summarize on,
 *    the view is the window plus what left it since the last summary; the summary covers the rest.
 * 7. `userMemory` (when on): the user's memory from other threads (R40); inside `windowTrim`, so
 *    the multiturn line carries `user_memory=<state>`.
 * 8. `historyAware` (default on): the R7 note at the end of the system prompt.
 * 9. `persistTrim` (off unless `persistTrimKeepGroups`): after summarize, so the summary covers
 *    what it deletes. `archiveCheckpointerCheck` then `messageArchive` (with `archive: true` and a
 *    checkpointer; the check refuses a run whose checkpointer provably does not reach this
 *    archive, `memory.checkpointer`): moves what is
 *    summarized and older than the window plus {@link ARCHIVE_MARGIN_GROUPS} groups to the archive;
 *    summarize and recall then read the archive too.
 * 10. `recall` (unless `recallMaxTokens: false`): after the window and the summary, so it sees their
 *    view and recalls only messages that left it (and facts); its block is re-rendered by tokenCap.
 * 11. `tokenCap` (when `maxHistoryTokens` is set): innermost, so its budget counts the rendered
 *    system prompt, context blocks, tool schemas and the view exactly as sent. What it would cut
 *    that the summary does not cover yet, the summary covers first (core `extendSummaryCoverage`);
 *    only after a failed summarizer call does it drop such messages, counted in the multiturn line
 *    (`unsummarized_dropped`) and warned about.
 *
 * Core assembles the request from the decisions of all of them (`assembleView`), so every view
 * holds no orphan, one leading system message and starts by `startOn`.
 *
 * @throws ThreadwiseConfigError naming `memory.archive` when `config.archive` is on and no
 *   `checkpointer` (the stack's `ThreadwiseSaver`, which keeps the archive) is given.
 */
export function memoryMiddleware(
  config: MemoryConfig,
  options: MemoryMiddlewareOptions = {},
  checkpointer?: ThreadwiseSaver,
): AgentMiddleware[] {
  assertResolvedConfig(config, "memoryMiddleware.config");
  parseOptions("memoryMiddleware", z.strictObject(memoryMiddlewareOptionsShape), options);
  if (config.backend === "off") return nestedRefused([]);
  assertEncryptionKeyring(config, options.encryption);
  // Silently leaving the archive out would keep every message in the checkpoint, the cost `archive` exists to bound.
  if (config.archive && !checkpointer)
    throw new ThreadwiseConfigError(
      "memory.archive",
      "needs the stack's checkpointer, which keeps the archive: pass it as memoryMiddleware(config, options, checkpointer), or use memoryStack()",
    );
  // Without a window and without summaries every stored message is in the view: archiving would
  // take messages out of what the model sees (only summarized or windowed-out messages may leave).
  if (config.archive && config.windowSize === false && !config.summarize)
    throw new ThreadwiseConfigError(
      "memory.archive",
      "needs a window (windowSize) or summarize: without either the view is the whole stored thread, and archived messages would leave what the model sees",
    );
  // `archive` decides whether messages move to the archive; what is there is read whatever it
  // says: a thread archived while it was on keeps its archived part in recall, summaries and the
  // window's count once it is off, as `readThread` and `threadwise export` keep it (was: with the
  // archive off no reader was wired, and recall no longer found what had been archived; newuser65).
  const archive = config.archive ? checkpointer : undefined;
  const reader = checkpointer;
  const archived: ArchivedMessagesReader | undefined = reader
    ? (threadId, options) => reader.archivedMessages(threadId, options)
    : undefined;
  const logger = options.logger;
  // Every middleware reads its own env twins (and THREADWISE_LOG) from the stack's env.
  const env = options.env;
  const mode = config.promptContextMode;
  const promptLanguage = config.promptLanguage;
  const stack: AgentMiddleware[] = [
    placementMode(mode, {
      startOn: config.startOn,
      unused: { logger: resolveLogger(logger, env), userId: !config.userMemory, seedHistory: config.historySeedMaxMessages === undefined },
    }),
  ];
  if (config.historySeedMaxMessages !== undefined) stack.push(historySeed({ maxMessages: config.historySeedMaxMessages, logger, env }));
  if (config.windowSize !== false)
    stack.push(windowTrim({ maxMessages: config.windowSize, ...(archived ? { archived } : {}), logger, env }));
  // The summary slot is declared once, by core's hook-less summarySlotMiddleware, before the first
  // middleware that reads it; summarize, workMemory, userMemory and persistTrim declare none
  // (`declareState: false`): LangChain parses a declared schema at every model call of a
  // middleware with wrapModelCall, and every threadwise middleware has one. The message archive
  // writes its window count there (`archivedWindow`, R35), summarize or not: without the slot
  // LangGraph drops that write and windowTrim counts the hot part from its first user message.
  if (config.summarize || config.workMemory || config.userMemory || config.persistTrimKeepGroups !== undefined || config.archive)
    stack.push(summarySlotMiddleware());
  if (config.summarize)
    stack.push(
      summarize({
        declareState: false,
        model: options.models?.summarize,
        // With a window (windowTrim above) the summary covers what it leaves out; without, summarize's own.
        windowSize: config.windowSize === false ? undefined : config.windowSize,
        // The trigger (code, else MEMORY_SUMMARIZE_TRIGGER_*) takes the place of the threshold.
        ...(config.summarizeTrigger !== undefined ? { trigger: config.summarizeTrigger } : { threshold: config.summarizeThreshold }),
        promptContextMode: mode,
        promptLanguage,
        structuredResponse: options.structuredResponse,
        ...(reader ? { archived, archiveCleared: (threadId: string) => reader.archiveClearedDigests(threadId) } : {}),
        logger,
        env,
      }),
    );
  if (config.workMemory)
    stack.push(
      workMemory({
        declareState: false,
        model: options.models?.workMemory,
        promptContextMode: mode,
        promptLanguage,
        structuredResponse: options.structuredResponse,
        logger,
        env,
      }),
    );
  if (config.factsMode !== "off")
    stack.push(
      factRecall({
        mode: config.factsMode,
        maxItems: config.factRecallMaxItems,
        // Only llm extraction calls a model (factRecall refuses one with another mode given in code).
        ...(config.factsMode === "llm" ? { model: options.models?.facts } : {}),
        promptContextMode: mode,
        promptLanguage,
        structuredResponse: options.structuredResponse,
        // Every middleware here that deletes stored messages leaves a mark of what it took
        // (persistTrim's in the summary slot, the archive's rows): any other read message gone
        // was removed, and its facts go (R37).
        trims: false,
        // archivedAmong whenever the archive may hold messages (the last batch before the archive
        // was turned off is read as archived, not removed); archiveCleared with the archive on
        // only: with `trims: false` a thread trimmed by persistTrim would ask it (a checkpoint
        // read and an archive read) at every model call, for rewrites of an archive that no
        // longer grows.
        ...(reader ? { archivedAmong: (threadId: string, ids: readonly string[]) => reader.archivedAmong(threadId, ids) } : {}),
        ...(archive ? { archiveCleared: (threadId: string, since?: string) => archive.archiveClearedDigests(threadId, since) } : {}),
        logger,
        env,
      }),
    );
  if (config.userMemory)
    stack.push(
      userMemory({
        declareState: false,
        maxTokens: config.userMemoryMaxTokens,
        // As factRecall's: persistTrim and the archive leave a mark of what they take.
        trims: false,
        ...(reader ? { archivedAmong: (threadId: string, ids: readonly string[]) => reader.archivedAmong(threadId, ids) } : {}),
        promptContextMode: mode,
        promptLanguage,
        logger,
        // The identity the checkpointer keys on: the code's, else the stack's env (R27, R40).
        env,
        ...(config.keyringPath ? { keyring: loadConfigKeyring(config, env) } : {}),
        ...(options.encryption?.agentId ? { agentId: options.encryption.agentId } : {}),
        ...(options.encryption?.tenantId ? { tenantId: options.encryption.tenantId } : {}),
        ...(options.encryption?.principalId ? { principalId: options.encryption.principalId } : {}),
        // A deleted thread's words are recalled nowhere (R24): the checkpointer's tombstones.
        ...(checkpointer ? { deletedThreads: (threadIds: readonly string[]) => checkpointer.deletedThreads(threadIds) } : {}),
      }),
    );
  if (config.historyAware) stack.push(historyAware({ ...(archived ? { archived } : {}), promptLanguage, logger, env }));
  if (config.persistTrimKeepGroups !== undefined)
    stack.push(persistTrim({ declareState: false, keepGroups: config.persistTrimKeepGroups, logger, env }));
  if (archive)
    stack.push(
      // Before the archive is written: a run on a checkpointer that provably does not reach this
      // archive (one given after the spread) is refused, not split between two stores.
      archiveCheckpointerCheck(archive),
      messageArchive(archive, {
        keepGroups: config.windowSize === false ? DEFAULT_ARCHIVE_KEEP_GROUPS : config.windowSize + ARCHIVE_MARGIN_GROUPS,
        // windowTrim's chunked step (maxMessages - its default lowWatermark): cut points stay put.
        alignMessages: config.windowSize === false ? 1 : config.windowSize - Math.floor(config.windowSize / 2),
        logger: resolveLogger(logger, env),
      }),
    );
  if (config.recallMaxTokens !== false)
    stack.push(
      recall({
        maxTokens: config.recallMaxTokens,
        facts: config.factsMode !== "off",
        promptContextMode: mode,
        promptLanguage,
        // With the archive on, each model call reads the rows archived since the last one, not the
        // whole archive. Off, the archive no longer grows: recall reads it whole (one indexed query
        // on a thread that never archived; decoded once per process otherwise), and its index syncs
        // as without an archive (through archivedChanges every call of every thread went through
        // recall's archive mirror: a default SQLite turn at 160 messages measured 28.2 -> 33.0 ms
        // CPU; with `archived` only, 29.2 -> 29.4).
        ...(archive
          ? { archived, archivedChanges: (threadId, since) => archive.archivedChanges(threadId, since) }
          : reader
            ? { archived }
            : {}),
        logger,
        env,
      }),
    );
  if (config.maxHistoryTokens !== undefined)
    stack.push(tokenCap({ maxTokens: config.maxHistoryTokens, overflow: config.maxHistoryTokensOverflow, logger, env }));
  return nestedRefused(stack);
}
