import type { BaseMessage } from "@langchain/core/messages";
import {
  groupMessageCount,
  type MessageGroup,
  messageType,
  newestIndexOf,
  type StartOn,
  type SummaryRecord,
  selectIndexedView,
  selectView,
  type ThreadIndex,
} from "@threadwise/core";

/**
 * Messages that must leave the window, after the first summary, before the next one is made
 * (spec R10): `threshold - windowSize`, or `windowSize` when `threshold <= windowSize` so a
 * misconfiguration never summarizes on every call.
 */
export function summaryPeriod(windowSize: number, threshold: number): number {
  return threshold > windowSize ? threshold - windowSize : windowSize;
}

/**
 * How much of each trigger condition must leave the window between two summaries (spec R10,
 * R39): per part, `summaryPeriod(window, condition)` in that part's unit (the window's size in
 * messages or tokens). Plain numbers, one entry per condition of the trigger.
 */
export interface SummaryPeriod {
  messages?: number;
  tokens?: number;
}

/** What {@link planSummary} found in a stored thread. Indexes point into the list it was given. */
export interface SummaryPlan {
  /**
   * Messages that must leave the window between two summaries: the smallest message period of
   * the trigger's conditions (`threshold - windowSize` with the defaults), 0 when no condition
   * counts messages.
   */
  period: number;
  /** The period of each trigger condition, in the order given ({@link SummaryPeriod}). */
  periods: SummaryPeriod[];
  /** First message the summary does not cover (0 when there is no summary). */
  uncoveredStart: number;
  /** First message of the window. */
  windowStart: number;
  /**
   * Non-system messages in `[uncoveredStart, windowStart)`: out of the window, not yet summarized;
   * up to the last one whose id the thread does not hold again later ({@link unambiguousEnd}).
   */
  pending: BaseMessage[];
  /** `true` when a summarizer call is due on this model call. */
  due: boolean;
  /** Non-system messages in the stored thread (from `from` on, after a provider compaction). */
  threadMessages: number;
}

/** One trigger condition as {@link planSummary} takes it: the parts given must all be reached. */
export interface PlanTrigger {
  /** Non-system messages the summary does not cover. */
  messages?: number;
  /** Their tokens (`countTokens`). */
  tokens?: number;
}

const isSystem = (message: BaseMessage) => messageType(message) === "system";

/**
 * `end`, or an earlier end in `[start, end]`, such that the last non-system message before it has
 * an id no later message of `messages` holds (or no id). A summary record names the last message
 * it covers by id, and its coverage is found by the newest message with that id
 * ({@link uncoveredStartOf}, core's `ThreadIndex.indexOf`): a span ending on an id held again later
 * (a rewrite by `REMOVE_ALL_MESSAGES` stores what it is given, repeated ids too) would be read as
 * covering through the later message, and the messages between would be neither summarized nor
 * sent. They stay uncovered instead. With unique ids: `end`, after one scan of the messages from it on.
 */
export function unambiguousEnd(messages: readonly BaseMessage[], start: number, end: number, index?: ThreadIndex): number {
  for (let at = end; at > start; at -= 1) {
    const last = messages[at - 1] as BaseMessage;
    if (isSystem(last)) continue;
    if (typeof last.id !== "string" || last.id === "") return at;
    if ((index ? index.indexOf(last.id) : newestIndexOf(messages, last.id)) === at - 1) return at;
  }
  return start;
}

/**
 * Where the summary's coverage ends in `messages`, as the index of the first uncovered message.
 *
 * Found by message id (`coveredThroughId`), never by position, so deleting old messages (persistTrim,
 * R5) does not shift it. When that id is no longer in the thread, it was deleted together with
 * everything before it, so every message still stored is uncovered: returns 0. A record without an
 * id (messages that had none) falls back to `coveredCount`.
 */
export function uncoveredStartOf(messages: readonly BaseMessage[], summary: SummaryRecord | undefined): number {
  if (!summary) return 0;
  if (summary.coveredThroughId !== null) {
    return newestIndexOf(messages, summary.coveredThroughId) + 1;
  }
  let seen = 0;
  for (let i = 0; i < messages.length; i += 1) {
    if (seen >= summary.coveredCount) return i;
    if (!isSystem(messages[i] as BaseMessage)) seen += 1;
  }
  return messages.length;
}

