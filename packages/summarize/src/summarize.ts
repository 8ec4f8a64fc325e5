import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import {
  type CoverageExtender,
  chatModelOption,
  compactionBoundary,
  createTokenCounter,
  declaredSummarySlot,
  dropOrphans,
  type InternalCallId,
  indexThread,
  internalAnswerText,
  internalCallConfig,
  invokeInternal,
  isUserMessage,
  messageType,
  newestArchivedBefore,
  newestIndexOf,
  promptLanguageFor,
  readSummarySlot,
  resolveLogger,
  runArchiveReader,
  StructuredResponseWrites,
  SUMMARY_SLOT_KEY,
  type SummaryPass,
  type SummaryProvenance,
  type SummaryRecord,
  sentMessages,
  summarySlotState,
  type TextLanguage,
  ThreadwiseTimeoutError,
  threadMessages,
  threadwiseMiddleware,
  type ViewDecision,
  viewReport,
  viewStartOn,
  withArchived,
  withMultiturnLog,
  withViewDecisions,
} from "@threadwise/core";
import { resolveSummarizeOptions, type SummarizeOptions, type SummarizerModel } from "./summarize-options.js";
import { buildSummarizerInput, DEFAULT_SUMMARY_PROMPT, type SummarizerPass, summarizerPassLines } from "./summarizer-input.js";
import { BacklogWarning } from "./summary-backlog-warning.js";
import {
  COVERED_DIGEST_CHARACTERS,
  coverageIntact,
  coverageRemoved,
  coveredDigestsOf,
  coveredDigestsWith,
  coveredMessages,
  newestUserId,
  reachesBeforeDigests,
} from "./summary-coverage.js";
import { SummaryJobs } from "./summary-jobs.js";
import { behindByMoreThanPeriod, planSummary, type SummaryPlan, unambiguousEnd, uncoveredStartOf } from "./summary-plan.js";
import { profileMaxInputTokens, resolveKeep, resolveTriggers } from "./summary-trigger.js";

/** Name of the middleware, also the `producer` of its summary block. */
export const SUMMARIZE_MIDDLEWARE_NAME = "threadwise/summarize";
/** Label of the summary block in English (spec R14). */
export const SUMMARY_BLOCK_LABEL = "Previous conversation summary";
/** Label of the summary block in each prompt language; the `promptLanguage` option picks one. */
export const SUMMARY_BLOCK_LABELS: Readonly<Record<TextLanguage, string>> = { en: SUMMARY_BLOCK_LABEL, ko: "이전 대화 요약" };
/** Who the summarizer call is: its run name is `threadwise/summarize:summary` (core's `internalCallName`). */
export const SUMMARY_CALL: InternalCallId = { middleware: "summarize", purpose: "summary" };
/**
 * Tags of every internal summarizer call: `nostream` keeps it out of `streamMode: "messages"`
 * (LangGraph skips runs with it), `threadwise:internal` makes it easy to find in traces (R13).
 */
export const INTERNAL_CALL_TAGS: readonly string[] = internalCallConfig(SUMMARY_CALL).tags;

/** Bound on the background jobs held in process memory (threads), oldest forgotten first. */
const JOB_MEMORY_ENTRIES = 10_000;

/**
 * With `background: true` a summary is due this many messages early (one user message and its
 * answer) and covers the same period: the due call still sees everything not yet summarized,
 * and the next call adopts the summary, so no view holds more than `threshold` messages plus the
 * run in progress.
 */
export const BACKGROUND_LEAD_MESSAGES = 2;

class SummarizerFailure extends Error {}

/**
 * What a due summary builds on: the summary (or none), the span, the digests of what the summary
 * covers, and whether the first of them is the newest archived message's (`coveredArchived`).
 */
interface SummaryStart {
  base: SummaryRecord | undefined;
  span: BaseMessage[];
  coveredDigests: string;
  coveredArchived: boolean;
}

/**
 * A thread's archive as summarize reads it (issue 27): its newest message not stored, or all of it
 * (not stored), oldest first; and the digests of what its latest rewrite emptied (`undefined`: none).
 */
interface ArchiveAccess {
  newest: () => Promise<BaseMessage | undefined>;
  all: () => Promise<readonly BaseMessage[]>;
  cleared: () => Promise<string | undefined>;
}

/**
 * Index in `stored` of the first message the summary `record` does not cover, once passes made it
 * on this call: after its `coveredThroughId` when that is in the pending span, else the window's
 * start (a record without ids covered every pending message).
 */
function coveredEnd(stored: readonly BaseMessage[], plan: SummaryPlan, record: SummaryRecord | undefined): number {
  const id = record?.coveredThroughId;
  if (id != null)
    for (let i = plan.windowStart - 1; i >= plan.uncoveredStart; i -= 1) if ((stored[i] as BaseMessage).id === id) return i + 1;
  return plan.windowStart;
}

