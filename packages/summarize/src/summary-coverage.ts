import type { BaseMessage } from "@langchain/core/messages";
import {
  isUserMessage,
  MESSAGE_DIGEST_CHARACTERS,
  messageDigest,
  messageType,
  newestIndexOf,
  type SummaryRecord,
  type TrimMark,
  trimmedThrough,
} from "@threadwise/core";
import { uncoveredStartOf } from "./summary-plan.js";

/** Characters of one message's digest in `SummaryRecord.coveredDigests` (48 bits of SHA-1, base64). */
export const COVERED_DIGEST_CHARACTERS = MESSAGE_DIGEST_CHARACTERS;

/** One covered message's digest: core's `messageDigest` (SHA-1 of `messageIdentity`: type, id, name, content, tool calls; 8 base64 characters). */
export function coveredDigestOf(message: BaseMessage): string {
  return messageDigest(message);
}

/** The digests of `messages`, oldest first, as one string (`coveredDigests`). */
export function coveredDigestsOf(messages: readonly BaseMessage[]): string {
  let out = "";
  for (const message of messages) out += coveredDigestOf(message);
  return out;
}

const isSystem = (message: BaseMessage) => messageType(message) === "system";

/**
 * The non-system messages of `stored` that `summary` covers (those still stored), oldest first,
 * after `before` when given: the message right before `stored` in the thread, on a thread whose
 * older messages are archived (issue 27; core's `newestArchivedBefore`). Archived messages never
 * change (the saver refuses an edit or removal of one), so the newest stands for all of them, and
 * checking it also sees a removal of the first stored covered messages, which on a thread that
 * never archived is a removal from the middle. O(stored).
 */
export function coveredMessages(stored: readonly BaseMessage[], summary: SummaryRecord | undefined, before?: BaseMessage): BaseMessage[] {
  const covered = stored.slice(0, uncoveredStartOf(stored, summary)).filter((message) => !isSystem(message));
  return before === undefined || isSystem(before) ? covered : [before, ...covered];
}

/**
 * Whether `covered` reaches before the digests `summary` holds, on a record whose digests begin
 * with the newest archived message (`coveredArchived`, issue 27): only a rewrite that brought
 * archived covered messages back into the checkpoint does that, and only then the digests the
 * rewrite kept of the archive it emptied ({@link coveredDigestsWith}) are needed. O(1).
 */
export function reachesBeforeDigests(summary: SummaryRecord | undefined, covered: readonly BaseMessage[]): boolean {
  const digests = summary?.coveredDigests;
  return summary?.coveredArchived === true && digests !== undefined && covered.length * COVERED_DIGEST_CHARACTERS > digests.length;
}

/**
 * The digests of what `summary` covers, oldest first, as a thread that never archived holds them
 * (issue 27, R37). A record with `coveredArchived` holds the digests of the newest archived message
 * and of the covered ones after it; the covered messages before it were archived, and never change
 * there. `cleared` holds the digests of every message the thread's archive held when a rewrite
 * emptied it, oldest first (memory's `ThreadwiseSaver.archiveClearedDigests`): when it holds the
 * record's first digest, followed by the record's next ones (the rows archived after the record
 * was written, all covered), the digests before that one are the covered archived messages before
 * it, and go first. Otherwise (no `cleared`, a record without `coveredArchived`, or a rewrite from
 * before the record was written: `cleared` does not hold its newest archived message) the
 * record's own digests. Pure; O(cleared).
 */
export function coveredDigestsWith(summary: SummaryRecord | undefined, cleared: string | undefined): string | undefined {
  const digests = summary?.coveredDigests;
  if (digests === undefined || summary?.coveredArchived !== true || !cleared || digests.length < COVERED_DIGEST_CHARACTERS) return digests;
  const newest = digests.slice(0, COVERED_DIGEST_CHARACTERS);
  for (let at = cleared.length - COVERED_DIGEST_CHARACTERS; at >= 0; at -= COVERED_DIGEST_CHARACTERS)
    if (cleared.slice(at, at + COVERED_DIGEST_CHARACTERS) === newest)
      return digests.startsWith(cleared.slice(at)) ? cleared.slice(0, at) + digests : digests;
  return digests;
}

/**
 * Whether the messages `summary` covers that are still stored are the ones it was made from
 * (spec R37): their digests are the last ones of `summary.coveredDigests` (with `cleared`, see
 * {@link coveredDigestsWith}), in order (messages deleted from the head by persistTrim or a
 * rewrite only shorten the list). A covered message edited in place under its own id, removed
 * from the middle, or inserted makes it `false`. A record without digests (written before they
 * existed, or covering nothing) is taken as intact.
 * O(covered content): checked only when a new summary is made, once per period.
 */
export function coverageIntact(summary: SummaryRecord | undefined, covered: readonly BaseMessage[], cleared?: string): boolean {
  const digests = coveredDigestsWith(summary, cleared);
  if (digests === undefined) return true;
  const offset = digests.length - covered.length * COVERED_DIGEST_CHARACTERS;
  if (offset < 0) return false;
  for (let i = 0; i < covered.length; i += 1) {
    const at = offset + i * COVERED_DIGEST_CHARACTERS;
    if (digests.slice(at, at + COVERED_DIGEST_CHARACTERS) !== coveredDigestOf(covered[i] as BaseMessage)) return false;
  }
  return true;
}

/**
 * The id of the newest user message (core's `isUserMessage`) among `messages` with an id, else
 * `fallback`: a summary record's `coveredUserId` after a pass over `messages` on top of a record
 * whose `coveredUserId` is `fallback`. O(messages).
 */
export function newestUserId(messages: readonly BaseMessage[], fallback?: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as BaseMessage;
    if (isUserMessage(message) && typeof message.id === "string" && message.id !== "") return message.id;
  }
  return fallback;
}

/**
 * Whether a user's removal took what `summary` covers (R37, langgraphjs#1211): the newest message
 * it covers (`coveredThroughId`) is not in `thread` (the stored messages, with the archived ones
 * before them when the thread keeps an archive), and persistTrim's trim `mark` (the summary slot's
 * `trimmed`) does not name the newest user message it covers (`coveredUserId`; core's
 * `trimmedThrough`). persistTrim and the archive take whole groups from the start of the thread,
 * so one that took the newest covered message took that user message too, and named it (the
 * archive keeps what it moves: then the message is in `thread`). `false` when it cannot be told:
 * no summary, one that covers nothing, a boundary or user message without an id, a record written
 * before `coveredUserId` existed.
 *
 * The rule summarize applies: the summary stands or falls with its newest covered message. A
 * removal that leaves that message stored (older covered messages removed) keeps the summary, as
 * persistTrim's deletions do, until the summary is made again. O(messages after the boundary) (a
 * scan from the end: core's `newestIndexOf`).
 */
export function coverageRemoved(thread: readonly BaseMessage[], summary: SummaryRecord | undefined, mark: TrimMark | undefined): boolean {
  if (!summary || summary.coveredCount === 0 || summary.coveredThroughId === null || summary.coveredUserId === undefined) return false;
  if (newestIndexOf(thread, summary.coveredThroughId) !== -1) return false;
  return trimmedThrough([summary.coveredUserId], mark) === 0;
}
