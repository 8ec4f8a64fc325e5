import { type BaseMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import {
  declaredSummarySlot,
  envOptionSchema,
  envPositiveInt,
  groupCut,
  groupMessages,
  loggerOptionSchema,
  type MessageGroup,
  nextTrimMark,
  optionsObject,
  parseOptions,
  protectedTailStart,
  readSummarySlot,
  resolveLogger,
  runArchiveReader,
  SUMMARY_SLOT_KEY,
  summarySlotState,
  THREADWISE_ENV,
  threadwiseMiddleware,
  withArchived,
} from "@threadwise/core";
import { z } from "zod/v4";

/** Env twin of `keepGroups`. */
export const KEEP_GROUPS_ENV = THREADWISE_ENV.persistTrimKeepGroups;

/** Options of {@link persistTrim}. */
export const persistTrimOptionsSchema = z.strictObject({
  /**
   * Groups to keep in the stored thread, newest first (a group is a user message, an assistant
   * message, or a tool call with its results). Stored `SystemMessage`s are kept and not counted.
   * Required: pass it or set env `MEMORY_PERSIST_TRIM_KEEP_GROUPS`.
   */
  keepGroups: z
    .number({
      error: (issue) =>
        issue.input === undefined
          ? `required: a positive integer (or set ${KEEP_GROUPS_ENV})`
          : `expected a positive integer, got ${JSON.stringify(issue.input)}`,
    })
    .int({ error: "expected a positive integer" })
    .positive({ error: "expected a positive integer" }),
  /**
   * When the thread has a summary (from `summarize`), never delete a message the summary does not
   * cover yet, even past `keepGroups`: what is deleted is always in the summary.
   * @default true
   */
  keepUnsummarized: z.boolean().default(true),
  /** Where the info line about deletions goes; `false` for silence. @default core's default logger */
  logger: loggerOptionSchema,
  /**
   * Where the env twin (`MEMORY_PERSIST_TRIM_KEEP_GROUPS`) and `THREADWISE_LOG` are read instead
   * of `process.env`; `memoryStack({ env })` passes its own. @default process.env
   */
  env: envOptionSchema,
  /**
   * Whether persistTrim declares the thread's summary slot (`_threadwise_summary`, read for the
   * summary's boundary) as its own state schema. LangChain parses the declared schema of every
   * threadwise middleware at each model call (a new zod object each time); `false` leaves the
   * declaration to core's `summarySlotMiddleware()` (no hook) anywhere in the same `middleware`
   * list, and persistTrim reads the slot from the graph (`memoryStack` does this). With `false`
   * and no middleware declaring the slot, the run's `afterAgent` throws `ThreadwiseConfigError`
   * naming `persistTrim.declareState` and deletes nothing.
   * @default true
   */
  declareState: z.boolean().default(true),
});

/** Options of {@link persistTrim}, as given. */
export type PersistTrimOptions = z.input<typeof persistTrimOptionsSchema>;
/** Options of {@link persistTrim}, with defaults applied. */
export type ResolvedPersistTrimOptions = z.output<typeof persistTrimOptionsSchema>;

/**
 * Validates options, filling `keepGroups` from env `MEMORY_PERSIST_TRIM_KEEP_GROUPS` when absent.
 * @throws ThreadwiseConfigError naming `persistTrim.keepGroups` (or the env variable) when it is
 *   missing or not a positive integer.
 */
export function resolvePersistTrimOptions(
  options: Partial<PersistTrimOptions> = {},
  env: NodeJS.ProcessEnv = options?.env ?? process.env,
): ResolvedPersistTrimOptions {
  const given = Object.fromEntries(Object.entries(optionsObject("persistTrim", options)).filter(([, value]) => value !== undefined));
  const keepGroups = envPositiveInt(KEEP_GROUPS_ENV, env);
  return parseOptions("persistTrim", persistTrimOptionsSchema, keepGroups === undefined ? given : { keepGroups, ...given });
}

/**
 * Ids of the stored messages to delete (spec R5): every message of the non-system groups older
 * than the newest `keepGroups`, never the run's newest user turn and what follows it, never a
 * stored `SystemMessage`. With `coveredThroughId` (a summary's boundary): nothing after that
 * message; `null` means "the boundary is no longer stored", so nothing at all. Whole groups only, cut
 * where no group spans across (core's `groupCut`: a call whose span holds a stray result of its own
 * stays with it), so the thread left behind has no orphan tool results at its start. Pure; returns
 * ids in group order (thread order, but for such a stray, which follows its call's group).
 * @param all `groupMessages(messages)` when the caller has it (memory's messageArchive groups
 *   the hot part once per call for every step of its choice); other groups give a wrong answer.
 *   @default grouped here
 */
export function messagesToDelete(
  messages: readonly BaseMessage[],
  keepGroups: number,
  coveredThroughId?: string | null,
  all: readonly MessageGroup[] = groupMessages(messages),
): string[] {
  const kept = all.filter((group) => group.kind !== "system");
  const protectedFrom = protectedTailStart(kept);
  let end = Math.min(Math.max(0, kept.length - keepGroups), protectedFrom);
  if (coveredThroughId !== undefined) {
    const at = coveredThroughId === null ? -1 : messages.findIndex((m) => m.id === coveredThroughId);
    // Only groups that end at or before the boundary are fully summarized.
    let summarized = 0;
    while (summarized < kept.length && at >= 0 && (kept[summarized] as MessageGroup).end - 1 <= at) summarized += 1;
    end = Math.min(end, summarized);
  }
  // Whole groups of the thread (core's `groupCut`): a call whose span holds a stray of its own (a
  // result whose call id was edited in place, grouped after the call's group) is deleted only with
  // it, so the thread left behind never begins with a result whose call this trim deleted.
  const cut = groupCut(all, end < kept.length ? (kept[end] as MessageGroup).start : messages.length);
  const ids: string[] = [];
  for (const group of kept) if (group.start < cut) for (const m of group.messages) if (typeof m.id === "string") ids.push(m.id);
  return ids;
}

/**
 * The whole thread `stored` is the hot part of (issue 27): the archived messages of the run's
 * checkpointer (core's `runArchiveReader`: a `ThreadwiseSaver` keeping a message archive,
 * whichever stack archived them), then `stored`, each message once (core's `withArchived`).
 * `stored` itself when the run's checkpointer keeps no archive or the thread's is empty. One read
 * of the whole archive, which stays small: a trim that deletes anything empties it, and until the
 * thread outgrows `keepGroups` it holds at most what the trim keeps.
 */
async function wholeThread(stored: readonly BaseMessage[], runtime: unknown): Promise<readonly BaseMessage[]> {
  const archived = runArchiveReader(runtime);
  const threadId = (runtime as { configurable?: { thread_id?: unknown } } | undefined)?.configurable?.thread_id;
  if (archived === undefined || typeof threadId !== "string" || threadId === "") return stored;
  return withArchived(await archived(threadId), stored);
}

/**
 * Deletes older groups from the stored thread after each completed run (spec R5): the one
 * destructive operation of threadwise. IRREVERSIBLE: the deleted messages are gone from the
 * checkpointer's newest state for good (older checkpoints may still hold them until pruned).
 *
 * Runs in `afterAgent` (not after a run that was interrupted or failed), and returns a rewrite of
 * the thread: a `RemoveMessage` of `REMOVE_ALL_MESSAGES` followed by the kept messages, in order
 * (LangChain's idiom for this, as its `summarizationMiddleware` writes), so the stored thread is
 * exactly the kept messages. The user messages it deletes are named in the thread's summary slot
 * (`trimmed`, core's `TrimMark`), so factRecall and userMemory keep what they said and tell them
 * from messages the user removed (R37). On a checkpointer that keeps a message archive (`@threadwise/memory`'s
 * `ThreadwiseSaver`), it decides over the whole thread, the archived messages first, as on a
 * thread that never archived: the rewrite empties the archive, and the archived messages it keeps
 * come back into the checkpoint with it. Keeps the newest
 * `keepGroups` groups, stored `SystemMessage`s, and the run's newest user turn. With
 * `keepUnsummarized` (default) and a summary in the thread's summary slot, it never deletes past
 * the summary's `coveredThroughId`, so the summary (which lives in its own state key and is never
 * touched) still covers everything deleted, and its boundary still points at the right message
 * or, once that message itself is deleted, at the start of the remaining thread.
 *
 * With `summarize`, pick `keepGroups >= threshold` so nothing is deleted before the first summary.
 *
 * @throws ThreadwiseConfigError at construction when `keepGroups` is missing or invalid.
 * @example
 * const agent = createAgent({
 *   model,
 *   checkpointer,
 *   middleware: [summarize(), persistTrim({ keepGroups: 60 })],
 * });
 */
export function persistTrim(options: Partial<PersistTrimOptions> = {}) {
  const opts = resolvePersistTrimOptions(options);
  const logger = resolveLogger(opts.logger, opts.env);
  return threadwiseMiddleware({
    name: "threadwise/persist-trim",
    ...(opts.declareState ? { stateSchema: summarySlotState } : {}),
    afterAgent: async (state, runtime) => {
      const stored: BaseMessage[] = state.messages ?? [];
      // Read even when keepUnsummarized is off: a missing declaration is refused either way.
      const slot = opts.declareState ? readSummarySlot(state) : declaredSummarySlot({ state, runtime }, "persistTrim.declareState");
      const summary = opts.keepUnsummarized ? slot.summary : undefined;
      const messages = await wholeThread(stored, runtime);
      const ids = messagesToDelete(messages, opts.keepGroups, summary ? summary.coveredThroughId : undefined);
      if (ids.length === 0) return undefined;
      logger.info(`persist_trim: deleted=${ids.length} kept=${messages.length - ids.length}`, {
        deleted: ids.length,
        kept: messages.length - ids.length,
      });
      // A rewrite (what LangChain's summarizationMiddleware writes), not one RemoveMessage per id:
      // the stored thread becomes exactly the kept messages, archived ones it keeps included, and a
      // store keeping older messages outside the checkpoint (memory's message archive) learns that
      // they are gone too.
      const deleted = new Set(ids);
      const gone = (message: BaseMessage) => typeof message.id === "string" && deleted.has(message.id);
      // The mark of what the trim took (R37): factRecall and userMemory keep what these said, and
      // tell them from messages the user removed.
      const trimmed = nextTrimMark(slot.trimmed, messages.filter(gone));
      return {
        messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...messages.filter((message) => !gone(message))],
        ...(trimmed ? { [SUMMARY_SLOT_KEY]: { trimmed } } : {}),
      };
    },
  });
}