/**
 * Index in `stored` of the first message `record` does not cover, by its `coveredThroughId`
 * (core's index of the array); 0 when it covers nothing stored (no record, an id not stored), and
 * by `coveredCount` for a record made over messages without ids.
 */
function coverageEndIn(stored: readonly BaseMessage[], record: SummaryRecord | undefined): number {
  if (!record || record.coveredCount === 0) return 0;
  if (record.coveredThroughId === null) return uncoveredStartOf(stored, record);
  return newestIndexOf(stored, record.coveredThroughId) + 1;
}

/** Index in `stored` of `message` (by id, the newest message with it, else by object); -1 when not found. */
function positionIn(stored: readonly BaseMessage[], message: BaseMessage): number {
  if (typeof message.id === "string" && message.id !== "") {
    const at = newestIndexOf(stored, message.id);
    if (at !== -1) return at;
  }
  return stored.lastIndexOf(message);
}

/**
 * Whether the archive of the run's checkpointer (core's `runArchiveReader`) holds `record`'s
 * boundary, for a summarize without `archived`; `false` without one. One read of the archive.
 */
async function archivedByRun(runtime: unknown, threadId: string, record: SummaryRecord | undefined): Promise<boolean> {
  const read = threadId === "" ? undefined : runArchiveReader(runtime);
  const id = record?.coveredThroughId;
  if (!read || id == null) return false;
  return (await read(threadId)).some((message) => message.id === id);
}

/** What `viewReport(request).summary` and the multiturn line show of a summary record; `undefined` for none or an empty one. */
function provenanceOf(record: SummaryRecord | undefined): SummaryProvenance | undefined {
  if (!record || record.text.trim() === "" || record.coveredCount === 0) return undefined;
  return {
    firstId: record.coveredFromId ?? null,
    lastId: record.coveredThroughId,
    count: record.coveredCount,
    passes: record.passes ?? 0,
    lastPasses: record.lastPasses ?? [],
  };
}

async function callSummarizer(model: SummarizerModel, messages: BaseMessage[], timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const answer = await invokeInternal(model, messages, { ...SUMMARY_CALL, timeoutMs, signal });
  // The answer as LangChain reads it (`.text`), without reasoning written between `<think>` tags (an
  // answer of only reasoning is empty, a failed summary), well-formed: an answer cut mid-character
  // holds a lone surrogate, which Anthropic and Gemini refuse in every later request it is placed in.
  return internalAnswerText(answer);
}

