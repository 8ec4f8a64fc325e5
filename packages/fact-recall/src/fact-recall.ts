import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import {
  type ArchiveClearedDigestsReader,
  type ArchivedAmongReader,
  addContextBlocks,
  chatModelOption,
  chatModelOptionSchema,
  envChoice,
  envOptionSchema,
  envPositiveInt,
  loggerOptionSchema,
  type PromptContextMode,
  type PromptLanguage,
  parseOptions,
  promptContextModeSchema,
  promptLanguageFor,
  promptLanguageSchema,
  promptTexts,
  resolveLogger,
  resolvePromptLanguage,
  runCheckpointIdOf,
  SizedLru,
  StructuredResponseWrites,
  statedPromptContextMode,
  summarySlotOf,
  type TextLanguage,
  THREADWISE_ENV,
  ThreadwiseConfigError,
  threadMessages,
  threadwiseMiddleware,
  timerMsSchema,
} from "@threadwise/core";
import { z } from "zod/v4";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { extractFactsWithModel, type FactExtractionModel } from "./extract-llm.js";
import { DEFAULT_FACT_INDEX_MAX_FACTS, DEFAULT_FACT_INDEX_MAX_THREADS, FactIndexCache, renderFacts } from "./fact-index.js";
import { planFactRead, ReadEntryCache, type TrimmedMessages } from "./fact-sources.js";
import {
  type CandidateFact,
  FACTS_STATE_KEY,
  type Fact,
  type FactSlot,
  type FactSlotUpdate,
  factSlotState,
  readFactSlot,
} from "./fact-store.js";
import { ingestUserMessages } from "./ingest.js";

/** Extraction modes (spec R15). */
export const FACT_MODES = ["off", "heuristic", "llm"] as const;
export type FactMode = (typeof FACT_MODES)[number];

/** Env twin of `mode`. */
export const FACTS_MODE_ENV = THREADWISE_ENV.factsMode;
/** Env twin of `maxItems`. */
export const FACT_RECALL_MAX_ITEMS_ENV = THREADWISE_ENV.factRecallMaxItems;

export const DEFAULT_MAX_ITEMS = 3;
export const DEFAULT_MAX_FACTS = 200;
export const DEFAULT_TIMEOUT_MS = 15_000;
export const DEFAULT_MIN_SCORE = 0;
/** Default heading of the facts block, in English. */
export const DEFAULT_FACTS_LABEL = "Known facts about the user";
/** Default heading of the facts block in each prompt language; the `promptLanguage` option picks one. */
export const DEFAULT_FACTS_LABELS: Readonly<Record<TextLanguage, string>> = { en: DEFAULT_FACTS_LABEL, ko: "사용자에 대해 알려진 사실" };
/**
 * Most user messages whose read entry (id, text, digest: see `ReadEntryCache`) one factRecall
 * holds across its threads (messages); the least recently served thread's go first and are
 * computed again when it comes back (same entries). It holds references to the texts of the
 * messages last checked, so its heap is about their size.
 */
export const DEFAULT_READ_CACHE_MAX_MESSAGES = 100_000;
/** Bound on the thread ids remembered for the one-warning-per-thread rule. */

const modelSchema = chatModelOptionSchema<FactExtractionModel>();
const loggerSchema = loggerOptionSchema.unwrap();

