import { AIMessage, type BaseMessage, RemoveMessage } from "@langchain/core/messages";
import { Command, getCurrentTaskInput } from "@langchain/langgraph";
import {
  type ArchivedMessagesReader,
  type ArchivedWindow,
  DEFAULT_START_ON,
  groupCut,
  groupMessages,
  loggerOptionSchema,
  type MessageGroup,
  markedWindowCost,
  newestArchivedBefore,
  newestIndexOf,
  parseOptions,
  readSummarySlot,
  resolveLogger,
  type StartOn,
  SUMMARY_SLOT_KEY,
  type SummaryRecord,
  summarySlotOf,
  ThreadwiseConfigError,
  threadwiseMiddleware,
  viewDecisionsOf,
  viewStartOn,
} from "@threadwise/core";
import { messagesToDelete } from "@threadwise/persist-trim";
import { coverageIntact, coveredMessages } from "@threadwise/summarize";
import { z } from "zod/v4";
import { threadwiseSaverOf } from "./archive-checkpointer-check.js";
import { archiveWritesThrough, type ThreadwiseSaver } from "./threadwise-saver.js";

/** Name of the middleware. */
export const MESSAGE_ARCHIVE_MIDDLEWARE_NAME = "threadwise/message-archive";
/** Default of {@link MessageArchiveOptions.keepGroups}: groups kept in the checkpoint besides what the summary does not cover. */
export const DEFAULT_ARCHIVE_KEEP_GROUPS = 40;
/** Default of {@link MessageArchiveOptions.batchMessages}. */
export const DEFAULT_ARCHIVE_BATCH_MESSAGES = 10;

/** Options of {@link messageArchive}. */
export const messageArchiveOptionsSchema = z.strictObject({
  /**
   * Groups kept in the hot checkpoint, newest first (a group: a user message, an assistant
   * message, or a tool call with its results), at least. Must hold the window: with
   * `windowTrim({ maxMessages: n })`, `keepGroups >= n` (a group has at least one message), so
   * no message a view can show ever leaves the checkpoint. `memoryStack` uses the window plus
   * `ARCHIVE_MARGIN_GROUPS` (4).
   * @default 40
   */
  keepGroups: z.number().int().positive().default(DEFAULT_ARCHIVE_KEEP_GROUPS),
  /**
   * Messages that must be ready to leave before they are archived, at least: archiving in
   * batches keeps the archive writes (one transaction each) to one per this many messages. The
   * hot part then holds at most about `keepGroups` groups, the summary's uncovered messages and
   * one batch. A smaller batch keeps the hot part (read and written at every step) smaller, at the
   * price of more archive writes (at 10, about one per 5 exchanges of a chat without tools).
   * @default 10
   */
  batchMessages: z.number().int().positive().default(DEFAULT_ARCHIVE_BATCH_MESSAGES),
  /**
   * Archive batches whose window cost is a multiple of this, in messages (see {@link alignedBatch}:
   * the messages of non-orphan groups, counted from the first message a view may start on). A
   * window with chunked eviction (`windowTrim`'s default) places its cut points at multiples of
   * its step (`maxMessages - lowWatermark`) of that cost; archiving multiples of that step keeps
   * every cut point where it was, so views stay the ones of a thread that never archived. Used
   * only while the thread has no usable window mark (core's `ArchivedWindow`: an archive written
   * before the mark existed, a mark counted under another start rule, or a stack where no middleware
   * declares the summary slot that holds the mark): with the mark, or with
   * nothing archived yet, windowTrim counts the hot part on from the mark each batch writes, and a
   * batch may end at any end {@link alignedBatch} allows. `memoryStack` sets it to windowTrim's step.
   * @default 1
   */
  alignMessages: z.number().int().positive().default(1),
  /** Where the info line about archived messages goes; `false` for silence. @default core's default logger */
  logger: loggerOptionSchema,
});

/** Options of {@link messageArchive}, as given. */
export type MessageArchiveOptions = z.input<typeof messageArchiveOptionsSchema>;

/**
 * The messages of `messages` (a thread's hot part) that may leave it now (issue 27): a prefix of
 * `messages` made of whole groups (none spans across its end: a call whose span holds an orphan,
 * a result whose call id was edited away, leaves only with it), older than the newest
 * `keepGroups`, never the run's newest user turn or what follows it, never a stored `SystemMessage` (persistTrim's `messagesToDelete`),
 * and, when the thread has a summary record (`summarize` in the stack; the middleware moves
 * nothing while summarize has written none), only groups that end before the message the summary
 * covers through: what leaves is always summarized, and the
 * summary's boundary stays in the hot part, so summarize finds its coverage there as before. A
 * record that covers nothing (`coveredThroughId` null) lets nothing leave. Nothing at or after the
 * first stored `SystemMessage` leaves (it stays hot, and the archive must be a prefix of the
 * thread so that archive + hot reads back in order): a thread that begins with a stored system
 * message is never archived. Pure; thread order.
 * @param groups `groupMessages(messages)` when the caller has it (the middleware groups the hot
 *   part once per call and passes it here, to {@link alignedBatch} and {@link nextArchivedWindow});
 *   other groups give a wrong answer. @default grouped here
 */