/**
 * Summarizes the history that left the window, incrementally, and places the summary in the prompt
 * (spec R10-R14).
 *
 * How it works, on every model call (`wrapModelCall`):
 * 1. Reads the cached summary from the thread's summary slot (`_threadwise_summary.summary`, one
 *    upserted value: `{ text, coveredThroughId, coveredCount, updatedAt, coveredDigests }`).
 * 2. Finds the window: the one a window middleware before it decided (`[windowTrim(), summarize()]`:
 *    windowTrim's, read from core's view decisions), else its own (`windowSize` messages, whole
 *    groups, via core's `selectView`), and the messages that left it since the summary was made
 *    (found by message id, so persistTrim's deletions do not shift it).
 * 3. When due (`trigger`, LangChain's shapes: by default first once the thread holds `threshold`
 *    (40) messages, then every `threshold - windowSize` messages that leave the window, or every
 *    `windowSize` when `threshold <= windowSize`; the same by tokens or a `fraction` of the agent
 *    model's context window, read from `request.model.profile.maxInputTokens` or
 *    `modelMaxInputTokens`), calls the
 *    summarizer with only the previous summary and the newly evicted messages, bounded by
 *    `maxInputTokens`: once, or for a backlog that does not fit (an imported thread), in passes
 *    folded in order into the running summary, at most `maxPassesPerCall` per model call; the
 *    rest is caught up on the next calls, and meanwhile the view keeps the window and the
 *    multiturn line counts what is neither summarized yet nor sent (`unsummarized_dropped`, R39);
 *    `logger` gets a warning with that count on each such call.
 *    The calls are tagged {@link INTERNAL_CALL_TAGS} and never stream.
 * 4. States its coverage to core (`withViewDecisions`, kind `coverage`); core keeps in the view every
 *    message the summary does not cover: the window plus fewer than one period of messages that
 *    left it since. The summary plus the view is always the whole thread. The coverage carries an
 *    `extend`: a hard cap inside (tokenCap) that would drop uncovered messages calls it (core's
 *    `extendSummaryCoverage`) and this middleware makes one more summary, as a due one is made,
 *    through the first message the cap keeps (and at least the window's start), in the foreground;
 *    the summary then covers into the window and the view starts after it. Only when that call
 *    fails are uncovered messages dropped (the multiturn line says how many, `unsummarized_dropped`).
 * 5. The summary goes in through core's `addContextBlocks` (`[Previous conversation summary]` at the
 *    end of the system prompt in `legacy_system`, runtime context on the newest user message in
 *    `stable_tail`); the stored thread is never changed.
 * 6. A new summary is persisted by returning a `Command` that updates the slot's `summary` part only
 *    (the work-memory part is left to its owner), so the middleware adds no graph node and no
 *    checkpoint write of its own. A structured response (`responseFormat`) cannot carry a
 *    `Command`: with `structuredResponse: true` the same update is written from an `afterModel` hook.
 *
 * Edits (R37): a new summary is made on top of the previous one only while the messages it
 * covers are still the ones it was made from (`coveredDigests`, checked once per period); after a
 * covered message was edited in place or removed from the middle, it is made again from every
 * stored message outside the window. With an archive (`archived`), a rewrite that empties it and
 * brings covered archived messages back is checked against the digests its marker kept
 * (`archiveCleared`): unchanged, the summary goes on, as on a thread that never archived.
 *
 * Failures (the summarizer throws, passes `timeoutMs`, or answers empty) keep the previous summary
 * or none, log one warning, and let the turn go on. The attempt is recorded on the summary record
 * (`lastAttempt`, as is a background job started after an answer, until a call adopts its
 * summary), so every process reads it from the stored thread: the view keeps every message no
 * summary covers (from where that call's view started) until a summary covers them, as long as
 * one call's passes would fold them in. The next attempt is made on the next user turn, not on
 * every model call of the same turn.
 *
 * Stack it after windowTrim, `[windowTrim(), summarize()]`: windowTrim's window is then the one
 * summarized. Alone, summarize keeps its own window. `[summarize(), windowTrim()]` is refused at
 * the first model call (a `ThreadwiseConfigError` naming both): summarize runs outermost and would
 * summarize over its own window before windowTrim states its own, which would then not apply.
 *
 * @throws ThreadwiseConfigError at construction when an option is invalid (`summarize.threshold:
 *   Too small: expected number to be >0`), or an env twin is; on a model call, when `trigger` or
 *   `keep` has a `fraction` and neither `modelMaxInputTokens` nor the model's profile gives the
 *   context window (`summarize.trigger: \`fraction\` needs the model's context window ...`).
 * @example
 * const agent = createAgent({
 *   model: "openai:gpt-4o-mini",
 *   checkpointer: new MemorySaver(),
 *   middleware: [windowTrim({ maxMessages: 20 }), summarize({ threshold: 40 })],
 * });
 * // As LangChain's summarizationMiddleware is configured: by tokens or a share of the context window.
 * summarize({ trigger: [{ fraction: 0.8 }, { messages: 200 }], keep: { tokens: 4000 } });
 */
