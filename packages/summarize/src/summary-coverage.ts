import { createHash } from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";
import { messageIdentity, messageType, type SummaryRecord } from "@threadwise/core";
import { uncoveredStartOf } from "./summary-plan.js";

/** Characters of one message's digest in `SummaryRecord.coveredDigests` (48 bits of SHA-1, base64). */
export const COVERED_DIGEST_CHARACTERS = 8;

/** One covered message's digest: SHA-1 of core's `messageIdentity` (type, id, name, content, tool calls), 8 base64 characters. */
export function coveredDigestOf(message: BaseMessage): string {
  return createHash("sha1").update(messageIdentity(message)).digest("base64").slice(0, COVERED_DIGEST_CHARACTERS);
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
 * Whether the messages `summary` covers that are still stored are the ones it was made from
 * (spec R37): their digests are the last ones of `summary.coveredDigests`, in order (messages
 * deleted from the head by persistTrim only shorten the list). A covered message edited in place
 * under its own id, removed from the middle, or inserted makes it `false`. A record without
 * digests (written before they existed, or covering nothing) is taken as intact.
 * O(covered content): checked only when a new summary is made, once per period.
 */
export function coverageIntact(summary: SummaryRecord | undefined, covered: readonly BaseMessage[]): boolean {
  const digests = summary?.coveredDigests;
  if (digests === undefined) return true;
  const offset = digests.length - covered.length * COVERED_DIGEST_CHARACTERS;
  if (offset < 0) return false;
  for (let i = 0; i < covered.length; i += 1) {
    const at = offset + i * COVERED_DIGEST_CHARACTERS;
    if (digests.slice(at, at + COVERED_DIGEST_CHARACTERS) !== coveredDigestOf(covered[i] as BaseMessage)) return false;
  }
  return true;
}
