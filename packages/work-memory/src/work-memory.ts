import type { BaseLanguageModelInterface } from "@langchain/core/language_models/base";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import {
  addContextBlocks,
  callIdsOf,
  chatModelOption,
  chatModelOptionSchema,
  declaredSummarySlot,
  envOptionSchema,
  loggerOptionSchema,
  messageType,
  newestUserAt,
  parseOptions,
  promptContextModeSchema,
  promptLanguageFor,
  promptLanguageSchema,
  readSummarySlot,
  resolveLogger,
  resolvePromptLanguage,
  StructuredResponseWrites,
  SUMMARY_SLOT_KEY,
  type SummarySlotUpdate,
  statedPromptContextMode,
  summarySlotState,
  type TextLanguage,
  threadwiseMessageId,
  threadwiseMiddleware,
  timerMsSchema,
  type WorkMemoryPending,
} from "@threadwise/core";
import { z } from "zod/v4";
import { condenseResponse, DEFAULT_CONDENSE_PROMPT } from "./condense.js";
import { boundEnvelope, renderWorkMemory } from "./envelope.js";
import { projectResponse, stripInlineData } from "./response-projection.js";
import { asksForInput, decideStore, modelResponseRecord, type SkipReason } from "./store-decision.js";
import { toolResultsOf } from "./tool-results.js";

/** Name of the middleware, also the `producer` of its context block. */
export const WORK_MEMORY_MIDDLEWARE_NAME = "threadwise/work-memory";

/** Label of the context block in English: rendered `[Work memory]`. */
export const WORK_MEMORY_LABEL = "Work memory";
/** Label of the context block in each prompt language; the `promptLanguage` option picks one. */
export const WORK_MEMORY_LABELS: Readonly<Record<TextLanguage, string>> = { en: WORK_MEMORY_LABEL, ko: "작업 메모리" };

/** Options of {@link workMemory}. */
export const workMemoryOptionsSchema = z.strictObject({
  /**
   * Most entries in the envelope; the oldest leaves first. Unit: entries.
   * @default 3
   */
  maxItems: z.number().int().positive().default(3),
  /**
   * Most characters over all entries, counted as a user counts them (core `countCharacters`:
   * grapheme clusters, so a Korean syllable, composed or decomposed, and an emoji sequence are one
   * each). A new entry longer than this alone is shortened to fit. Unit: characters.
   * @default 2000
   */
  maxCharacters: z.number().int().positive().default(2000),
  /**
   * Chat model of the internal condensation call. Give a small, cheap model; without one the
   * agent's own model is used (the one of the run's last model call, without tools bound), in that
   * model call, right after it returns a final answer (so before the output checks: also for an
   * answer a check later replaces). A model
   * named as `createAgent` takes one (`"openai:gpt-4o-mini"`) is made by LangChain's
   * `initChatModel` at the first model call; a provider package that is not installed throws
   * `ThreadwiseConfigError` naming `workMemory.model` there.
   * @default the agent's model
   */
  model: chatModelOptionSchema<BaseLanguageModelInterface>(
    'must be a chat model (an object with invoke()) or a "provider:model" string',
  ).optional(),
  /**
   * Time allowed for the condensation call; when it passes the call is aborted, nothing is stored
   * and the turn ends normally. Unit: milliseconds, 1..2,147,483,647 (Node's timer limit).
   * @default 30000
   */
  timeoutMs: timerMsSchema.default(30_000),
  /**
   * Where the envelope goes in the prompt (spec R8, R36): the end of the system prompt
   * (`legacy_system`), or the stable_tail block of the newest user message (`stable_tail`, and
   * `cache_aware`: the envelope changes after each stored answer, so it is a per-message block).
   * @default env `THREADWISE_PROMPT_CONTEXT_MODE`, else `legacy_system`
   */
  promptContextMode: promptContextModeSchema.optional(),
  /**
   * Language of the block's label: `en`, `ko`, or `auto` (per model call, the language of the
   * newest user messages, core's `conversationLanguage`). The notes are condensed in the
   * response's language. @default env `THREADWISE_PROMPT_LANGUAGE`, else `"en"`
   */
  promptLanguage: promptLanguageSchema.optional(),
  /**
   * Instruction of the condensation call; `{maxCharacters}` is replaced by the limit.
   * @default {@link DEFAULT_CONDENSE_PROMPT}
   */
  prompt: z.string().trim().min(1, "must be a non-empty string").optional(),
  /**
   * Detector of an answer that asks the user for input (never stored), given the answer's text.
   * @default {@link asksForInput}: the text ends with a question mark
   */
  asksForInput: z.custom<(text: string) => boolean>((value) => typeof value === "function", "must be a function").optional(),
  /**
   * Extra block check for output checks that mark nothing on the message: return `true` to treat
   * the final answer as blocked (never stored).
   * @default none
   */
  isBlocked: z.custom<(message: AIMessage) => boolean>((value) => typeof value === "function", "must be a function").optional(),
  /**
   * Where the `work_memory:` lines go (one per finished run: stored, or skipped with a reason).
   * `false` for none. Lines never hold message text.
   * @default the threadwise default logger (silent unless env `THREADWISE_LOG=info`)
   */
  logger: loggerOptionSchema,
  /**
   * Where `THREADWISE_PROMPT_CONTEXT_MODE` and `THREADWISE_LOG` are read instead of `process.env`;
   * `memoryStack({ env })` passes its own. @default process.env
   */
  env: envOptionSchema,
  /**
   * Whether workMemory declares the thread's summary slot (`_threadwise_summary`), where its
   * envelope lives, as its own state schema. LangChain parses the declared schema of a middleware
   * with `wrapModelCall` at every model call (a new zod object each time); `false` leaves the
   * declaration to core's `summarySlotMiddleware()` (no hook) anywhere in the same `middleware`
   * list, and workMemory reads the slot from the graph (`memoryStack` does this). With `false` and
   * no middleware declaring the slot, a model call throws `ThreadwiseConfigError` naming
   * `workMemory.declareState`.
   * @default true
   */
  declareState: z.boolean().default(true),
  /**
   * Set `true` when the agent has a `responseFormat`. What the model call saw of the final answer
   * (its digest, the structured response) normally rides on the model call's `Command`, which a
   * structured response cannot carry; with this set it is written from an `afterModel` hook instead
   * (one more graph node and checkpoint write per model call). Unset with a structured response,
   * the answer is not stored (a warning is logged once per thread).
   * @default false
   */
  structuredResponse: z.boolean().default(false),
});