export function summarize(options: SummarizeOptions = {}) {
  const opts = resolveSummarizeOptions(options);
  const ownModel = chatModelOption<SummarizerModel>("summarize.model", opts.model);
  const logger = resolveLogger(opts.logger, opts.env);
  const counter = createTokenCounter();
  const prompt = opts.prompt ?? DEFAULT_SUMMARY_PROMPT;
  // Token triggers and the token window count what a request of these messages sends (core's
  // copies: no orphans, portable and unique call ids, no blank text, roles alternated), not the
  // stored messages: `trigger: { fraction }` is a share of what the model receives.
  const countTokens = (messages: readonly BaseMessage[]) => counter.countMessages(sentMessages(dropOrphans(messages)));
  // Thread id -> summary update to write in afterModel (when the response cannot carry a Command).
  // Threads already warned that a structured response dropped a summary (one warning each).
  // Thread id -> summary prepared after an answer (`background: true`), until the next call adopts it.
  const jobs = new SummaryJobs(JOB_MEMORY_ENTRIES);
  // Each call whose backlog is neither summarized yet nor sent warns (R39).
  const backlog = new BacklogWarning(logger, opts.maxPassesPerCall);
  const writes = new StructuredResponseWrites<SummaryRecord>({
    enabled: opts.structuredResponse,
    warning: "summarize: could not attach the summary to a structured response; pass `structuredResponse: true`",
    logger,
    toState: (summary) => ({ [SUMMARY_SLOT_KEY]: { summary } }),
  });

  /**
   * One summarizer call over a pass's messages (`span`) on top of `base`: the new record, or a
   * throw on failure or empty answer. `coveredDigests`: the digests of what `base` covers, still stored;
   * `coveredArchived`: the first of them is the newest archived message's.
   */
  const makeSummary = async (
    model: SummarizerModel,
    base: SummaryRecord | undefined,
    { messages: span, ...read }: SummarizerPass,
    coveredDigests: string,
    coveredArchived: boolean,
    signal?: AbortSignal,
    earlierPasses: readonly SummaryPass[] = [],
  ): Promise<SummaryRecord> => {
    // The pass's lines as forming it wrote and counted them: not again.
    const input = buildSummarizerInput({ previousSummary: base?.text, span, prompt, maxInputTokens: opts.maxInputTokens, counter, read });
    const text = await callSummarizer(model, input.messages, opts.timeoutMs, signal);
    if (text === "") throw new SummarizerFailure("empty answer");
    const first = span[0] as BaseMessage;
    const last = span[span.length - 1] as BaseMessage;
    const started = base !== undefined && base.coveredCount > 0;
    const pass: SummaryPass = { fromId: first.id ?? null, throughId: last.id ?? null, messages: span.length, inputTokens: input.tokens };
    // The newest covered user message: what persistTrim's mark names once it took the summary's boundary.
    const userId = newestUserId(span, started ? base.coveredUserId : undefined);
    return {
      text,
      coveredThroughId: last.id ?? null,
      coveredCount: (base?.coveredCount ?? 0) + span.length,
      updatedAt: new Date().toISOString(),
      coveredDigests: coveredDigests + coveredDigestsOf(span),
      ...(coveredArchived && coveredDigests !== "" ? { coveredArchived: true } : {}),
      // Provenance (issue 23): the first covered id stays the one of the summary's first pass.
      coveredFromId: started ? (base.coveredFromId ?? null) : (first.id ?? null),
      // After coveredFromId, as the slot's schema orders it (a record read back equals the one written).
      ...(userId !== undefined ? { coveredUserId: userId } : {}),
      passes: (started ? (base.passes ?? 0) : 0) + 1,
      lastPasses: [...earlierPasses, pass],
    };
  };

  /**
   * What a due summary builds on (R37): the current summary and the pending span when the
   * messages it covers are still the ones it was made from; else (a covered message edited in
   * place or removed from the middle) no summary, and every stored message outside the window:
   * the summary is made again from what is stored, as a process that never saw the old one would.
   * `archive`: the thread's archive (issue 27), read only from the thread's start (`from` 0; after
   * a provider compaction the archive lies before it, and the provider's summary holds it). The
   * archived messages lie before the stored ones and never change (the saver refuses edits of
   * them): the check reads the newest of them only, with the covered stored ones (see
   * `coveredMessages`), so it is O(hot part) however long the thread; a summary made again is
   * made over the whole thread, the archived messages read then. After a rewrite brought archived
   * covered messages back into the checkpoint, the covered stored messages reach before the
   * record's digests: the digests the rewrite kept of the archive it emptied are read then (one
   * read, see `coveredDigestsWith`), so the answer is the one of a thread that never archived.
   * O(covered stored content), on due calls only.
   */
  const startOf = async (
    stored: readonly BaseMessage[],
    record: SummaryRecord | undefined,
    plan: SummaryPlan,
    from: number,
    archive?: ArchiveAccess,
  ): Promise<SummaryStart> => {
    const before = archive && from === 0 ? archive : undefined;
    const newest = await before?.newest();
    const covered =
      from === 0
        ? coveredMessages(stored, record, newest)
        : stored.slice(from, plan.uncoveredStart).filter((m) => messageType(m) !== "system");
    const cleared = before && reachesBeforeDigests(record, covered) ? await before.cleared() : undefined;
    if (coverageIntact(record, covered, cleared)) {
      const kept = coveredDigestsWith(record, cleared);
      return {
        base: record,
        span: plan.pending,
        coveredDigests:
          kept === undefined ? coveredDigestsOf(covered) : kept.slice(kept.length - covered.length * COVERED_DIGEST_CHARACTERS),
        // coveredMessages put the newest archived message first.
        coveredArchived: newest !== undefined && messageType(newest) !== "system",
      };
    }
    logger.info("summarize: a covered message changed since the summary was made; summarizing the stored messages again", {
      covered_messages: covered.length,
    });
    const archived = before ? (await before.all()).filter((message) => messageType(message) !== "system") : [];
    return {
      base: undefined,
      span: [...archived, ...stored.slice(from, unambiguousEnd(stored, from, plan.windowStart)).filter((m) => messageType(m) !== "system")],
      coveredDigests: "",
      coveredArchived: false,
    };
  };

  /**
   * Folds `span` into `base` in passes that each fit `maxInputTokens` (spec R39), at most
   * `maxPassesPerCall` of them: the record after the last pass that succeeded (`undefined` when
   * none did), and the error that stopped the passes, if any. A failed pass keeps what the passes
   * before it covered.
   */
  const summarizeBacklog = async (
    model: SummarizerModel,
    { base, span, coveredDigests, coveredArchived }: SummaryStart,
    signal?: AbortSignal,
  ): Promise<{ record: SummaryRecord | undefined; passes: number; error?: unknown }> => {
    const passes = summarizerPassLines({ span, prompt, maxInputTokens: opts.maxInputTokens, counter, maxPasses: opts.maxPassesPerCall });
    let record = base;
    let digests = coveredDigests;
    let done = 0;
    for (const pass of passes) {
      try {
        // The passes of this update, so the record lists every one that built it this time.
        record = await makeSummary(model, record, pass, digests, coveredArchived, signal, done > 0 ? (record?.lastPasses ?? []) : []);
        digests = record.coveredDigests ?? "";
      } catch (error) {
        return { record: done > 0 ? record : undefined, passes: done, error };
      }
      done += 1;
    }
    return { record: done > 0 ? record : undefined, passes: done };
  };

  /** Whether the passes of one call (`maxPassesPerCall`, each within `maxInputTokens`) fold all of `span` in. */
  const foldsInOneCall = (span: readonly BaseMessage[]) =>
    summarizerPassLines({ span, prompt, maxInputTokens: opts.maxInputTokens, counter, maxPasses: opts.maxPassesPerCall + 1 }).length <=
    opts.maxPassesPerCall;

  /** The thread's summary slot: `request.state`'s when declared here, else the model node's input (core `summarySlotOf`). */
  const slotOf = (request: { state?: unknown; runtime?: unknown }) =>
    opts.declareState ? readSummarySlot(request.state) : declaredSummarySlot(request, "summarize.declareState");

  const warnFailure = (error: unknown, base: SummaryRecord | undefined, pending: number, elapsedMs: number) =>
    logger.warn("summarize: summarizer failed; keeping the previous summary", {
      reason:
        error instanceof SummarizerFailure || ThreadwiseTimeoutError.isInstance(error)
          ? error.message
          : error instanceof Error
            ? error.name
            : "error",
      // A thread's first call writes a record that covers nothing (for persistTrim): not a summary.
      has_previous: base !== undefined && base.text.trim() !== "",
      pending_messages: pending,
      elapsed_ms: elapsedMs,
    });

  return threadwiseMiddleware({
    name: SUMMARIZE_MIDDLEWARE_NAME,
    ...(opts.declareState ? { stateSchema: summarySlotState } : {}),
    wrapModelCall: async (request, handler) => {
      // A model named by a string is made at the first model call, so a wrong name fails at once; a
      // model object (or none) is used as it is, without a promise and an await on every model call.
      const own = typeof opts.model === "string" ? await ownModel() : opts.model;
      const ruled = opts.startOn
        ? withViewDecisions(request, [{ kind: "startOn", producer: SUMMARIZE_MIDDLEWARE_NAME, startOn: opts.startOn }])
        : request;
      // The thread as the stack received it; the window is an outer window middleware's, else our own.
      let stored: readonly BaseMessage[] = threadMessages(ruled);
      const slot = slotOf(request);
      const previous = slot.summary;
      const decided = viewReport(ruled);
      // A provider compaction (core `compactionBoundary`, memoized per array) summarized everything
      // before it: our summary covers only what follows it, and one that ends before it is not used.
      const boundaryEnd = () => compactionBoundary(stored)?.end ?? 0;
      const beyondBoundary = (r: SummaryRecord | undefined) => {
        const end = boundaryEnd();
        return r && (end === 0 || uncoveredStartOf(stored, r) > end) ? r : undefined;
      };
      const threadId = String((request.runtime?.configurable as { thread_id?: unknown } | undefined)?.thread_id ?? "");
      // Archived messages before the stored ones (issue 27): all of them read only when a summary
      // reaches past the stored thread; the newest one for the coverage check of a due call. Once
      // `stored` holds the archive (`archivedCount`), there is none before it.
      let archivedCount = 0;
      const readArchived = async (): Promise<readonly BaseMessage[]> => {
        if (!opts.archived || threadId === "" || archivedCount > 0) return [];
        const whole = withArchived(await opts.archived(threadId), stored);
        return whole.slice(0, whole.length - stored.length);
      };
      const archive: ArchiveAccess | undefined =
        opts.archived && threadId !== ""
          ? {
              newest: async () =>
                opts.archived && archivedCount === 0 ? newestArchivedBefore(opts.archived, threadId, stored) : undefined,
              all: readArchived,
              cleared: async () => (opts.archiveCleared ? opts.archiveCleared(threadId) : undefined),
            }
          : undefined;
      let turnId = "";
      for (let i = stored.length - 1; i >= 0; i -= 1) {
        if (isUserMessage(stored[i] as BaseMessage)) {
          turnId = (stored[i] as BaseMessage).id ?? "";
          break;
        }
      }
      const model = (own ?? request.model) as SummarizerModel;
      // The thread's latest attempt that made no summary, as the stored thread says (a fresh
      // process reads the same): a failed one is not tried again in its turn.
      let standing = previous?.lastAttempt;
      let attemptedThisTurn = standing?.failed === true && standing.turnId === turnId;
      let failedNow = false;

      let record: SummaryRecord | undefined = previous;
      let update: SummaryRecord | undefined;
      const background = opts.background && threadId !== "";
      if (background) {
        // A summary prepared after an earlier answer is adopted now: the summary and the view's
        // start move together, in this call, and the update rides on this call's Command.
        // A job built on a summary whose covered messages were edited or removed since is not
        // adopted (R37): a fresh process makes that summary again from the stored messages.
        // The covered messages are checked over the whole thread, the archived ones first (see
        // startOf): the newest archived one when the job's base has its boundary stored, the whole
        // archive when it does not (a job that made the summary again, or a boundary not stored).
        const settledBase = archive && boundaryEnd() === 0 ? jobs.settledBase(threadId) : undefined;
        let archivedCovered: readonly BaseMessage[] = [];
        // Digests a rewrite kept of the archive it emptied, for a base whose digests begin with the newest archived message.
        const cleared = archive && settledBase?.base?.coveredArchived ? await archive.cleared() : undefined;
        if (archive && settledBase) {
          const through = beyondBoundary(settledBase.base)?.coveredThroughId;
          if (through != null && newestIndexOf(stored, through) !== -1) {
            const newest = await archive.newest();
            archivedCovered = newest === undefined ? [] : [newest];
          } else archivedCovered = (await archive.all()).filter((message) => messageType(message) !== "system");
        }
        const settled = jobs.take(threadId, previous, (base) => {
          const from = boundaryEnd();
          const kept = beyondBoundary(base);
          // The whole thread, the archived messages first: its boundary found by id in it (archived,
          // stored, or neither: then all of it is uncovered), as in a thread that never archived.
          const thread = from === 0 ? [...archivedCovered, ...stored] : stored;
          const uncovered = kept ? uncoveredStartOf(thread, kept) : from;
          const covered = thread.slice(from, uncovered).filter((message) => messageType(message) !== "system");
          // A job on a summary whose covered messages a user's removal took is not adopted (see below).
          if (coverageRemoved(thread, kept, slot.trimmed) || !coverageIntact(kept, covered, cleared)) return undefined;
          return thread.slice(Math.max(from, uncovered)).filter((message) => messageType(message) !== "system");
        });
        if (settled?.result) {
          record = settled.result;
          update = settled.result;
          standing = undefined;
        } else if (settled?.turnId === turnId) attemptedThisTurn = true;
      }
      // Trigger and keep in messages and tokens; `fraction` read against the agent model's
      // context window (`modelMaxInputTokens`, else its profile), or a ThreadwiseConfigError.
      const contextWindow = opts.modelMaxInputTokens ?? profileMaxInputTokens(request.model);
      const triggers = resolveTriggers(opts.trigger, contextWindow);
      const keep = resolveKeep(opts.keep, contextWindow);
      // A window middleware before summarize decided the window: its size, whatever `keep` says.
      const ownWindow = decided.windowFrom === undefined;
      const keepTokens = ownWindow ? keep.tokens : undefined;
      const windowSize = ownWindow ? (keep.messages ?? opts.windowSize) : (decided.windowLimit ?? opts.windowSize);
      // In the background the summary is prepared one exchange early, over an own window that many
      // messages shorter: the due call's view (everything not yet covered) stays within
      // `threshold` messages, the summary still covers a whole period, and once the next exchange
      // is in, what it does not cover is the window again. (Token parts are not moved earlier.)
      const lead = background && ownWindow ? BACKGROUND_LEAD_MESSAGES : 0;
      // A boundary that is not stored: archived (a summary made again in passes that stopped inside
      // the archive), or removed (then the whole thread is uncovered, as without the archive). The
      // plan is the whole thread's, the archived messages first; core keeps every stored one.
      if (opts.archived && record?.coveredThroughId != null && newestIndexOf(stored, record.coveredThroughId) === -1) {
        const archived = await readArchived();
        if (archived.length > 0) {
          stored = [...archived, ...stored];
          archivedCount = archived.length;
        }
      }
      // The summary stands or falls with the newest message it covers (R37, langgraphjs#1211): gone
      // from the thread (the archive's messages included) and not taken by persistTrim (its trim
      // mark names the newest covered user message), a user's removal (a rewrite by
      // `REMOVE_ALL_MESSAGES`, a `RemoveMessage`) took it: the summary is not placed, the thread is
      // read as having none (every message uncovered), and a new one is made from what remains
      // when due. The slot keeps the record (a fresh process decides the same) until then.
      // Without `archived`, the run's checkpointer's archive (core's `runArchiveReader`) is asked
      // whether it holds the boundary: an archive that moved it is no removal.
      let removed: SummaryRecord | undefined;
      if (
        coverageRemoved(stored, record, slot.trimmed) &&
        (opts.archived !== undefined || !(await archivedByRun(request.runtime, threadId, record)))
      ) {
        removed = record;
        record = undefined;
      }
      const plan = planSummary(stored, beyondBoundary(record), {
        windowSize: Math.max(keepTokens === undefined && keep.messages === 0 ? 0 : 1, windowSize - lead),
        triggers: triggers.map((t) => (t.messages === undefined ? t : { ...t, messages: Math.max(1, t.messages - lead) })),
        keepTokens,
        countTokens,
        windowStart: decided.windowFrom === undefined ? undefined : decided.windowFrom + archivedCount,
        startOn: viewStartOn(ruled),
        // Positions and counts from core's index of this array (shared with the call's other hooks).
        index: indexThread(stored),
        from: boundaryEnd(),
      });

      /**
       * One summary made now, in the foreground (a due summary, a cap's extension): the passes of
       * `span` on the current record. A failure marks the turn (not tried again until the next user
       * message) and warns, naming the record the call goes on with (the passes made before the
       * failure, else the current one), as the background job's warning does.
       */
      const summarizeNow = async (span: SummaryPlan) => {
        const started = Date.now();
        const made = await summarizeBacklog(
          model,
          await startOf(stored, beyondBoundary(record), span, boundaryEnd(), archive),
          request.runtime?.signal,
        );
        if (made.error !== undefined) {
          attemptedThisTurn = true;
          failedNow = true;
          warnFailure(made.error, made.record ?? record, span.pending.length, Date.now() - started);
        }
        return made;
      };

      let madeNow = false;
      let prepareAfterAnswer = false;
      if (plan.due && !attemptedThisTurn) {
        if (background) {
          // Not now: the user does not wait for the summarizer. The view stays what the current
          // summary does not cover; the next summary is prepared once this call has answered.
          prepareAfterAnswer = !jobs.has(threadId);
        } else {
          const made = await summarizeNow(plan);
          if (made.record) {
            update = made.record;
            record = update;
            madeNow = true;
            standing = undefined;
          }
        }
      }

      // A thread's first call writes a record that covers nothing, so persistTrim (keepUnsummarized)
      // knows summarize is in use and deletes nothing before the first summary exists.
      if (!previous && !update) update = { text: "", coveredThroughId: null, coveredCount: 0, updatedAt: new Date().toISOString() };

      // The view is everything the summary does not cover: core keeps it from the first uncovered
      // message on. A summary a cap extended into the window (below) covers past the window's
      // start: the view then starts after it, so nothing is sent twice.
      let coveredUpTo = madeNow
        ? coveredEnd(stored, plan, record)
        : Math.max(plan.uncoveredStart, coverageEndIn(stored, beyondBoundary(record)));
      const summaryBlock = (r: SummaryRecord | undefined) => ({
        kind: "summary",
        producer: SUMMARIZE_MIDDLEWARE_NAME,
        label: SUMMARY_BLOCK_LABELS[promptLanguageFor(opts.promptLanguage, stored)],
        text: r?.text ?? "",
      });
      // A hard cap inside (tokenCap) that must drop messages this summary does not cover asks it,
      // through core's extendSummaryCoverage, to cover them first (spec R33): one extension per
      // model call, made like a due summary (same start, passes, failure rules), through the first
      // message the cap keeps and at least the window's start, so the period starts again.
      let extended = false;
      const extend: CoverageExtender = async (through) => {
        if (extended || attemptedThisTurn) return undefined;
        const at = positionIn(stored, through);
        if (at === -1) return undefined;
        const target = Math.max(at, plan.windowStart);
        const from = Math.max(coveredUpTo, boundaryEnd());
        const pending = stored.slice(from, unambiguousEnd(stored, from, target)).filter((message) => messageType(message) !== "system");
        if (pending.length === 0) return undefined;
        extended = true;
        const made = await summarizeNow({ ...plan, uncoveredStart: from, windowStart: target, pending });
        if (!made.record) return undefined;
        record = made.record;
        update = made.record;
        coveredUpTo = coverageEndIn(stored, record);
        // What was pending is covered now: no summary is prepared after the answer on this call.
        prepareAfterAnswer = false;
        return {
          firstUncovered: stored[coveredUpTo] ?? null,
          provenance: provenanceOf(record),
          block: summaryBlock(record),
          mode: opts.promptContextMode,
        };
      };
      const decisions: ViewDecision[] = [
        {
          kind: "coverage",
          producer: SUMMARIZE_MIDDLEWARE_NAME,
          firstUncovered: stored[coveredUpTo] ?? null,
          provenance: provenanceOf(beyondBoundary(record)),
          extend,
        },
      ];
      // A backlog larger than the passes of one call could fold in (an imported thread, a
      // summarizer that failed for a while) is not sent whole: the view keeps the window, and core
      // counts the rest as unsummarized_dropped until the next calls catch up (spec R39).
      // Not when this call's attempt failed, or while the stored thread's latest attempt made no
      // summary (`lastAttempt`: a failed call, or a background job not adopted yet), as long as one
      // call's passes would fold that backlog in: the summary is behind only because of the
      // failure. The view then keeps every message no summary covers (this call's failure, while
      // they are no more than a trigger's worth), or
      // what the view of the recorded attempt's call kept (never more: a backlog it left out stays
      // out) plus what came since, until a summary covers them; past one call's passes it is a
      // backlog again. Read from the slot, so a fresh process keeps what a running one does.
      const behind = stored.slice(coveredUpTo, plan.windowStart).filter((message) => messageType(message) !== "system");
      // Before the thread's first summary is due there is no backlog: the thread is below the first
      // trigger, so the view holds every message (the window plus what left it) within one trigger.
      // A chunked window cutting back over a tool group left more than a period behind it here, and
      // the call sent neither those messages nor a summary of them (`windowSize: 6, threshold: 8`).
      const firstDue = plan.due || (beyondBoundary(record)?.coveredCount ?? 0) > 0;
      let cut = firstDue && behindByMoreThanPeriod(plan.periods, behind, BACKGROUND_LEAD_MESSAGES, countTokens);
      let firstKept = plan.windowStart;
      // This call's own failure keeps no more than a due call holds (within a trigger): a larger
      // backlog (an imported thread) is cut as without the failure.
      const keeps = standing ? standing.viewFromId !== undefined : failedNow && !behindByMoreThanPeriod(triggers, behind, 0, countTokens);
      if (cut && !madeNow && keeps && foldsInOneCall(behind)) {
        const from = standing?.viewFromId == null ? coveredUpTo : newestIndexOf(stored, standing.viewFromId);
        if (from !== -1 && from <= coveredUpTo) cut = false;
        else if (from !== -1 && from < plan.windowStart) firstKept = from;
      }
      if (cut) decisions.push({ kind: "cut", producer: SUMMARIZE_MIDDLEWARE_NAME, reason: "cap", firstKept: stored[firstKept] ?? null });
      // Where this view starts, for the record of an attempt made on this call.
      const viewFromId = cut ? (stored[firstKept]?.id ?? undefined) : null;
      // The coverage and the summary block in one assembly (core).
      const placed = beyondBoundary(record);
      const next = withViewDecisions(
        ruled,
        decisions,
        placed && placed.text.trim() !== ""
          ? {
              blocks: [summaryBlock(placed)],
              mode: opts.promptContextMode,
            }
          : undefined,
      );
      // Not only in the multiturn info line: a warning on each call while the thread is behind (core's count).
      backlog.call(cut ? (viewReport(next).unsummarizedDropped ?? 0) : 0);
      const response = await withMultiturnLog(
        next,
        { window: keepTokens === undefined ? windowSize : `${keepTokens}tok`, sentToLlm: next.messages.length },
        logger,
        // The handler's own promise (LangChain's handler is async): no second promise per model call.
        (r: typeof next) => Promise.resolve(handler(r)),
      );
      if (prepareAfterAnswer) {
        // What the thread holds: the removed summary when it was set aside above (the job builds on none).
        const original = removed ?? record;
        const start = await startOf(stored, beyondBoundary(record), plan, boundaryEnd(), archive);
        const started = Date.now();
        jobs.start(threadId, original, start.base, start.span, turnId, async () => {
          const made = await summarizeBacklog(model, start);
          if (made.error !== undefined) warnFailure(made.error, made.record ?? start.base, start.span.length, Date.now() - started);
          if (!made.record) throw made.error;
          return made.record;
        });
      }
      // An attempt that made no summary (it failed, or a job now runs) is recorded on the summary
      // the thread holds after this call; a summary made later replaces the record, and with it this.
      if (failedNow || prepareAfterAnswer) {
        const base = update ?? previous ?? { text: "", coveredThroughId: null, coveredCount: 0, updatedAt: new Date().toISOString() };
        const { lastAttempt: _replaced, ...kept } = base;
        update = { ...kept, lastAttempt: { turnId, failed: failedNow, ...(viewFromId === undefined ? {} : { viewFromId }) } };
      }
      if (!update) return response;
      if (AIMessage.isInstance(response)) return new Command({ update: { [SUMMARY_SLOT_KEY]: { summary: update } } });
      // A structured response ({ structuredResponse, messages }) would be lost behind a Command:
      // leave it as it is and write the update from afterModel, in the same step's run.
      writes.defer(threadId, update, response);
      return response;
    },
    // Only with a `responseFormat`: every hook is a graph node, so a superstep and a checkpoint write.
    ...writes.hooks(),
  });
}