/** Options of {@link factRecall}. */
export const factRecallOptionsSchema = z
  .object({
    /**
     * `heuristic`: rules, no model. `llm`: `model` (or the agent's model) extracts, with the rules
     * as fallback on any failure. `off`: nothing is extracted or placed, no state is written.
     * Env twin `MEMORY_FACTS_MODE`. @default "heuristic"
     */
    mode: z.enum(FACT_MODES).optional(),
    /** Most facts placed per model call (facts). Env twin `MEMORY_FACT_RECALL_MAX_ITEMS`. @default 3 */
    maxItems: z.number().int().positive().optional(),
    /**
     * Chat model for `llm` mode, or a model named as `createAgent` takes one (`"openai:gpt-4o-mini"`:
     * LangChain's `initChatModel`, at the first model call; a provider package that is not
     * installed throws `ThreadwiseConfigError` naming `factRecall.model` there). Unset: the agent's
     * own model extracts, inside the model call (then the write goes out as a `Command`). Given
     * with `mode` `heuristic` or `off` (given, or the default `heuristic`), it would never be
     * called: construction throws `ThreadwiseConfigError` naming `factRecall.model`; a mode set by
     * env `MEMORY_FACTS_MODE` is left alone (then the model is unused).
     * @default undefined
     */
    model: modelSchema.optional(),
    /** Rule language; unset detects per message (Korean when >= 30% of letters are Hangul). @default undefined */
    language: z.enum(["en", "ko"]).optional(),
    /** Most facts stored per thread (facts); fewest-used, then least recently active, go first. @default 200 */
    maxFacts: z.number().int().positive().optional(),
    /**
     * Most facts whose search index this process holds across its threads (facts; about 2 KiB of
     * heap each); the least recently served thread's index goes first and is built again from its
     * facts when the thread comes back (same results). Raise it to the facts of the threads one
     * process serves in turn when memory allows. @default 51200
     */
    maxHeldFacts: z.number().int().positive().optional(),
    /**
     * Time limit of one LLM extraction call, in milliseconds, 1..2,147,483,647 (Node's timer
     * limit); past it the rules are used. @default 15000
     */
    timeoutMs: timerMsSchema.optional(),
    /**
     * Least BM25+ score a fact needs to be placed (unitless). At 0 a fact is relevant when it
     * shares one content word (after stop words, particles and endings are dropped) with the
     * newest user message; raise it to place only stronger matches. Scores grow with the number
     * of stored facts (rarer words weigh more), so a fixed threshold means less in a small thread.
     * @default 0
     */
    minScore: z.number().nonnegative().optional(),
    /** Placement mode (spec R8); unset: env `THREADWISE_PROMPT_CONTEXT_MODE`, else `legacy_system`. @default undefined */
    promptContextMode: promptContextModeSchema.optional(),
    /** Heading of the placed block, used whatever the conversation's language. @default {@link DEFAULT_FACTS_LABELS} in the prompt language */
    label: z.string().min(1).optional(),
    /**
     * Language of the default heading: `en`, `ko`, or `auto` (per model call, the language of the
     * newest user messages, core's `conversationLanguage`). Each fact line stays in its own
     * language; `language` is the rules'. @default env `THREADWISE_PROMPT_LANGUAGE`, else `"en"`
     */
    promptLanguage: promptLanguageSchema.optional(),
    /**
     * Set `true` when the agent has a `responseFormat`. A fact write normally rides on the model
     * call's `Command`, which a structured response cannot carry; with this set the write is made
     * from an `afterModel` hook instead (one more graph node and checkpoint write per model call).
     * Unset with a structured response, the turn's facts are not stored (a warning is logged) and
     * are read again on the next model call that returns a plain message. @default false
     */
    structuredResponse: z.boolean().optional(),
    /**
     * Whether a middleware of the stack that leaves no trim mark deletes the oldest messages of the
     * stored thread (LangChain's `summarizationMiddleware`). `true`: a read user message gone
     * together with every older one is taken as trimmed, and its facts are kept (that is what facts
     * are for). `false`: only persistTrim and the message archive delete them, and they leave a
     * mark of what they took: persistTrim in the thread's summary slot (`trimmed`, core's
     * `TrimMark`; declared by persistTrim or `summarySlotMiddleware()`), the archive in its rows
     * (read through `archivedAmong`). A read message they took keeps its facts, any other gone was
     * removed (`RemoveMessage`, of the oldest messages too), and its facts are dropped like any
     * removed message's (R37). `memoryStack` sets `false`, with the archive on and off.
     * @default true
     */
    trims: z.boolean().optional(),
    /**
     * Reads which of some message ids the thread's message archive holds (core's
     * `ArchivedAmongReader`; `(threadId, ids) => checkpointer.archivedAmong(threadId, ids)` with
     * `@threadwise/memory`'s archive, which `memoryStack({ archive: true })` passes). With
     * `trims: false`, asked on a model call where read user messages are gone that persistTrim's
     * mark does not name: those the archive holds were archived and keep their facts; the others
     * were removed. One indexed lookup, on the first model call after an archiving step or a
     * removal. Without it, with the archive and `trims: false`, archived messages count as removed.
     * @default undefined
     */
    archivedAmong: z
      .custom<ArchivedAmongReader>((value) => typeof value === "function", {
        message: "expected a function (threadId, messageIds) => Promise<string[]>",
      })
      .optional(),
    /**
     * Reads the digests of what the thread's message archive held when a rewrite
     * (`REMOVE_ALL_MESSAGES`, then the thread as it should read) last emptied it, oldest first, 8
     * characters each (core's `messageDigest`), or `undefined` when none did; e.g. `(threadId, since) =>
     * checkpointer.archiveClearedDigests(threadId, since)` with `@threadwise/memory`'s archive
     * (`memoryStack({ archive: true })` passes it). `since` is the checkpoint the slot's last read
     * ran from (kept in the slot as `checkpointId` while this option is set): the reader returns
     * `undefined` unless a rewrite emptied the archive after it, which held messages then. Read
     * only on a model call where stored user messages come before the first one read before, or
     * none read before is stored (a rewrite brought archived messages back, or kept none of the
     * thread), or, with `trims: false`, while the slot holds facts stated in user messages neither
     * stored nor read (archived before the last read: a rewrite keeping only the hot part may have
     * left them out; those it left out go, as on a thread without the archive): with it, the ones that come back as they were are not read again, and facts stated
     * in one the rewrite left out go (R37), as on a thread without the archive; without it every
     * message brought back is read again, and those facts stay. A reader that ignores `since`
     * also gives an older rewrite's digests (persistTrim's, every time it deletes): after a later
     * removal of every message read, the facts of the messages that rewrite deleted went, where a
     * thread without the archive keeps them. @default undefined
     */
    archiveCleared: z
      .custom<ArchiveClearedDigestsReader>((value) => typeof value === "function", {
        message: "expected a function (threadId, since?) => Promise<string | undefined>",
      })
      .optional(),
    /** Where warnings go (LLM fallback); `false` for none. @default core's resolveLogger() */
    logger: loggerSchema.optional(),
    /**
     * Where the env twins (`MEMORY_FACTS_MODE`, `MEMORY_FACT_RECALL_MAX_ITEMS`),
     * `THREADWISE_PROMPT_CONTEXT_MODE` and `THREADWISE_LOG` are read instead of `process.env`;
     * `memoryStack({ env })` passes its own. @default process.env
     */
    env: envOptionSchema,
  })
  .strict();