export function messagesToArchive(
  messages: readonly BaseMessage[],
  summary: { coveredThroughId: string | null } | undefined,
  keepGroups: number,
  groups?: readonly MessageGroup[],
): BaseMessage[] {
  let before: string | undefined;
  if (summary) {
    if (summary.coveredThroughId === null) return [];
    let at = -1;
    for (let i = messages.length - 1; i >= 0; i -= 1)
      if ((messages[i] as BaseMessage).id === summary.coveredThroughId) {
        at = i;
        break;
      }
    const previous = at > 0 ? (messages[at - 1] as BaseMessage).id : undefined;
    if (typeof previous !== "string") return [];
    before = previous;
  }
  const all = groups ?? groupMessages(messages);
  const ids = new Set(messagesToDelete(messages, keepGroups, before, all));
  // The archive must hold a prefix of the thread for readers to put it back in order (archive,
  // then hot): what leaves is the longest prefix of messages persistTrim's choice holds, cut back
  // to where no group spans across the cut. A group's span may hold an orphan of its own (a result
  // whose call id was edited away, between the call and the result it still answers: core puts it
  // in a group after the call's), so the choice alone may skip it (seed 302 case 10: the stray
  // stayed hot while the call's group left, and the two results read back swapped). Nothing at or
  // after the first stored system message leaves either: it stays hot (every view holds it).
  let end = 0;
  while (end < messages.length) {
    const message = messages[end] as BaseMessage;
    if (message.getType() === "system" || typeof message.id !== "string" || !ids.has(message.id)) break;
    end += 1;
  }
  return messages.slice(0, groupCut(all, end));
}

/**
 * Index in `messages` of the newest message with id `id` (the summary's boundary, as
 * {@link messagesToArchive} finds it); -1 when `id` is null or not stored. At most this many
 * messages can leave while the summary covers through `id`: they all come before it. O(messages).
 */
function boundaryIndex(messages: readonly BaseMessage[], id: string | null): number {
  return id === null ? -1 : newestIndexOf(messages, id);
}

/**
 * The longest start of `leaving` (whole groups, from {@link messagesToArchive}, a prefix of the
 * hot part `thread`) after which the window counts from the same place as over the whole thread;
 * `[]` when there is none.
 *
 * The window cost is what windowTrim's chunked eviction counts: the messages of every group but
 * orphans (tool results without their call, calls without their results) and stored system
 * messages, from the first group a view may start on: the thread's first user message under the
 * stack's `startOn: "human"` (core's default), its first message under `"any"`. A chunked window
 * evicts the smallest multiple of its step (`maxMessages - lowWatermark`) of that cost that
 * brings the rest under its limit. When the cost the whole thread counts before the hot part's
 * counting starts is a multiple of the step, the cut over the hot part lands on the very group it
 * lands on over the whole thread (archive + hot), so the window, and every decision made from it
 * (what is due to be summarized, the summary's span), is the one a run without the archive makes.
 * Counting raw messages instead shifted the cut by one message per orphan archived (issue 27; the
 * slow archive fuzz, seed 20261203 cases 0 and 7). So a batch ends:
 * - right before a user message the view keeps (never before an empty one it leaves out), its own
 *   cost a multiple of `align`: the hot part starts on that message under either rule; or
 * - under `"human"` only, right before assistant or tool-call groups followed by such a user
 *   message, its cost plus theirs a multiple of `align`: the hot part's window counts from that
 *   user message, and those groups (which the whole thread counts) stay hot, uncounted there. This
 *   is how the summary's boundary, the last message it covers (which stays hot, see
 *   {@link messagesToArchive}; an answer right before the window's first user message), no longer
 *   keeps the step of messages before it hot with it: a LoCoMo replay's checkpoint holds 28.5
 *   messages per read instead of 33.2 (`bench/replay-cost.ts`, `messagesPerCheckpointRead`).
 * The next batch, cut from the hot part, counts from its first user message as the window does.
 * `align` 1 keeps the ends only (the middleware's choice while the window mark is in effect, see
 * {@link MessageArchiveOptions.alignMessages}).
 * Pure. `groups`: `groupMessages(thread)` when the caller has it (see {@link messagesToArchive});
 * `leaving` is grouped here, on its own (its newest user message may differ from the thread's).
 */
