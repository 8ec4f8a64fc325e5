import { ReducedValue, StateSchema } from "@langchain/langgraph";
import { z } from "zod/v4";
import { trimMarkSchema } from "./trim-mark.js";

/**
 * The thread's summary slot: one checkpointed value shared by `summarize` (the summary) and
 * `workMemory` (the work-memory envelope). Private state (the key starts with `_`), so it is not
 * part of the agent's input or output, and is written only through the reducer below.
 */
export const SUMMARY_SLOT_KEY = "_threadwise_summary";

/** One summarizer call (pass) that folded messages into the summary (spec R39). */
export const summaryPassSchema = z.object({
  /** Id of the first message of the pass; `null` when it has none. */
  fromId: z.string().nullable(),
  /** Id of the last message of the pass; `null` when it has none. */
  throughId: z.string().nullable(),
  /** Non-system messages in the pass. */
  messages: z.number().int().nonnegative(),
  /** Tokens of the summarizer's input (instructions, previous summary, messages), `o200k_base`. */
  inputTokens: z.number().int().nonnegative(),
});
export type SummaryPass = z.infer<typeof summaryPassSchema>;

/** The cached summary of what left the window (spec R12). */
export const summaryRecordSchema = z.object({
  /** The summary text. */
  text: z.string(),
  /** Id of the newest message the summary covers; `null` when none has an id. */
  coveredThroughId: z.string().nullable(),
  /** How many non-system messages, from the start of the thread, the summary covers. */
  coveredCount: z.number().int().nonnegative(),
  /** ISO-8601 time of the last update. */
  updatedAt: z.string(),
  /**
   * What the summary was made from, to tell an edit of a covered message (R37): one digest per
   * covered message still stored when the record was written, oldest first, 8 base64 characters
   * each (summarize's `coveredDigestOf`). Absent on records written before it existed.
   */
  coveredDigests: z.string().optional(),
  /**
   * `true` when the first of `coveredDigests` is the newest archived message's (issue 27): the
   * covered messages before it were in the thread's archive when the record was written (they
   * never change there). A rewrite that brings some of them back into the checkpoint is checked
   * against the digests the rewrite kept of the archive it emptied (memory's
   * `ThreadwiseSaver.archiveClearedDigests`). Absent (`false`) on records written before it existed.
   */
  coveredArchived: z.boolean().optional(),
  /**
   * Provenance (issue 23): id of the oldest message the summary covers; `null` when it had none.
   * Absent on records written before it existed.
   */
  coveredFromId: z.string().nullable().optional(),
  /**
   * Id of the newest user message (core's `isUserMessage`) the summary covers; absent when it
   * covers none with an id, and on records written before it existed. When `coveredThroughId` is
   * stored nowhere (neither in the checkpoint nor in the archive), summarize keeps placing the
   * summary only if persistTrim's trim mark (`trimmed`) names this id: a user's removal otherwise
   * took the messages it covers (R37).
   */
  coveredUserId: z.string().optional(),
  /** Summarizer calls (passes) that built the summary since it was first made (or made again after an edit). */
  passes: z.number().int().nonnegative().optional(),
  /**
   * The passes of the latest update, oldest first (at most `maxPassesPerCall`): the ids of the
   * first and last message each folded in, how many, and its input tokens (`o200k_base`).
   */
  lastPasses: z.array(summaryPassSchema).optional(),
  /**
   * The thread's latest summarizer attempt since this summary was made, which made none yet
   * (summarize, spec R13, R39): a call whose summarizer failed, timed out or answered empty
   * (`failed: true`), or a background job started after an answer (`failed: false`: until the
   * next call adopts its summary; a job that failed, still runs or was lost with its process looks
   * the same in the stored thread). While it stands the view keeps the messages it kept then
   * (`viewFromId`). A record made by a summary has none. Absent on records written before it existed.
   */
  lastAttempt: z
    .object({
      /** Id of the user message of the turn that made it (`""`: none); a failed one is not tried again in that turn. */
      turnId: z.string(),
      /** `true`: the summarizer failed; `false`: a background job was started. */
      failed: z.boolean(),
      /**
       * Where that call's view started: `null` when it held every message the summary does not
       * cover, else the id of its first message; absent when that message had no id.
       */
      viewFromId: z.string().nullable().optional(),
    })
    .optional(),
});
export type SummaryRecord = z.infer<typeof summaryRecordSchema>;