export type FactRecallOptions = z.input<typeof factRecallOptionsSchema>;

/** The configuration after options, env and defaults are applied. */
export interface ResolvedFactRecallConfig {
  mode: FactMode;
  maxItems: number;
  maxFacts: number;
  maxHeldFacts: number;
  timeoutMs: number;
  minScore: number;
  label: string;
  /** The heading in each language: `label` in both when given, else {@link DEFAULT_FACTS_LABELS}. */
  labels: Readonly<Record<TextLanguage, string>>;
  promptLanguage: PromptLanguage;
  language: "en" | "ko" | undefined;
  promptContextMode: PromptContextMode | undefined;
}

/**
 * Resolves options against env and defaults.
 * @throws ThreadwiseConfigError naming the option or env variable that is invalid.
 */
export function resolveFactRecallConfig(
  options: FactRecallOptions = {},
  env: NodeJS.ProcessEnv = options?.env ?? process.env,
): ResolvedFactRecallConfig {
  const parsed = parseOptions("factRecall", factRecallOptionsSchema, options);
  const envMode = envChoice(FACTS_MODE_ENV, FACT_MODES, env);
  const mode = parsed.mode ?? envMode ?? "heuristic";
  // The model extracts in `llm` mode only. One given with another mode in code (or the default)
  // would never be called: refused. A mode set in env is the deployment's choice (facts off, or
  // rules only, for now) and is left alone.
  if (parsed.model !== undefined && mode !== "llm" && (parsed.mode !== undefined || envMode === undefined))
    throw new ThreadwiseConfigError(
      "factRecall.model",
      `applies only with mode "llm" (got mode ${JSON.stringify(mode)}${parsed.mode === undefined ? ", the default" : ""}, which never calls it): set mode: "llm" (or env ${FACTS_MODE_ENV}=llm), or remove it`,
    );
  return {
    mode,
    maxItems: parsed.maxItems ?? envPositiveInt(FACT_RECALL_MAX_ITEMS_ENV, env) ?? DEFAULT_MAX_ITEMS,
    maxFacts: parsed.maxFacts ?? DEFAULT_MAX_FACTS,
    maxHeldFacts: parsed.maxHeldFacts ?? DEFAULT_FACT_INDEX_MAX_FACTS,
    timeoutMs: parsed.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    minScore: parsed.minScore ?? DEFAULT_MIN_SCORE,
    label: parsed.label ?? DEFAULT_FACTS_LABEL,
    labels: promptTexts(parsed.label, DEFAULT_FACTS_LABELS),
    promptLanguage: resolvePromptLanguage(parsed.promptLanguage, env),
    language: parsed.language,
    promptContextMode: statedPromptContextMode(parsed.promptContextMode, parsed.env),
  };
}