export function alignedBatch(
  thread: readonly BaseMessage[],
  leaving: readonly BaseMessage[],
  align: number,
  startOn: StartOn = DEFAULT_START_ON,
  groups: readonly MessageGroup[] = groupMessages(thread),
): BaseMessage[] {
  // Positions in `thread` by id: the group's last message, then the one after it.
  const position = new Map<string, number>();
  for (const [i, message] of thread.entries()) if (typeof message.id === "string") position.set(message.id, i);
  // The group starting at each position of `thread`, as the view groups it: an empty user message
  // that is not the thread's newest is an orphan there (the view leaves it out), though it may be
  // the newest of `leaving`. A batch never ends right before one.
  const groupAt = new Map<number, MessageGroup>();
  for (const group of groups) groupAt.set(group.start, group);
  /**
   * The window cost of the groups from position `from` of `thread` to the next user group the view
   * keeps: 0 when that group starts at `from`; `undefined` when an orphan or a stored system
   * message comes first, none follows, or (under `"any"`, where the window counts from the hot
   * part's first message) any group comes first.
   */
  const costBeforeUser = (from: number): number | undefined => {
    let cost = 0;
    for (let at = from; at < thread.length; ) {
      const group = groupAt.get(at);
      if (group === undefined || group.kind === "orphan" || group.kind === "system") return undefined;
      if (group.kind === "user") return cost;
      if (startOn === "any") return undefined;
      cost += group.messages.length;
      at = group.end;
    }
    return undefined;
  };
  let counting = startOn === "any";
  let cost = 0;
  let end = 0;
  for (const group of groupMessages(leaving)) {
    const first = position.get((leaving[group.start] as BaseMessage).id as string);
    const kind = (first === undefined ? undefined : groupAt.get(first)?.kind) ?? group.kind;
    if (kind === "user") counting = true;
    if (counting && kind !== "orphan" && kind !== "system") cost += group.messages.length;
    const at = position.get((leaving[group.end - 1] as BaseMessage).id as string);
    if (group.end <= end || at === undefined) continue;
    const before = costBeforeUser(at + 1);
    if (before === undefined) continue;
    // No user message left yet: the batch is what precedes the hot part's counting, and may end
    // right before its first user message only (as before any batch had a user message).
    if (counting ? (cost + before) % align === 0 : before === 0) end = group.end;
  }
  return leaving.slice(0, end);
}

/**
 * The window mark (core's {@link ArchivedWindow}) after `leaving`, a prefix of `thread` in whole
 * groups, is archived: the window cost of the archived messages, counted from where the whole
 * thread's count starts (its first user message under `"human"`, its first message under
 * `"any"`), orphans and stored system messages not counted, as windowTrim's chunked window counts
 * them. `before`: the mark's cost for what was archived before (core's `archivedWindowCost`);
 * `undefined` when there is none to go on (nothing archived yet, an archive written before the
 * mark existed, a rewrite emptied it): then the count starts at the first user message of
 * `leaving`, where the window over the hot part counted until now, and `undefined` is returned
 * while `leaving` holds none under `"human"` (the window still counts from the hot part's first
 * user message). Pure; O(thread) to group it. `groups`: `groupMessages(thread)` when the caller
 * has it (see {@link messagesToArchive}).
 */
export function nextArchivedWindow(
  thread: readonly BaseMessage[],
  leaving: readonly BaseMessage[],
  before: number | undefined,
  startOn: StartOn,
  groups?: readonly MessageGroup[],
): ArchivedWindow | undefined {
  const throughId = leaving.at(-1)?.id;
  if (typeof throughId !== "string") return undefined;
  let counting = before !== undefined || startOn === "any";
  let messages = before ?? 0;
  for (const group of groups ?? groupMessages(thread)) {
    if (group.start >= leaving.length) break;
    if (group.kind === "user") counting = true;
    if (counting && group.kind !== "orphan" && group.kind !== "system") messages += group.messages.length;
  }
  return counting ? { messages, throughId, startOn } : undefined;
}

/**
 * The thread's summary record as the model node received it (`{ record }`, the record `undefined`
 * for none), or `undefined` when the state cannot be read. From `request.state` when it holds the
 * summary slot (a hook called directly), else from the node's input (LangGraph's
 * `getCurrentTaskInput`): messageArchive declares no state schema of its own, since LangChain
 * parses a declared schema at every model call, and the slot is there whenever a middleware that
 * writes it (summarize, workMemory) is in the stack.
 */
