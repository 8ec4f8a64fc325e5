import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { isUserMessage } from "./message-kinds.js";

/**
 * Most user message ids a {@link TrimMark} lists (`taken`); older ones are summed up by `before`.
 * About 40 bytes each in the checkpoint's summary slot, written only when a trim or the archive
 * takes a user message.
 */
export const TRIM_MARK_MAX_IDS = 64;

/**
 * What persistTrim and the message archive took from the start of the stored thread (spec R5,
 * R37): the mark that tells a user message that left through them from one the user removed
 * (`RemoveMessage`), kept in the thread's summary slot (`trimmed`), so a fresh process reads the
 * same. Both take whole groups from the start of the thread and never the run's newest user turn,
 * so what they took is always older than every message still stored.
 */
export const trimMarkSchema = z.object({
  /**
   * Ids of the newest user messages (core's `isUserMessage`) they took, oldest first, at most
   * {@link TRIM_MARK_MAX_IDS}.
   */
  taken: z.array(z.string()),
  /**
   * Id of the newest user message they took that `taken` no longer lists (`null`: none): every
   * user message stored before it left with it or before it.
   */
  before: z.string().nullable(),
});
/** See {@link trimMarkSchema}. */
export type TrimMark = z.infer<typeof trimMarkSchema>;

/**
 * The mark after a trim or an archiving step took `taken` (messages of any kind, thread order):
 * `current`'s ids, then the ids of the user messages among `taken` it does not list, the oldest
 * dropped past {@link TRIM_MARK_MAX_IDS} (the newest of them becomes `before`). `undefined` when
 * `taken` holds no user message with an id (nothing to write). Pure; O(mark + taken).
 */
export function nextTrimMark(current: TrimMark | undefined, taken: readonly BaseMessage[]): TrimMark | undefined {
  const known = new Set(current?.taken ?? []);
  const added: string[] = [];
  for (const message of taken) {
    const id = message.id;
    if (typeof id !== "string" || id === "" || known.has(id) || !isUserMessage(message)) continue;
    known.add(id);
    added.push(id);
  }
  if (added.length === 0) return undefined;
  const ids = [...(current?.taken ?? []), ...added];
  const drop = Math.max(0, ids.length - TRIM_MARK_MAX_IDS);
  return { taken: ids.slice(drop), before: drop > 0 ? (ids[drop - 1] as string) : (current?.before ?? null) };
}

/**
 * How many of `ids` (user message ids, oldest first: a record of the stored thread as it was,
 * such as factRecall's `read`) lie at or before the newest one `mark` names (`taken` or
 * `before`): those of them no longer stored left through a trim or the archive (what they take is
 * older than everything they leave, so an older one left with them or before them); the others
 * no longer stored were removed. 0 without a mark or when `mark` names none of `ids`. O(ids).
 */
export function trimmedThrough(ids: readonly string[], mark: TrimMark | undefined): number {
  if (!mark) return 0;
  const named = new Set(mark.taken);
  if (mark.before !== null) named.add(mark.before);
  for (let i = ids.length - 1; i >= 0; i -= 1) if (named.has(ids[i] as string)) return i + 1;
  return 0;
}
