import { createHash } from "node:crypto";
import type { BaseMessage } from "@langchain/core/messages";
import { isUserMessage, MESSAGE_DIGEST_CHARACTERS, messageDigest, messageText, type TrimMark, trimmedThrough } from "@threadwise/core";
import { type Fact, type FactReadEntry, type FactSlot, rollBackFact, withoutGoneHistory } from "./fact-store.js";

/** Most earlier user messages read when a thread's facts are read for the first time (seeded history), or read again on a slot written before its `read` record existed. */
export const MAX_BACKFILL_MESSAGES = 50;

/** A user message not yet read for facts, with the cursor value it leaves behind. */
export interface PendingMessage {
  message: BaseMessage;
  /** The message id, or `index:<n>` (position among user messages) when it has none. */
  cursor: string;
}

/** What a model call reads for facts: see {@link planFactRead}. */
export interface FactReadPlan {
  /**
   * The facts to read `pending` on top of: the slot's facts, less those whose source message the
   * user removed or edited and those of the messages read again; or, when nothing was edited or
   * removed, the slot's facts with the `sourceDigest` that facts written before it existed lack,
   * where their message is stored. `undefined`: the slot's facts, unchanged.
   */
  facts: Fact[] | undefined;
  /** User messages to read, oldest first. */
  pending: PendingMessage[];
  /** The stored user messages before `pending`, as read entries: the slot's `read` once `pending` is appended. */
  read: FactReadEntry[];
  /**
   * `true` when the stored thread begins with user messages the slot's `read` does not know,
   * before the oldest read one still stored (a rewrite brought the message archive back into the
   * checkpoint, or put new messages first), and no `cleared` digests were given: with the
   * archive's (memory's `archiveClearedDigests`), plan again to tell its messages as they were
   * from edited or left out ones. @default false
   */
  unknownHead?: boolean;
  /**
   * With `trims: false`: the ids of read messages no longer stored that neither the trim mark nor
   * `archived` names, taken as removed (their facts dropped). A caller with a message archive asks
   * it which of them it holds (core's `ArchivedAmongReader`) and plans again with those as
   * `archived`. Absent when there are none.
   */
  removed?: string[];
  /**
   * With `trims: false` and no `cleared` given: the slot holds facts (or earlier values) stated in
   * user messages neither stored nor read (they left through the message archive or persistTrim
   * before the last read), so a rewrite that emptied the archive since may have left them out: with
   * the archive's digests (memory's `archiveClearedDigests`), plan again to drop those it left out,
   * as a thread without the archive, where they are still read, drops them. @default false
   */
  unreadSources?: boolean;
}

/** What left the stored thread through persistTrim or the archive (factRecall's `trims: false`): see {@link planFactRead}. */
export interface TrimmedMessages {
  /** The thread's trim mark (its summary slot's `trimmed`: what persistTrim took). */
  mark?: TrimMark;
  /** Ids of read messages the thread's message archive holds. */
  archived?: ReadonlySet<string>;
}

/**
 * The user messages facts are read from (core's `isUserMessage`): human messages, rendered context
 * blocks and Anthropic-native tool_result carriers (a tool's output, not the user's words) excluded.
 */
function userMessagesOf(messages: readonly BaseMessage[]): BaseMessage[] {
  return messages.filter(isUserMessage);
}

const idOf = (message: BaseMessage, index: number): string =>
  typeof message.id === "string" && message.id !== "" ? message.id : `index:${index}`;

/** Characters of a {@link textDigest} (48 bits of SHA-1, base64). */
export const READ_DIGEST_CHARACTERS = 8;
/** Most texts whose digest this process keeps (a pure function of the text, so never an answer changed). */
const MAX_HELD_DIGESTS = 8192;
const digests = new Map<string, string>();

/**
 * What a read entry keeps of a user message's text (core's `messageText`, what the rules and the
 * model extract from): SHA-1, the first {@link READ_DIGEST_CHARACTERS} base64 characters. Every
 * stored user message is checked at each turn (an edit can be anywhere), and a checkpoint hands
 * over new message objects each turn, so digests are kept per text.
 */