function summaryOf(request: { state?: unknown; runtime?: unknown }): { record: SummaryRecord | undefined } | undefined {
  const state = request.state as Record<string, unknown> | undefined;
  if (state && SUMMARY_SLOT_KEY in state) return { record: readSummarySlot(state).summary };
  const configurable = (request.runtime as { configurable?: Record<string, unknown> } | undefined)?.configurable;
  try {
    return { record: readSummarySlot(getCurrentTaskInput({ configurable })).summary };
  } catch {
    return undefined;
  }
}

/**
 * Keeps every message while the checkpoint holds only a bounded hot part (issue 27; spec R5, R10,
 * R35). LangGraph reads and writes a thread's whole `messages` channel at every step, so a
 * thread's cost per step grows with its length; with this middleware it grows with the hot part
 * only, and the rest is kept in the archive next to the checkpoints (same backend: a table in
 * the SQLite file or PostgreSQL schema, in memory for `in_memory`).
 *
 * How it works, in `wrapModelCall` (no graph node, no extra checkpoint): when at least
 * `batchMessages` messages may leave ({@link messagesToArchive}: summarized, older than the newest
 * `keepGroups` groups, whole groups so a tool call never leaves without its results), it
 * 1. writes them to the archive (`ThreadwiseSaver.archiveMessages`, an idempotent upsert by
 *    tenant, thread and message id), and only then
 * 2. removes them from the checkpoint with `RemoveMessage`, riding on the model call's own update
 *    (a `Command` next to the answer), stored in the same checkpoint as the answer. The archive
 *    is the mark of what left: factRecall and userMemory ask it (`ThreadwiseSaver.archivedAmong`)
 *    for user messages gone from the checkpoint, to keep what archived ones said and tell them
 *    from messages the user removed (R37).
 * A crash between the two leaves a message in both places, never in neither; the next call
 * archives it again (same row) and removes it. Readers dedupe by id, the hot copy winning:
 * `ThreadwiseSaver.readThread` (the whole thread, in order), recall and summarize (given
 * `archived: (threadId, options) => saver.archivedMessages(threadId, options)`).
 *
 * Views: every message a view can hold stays hot (the window, what the summary does not cover),
 * so requests are the ones a run without the archive sends. A structured response (which cannot
 * carry the `Command`) leaves the messages in both places until the next call.
 *
 * Edits and forks (R37, R38): an `updateState` or a turn's input naming an archived message id, or a fork from a
 * checkpoint older than messages archived since, is refused by the saver with
 * `ThreadwiseArchivedMessageError` (nothing stored). Edits of hot messages and forks from
 * checkpoints after the last archiving work as before.
 *
 * @param saver the `ThreadwiseSaver` of the agent (`memoryStack().checkpointer`).
 * @throws ThreadwiseConfigError at construction for an invalid option (`messageArchive.keepGroups`),
 *   or naming `messageArchive.saver` when `saver` cannot archive (a plain `MemorySaver`, `SqliteSaver`
 *   or `PostgresSaver`: only `memoryStack()`'s `ThreadwiseSaver` keeps an archive).
 * @example
 * const { checkpointer } = memoryStack({ backend: "sqlite" });
 * const agent = createAgent({
 *   model,
 *   checkpointer,
 *   middleware: [windowTrim({ maxMessages: 20 }), summarize(), messageArchive(checkpointer!, { keepGroups: 40 })],
 * });
 */