/** Cache key of summarize's token costs in core's thread index. */
const TOKENS_COST_KEY = "threadwise/summarize:tokens";

/**
 * Decides, from the stored thread and the cached summary, whether a summarizer call is due and
 * which span it covers (spec R10, R11, R39).
 *
 * The window is the one a window middleware decided (`windowStart`, e.g. windowTrim's, as core's
 * `viewReport(request).windowFrom` gives it), else chosen here with core's `selectView`: the newest
 * whole groups within `keepTokens` tokens when given, else within `windowSize` messages (the
 * newest user turn always kept, `startOn` honoured).
 *
 * `triggers` (any one condition suffices; within one, every part given must be reached; default
 * `[{ messages: threshold }]`). Due when at least one message has left the window and:
 * - there is no summary yet, and the thread reaches a condition (non-system messages, tokens); or
 * - there is a summary, and what left the window since reaches a condition's period: per part
 *   `summaryPeriod(window, value)`, the window measured in the part's unit (`windowSize` or
 *   `keepTokens`, whichever sizes the window; in the other unit, the window as it is). With the
 *   defaults: `threshold - windowSize` messages.
 *
 * Pure; O(n) in the thread length, or O(log n + pending + window) with `index` and message-only
 * conditions. Token parts cost one `countTokens` over the pending span and the window (the whole
 * thread before the first summary).
 *
 * @throws Error when a token part or `keepTokens` is given without `countTokens`.
 */
export function planSummary(
  messages: readonly BaseMessage[],
  summary: SummaryRecord | undefined,
  options: {
    /** The window, in messages (sets the period), when `keepTokens` is not given. */
    windowSize: number;
    /** Shorthand for `triggers: [{ messages: threshold }]`; one of the two is needed. */
    threshold?: number;
    /** Trigger conditions, any one suffices. @default [{ messages: threshold }] */
    triggers?: readonly PlanTrigger[];
    /** The window, in tokens (`countTokens`), instead of `windowSize`. @default undefined */
    keepTokens?: number;
    /** Tokens of a list of messages (core's `TokenCounter.countMessages`); needed for token parts. */
    countTokens?: (messages: readonly BaseMessage[]) => number;
    /** Index of the window's first message when another middleware decided the window. */
    windowStart?: number;
    /** Start rule of the stack. @default "any" */
    startOn?: StartOn;
    /**
     * core's index of `messages` (`indexThread`), to find the window, the coverage boundary and
     * the message count from its prefix sums instead of scanning the thread. @default undefined
     */
    index?: ThreadIndex;
    /**
     * First message a summary may cover: after a provider compaction (core `compactionBoundary(...).end`),
     * whose own summary holds everything before; messages before it are neither pending nor counted.
     * @default 0
     */
    from?: number;
  },
): SummaryPlan {
  const { index, keepTokens } = options;
  const triggers = options.triggers ?? (options.threshold === undefined ? [] : [{ messages: options.threshold }]);
  if (triggers.length === 0) throw new Error("planSummary: give `threshold` or `triggers`");
  const tokenParts = keepTokens !== undefined || triggers.some((t) => t.tokens !== undefined);
  if (tokenParts && !options.countTokens) throw new Error("planSummary: token parts need `countTokens`");
  const countTokens = options.countTokens ?? (() => 0);
  const windowOptions =
    keepTokens === undefined
      ? { cost: groupMessageCount, limit: options.windowSize, costKey: "messages" }
      : { cost: (group: MessageGroup) => countTokens(group.messages), limit: keepTokens, costKey: TOKENS_COST_KEY };
  const windowStart =
    options.windowStart ??
    (index
      ? selectIndexedView(index, { ...windowOptions, startOn: options.startOn })
      : selectView(messages, { cost: windowOptions.cost, limit: windowOptions.limit, startOn: options.startOn })
    ).kept[0]?.start ??
    messages.length;
  const covered =
    index && summary?.coveredThroughId != null
      ? index.indexOf(summary.coveredThroughId) + 1 // -1 + 1: the id was deleted, nothing stored is covered
      : uncoveredStartOf(messages, summary);
  const floor = options.from ?? 0;
  const uncoveredStart = Math.min(Math.max(covered, floor), windowStart);
  const pending = messages.slice(uncoveredStart, unambiguousEnd(messages, uncoveredStart, windowStart, index)).filter((m) => !isSystem(m));
  const threadMessages =
    floor > 0
      ? messages.slice(floor).reduce((n, m) => (isSystem(m) ? n : n + 1), 0)
      : index
        ? index.length - index.systemPositions.length
        : messages.reduce((n, m) => (isSystem(m) ? n : n + 1), 0);

  // The window in each unit: its configured size (`windowSize` or `keepTokens`, the window
  // middleware's limit when the caller passes it as `windowSize`), else its size as it is.
  let windowMessages: number | undefined;
  let windowTokens: number | undefined;
  const windowList = () => messages.slice(windowStart).filter((m) => !isSystem(m));
  const windowIn = (unit: "messages" | "tokens"): number => {
    if (unit === "messages") {
      if (keepTokens === undefined) return options.windowSize;
      windowMessages ??= windowList().length;
      return windowMessages;
    }
    if (keepTokens !== undefined) return keepTokens;
    windowTokens ??= countTokens(windowList());
    return windowTokens;
  };
  const periods: SummaryPeriod[] = triggers.map((t) => ({
    ...(t.messages === undefined ? {} : { messages: summaryPeriod(windowIn("messages"), t.messages) }),
    ...(t.tokens === undefined ? {} : { tokens: summaryPeriod(windowIn("tokens"), t.tokens) }),
  }));
  const messagePeriods = periods.flatMap((p) => (p.messages === undefined ? [] : [p.messages]));
  const period = messagePeriods.length > 0 ? Math.min(...messagePeriods) : 0;

  // A record covering nothing is the marker summarize writes on a thread's first call (see summarize.ts).
  const hasSummary = summary !== undefined && summary.coveredCount > 0;
  let due = false;
  if (pending.length > 0) {
    if (hasSummary) due = reachesPeriod(periods, pending, countTokens);
    else {
      let threadTokens: number | undefined;
      const tokensOfThread = () => {
        threadTokens ??= countTokens(messages.slice(floor).filter((m) => !isSystem(m)));
        return threadTokens;
      };
      due = triggers.some(
        (t) => (t.messages === undefined || threadMessages >= t.messages) && (t.tokens === undefined || tokensOfThread() >= t.tokens),
      );
    }
  }
  return { period, periods, uncoveredStart, windowStart, pending, due, threadMessages };
}