export function textDigest(text: string): string {
  let digest = digests.get(text);
  if (digest === undefined) {
    digest = createHash("sha1").update(text).digest("base64").slice(0, READ_DIGEST_CHARACTERS);
    if (digests.size >= MAX_HELD_DIGESTS) digests.clear();
    digests.set(text, digest);
  }
  return digest;
}

/** The read entry of a user message: its id (`index:<n>` when it has none) and the {@link textDigest} of its text. */
export function readEntryOf(message: BaseMessage, index: number): FactReadEntry {
  return { id: idOf(message, index), digest: textDigest(messageText(message)) };
}

/**
 * One thread's user messages as this process last checked them (id, text and read entry by
 * position), so that the next model call computes an entry only for a message that is new or
 * changed: a message at a known position (shifted by what left from the start: a trim or the
 * archive) with the same id and text (`===`) gets the entry it had, which is a pure function of
 * the two ({@link readEntryOf}), so no answer can change. Every stored user message is still
 * compared (an edit in place changes nothing else), but with one id and one text comparison
 * instead of hashing its text. Hold one per thread (factRecall keeps them in a bounded LRU).
 */
export class ReadEntryCache {
  #ids: string[] = [];
  #texts: string[] = [];
  #entries: FactReadEntry[] = [];

  /** User messages held (the cache's size). */
  get size(): number {
    return this.#ids.length;
  }