/** One work-memory entry (spec R18). */
export const workMemoryEntrySchema = z.object({
  /** Stable key: the id of the response it was condensed from. Merging is by this key. */
  id: z.string(),
  /** Condensed text. */
  text: z.string(),
  /** ISO-8601 time it was stored. */
  createdAt: z.string(),
});
export type WorkMemoryEntry = z.infer<typeof workMemoryEntrySchema>;

/**
 * What workMemory's `wrapModelCall` saw of a run's final answer, kept in the slot until the run's
 * `afterAgent` commits (spec R18, R37): a process that resumes the run after an interrupt between
 * the two (an output check's `interrupt()`) reads it from the checkpoint, so what is committed
 * depends on the stored state only, never on which process resumed.
 */
export const workMemoryPendingSchema = z.object({
  /** Digest of what the model returned (text and tool calls: work-memory's `responseDigest`), never the text. */
  digest: z.string(),
  /** `true` when the response said it did not complete normally (an incomplete `finish_reason`, an error). */
  incomplete: z.boolean(),
  /** The run's structured response (`responseFormat`), inline data already replaced by markers. */
  structuredResponse: z.unknown().optional(),
  /**
   * The condensed note, when the condensation ran in the model call (no `workMemory({ model })`:
   * the agent's model is reachable there only); `""` when it kept nothing.
   */
  note: z.string().optional(),
  /** `true` when that condensation threw or timed out. */
  condensationFailed: z.boolean().optional(),
});
export type WorkMemoryPending = z.infer<typeof workMemoryPendingSchema>;

/** Facts userMemory's `wrapModelCall` extracted from one user message with the agent's model (spec R40). */
export const extractedFactsSchema = z.object({
  /** Id of the user message. */
  id: z.string(),
  /** Its core `messageDigest` when extracted: the facts hold for that content only. */
  digest: z.string(),
  /** What the extraction found (fact-recall's `CandidateFact` shape). */
  facts: z.array(z.record(z.string(), z.unknown())),
  /** `llm`, or `heuristic` when the model call failed and the rules stood in. */
  origin: z.enum(["llm", "heuristic"]),
});
export type ExtractedFacts = z.infer<typeof extractedFactsSchema>;

/**
 * Where the chunked window's count stands at the hot part of an archived thread (issue 27, R35):
 * written by memory's `messageArchive` with each batch it archives, read by windowTrim. The window
 * counts group costs from the whole thread's first user message (`startOn: "human"`) or first
 * message (`"any"`); over the hot part it counts from the hot part's first group, starting at
 * `messages`, so its cut is the one a thread that never archived makes, whatever is later edited
 * or removed in the hot part (archived messages never change: edits of them are refused).
 */
export const archivedWindowSchema = z.object({
  /** The window cost of the archived messages, in messages: groups but orphans and stored system messages, counted from where the whole thread's count starts. */
  messages: z.number().int().nonnegative(),
  /** Id of the newest archived message when it was written: a count whose archive no longer ends there (a rewrite emptied it) is not used. */
  throughId: z.string(),
  /** The start rule it was counted under: a window under another rule does not use it. */
  startOn: z.enum(["human", "any"]),
});
/** See {@link archivedWindowSchema}. */
export type ArchivedWindow = z.infer<typeof archivedWindowSchema>;

/** Value of the slot. Each part is optional; a producer writes only its own part. */
export const summarySlotSchema = z.object({
  summary: summaryRecordSchema.optional(),
  workMemory: z.object({ entries: z.array(workMemoryEntrySchema), pending: workMemoryPendingSchema.optional() }).optional(),
  /** userMemory's `llm` facts of the run's user messages, extracted in the model call (no `userMemory({ model })`). */
  userFacts: z.array(extractedFactsSchema).optional(),
  /**
   * What persistTrim and the message archive took from the start of the thread (core's
   * `TrimMark`): factRecall and userMemory tell a user message that left through them from one
   * the user removed by it (R37). Absent until one of them takes a user message.
   */
  trimmed: trimMarkSchema.optional(),
  /** The message archive's window count (see {@link archivedWindowSchema}). Absent until a batch with a counted group is archived, and on archives written before it existed. */
  archivedWindow: archivedWindowSchema.optional(),
});
export type SummarySlot = z.infer<typeof summarySlotSchema>;