export function messageArchive(saver: ThreadwiseSaver, options: MessageArchiveOptions = {}) {
  const archiving = saver as Partial<Pick<ThreadwiseSaver, "archiveMessages" | "archivedMessages">> | null | undefined;
  if (typeof archiving?.archiveMessages !== "function" || typeof archiving.archivedMessages !== "function")
    throw new ThreadwiseConfigError(
      "messageArchive.saver",
      `expected the ThreadwiseSaver of memoryStack() (it keeps the archive), got ${saver === null || typeof saver !== "object" ? String(saver) : (saver.constructor?.name ?? "an object")}; use memoryStack({ archive: true }) or pass its checkpointer`,
    );
  const opts = parseOptions("messageArchive", messageArchiveOptionsSchema, options);
  // From now on the saver marks every root checkpoint with where the archive stands (forks need it).
  archiveWritesThrough(threadwiseSaverOf(saver) ?? saver);
  const logger = resolveLogger(opts.logger);
  const archived: ArchivedMessagesReader = (threadId, readOptions) => saver.archivedMessages(threadId, readOptions);
  return threadwiseMiddleware({
    name: MESSAGE_ARCHIVE_MIDDLEWARE_NAME,
    wrapModelCall: async (request, handler) => {
      const threadId = (request.runtime?.configurable as { thread_id?: unknown } | undefined)?.thread_id;
      if (typeof threadId !== "string" || threadId === "") return handler(request);
      const messages: BaseMessage[] = request.state.messages ?? [];
      // The newest keepGroups groups stay, one message or more each: at most `length - keepGroups`
      // could leave, so with fewer than a batch there is nothing to look at (most calls).
      if (messages.length - opts.keepGroups < opts.batchMessages) return handler(request);
      // Without the summary record nothing is archived: what leaves must be summarized.
      const summary = summaryOf(request);
      if (summary === undefined) return handler(request);
      // summarize is in the stack (its coverage decision is in this request) and has written no
      // record yet (the thread's first call): nothing is summarized, so nothing leaves. Without
      // this, the first call archived unsummarized messages and summarize's first trigger then
      // counted the hot part only (issue 27; the slow archive fuzz, seed 102 case 9).
      if (summary.record === undefined && viewDecisionsOf(request).coverage !== undefined) return handler(request);
      // What leaves ends before the summary's boundary (messagesToArchive): with fewer than a batch
      // before it (or none stored), nothing can, and the groups are not computed (most calls).
      if (summary.record && boundaryIndex(messages, summary.record.coveredThroughId) < opts.batchMessages) return handler(request);
      // The stack's start rule (placementMode's, else core's default): where the window's cost counts from.
      const startOn = viewStartOn(request);
      // The hot part's groups, once for this call: the choice, the batch and the mark all read them.
      const groups = groupMessages(messages);
      const choice = messagesToArchive(messages, summary.record, opts.keepGroups, groups);
      if (choice.length < opts.batchMessages) return handler(request);
      // What precedes the hot part (one read of the archive's newest message): the summary's
      // coverage check and the window's count both go on from it.
      const newest = await newestArchivedBefore(archived, threadId, messages);
      // Where the window's count stands at the hot part: the slot's mark when the archive still ends
      // where it was written (core's markedWindowCost, archivedWindowCost's rule on the message read
      // above; `undefined` otherwise).
      // `undefined` slot: no middleware declares it, so the mark this batch writes is dropped.
      const slot = summarySlotOf(request);
      const before = markedWindowCost(slot?.archivedWindow, startOn, newest);
      // With the count known (or nothing archived before the hot part), windowTrim counts the hot
      // part on from the mark this batch writes, so its cut is the whole thread's wherever the batch
      // ends: no alignment. Aligned, an unanswered user message (a failed model call) made every later
      // aligned end unreachable and archiving stopped for good (breaker66, session 66). Without it (an
      // archive written before the mark existed, or under another start rule) the hot part's count
      // starts at its first user message: batches stay aligned. So do they in a stack without the
      // slot (no summarize, workMemory or summarySlotMiddleware): the mark is not kept, and windowTrim
      // counts the hot part from its first user message (review66: an unaligned first batch moved
      // every later cut point).
      const leaving = alignedBatch(
        messages,
        choice,
        before !== undefined || (newest === undefined && slot !== undefined) ? 1 : opts.alignMessages,
        startOn,
        groups,
      );
      if (leaving.length < opts.batchMessages) return handler(request);
      // A covered message edited in place or removed since the summary was made (R37): summarize
      // makes the summary again over the whole thread when next due. Its check reads the newest
      // archived message and the covered hot ones (archived messages never change), so nothing
      // leaves until a summary that covers the stored messages as they are exists: archiving now
      // would move the changed message where that check no longer sees it.
      if (summary.record && !coverageIntact(summary.record, coveredMessages(messages, summary.record, newest))) return handler(request);
      // Where the window's count stands after this batch: stored in the slot with the removal, so
      // windowTrim counts the hot part on from it (R35).
      const mark = nextArchivedWindow(messages, leaving, before, startOn, groups);
      // Archive first: a crash after this leaves the messages in both places, never in neither.
      await saver.archiveMessages(threadId, leaving);
      const response = await handler(request);
      if (!AIMessage.isInstance(response)) return response;
      logger.info(`message_archive: archived=${leaving.length} hot=${messages.length - leaving.length}`, {
        archived: leaving.length,
        hot: messages.length - leaving.length,
      });
      const removals = leaving.map((message) => new RemoveMessage({ id: message.id as string }));
      return new Command({ update: mark ? { messages: removals, [SUMMARY_SLOT_KEY]: { archivedWindow: mark } } : { messages: removals } });
    },
  });
}