  /** `readEntryOf(users[i], i)` for each of `users` (oldest first), reusing the entries of the last call. */
  entriesOf(users: readonly BaseMessage[]): FactReadEntry[] {
    const ids = new Array<string>(users.length);
    const texts = new Array<string>(users.length);
    const entries = new Array<FactReadEntry>(users.length);
    // What left from the start since the last call (a trim, the archive) shifts every position.
    let offset = 0;
    if (users.length > 0) {
      const first = idOf(users[0] as BaseMessage, 0);
      if (this.#ids[0] !== first) offset = this.#ids.indexOf(first);
    }
    for (let i = 0; i < users.length; i += 1) {
      const message = users[i] as BaseMessage;
      const id = idOf(message, i);
      const text = messageText(message);
      ids[i] = id;
      texts[i] = text;
      const k = i + offset;
      entries[i] =
        offset >= 0 && this.#ids[k] === id && this.#texts[k] === text
          ? (this.#entries[k] as FactReadEntry)
          : { id, digest: textDigest(text) };
    }
    this.#ids = ids;
    this.#texts = texts;
    this.#entries = entries;
    return entries;
  }
}

/**
 * What to read for facts from the stored thread `messages`, given the slot (spec R37: facts are
 * what reading the thread as it is stored gives, whatever was edited since).
 *
 * The slot's `read` lists the stored user messages up to its cursor at its last write. Usual
 * case: the stored user messages up to the cursor are the end of `read` (the same ids and
 * digests; older ones may have left through a trim): only the messages after the cursor are
 * read, on the slot's facts. Otherwise the thread was edited, and:
 * - a read message still stored under its id but with another digest was edited in place
 *   (`updateState` with its id): its facts are dropped and it is read again;
 * - a read message no longer stored, older than the oldest read message still stored (edited
 *   or not), left through a trim (persistTrim, the message archive: both remove whole groups from
 *   the start of the thread and never the run's newest user turn): its facts are kept, they are
 *   what facts are for;
 * - any other read message no longer stored was removed by the user (`RemoveMessage`, or
 *   `REMOVE_ALL_MESSAGES` then another history: then no read message is left, and every message
 *   read since the previous trim counts as removed): its facts are dropped;
 * - the stored user messages from the first that changed (edited, unknown, or the one after a
 *   removed one; at least the newest) are read again, after their facts are dropped (a fact rolls
 *   back to its newest earlier value stated in a message that stays: `rollBackFact`), so that an
 *   older fact that a removed message had replaced comes back, and a new history gives its facts;
 *   the ones before it are read as they were (where reading again starts never depends on how
 *   much of the thread the checkpoint holds: the same with and without the message archive);
 * - after a rewrite that brought the message archive back into the checkpoint (stored user
 *   messages before the oldest read one still stored that `read` does not know), `cleared` (the
 *   archive's digests of what the rewrite emptied) tells the archived messages that came back as
 *   they were (not read again) from edited ones, and facts stated in an archived message the
 *   rewrite left out (their `sourceDigest` among `cleared`) are dropped. Without it the plan says
 *   `unknownHead` and reads them all again.
 * A removal of the thread's oldest user messages while newer read ones stay cannot be told apart
 * from a trim from the stored thread alone: with `trims` (the default: a middleware that leaves no
 * mark may delete the oldest messages, LangChain's `summarizationMiddleware`) their facts are
 * kept. With `trims: false` a read message no longer stored left through a trim only when
 * `trimmed.mark` (the thread's summary slot's `trimmed`: what persistTrim took, core's `TrimMark`)
 * names it or a newer read one (core's `trimmedThrough`), or `trimmed.archived` (what the message
 * archive holds) names it; any other was removed, and its facts go (listed in the plan's
 * `removed`). `read` keeps only the messages
 * still stored at the last write, so the facts of messages that left through a trim or the
 * archive before it stay through any later edit or rewrite (the archive is not read here; a new
 * value of the same attribute still replaces them). A slot written before `read`
 * existed has no record: a missing cursor then reads the newest messages again and keeps every
 * fact whose source is not among them.
 *
 * Before the first read (`cursor` null): the newest {@link MAX_BACKFILL_MESSAGES} user messages.
 * With `trims: false`, facts (and former values) stated in user messages neither stored nor in
 * `read` (archived or trimmed before the last write) are news to a rewrite too: without `cleared`
 * the plan says `unreadSources`; with it, those whose `sourceDigest` the rewrite left out (among
 * `cleared`, not stored, not named by persistTrim's mark nor before a message it names) go, and
 * the stored user messages are read again from the first, as on a thread without the archive,
 * where those messages are read ones the rewrite removed.
 * `cleared`: the message archive's digests of what a rewrite emptied (see `unknownHead`), given
 * only for a rewrite after the slot's last read (memory's `archiveClearedDigests(threadId, since)`
 * with the slot's `checkpointId`): an older one's name messages that left before that read, whose
 * facts stay (a trim's, persistTrim's), and would be taken for messages the rewrite left out.
 * O(user messages) comparisons: with `cache` (the thread's {@link ReadEntryCache}) one id and one
 * text comparison per message read before and a digest per new or changed one; without, a digest
 * each, computed once per distinct text in a process. `trims`: whether a middleware that leaves no
 * trim mark deletes the oldest messages of the stored thread (see above; default `true`);
 * `trimmed`: what left through persistTrim and the archive, read with `trims: false` only.
 */
export function planFactRead(
  messages: readonly BaseMessage[],
  slot: Pick<FactSlot, "cursor" | "read" | "facts">,
  cleared?: string,
  cache?: ReadEntryCache,
  trims = true,
  trimmed: TrimmedMessages = {},
): FactReadPlan {
  const users = userMessagesOf(messages);
  const entries = cache ? cache.entriesOf(users) : users.map(readEntryOf);
  const pendingFrom = (start: number): PendingMessage[] =>
    users.slice(start).map((message, k) => ({ message, cursor: (entries[start + k] as FactReadEntry).id }));
  const entriesBefore = (end: number): FactReadEntry[] => entries.slice(0, end);
  if (slot.cursor === null) {
    const start = Math.max(0, users.length - MAX_BACKFILL_MESSAGES);
    return { facts: undefined, pending: pendingFrom(start), read: entriesBefore(start) };
  }
  // With `trims: false`: statements whose message is neither stored nor read, and of those, the
  // ones a rewrite that emptied the archive since the last read left out (`cleared`).
  const unread = trims || slot.read === undefined ? [] : unreadStatements(slot, entries);
  const leftOut =
    unread.length > 0 && cleared !== undefined ? leftOutUnread(unread, messages, cleared, slot.facts, trimmed.mark) : undefined;
  const flag = unread.length > 0 && cleared === undefined ? { unreadSources: true } : {};
  let at = -1;
  for (let i = users.length - 1; i >= 0; i -= 1) {
    if ((entries[i] as FactReadEntry).id === slot.cursor) {
      at = i;
      break;
    }
  }
  if (at !== -1 && leftOut === undefined) {
    const before = entriesBefore(at + 1);
    // Without unmarked trims, what left from the start must be what the mark names.
    if (
      slot.read === undefined ||
      ((trims || slot.read.length === before.length || leftThroughTrims(slot.read, slot.read.length - before.length, trimmed)) &&
        endsWith(slot.read, before))
    ) {
      const pending = pendingFrom(at + 1);
      // Only with a message to read: the recall is then made as usual, so the facts block is unchanged.
      return { facts: pending.length > 0 ? withSourceDigests(slot.facts, users) : undefined, pending, read: before, ...flag };
    }
  }
  return { ...reread(messages, users, entries, slot, cleared, trims, trimmed, leftOut), ...flag };
}

/** A statement's message: its id and `sourceDigest` (core's `messageDigest` of it, when known). */
interface UnreadStatement {
  id: string;
  digest: string | undefined;
}

/**
 * The statements of `slot.facts` (facts and their history) whose message is neither among the
 * stored user messages (`entries`) nor in `slot.read`: messages that left through the archive or
 * persistTrim before the last read (a thread without the archive still reads the archived ones).
 * O(facts + read + stored).
 */
function unreadStatements(slot: Pick<FactSlot, "read" | "facts">, entries: readonly FactReadEntry[]): UnreadStatement[] {
  if (slot.facts.length === 0) return [];
  const known = new Set<string>();
  for (const entry of entries) known.add(entry.id);
  for (const entry of slot.read ?? []) known.add(entry.id);
  const out: UnreadStatement[] = [];
  for (const fact of slot.facts)
    for (const statement of [fact, ...(fact.history ?? [])]) {
      const id = statement.sourceMessageId;
      if (typeof id === "string" && !known.has(id)) out.push({ id, digest: statement.sourceDigest });
    }
  return out;
}

/**
 * The ids of `unread` statements' messages that the rewrite whose `cleared` digests are given
 * left out of the thread (see {@link clearedLeftOut}): removed by the user, as a thread without the
 * archive, where they are still read, takes them. `undefined` when none.
 */
function leftOutUnread(
  unread: readonly UnreadStatement[],
  messages: readonly BaseMessage[],
  cleared: string,
  facts: readonly Fact[],
  mark: TrimMark | undefined,
): Set<string> | undefined {
  const left = clearedLeftOut(clearedDigests(cleared), new Set(messages.map(messageDigest)), markedDigests(facts, mark));
  const out = new Set<string>();
  for (const statement of unread) if (statement.digest !== undefined && left.has(statement.digest)) out.add(statement.id);
  return out.size > 0 ? out : undefined;
}

/** `cleared` (the archive's digests of what a rewrite emptied, oldest first) split into digests. */
function clearedDigests(cleared: string): string[] {
  const digests: string[] = [];
  for (let at = 0; at + MESSAGE_DIGEST_CHARACTERS <= cleared.length; at += MESSAGE_DIGEST_CHARACTERS)
    digests.push(cleared.slice(at, at + MESSAGE_DIGEST_CHARACTERS));
  return digests;
}

/**
 * With `trims: false` (only marked trims delete): the digests of the archived messages the rewrite
 * left out (`digests`, what it emptied, oldest first; not among `storedDigests`), but for those
 * persistTrim's mark names (`trimmedDigests`: its own rewrite) and the ones before them (it deletes
 * from the start). O(digests).
 */
function clearedLeftOut(digests: readonly string[], storedDigests: ReadonlySet<string>, trimmedDigests: ReadonlySet<string>): Set<string> {
  let through = -1;
  digests.forEach((digest, index) => {
    if (trimmedDigests.has(digest)) through = index;
  });
  return new Set(digests.filter((digest, index) => index > through && !storedDigests.has(digest)));
}

/** Whether read message `index`, no longer stored, left through persistTrim or the archive (`through`: core's `trimmedThrough` of `read`). */
const isTrimmed = (read: readonly FactReadEntry[], index: number, through: number, trimmed: TrimmedMessages): boolean =>
  index < through || trimmed.archived?.has((read[index] as FactReadEntry).id) === true;

/** `trimmedThrough` of `read`'s ids and the trim mark: 0 without one. */
const throughOf = (read: readonly FactReadEntry[], trimmed: TrimmedMessages): number =>
  trimmed.mark
    ? trimmedThrough(
        read.map((entry) => entry.id),
        trimmed.mark,
      )
    : 0;

/** Whether the `count` oldest of `read` (no longer stored) all left through persistTrim or the archive. */
function leftThroughTrims(read: readonly FactReadEntry[], count: number, trimmed: TrimmedMessages): boolean {
  const through = throughOf(read, trimmed);
  for (let i = 0; i < count; i += 1) if (!isTrimmed(read, i, through, trimmed)) return false;
  return true;
}

/**
 * `facts` with the `sourceDigest` a fact or history entry written before it existed lacks, where
 * its message is stored: core's `messageDigest` of that message, the digest reading it gives. A
 * missing digest is unknown, not "no message": without it a rewrite that brings the message
 * archive back and leaves the message out kept the fact (`reread`'s `head.left`). Called on the
 * usual path only, where every stored user message up to the cursor is as it was read. `undefined`
 * when nothing is missing or no message is stored (the usual case: one pass over the statements).
 */
function withSourceDigests(facts: readonly Fact[], users: readonly BaseMessage[]): Fact[] | undefined {
  const lacks = (statement: { sourceMessageId?: string | null; sourceDigest?: string }) =>
    typeof statement.sourceMessageId === "string" && statement.sourceDigest === undefined;
  if (!facts.some((fact) => lacks(fact) || fact.history?.some(lacks))) return undefined;
  const byId = new Map<string, BaseMessage>();
  for (const message of users) if (typeof message.id === "string") byId.set(message.id, message);
  let changed = false;
  const digestOf = <T extends { sourceMessageId?: string | null; sourceDigest?: string }>(statement: T): T => {
    const message = lacks(statement) ? byId.get(statement.sourceMessageId as string) : undefined;
    if (!message) return statement;
    changed = true;
    return { ...statement, sourceDigest: messageDigest(message) };
  };
  const out = facts.map((fact) => {
    const history = fact.history?.map(digestOf);
    const own = digestOf(fact);
    return history?.some((entry, k) => entry !== fact.history?.[k]) ? { ...own, history } : own;
  });
  return changed ? out : undefined;
}

/** Whether `read` ends with `entries` (same ids and digests, in order). */
function endsWith(read: readonly FactReadEntry[], entries: readonly FactReadEntry[]): boolean {
  const offset = read.length - entries.length;
  if (offset < 0) return false;
  for (let k = 0; k < entries.length; k += 1) {
    const a = read[offset + k] as FactReadEntry;
    const b = entries[k] as FactReadEntry;
    if (a.id !== b.id || a.digest !== b.digest) return false;
  }
  return true;
}

/**
 * Where reading again starts after an edit, a removal or a rewrite: the first stored user message
 * that is not the next read one (from `read[survivor]`, the oldest read message still stored) with
 * the same id and digest: an edited one, an unknown one, or the one after a removed one. The
 * messages before it are read as they were, so their facts stand; reading from an earlier
 * message would give the same facts on a slot that knows more of the thread (the message archive
 * keeps only the hot part's record), so where it starts never depends on how much of the thread
 * the checkpoint holds. At most the newest user message (it is read again for the recall).
 * Without a `read` record (a slot written before it existed): the newest
 * {@link MAX_BACKFILL_MESSAGES}, from the first unknown one when older.
 */
function rereadStart(
  users: readonly FactReadEntry[],
  read: readonly FactReadEntry[] | undefined,
  survivor: number,
  head: ArchivedHead | undefined,
): number {
  const newest = Math.max(0, users.length - 1);
  if (read === undefined) return Math.min(newest, Math.max(0, users.length - MAX_BACKFILL_MESSAGES));
  if (head && !head.complete) return Math.min(newest, head.users);
  let j = survivor;
  for (let i = head?.users ?? 0; i < users.length; i += 1) {
    const entry = users[i] as FactReadEntry;
    const expected = read[j];
    if (expected === undefined || expected.id !== entry.id || expected.digest !== entry.digest) return Math.min(newest, i);
    j += 1;
  }
  return newest;
}

/**
 * The opening of a rewritten thread that is the message archive as a rewrite emptied it: see
 * {@link archivedHead}.
 */
interface ArchivedHead {
  /** Leading stored user messages that are archived messages as they were (read before). */
  users: number;
  /** Whether the archive from its oldest message still stored on is all there, unchanged and in order, before the read part. */
  complete: boolean;
  /** Digests of the archived messages from that one on that are no longer stored (the rewrite left them out). */
  left: Set<string>;
}

/**
 * After a rewrite that brought the message archive back into the checkpoint: the stored messages
 * (every type) before `hotStart` (the first stored user message `read` knows) compared in order
 * with `cleared`, the digests of the messages the archive held (core's `messageDigest`, oldest
 * first). From the first stored message found among them on, each must be the next one; the user
 * messages before the first that is not (edited, or one left out before it) were read before, as
 * they are. Archived messages older than the first one still stored look like a trim, as they do
 * on a thread without the archive (their facts stay). When none is still stored and `noneRead`
 * (no message read before is stored either: the rewrite kept none of the thread), every archived
 * message was removed, as every read message is on a thread without the archive (`left` holds them
 * all; was: their facts stayed as if trimmed). `cleared` must be a rewrite's after the slot's
 * last read (see {@link planFactRead}). O(stored messages before `hotStart` + cleared).
 */
function archivedHead(
  messages: readonly BaseMessage[],
  hotStart: BaseMessage | undefined,
  cleared: string,
  noneRead: boolean,
  trimmedDigests?: ReadonlySet<string>,
): ArchivedHead {
  const digests = clearedDigests(cleared);
  const position = new Map<string, number>();
  digests.forEach((digest, index) => {
    if (!position.has(digest)) position.set(digest, index);
  });
  const head = messages.slice(0, hotStart === undefined ? messages.length : Math.max(0, messages.indexOf(hotStart)));
  const storedDigests = new Set(messages.map(messageDigest));
  const first = digests.findIndex((digest) => storedDigests.has(digest));
  // With `trimmedDigests` (`trims: false`: only marked trims delete), every archived message the
  // rewrite left out was removed, as on a thread without the archive, but for those persistTrim's
  // mark names (its own rewrite) and the ones before them (it deletes from the start).
  let left: Set<string>;
  if (trimmedDigests) left = clearedLeftOut(digests, storedDigests, trimmedDigests);
  else left = new Set(first === -1 ? (noneRead ? digests : []) : digests.slice(first).filter((digest) => !storedDigests.has(digest)));
  let users = 0;
  let next = first;
  for (const message of head) {
    if (first === -1 || messageDigest(message) !== digests[next]) return { users, complete: false, left };
    next += 1;
    if (isUserMessage(message)) users += 1;
  }
  return { users, complete: first !== -1 && next === digests.length, left };
}

/**
 * The `sourceDigest`s of the statements (facts and their history) whose message persistTrim's
 * `mark` names: where its deletions end among a rewrite's cleared digests. O(facts).
 */
function markedDigests(facts: readonly Fact[], mark: TrimMark | undefined): Set<string> {
  const out = new Set<string>();
  if (!mark) return out;
  const named = new Set(mark.taken);
  if (mark.before !== null) named.add(mark.before);
  for (const fact of facts)
    for (const statement of [fact, ...(fact.history ?? [])])
      if (typeof statement.sourceMessageId === "string" && named.has(statement.sourceMessageId) && statement.sourceDigest !== undefined)
        out.add(statement.sourceDigest);
  return out;
}

/** The plan after an edit, a removal or a rewrite: see {@link planFactRead}. */
function reread(
  messages: readonly BaseMessage[],
  users: readonly BaseMessage[],
  entries: readonly FactReadEntry[],
  slot: Pick<FactSlot, "read" | "facts">,
  cleared: string | undefined,
  trims: boolean,
  trimmed: TrimmedMessages,
  unreadLeft?: ReadonlySet<string>,
): FactReadPlan {
  const stored = new Map<string, string>();
  for (const entry of entries) stored.set(entry.id, entry.digest);
  const read = slot.read ?? [];
  // What left before the oldest read message still stored (edited or not) left through a trim,
  // where a middleware that leaves no mark trims the thread; else only what persistTrim's mark or
  // the archive names did, and any other read message no longer stored was removed.
  const oldestStored = read.findIndex((entry) => stored.has(entry.id));
  const through = trims ? 0 : throughOf(read, trimmed);
  const left = (index: number) => isTrimmed(read, index, through, trimmed);
  // The read messages that left through a trim come first: reading again compares from the next.
  let survivor = trims ? Math.max(0, oldestStored) : 0;
  if (!trims) while (survivor < read.length && !stored.has((read[survivor] as FactReadEntry).id) && left(survivor)) survivor += 1;
  const dropped = new Set<string>();
  const removed: string[] = [];
  read.forEach((entry, index) => {
    const now = stored.get(entry.id);
    const gone = now === undefined && (trims ? index >= survivor : !left(index));
    if (gone || (now !== undefined && now !== entry.digest)) dropped.add(entry.id);
    if (gone && !trims) removed.push(entry.id);
  });
  // Stored user messages before the oldest read one still stored, that `read` does not know.
  const known = new Set(read.map((entry) => entry.id));
  const hotStart = entries.findIndex((entry) => known.has(entry.id));
  const unknownHead = slot.read !== undefined && hotStart !== 0 && users.length > 0;
  const head =
    unknownHead && cleared !== undefined
      ? archivedHead(messages, users[hotStart], cleared, oldestStored === -1, trims ? undefined : markedDigests(slot.facts, trimmed.mark))
      : undefined;
  if (head && head.left.size > 0) {
    // Stated in an archived message the rewrite left out: removed by the user, as on a thread without the archive.
    for (const fact of slot.facts)
      for (const statement of [fact, ...(fact.history ?? [])]) {
        const id = statement.sourceMessageId;
        if (typeof id === "string" && !stored.has(id) && statement.sourceDigest !== undefined && head.left.has(statement.sourceDigest))
          dropped.add(id);
      }
  }
  // Unread messages (archived before the last read) the rewrite left out: removed, as on a thread
  // without the archive, where they are read messages older than every stored one, so reading
  // again starts at the first stored one (as after any removed read message).
  if (!head && unreadLeft) for (const id of unreadLeft) dropped.add(id);
  const start = !head && unreadLeft ? 0 : rereadStart(entries, slot.read, survivor, head);
  for (let i = start; i < entries.length; i += 1) dropped.add((entries[i] as FactReadEntry).id);
  // A fact stated last in a dropped message rolls back to its newest earlier value stated in a
  // message that stays (trimmed, archived, or not read again), so a former value stated in a
  // message that left through a trim survives the re-read, as it would were that message stored.
  const gone = (id: string): boolean => dropped.has(id);
  // A fact stated last in a message that stays and is not read again loses the earlier values
  // stated in messages no longer stored that were dropped (removed, or archived and left out by a
  // rewrite), as reading the thread again would: a thread without the archive reads them again.
  const leftOut = (id: string): boolean => dropped.has(id) && !stored.has(id);
  const facts = slot.facts.flatMap((fact) => {
    if (fact.sourceMessageId === null || !dropped.has(fact.sourceMessageId)) return [withoutGoneHistory(fact, leftOut)];
    const back = rollBackFact(fact, gone);
    return back ? [back] : [];
  });
  return {
    facts,
    pending: users.slice(start).map((message, k) => ({ message, cursor: (entries[start + k] as FactReadEntry).id })),
    read: entries.slice(0, start),
    ...(unknownHead && cleared === undefined ? { unknownHead: true } : {}),
    ...(removed.length > 0 ? { removed } : {}),
  };
}