/**
 * Durable facts about the user, extracted from user messages and recalled when they matter
 * (spec R15-R17).
 *
 * How it works, in `wrapModelCall` (no graph node of its own):
 * - Once per new user message (a cursor in state skips the later model calls of a tool loop):
 *   extract facts (rules, or a model with the rules as fallback: `model`, else in `llm` mode the
 *   agent's model), upsert them into the thread's private state `_threadwise_facts` (same subject
 *   and attribute supersedes, duplicates merge, at most `maxFacts`), then rank them against the
 *   newest user message with BM25+ and keep the top `maxItems` keys. The write goes out as the
 *   model call's `Command`; with a structured `responseFormat` pass `structuredResponse: true`.
 * - After an edit in place, a `RemoveMessage` or a rewrite of the thread, the facts of what the
 *   user changed are dropped and the user messages from the first that changed are read again;
 *   facts of messages that left through persistTrim or the message archive stay, and the facts
 *   are the same with and without the archive (R35/R37; README "Edits, removals, trims and
 *   forks").
 * - Place those facts as a `facts` context block through core placement (R8/R9). Nothing is
 *   placed when no fact is relevant. The stored thread and messages are never changed.
 *
 * Facts are thread-scoped: they live in the thread's checkpointed state, so they persist exactly
 * as far as the checkpointer does and never show up in another thread (R16).
 *
 * @throws ThreadwiseConfigError at construction on an invalid option or env value.
 * @example
 * const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [factRecall({ maxItems: 5 })] });
 * await agent.invoke({ messages: [{ role: "user", content: "I moved to Busan." }] }, { configurable: { thread_id: "t1" } });
 */