/** Options of {@link workMemory}, as accepted (before defaults). */
export type WorkMemoryOptions = z.input<typeof workMemoryOptionsSchema>;

function responseOf(result: unknown): { response: BaseMessage | undefined; structuredResponse: unknown } {
  if (AIMessage.isInstance(result)) return { response: result, structuredResponse: undefined };
  if (result && typeof result === "object" && "structuredResponse" in result && "messages" in result) {
    const messages = (result as { messages: BaseMessage[] }).messages;
    const response = [...messages].reverse().find((m) => messageType(m) === "ai");
    return { response, structuredResponse: (result as { structuredResponse: unknown }).structuredResponse };
  }
  return { response: undefined, structuredResponse: undefined };
}

/**
 * Work memory for `createAgent` (spec R18): after a run that ends with a normally completed
 * answer, the answer (text, structured output, file and artifact metadata; inline bytes and
 * base64 never) is condensed by one internal model call into a short note, and the note is
 * committed into the thread's summary slot (`_threadwise_summary.workMemory`, shared with
 * `summarize`, whose summary is never touched) as a bounded envelope: at most `maxItems` entries
 * and `maxCharacters` characters, oldest out first. Before every model call the envelope is placed
 * as a `work_memory` context block through core's `addContextBlocks` (R8, R9).
 *
 * **When it commits.** In `afterAgent`, once per run, so tool steps (parallel tool calls
 * included) never write the slot, and the one write is an idempotent merge by entry id with the
 * ids to keep. LangChain runs `afterAgent` hooks in reverse middleware order, and one that jumps
 * to `end` skips those of the middlewares before it: put `workMemory` **before every middleware
 * that checks the answer in an after-hook**, so its `afterAgent` runs after theirs (listed after
 * one, it commits the answer before the check replaces it). Its place among threadwise
 * middlewares changes nothing (context blocks are sorted by kind); `memoryStack` places it after
 * `summarize`, before every middleware of the stack with an `afterAgent` hook. A run that throws or is
 * interrupted never reaches `afterAgent`, so it stores nothing. Otherwise the answer is stored only
 * when all the rules of {@link decideStore} hold: the thread ends on the AI message the model
 * returned in this run (a guardrail that replaced or rewrote it blocks storing), with no block
 * marker, no incomplete `finish_reason`, no question to the user, and some content. A failed,
 * timed-out or empty condensation stores nothing; the turn still ends normally.
 *
 * **Not used, no trace.** Without this middleware no state key, model call or trace field is
 * added. The internal call is tagged `threadwise:internal` and `nostream`.
 *
 * **A run resumed elsewhere.** What the commit needs of the model call (a digest of the answer,
 * never its text; the structured response) waits in the thread's state, so a fresh process that
 * resumes the run after an interrupt commits what the process that ran it would. The condensation
 * call uses `model` at the commit; without one it uses the agent's model, which a middleware reaches
 * in a model call only: the final answer is condensed there and the note waits with the record.
 *
 * Needs a `thread_id` (a run without one stores nothing).
 *
 * @throws ThreadwiseConfigError at construction when an option is invalid (e.g.
 *   `workMemory.maxItems`).
 * @example
 * import { createAgent } from "langchain";
 * import { MemorySaver } from "@langchain/langgraph";
 * import { ChatOpenAI } from "@langchain/openai";
 * import { workMemory } from "@threadwise/work-memory";
 *
 * const agent = createAgent({
 *   model: new ChatOpenAI({ model: "gpt-4o" }),
 *   checkpointer: new MemorySaver(),
 *   middleware: [workMemory({ maxItems: 3, maxCharacters: 2000, model: new ChatOpenAI({ model: "gpt-4o-mini" }) })],
 * });
 */