/**
 * `true` when `span` (messages out of the window, not summarized) reaches the period of one
 * condition of `periods`: every part given, messages counted, tokens by `countTokens`.
 */
export function reachesPeriod(
  periods: readonly SummaryPeriod[],
  span: readonly BaseMessage[],
  countTokens: (messages: readonly BaseMessage[]) => number,
): boolean {
  let tokens: number | undefined;
  return periods.some((p) => {
    if (p.messages !== undefined && span.length < p.messages) return false;
    if (p.tokens !== undefined) {
      tokens ??= countTokens(span);
      if (tokens < p.tokens) return false;
    }
    return p.messages !== undefined || p.tokens !== undefined;
  });
}

/**
 * `true` when the summary is behind by more than a period (spec R39): `span` (non-system messages
 * out of the window that no summary covers after this call) without its newest `slack` messages
 * (one exchange arriving while the summary is made) still goes past the period of a condition.
 * The view then keeps the window instead of sending the whole backlog.
 */
export function behindByMoreThanPeriod(
  periods: readonly SummaryPeriod[],
  span: readonly BaseMessage[],
  slack: number,
  countTokens: (messages: readonly BaseMessage[]) => number,
): boolean {
  const older = span.slice(0, Math.max(0, span.length - slack));
  let tokens: number | undefined;
  return periods.some((p) => {
    if (p.messages !== undefined && older.length <= p.messages) return false;
    if (p.tokens !== undefined) {
      tokens ??= countTokens(older);
      if (tokens <= p.tokens) return false;
    }
    return p.messages !== undefined || p.tokens !== undefined;
  });
}