export function factRecall(options: FactRecallOptions = {}) {
  const config = resolveFactRecallConfig(options);
  const parsed = parseOptions("factRecall", factRecallOptionsSchema, options);
  const logger = resolveLogger(parsed.logger, parsed.env);
  const ownModel = chatModelOption<FactExtractionModel>("factRecall.model", parsed.model);
  const trims = parsed.trims ?? true;

  const heuristic = (text: string): { facts: CandidateFact[]; origin: Fact["origin"] } => ({
    facts: extractFactsHeuristic(text, config.language ? { language: config.language } : {}),
    origin: "heuristic",
  });
  const extractorFor = (model: FactExtractionModel | undefined, signal?: AbortSignal) => async (text: string) => {
    if (config.mode !== "llm" || !model) return heuristic(text);
    try {
      const facts = await extractFactsWithModel(model, text, {
        timeoutMs: config.timeoutMs,
        signal,
        ...(config.language ? { language: config.language } : {}),
      });
      return { facts, origin: "llm" as const };
    } catch (error) {
      const reason = (error as { reason?: string }).reason ?? "model_error";
      logger.warn("fact-recall: LLM extraction failed, used the rules for this message", { reason });
      return heuristic(text);
    }
  };
  const settings = { maxFacts: config.maxFacts, maxItems: config.maxItems, minScore: config.minScore };
  // One incremental index per thread (issue 16): synced with the slot, re-indexing only changed facts.
  const indexes = new FactIndexCache(DEFAULT_FACT_INDEX_MAX_THREADS, config.maxHeldFacts);
  // Per thread: the user messages last checked, so a model call digests only new or changed ones.
  const readCaches = new SizedLru<string, ReadEntryCache>(DEFAULT_FACT_INDEX_MAX_THREADS, DEFAULT_READ_CACHE_MAX_MESSAGES);
  // The label's language is decided on the stored thread (`state.messages`), as every other block's
  // and historyAware's note: the request's messages may be a view an outer middleware of the
  // application's cut to a short newest message, which turned this label alone to English.
  const place = <R extends Parameters<typeof addContextBlocks>[0] & { state?: { messages?: BaseMessage[] } }>(
    request: R,
    facts: readonly Fact[],
  ): R =>
    facts.length === 0
      ? request
      : addContextBlocks(
          request,
          [
            {
              kind: "facts",
              producer: "threadwise/fact-recall",
              label: config.labels[promptLanguageFor(config.promptLanguage, request.state?.messages ?? threadMessages(request))],
              text: renderFacts(facts),
            },
          ],
          config.promptContextMode ? { mode: config.promptContextMode } : {},
        );
  const recalledOf = (slot: FactSlot): Fact[] => {
    const byKey = new Map(slot.facts.map((fact) => [fact.key, fact]));
    return slot.recalled.map((key) => byKey.get(key)).filter((fact): fact is Fact => fact !== undefined);
  };

  // Thread id -> fact update to write in afterModel (only with `structuredResponse`).
  const writes = new StructuredResponseWrites<FactSlotUpdate>({
    enabled: parsed.structuredResponse === true,
    warning: "fact-recall: could not attach the fact write to a structured response; pass `structuredResponse: true`",
    logger,
    toState: (update) => ({ [FACTS_STATE_KEY]: update }),
  });

  return threadwiseMiddleware({
    name: "threadwise/fact-recall",
    stateSchema: factSlotState,
    // Extraction runs inside the model call, so the write rides on the model node's `Command`: a
    // `beforeModel` hook would be one more graph node, and LangChain's middleware node returns the
    // whole state with any update, so every message would be written to the checkpoint again.
    wrapModelCall: async (request, handler) => {
      if (config.mode === "off") return handler(request);
      // A model named by a string is made at the first model call, so a wrong name fails at once.
      const own = await ownModel();
      const slot = readFactSlot(request.state);
      // What the stored thread says now (R37): new user messages, and after an edit, a removal or
      // a rewrite, the facts of what is gone dropped and the thread read again.
      const messages = request.state.messages ?? [];
      const threadId = String((request.runtime?.configurable as { thread_id?: unknown } | undefined)?.thread_id ?? "");
      const cache = threadId === "" ? undefined : (readCaches.get(threadId) ?? readCaches.set(threadId, new ReadEntryCache()));
      // What persistTrim took (the summary slot's mark), to tell from what the user removed.
      const mark = trims ? undefined : summarySlotOf(request)?.trimmed;
      const trimmed: TrimmedMessages = mark ? { mark } : {};
      let plan = planFactRead(messages, slot, undefined, cache, trims, trimmed);
      // Read messages gone that the mark does not name: the ones the archive holds were archived.
      if (plan.removed && parsed.archivedAmong && threadId !== "") {
        const archived = await parsed.archivedAmong(threadId, plan.removed);
        if (archived.length > 0) {
          trimmed.archived = new Set(archived);
          plan = planFactRead(messages, slot, undefined, cache, trims, trimmed);
        }
      }
      if (cache) readCaches.resize(threadId, cache.size);
      // Where this read stands, for the next one's question to the archive (below).
      const checkpointId = parsed.archiveCleared ? runCheckpointIdOf(request.runtime) : undefined;
      // A rewrite brought archived messages back, or kept none of the thread: the archive's digests
      // tell which are as they were and which it left out. Only a rewrite after the slot's last
      // read is news: one from before (persistTrim's, each time it deletes) was read past already,
      // and its digests name messages whose facts stay (was: taken whenever no read message was
      // left, their facts dropped as if just left out).
      // With `trims: false`, facts stated in messages archived before the last read are news too
      // (`unreadSources`): a rewrite since may have left them out.
      if ((plan.unknownHead || plan.unreadSources) && parsed.archiveCleared && threadId !== "") {
        const cleared = await parsed.archiveCleared(threadId, slot.checkpointId);
        if (cleared !== undefined) plan = planFactRead(messages, slot, cleared, cache, trims, trimmed);
      }
      const { pending } = plan;
      if (pending.length === 0 && plan.facts === undefined) return handler(place(request, recalledOf(slot)));
      const model = own ?? (config.mode === "llm" ? (request.model as unknown as FactExtractionModel) : undefined);
      const { update: read, recalled } = await ingestUserMessages(
        slot,
        pending,
        {
          ...settings,
          // Synced by ingestUserMessages with the facts after this message, right before the search.
          index: indexes.for(threadId),
          extract: extractorFor(model, request.runtime?.signal),
        },
        plan,
      );
      const update = checkpointId === undefined ? read : { ...read, checkpointId };
      const response = await handler(place(request, recalled));
      if (AIMessage.isInstance(response)) return new Command({ update: { [FACTS_STATE_KEY]: update } });
      writes.defer(threadId, update, response);
      return response;
    },
    // Only with a `responseFormat`: a structured response cannot carry the `Command`.
    ...writes.hooks(),
  });
}