export function workMemory(options: WorkMemoryOptions = {}) {
  const settings = parseOptions("workMemory", workMemoryOptionsSchema, options);
  const mode = statedPromptContextMode(settings.promptContextMode, settings.env);
  const language = resolvePromptLanguage(settings.promptLanguage, settings.env);
  const logger = resolveLogger(settings.logger, settings.env);
  const prompt = settings.prompt ?? DEFAULT_CONDENSE_PROMPT;
  const detectQuestion = settings.asksForInput ?? asksForInput;
  const ownModel = chatModelOption<BaseLanguageModelInterface>("workMemory.model", settings.model);
  /** The slot: the request's (or hook's) state when declared here, else from the graph (core `declaredSummarySlot`). */
  const slotOf = (source: { state?: unknown; runtime?: unknown }) =>
    settings.declareState ? readSummarySlot(source.state) : declaredSummarySlot(source, "workMemory.declareState");
  const pendingUpdate = (pending: WorkMemoryPending | null) =>
    ({ [SUMMARY_SLOT_KEY]: { workMemory: { entries: [], pending } } satisfies SummarySlotUpdate }) as Record<string, unknown>;
  // A structured response cannot carry the model call's Command: with `structuredResponse`, afterModel writes the record.
  const writes = new StructuredResponseWrites<WorkMemoryPending>({
    enabled: settings.structuredResponse,
    warning:
      "work_memory: a structured answer is stored only with `structuredResponse: true` (the record of the model call could not be kept)",
    logger,
    toState: pendingUpdate,
  });

  const skip = (reason: SkipReason, threadId?: string) => {
    logger.info(`work_memory: skipped reason=${reason}`, threadId ? { thread_id: threadId } : undefined);
    return undefined;
  };
  const condense = (projection: string, model: BaseLanguageModelInterface, signal: AbortSignal | undefined) =>
    condenseResponse(projection, { model, prompt, maxCharacters: settings.maxCharacters, timeoutMs: settings.timeoutMs, signal });
  const condensationFailed = (error: unknown, threadId: string) =>
    logger.warn("work_memory: condensation failed; nothing stored", {
      thread_id: threadId,
      error: error instanceof Error ? error.name : typeof error,
    });

  /**
   * Whether the answer ending `messages` may be stored ({@link decideStore}, read against `record`,
   * the model call's record of it) and, when it may, its projection ({@link projectResponse}): the
   * answer, the record's structured response and the tool results of the user's turn, from the
   * newest user message (core `newestUserAt`, which skips a user message of only `tool_result`
   * blocks: Anthropic's native tool loop, not a turn). The model call (no model of its own) and
   * `afterAgent` judge by this one reading.
   */
  const answerProjection = (
    messages: readonly BaseMessage[],
    record: WorkMemoryPending | undefined,
  ): { store: false; reason: SkipReason } | { store: true; projection: string } => {
    const last = messages.at(-1);
    const decision = decideStore({
      last,
      modelResponse: record,
      hasStructuredResponse: record?.structuredResponse !== undefined,
      isBlocked: settings.isBlocked,
      asksForInput: detectQuestion,
    });
    if (!decision.store) return decision;
    const projection = projectResponse({
      message: last as BaseMessage,
      structuredResponse: record?.structuredResponse,
      toolResults: toolResultsOf(messages, newestUserAt(messages)),
    });
    return { store: true, projection };
  };

  /**
   * What the run's commit needs of a final answer, from the model call that returned it. Without a
   * model of its own the condensation happens here: the agent's model is reachable in a model call
   * only, and a run resumed by another process (after an output check's interrupt) must commit the
   * same note as the process that ran it.
   */
  const pendingOf = async (
    response: BaseMessage,
    structuredResponse: unknown,
    request: { model: unknown; state?: { messages?: unknown }; runtime?: { signal?: AbortSignal } },
    own: BaseLanguageModelInterface | undefined,
    threadId: string,
  ): Promise<WorkMemoryPending> => {
    const stripped = structuredResponse === undefined ? undefined : stripInlineData(structuredResponse);
    const pending: WorkMemoryPending = {
      ...modelResponseRecord(response),
      ...(structuredResponse === undefined ? {} : { structuredResponse: stripped }),
    };
    if (own) return pending;
    const answer = answerProjection([...((request.state?.messages ?? []) as BaseMessage[]), response], pending);
    if (!answer.store || answer.projection === "") return pending;
    try {
      return { ...pending, note: await condense(answer.projection, request.model as BaseLanguageModelInterface, request.runtime?.signal) };
    } catch (error) {
      condensationFailed(error, threadId);
      return { ...pending, condensationFailed: true };
    }
  };

  return threadwiseMiddleware({
    name: WORK_MEMORY_MIDDLEWARE_NAME,
    ...(settings.declareState ? { stateSchema: summarySlotState } : {}),
    beforeAgent: (state, runtime) => {
      // A record a run left behind (its afterAgent skipped by a check's jump to the end): a new
      // run must not judge by it.
      return slotOf({ state, runtime }).workMemory?.pending ? (pendingUpdate(null) as never) : undefined;
    },
    wrapModelCall: async (request, handler) => {
      // A model named by a string is made at the first model call, so a wrong name fails at once.
      const own = await ownModel();
      const entries = slotOf(request).workMemory?.entries ?? [];
      const text = renderWorkMemory(entries);
      const placed =
        text === ""
          ? request
          : addContextBlocks(
              request,
              [
                {
                  kind: "work_memory",
                  producer: WORK_MEMORY_MIDDLEWARE_NAME,
                  label: WORK_MEMORY_LABELS[promptLanguageFor(language, request.state?.messages ?? [])],
                  text,
                },
              ],
              { mode },
            );
      const result = await handler(placed);
      const threadId = request.runtime.configurable?.thread_id;
      if (typeof threadId !== "string") return result;
      const { response, structuredResponse } = responseOf(result);
      // Only a final answer is committed: a response that calls tools leaves the state as it is.
      if (!response || callIdsOf(response).length > 0) return result;
      const pending = await pendingOf(response, structuredResponse, request as never, own, threadId);
      if (AIMessage.isInstance(result)) return new Command({ update: pendingUpdate(pending) });
      writes.defer(threadId, pending, result);
      return result;
    },
    ...writes.hooks(),
    afterAgent: async (state, runtime) => {
      const threadId = runtime.configurable?.thread_id;
      if (typeof threadId !== "string") return skip("no_thread");
      // What the model call kept in the thread's state: the same in any process resuming the run.
      const slot = slotOf({ state, runtime });
      const pending = slot.workMemory?.pending;
      const consumed = pending ? (pendingUpdate(null) as never) : undefined;
      const end = (reason: SkipReason) => {
        skip(reason, threadId);
        return consumed;
      };
      const messages = state.messages as BaseMessage[];
      const last = messages.at(-1);
      // The record is kept of final answers only: a run that ended on a call had none.
      if (!pending && last && messageType(last) === "ai" && callIdsOf(last).length > 0) return end("not_final");
      const answer = answerProjection(messages, pending);
      if (!answer.store) return end(answer.reason);
      const { projection } = answer;
      const record = pending as WorkMemoryPending;
      const final = last as BaseMessage;
      if (projection === "") return end("empty");
      if (record.condensationFailed) return consumed;
      let note = record.note;
      if (note === undefined) {
        const own = await ownModel();
        // Judged not storable when the model returned it (no model of its own, so condensed there),
        // storable now: a later hook changed only what the rules read besides the text.
        if (!own) return end("not_condensed");
        try {
          note = await condense(projection, own, runtime.signal);
        } catch (error) {
          condensationFailed(error, threadId);
          return consumed;
        }
      }
      if (note === "") return end("condensation_empty");
      const bounded = boundEnvelope(
        slot.workMemory?.entries ?? [],
        { id: final.id ?? threadwiseMessageId("work-memory"), text: note, createdAt: new Date().toISOString() },
        settings,
      );
      logger.info(`work_memory: stored entries=${bounded.entries.length} characters=${bounded.characters}`, { thread_id: threadId });
      const update: SummarySlotUpdate = { workMemory: { entries: [bounded.entry], keepIds: bounded.keepIds, pending: null } };
      return { [SUMMARY_SLOT_KEY]: update } as never;
    },
  });
}
