import type { BaseMessage } from "@langchain/core/messages";
import { messageType, type StartOn, type SummaryRecord, selectIndexedView, selectView, type ThreadIndex } from "@threadwise/core";

/**
 * Messages that must leave the window, after the first summary, before the next one is made
 * (spec R10): `threshold - windowSize`, or `windowSize` when `threshold <= windowSize` so a
 * misconfiguration never summarizes on every call.
 */
export function summaryPeriod(windowSize: number, threshold: number): number {
  return threshold > windowSize ? threshold - windowSize : windowSize;
}

/** What {@link planSummary} found in a stored thread. Indexes point into the list it was given. */
export interface SummaryPlan {
  /** Messages that must leave the window between two summaries. */
  period: number;
  /** First message the summary does not cover (0 when there is no summary). */
  uncoveredStart: number;
  /** First message of the window. */
  windowStart: number;
  /** Non-system messages in `[uncoveredStart, windowStart)`: out of the window, not yet summarized. */
  pending: BaseMessage[];
  /** `true` when a summarizer call is due on this model call. */
  due: boolean;
  /** Non-system messages in the stored thread. */
  threadMessages: number;
}

const isSystem = (message: BaseMessage) => messageType(message) === "system";

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
    for (let i = messages.length - 1; i >= 0; i -= 1) if ((messages[i] as BaseMessage).id === summary.coveredThroughId) return i + 1;
    return 0;
  }
  let seen = 0;
  for (let i = 0; i < messages.length; i += 1) {
    if (seen >= summary.coveredCount) return i;
    if (!isSystem(messages[i] as BaseMessage)) seen += 1;
  }
  return messages.length;
}

/**
 * Decides, from the stored thread and the cached summary, whether a summarizer call is due and
 * which span it covers (spec R10, R11).
 *
 * The window is the one a window middleware decided (`windowStart`, e.g. windowTrim's, as core's
 * `viewReport(request).windowFrom` gives it), else chosen here with core's `selectView` on message
 * counts (whole groups, the newest user turn always kept, `startOn` honoured). Due when:
 * - there is no summary yet, the thread holds at least `threshold` non-system messages, and at
 *   least one message has left the window; or
 * - there is a summary and at least `period` messages have left the window since it was made.
 *
 * Pure; O(n) in the thread length, or O(log n + pending + window) with `index`.
 */
export function planSummary(
  messages: readonly BaseMessage[],
  summary: SummaryRecord | undefined,
  options: {
    /** The window, in messages (sets the period). */
    windowSize: number;
    threshold: number;
    /** Index of the window's first message when another middleware decided the window. */
    windowStart?: number;
    /** Start rule of the stack. @default "any" */
    startOn?: StartOn;
    /**
     * core's index of `messages` (`indexThread`), to find the window, the coverage boundary and
     * the message count from its prefix sums instead of scanning the thread. @default undefined
     */
    index?: ThreadIndex;
  },
): SummaryPlan {
  const period = summaryPeriod(options.windowSize, options.threshold);
  const { index } = options;
  const windowOptions = {
    cost: (group: { messages: readonly unknown[] }) => group.messages.length,
    limit: options.windowSize,
    startOn: options.startOn,
  };
  const windowStart =
    options.windowStart ??
    (index ? selectIndexedView(index, { ...windowOptions, costKey: "messages" }) : selectView(messages, windowOptions)).kept[0]?.start ??
    messages.length;
  const covered =
    index && summary?.coveredThroughId != null
      ? index.indexOf(summary.coveredThroughId) + 1 // -1 + 1: the id was deleted, nothing stored is covered
      : uncoveredStartOf(messages, summary);
  const uncoveredStart = Math.min(covered, windowStart);
  const pending = messages.slice(uncoveredStart, windowStart).filter((m) => !isSystem(m));
  const threadMessages = index ? index.length - index.systemPositions.length : messages.reduce((n, m) => (isSystem(m) ? n : n + 1), 0);
  // A record covering nothing is the marker summarize writes on a thread's first call (see summarize.ts).
  const hasSummary = summary !== undefined && summary.coveredCount > 0;
  const due = hasSummary ? pending.length >= period : threadMessages >= options.threshold && pending.length > 0;
  return { period, uncoveredStart, windowStart, pending, due, threadMessages };
}