/**
 * An update to the slot: `summary` replaces the summary (upsert, R12); `trimmed` replaces the trim
 * mark (the writer computes it whole: core's `nextTrimMark`); `archivedWindow` replaces the archive's window count; `workMemory.entries` are
 * merged by `id` (an entry with a known id replaces it in place, new ids are appended), and
 * `workMemory.keepIds`, when given, lists the ids to keep afterwards (the bound the producer
 * enforces); `workMemory.pending` replaces the pending record (`null` removes it; absent keeps
 * it); `userFacts` replaces the extracted facts. Idempotent: applying the same update twice gives
 * the same value, so parallel writes in one step cannot conflict.
 */
export const summarySlotUpdateSchema = z.object({
  summary: summaryRecordSchema.optional(),
  workMemory: z
    .object({
      entries: z.array(workMemoryEntrySchema),
      keepIds: z.array(z.string()).optional(),
      pending: workMemoryPendingSchema.nullable().optional(),
    })
    .optional(),
  userFacts: z.array(extractedFactsSchema).optional(),
  trimmed: trimMarkSchema.optional(),
  archivedWindow: archivedWindowSchema.optional(),
});
export type SummarySlotUpdate = z.infer<typeof summarySlotUpdateSchema>;

/** The reducer of the slot; see {@link SummarySlotUpdate}. Never mutates its inputs. */
export function mergeSummarySlot(current: SummarySlot | undefined, update: SummarySlotUpdate | undefined): SummarySlot {
  const base: SummarySlot = current ?? {};
  if (!update) return base;
  const next: SummarySlot = { ...base };
  if (update.summary) next.summary = update.summary;
  if (update.trimmed) next.trimmed = update.trimmed;
  if (update.archivedWindow) next.archivedWindow = update.archivedWindow;
  if (update.workMemory) {
    const entries = [...(base.workMemory?.entries ?? [])];
    for (const entry of update.workMemory.entries) {
      const at = entries.findIndex((e) => e.id === entry.id);
      if (at === -1) entries.push(entry);
      else entries[at] = entry;
    }
    const keep = update.workMemory.keepIds ? new Set(update.workMemory.keepIds) : undefined;
    const pending = update.workMemory.pending === undefined ? base.workMemory?.pending : update.workMemory.pending;
    const kept = keep ? entries.filter((e) => keep.has(e.id)) : entries;
    // A thread that never stored a note keeps no part (a record written and consumed leaves none).
    if (kept.length === 0 && !pending) delete next.workMemory;
    else next.workMemory = { entries: kept, ...(pending ? { pending } : {}) };
  }
  if (update.userFacts) next.userFacts = update.userFacts;
  // `archivedWindow` last, whatever the order of the writes: the stored slot reads the same
  // (key for key, in order) as one a fresh process builds from the same updates.
  if (next.archivedWindow) {
    const { archivedWindow, ...rest } = next;
    return { ...rest, archivedWindow };
  }
  return next;
}

/**
 * State schema holding the slot. Every middleware that reads or writes the slot declares this same
 * object as (part of) its `stateSchema`; LangChain keeps the first declaration of a key.
 */
export const summarySlotState = new StateSchema({
  [SUMMARY_SLOT_KEY]: new ReducedValue(
    summarySlotSchema.default(() => ({})),
    {
      inputSchema: summarySlotUpdateSchema,
      reducer: mergeSummarySlot,
    },
  ),
});

/** Reads the slot from agent state (`request.state`, hook state); `{}` when absent. */
export function readSummarySlot(state: unknown): SummarySlot {
  const value = (state as Record<string, unknown> | undefined)?.[SUMMARY_SLOT_KEY];
  return (value as SummarySlot | undefined) ?? {};
}
