import { createHash } from "node:crypto";
import { parseTimestamp, type TrimMark, trimmedThrough, truncateCharacters } from "@threadwise/core";
import { type CandidateFact, type Fact, factSchema, MAX_FACT_HISTORY, planFactWrite } from "@threadwise/fact-recall";
import { z } from "zod/v4";

/**
 * What user memory keeps (spec R40): `fact`, a durable fact about the user (factRecall's rules or
 * its LLM mode), `message`, one of the user's own messages (what cross-thread recall ranks, as
 * Mastra's resource-scoped recall does), and `digest`, a short digest of one thread.
 */
export const USER_ITEM_KINDS = ["fact", "message", "digest"] as const;
/** A {@link USER_ITEM_KINDS} value. */
export type UserItemKind = (typeof USER_ITEM_KINDS)[number];

/** Where something was said: the provenance every item carries. */
export const provenanceSchema = z.object({
  /** `thread_id` of the thread it was said in. */
  threadId: z.string(),
  /** Id of the user message it came from; `null` for a digest. */
  messageId: z.string().nullable(),
  /** When it was said: the message's timestamp as written (see recall's `timestampOf`), else the commit time (ISO 8601). */
  at: z.string(),
  /**
   * When it was said, to the millisecond (ISO 8601), on a fact item and its superseded values when
   * the message has no timestamp that parses: when the run first reached a model call in the
   * process that committed it, else the commit time. Orders a fact's values across threads
   * (see {@link statedAt}); unset, `at` is used.
   */
  saidAt: z.string().optional(),
});
/** See {@link provenanceSchema}. */
export type Provenance = z.infer<typeof provenanceSchema>;

/** A value a fact had before it was superseded, with where it was stated. */
export const supersededValueSchema = provenanceSchema.extend({ value: z.string(), text: z.string() });
/** See {@link supersededValueSchema}. */
export type SupersededValue = z.infer<typeof supersededValueSchema>;

/**
 * When a statement was made (ms since the epoch), by the user's order of statement: its `saidAt`,
 * else its `at`, read by core's `parseTimestamp` (ISO 8601 to the millisecond; a date line as a
 * UTC wall clock: `2023년 5월 8일 오후 1:56`, `1:56 pm on 8 May, 2023`, `8 May, 2023`);
 * `undefined` when it reads no date (`어제 저녁`), and the commit orders the statement by its
 * `saidAt` instead (the run's time).
 */
export function statedAt(statement: Pick<Provenance, "at" | "saidAt">): number | undefined {
  return parseTimestamp(statement.saidAt ?? statement.at);
}

/** `true` when `a` was stated before `b` (both times known); `false` when either is unknown. */
export function statedBefore(a: Pick<Provenance, "at" | "saidAt">, b: Pick<Provenance, "at" | "saidAt">): boolean {
  const [x, y] = [statedAt(a), statedAt(b)];
  return x !== undefined && y !== undefined && x < y;
}

/** Most superseded values kept per fact (the newest first). */
export const MAX_SUPERSEDED_VALUES = 5;

/** One stored item of a user's memory (the plaintext form; sealed when encryption is on). */
export const userItemSchema = provenanceSchema.extend({
  /** Format version. */
  v: z.literal(1),
  kind: z.enum(USER_ITEM_KINDS),
  /** The store key (`f:`, `m:`, `d:` and a SHA-256 prefix). */
  key: z.string(),
  /** Owner, checked on every read: an item whose owner is not the scope read is refused. */
  tenantId: z.string(),
  userId: z.string(),
  /** What is indexed and placed. */
  text: z.string(),
  /** A user message's `name` (a speaker of a multi-party thread), when set. */
  name: z.string().optional(),
  /** When this item was first stored (ISO 8601); eviction order. */
  storedAt: z.string(),
  /** Position among the items first stored by the same commit: orders a turn's messages. @default 0 */
  order: z.number().int().nonnegative().optional(),
  /** When this item was last written (ISO 8601). */
  updatedAt: z.string(),
  /** The fact (kind `fact`), in factRecall's shape; its turn counters count this user's turns. */
  fact: factSchema.optional(),
  /** Values the fact had before, newest first, at most {@link MAX_SUPERSEDED_VALUES}: superseded, not overwritten. */
  superseded: z.array(supersededValueSchema).optional(),
});
/** See {@link userItemSchema}. */
export type UserItem = z.infer<typeof userItemSchema>;

const digestOf = (...parts: string[]) => createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 40);

/** Store key of a fact: one per factRecall key (subject and attribute, plus value for lists). */
export const factItemKey = (factKey: string) => `f:${digestOf(factKey)}`;
/** Store key of a user message. */
export const messageItemKey = (threadId: string, messageId: string) => `m:${digestOf(threadId, messageId)}`;
/** Store key of a thread's digest. */
export const digestItemKey = (threadId: string) => `d:${digestOf(threadId)}`;

/** One user message of a committed turn. */
export interface TurnMessage {
  id: string;
  text: string;
  /** The message's `name`, when set. */
  name?: string;
  /** When it was said (the message's timestamp), else unset: the commit time is used. */
  at?: string;
}

/** A committed turn, as {@link planUserWrite} reads it. */
export interface CommittedTurn {
  threadId: string;
  /** The user messages of the turn, oldest first. */
  messages: readonly TurnMessage[];
  /** The thread's digest text now (its summary, or a digest of its user messages); unset keeps the stored one. */
  digest?: string;
  /** Commit time (ISO 8601). */
  now: string;
  /**
   * When the run's user messages were said (ISO 8601, ms), for those without a timestamp that
   * parses: userMemory passes when the run first reached a model call in this process. Orders a
   * changed fact's values by the user's order of statement, not by commit order. @default now
   */
  saidAt?: string;
  /**
   * The thread's user message with this id as it reads now (`undefined` when the thread has none):
   * a stored message of this thread whose text changed (`updateState` replacing it by id, a fork
   * that sent the same id with other words) is taken as edited. Unset: only `messages` are compared.
   */
  current?: (messageId: string) => TurnMessage | undefined;
  /**
   * Whether a middleware that leaves no trim mark deletes the oldest messages of the stored thread
   * (`userMemory`'s `trims`): with `false`, a stored message gone with every older one was
   * removed, unless `trimmed` names it or a newer message of the thread. @default true
   */
  trims?: boolean;
  /**
   * What persistTrim and the message archive took from the thread (its summary slot's `trimmed`,
   * core's `TrimMark`), read with `trims: false`. @default undefined (nothing taken)
   */
  trimmed?: TrimMark;
  /**
   * Which of some message ids of the thread its message archive holds (core's
   * `ArchivedAmongReader` bound to the thread), read with `trims: false`: a message gone that the
   * archive holds was archived, and stays. Asked once per commit, only for messages gone that
   * `trimmed` does not name. @default undefined (no archive)
   */
  archivedAmong?: (messageIds: readonly string[]) => Promise<string[]>;
}

/** Limits and switches of {@link planUserWrite}. */
export interface WritePlanSettings {
  /** Most items per user (items). */
  maxItems: number;
  /** Most bytes per user: the UTF-8 bytes of the items' JSON (bytes). */
  maxBytes: number;
  /** Keep the user's messages (`message` items). */
  keepMessages: boolean;
  /** Longest stored message text (characters: core's `countCharacters`, graphemes); longer ones are cut (core's `truncateCharacters`). */
  maxMessageCharacters: number;
  /** Extracts candidate facts from one message (`undefined` when facts are off). */
  extract?: (message: TurnMessage) => Promise<{ facts: CandidateFact[]; origin: Fact["origin"] }>;
}

/** What one committed turn changes in a user's memory. */
export interface UserWritePlan {
  puts: UserItem[];
  /** Keys to delete (bound). */
  deletes: string[];
}

/** Bytes an item takes, as {@link WritePlanSettings.maxBytes} counts it. */
export function itemBytes(item: UserItem): number {
  return Buffer.byteLength(JSON.stringify(item), "utf8");
}

/** `fact` (planned over `before`, a value an edit took back) with `before`'s own history instead of `before` in it. */
function corrected(fact: Fact, before: Fact): Fact {
  const { previousValue: _previousValue, history: _history, ...rest } = fact;
  return {
    ...rest,
    ...(before.previousValue !== undefined ? { previousValue: before.previousValue } : {}),
    ...(before.history && before.history.length > 0 ? { history: before.history } : {}),
  };
}

/**
 * `fact` (the stored, newer value) with `earlier` (a value stated before it, committed after it) in
 * its `history` at its place in time (oldest first, by the statement times of `superseded`, the
 * item's superseded values with `earlier` among them), as committing in the user's order would
 * have put it: the line reads `(before: ...)` with it, and a rollback (the newer value's thread
 * deleted) finds it. A value already in the history is not added twice.
 */
function withEarlierValue(fact: Fact, earlier: Fact, superseded: readonly SupersededValue[], turn: number): Fact {
  const history = [...(fact.history ?? [])];
  if (history.some((entry) => entry.value === earlier.value) || earlier.value === fact.value) return fact;
  const when = (messageId: string | null | undefined) => {
    const value = superseded.find((s) => s.messageId === messageId);
    return value ? statedAt(value) : undefined;
  };
  const at = when(earlier.sourceMessageId);
  const place = history.findIndex((entry) => {
    const t = when(entry.sourceMessageId);
    return at !== undefined && t !== undefined && t > at;
  });
  history.splice(place < 0 ? history.length : place, 0, {
    value: earlier.value,
    untilTurn: turn,
    text: earlier.text,
    language: earlier.language,
    attribute: earlier.attribute,
    sourceMessageId: earlier.sourceMessageId,
    ...(earlier.sourceDigest !== undefined ? { sourceDigest: earlier.sourceDigest } : {}),
    ...(earlier.endedTurn !== undefined ? { ended: true } : {}),
  });
  const kept = history.slice(-MAX_FACT_HISTORY);
  const { previousValue: _previousValue, history: _history, ...rest } = fact;
  return factSchema.parse({ ...rest, previousValue: kept.at(-1)?.value, history: kept });
}

/** The order a thread's messages were stored in: by commit, then by place in the commit. */
function storedOrder(a: UserItem, b: UserItem): number {
  if (a.storedAt !== b.storedAt) return a.storedAt < b.storedAt ? -1 : 1;
  const byOrder = (a.order ?? 0) - (b.order ?? 0);
  if (byOrder !== 0) return byOrder;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** `message`'s text as a `message` item stores it (cut at `max` characters). */
function storedText(text: string, max: number): string {
  // A text no longer in UTF-16 units than `max` has at most `max` characters: never cut.
  return text.length <= max ? text : truncateCharacters(text, max);
}

/**
 * Plans the writes of one committed turn against the user's stored items (pure):
 * - each user message not stored yet becomes a `message` item (when `keepMessages`), and is read
 *   for facts; a message already stored with the same text is not read again (a retried commit
 *   adds nothing);
 * - a stored message whose text changed (an edit by id: in the turn's `messages`, or found through
 *   `current`) is an edit: its item takes the new text and it is read for facts again; a fact it
 *   was the source of that the new text no longer states is deleted, and a fact it restates with
 *   another value is replaced without keeping the edited-away value as superseded (it was a
 *   correction, not a change in the user's life);
 * - facts go through factRecall's `planFactWrite`: a new key is stored, the same value merges,
 *   another value supersedes the stored fact, whose value and provenance move to `superseded`
 *   (newest first, at most {@link MAX_SUPERSEDED_VALUES}), never overwritten without a trace;
 * - the thread's digest is stored when given;
 * - then the bound: while more than `maxItems` items or `maxBytes` bytes would be stored, the
 *   oldest messages leave first, then the oldest digests, then the weakest facts (fewest uses,
 *   then oldest activity, as factRecall evicts); items written by this turn leave last.
 */
export async function planUserWrite(
  stored: readonly UserItem[],
  turn: CommittedTurn,
  owner: { tenantId: string; userId: string },
  settings: WritePlanSettings,
): Promise<UserWritePlan> {
  const byKey = new Map(stored.map((item) => [item.key, item]));
  const puts = new Map<string, UserItem>();
  const base = { v: 1 as const, tenantId: owner.tenantId, userId: owner.userId };
  let facts = stored.filter((item) => item.kind === "fact" && item.fact).map((item) => item.fact as Fact);
  let clock = facts.reduce((max, fact) => Math.max(max, fact.updatedTurn, fact.lastUsedTurn), 0);
  const factItems = new Map(stored.filter((item) => item.kind === "fact").map((item) => [item.fact?.key ?? "", item]));

  const minute = turn.now.replace(/:\d\d(\.\d+)?Z$/, "Z");
  const deleted = new Set<string>();
  // Stored messages of this thread the turn did not send again, as the thread holds them now.
  const inTurn = new Set(turn.messages.map((message) => message.id));
  const edits: TurnMessage[] = [];
  if (turn.current) {
    // Oldest first: a stored message the thread no longer holds while an older one stays was
    // removed (RemoveMessage, an edit by id that drops it), and is taken back as an edit to no
    // words; one with no older message left may have left through a trim or the archive (they
    // take the oldest first), and stays; with `trims: false` only when the trim mark names it or
    // a newer message (core's `trimmedThrough`: persistTrim and the archive took it).
    const ofThread = stored
      .filter((item) => item.kind === "message" && item.threadId === turn.threadId && item.messageId !== null)
      .sort(storedOrder);
    const marked =
      turn.trims === false
        ? trimmedThrough(
            ofThread.map((item) => item.messageId as string),
            turn.trimmed,
          )
        : 0;
    let olderStays = false;
    // Gone with no older message left, and not named by the trim mark: removed unless archived.
    const unmarked: string[] = [];
    for (const [index, item] of ofThread.entries()) {
      const messageId = item.messageId as string;
      if (inTurn.has(messageId)) {
        olderStays = true;
        continue;
      }
      const now = turn.current(messageId);
      if (now) {
        olderStays = true;
        if (storedText(now.text, settings.maxMessageCharacters) !== item.text) edits.push(now);
      } else if (olderStays) edits.push({ id: messageId, text: "" });
      else if (turn.trims === false && index >= marked) unmarked.push(messageId);
    }
    const archived = new Set(unmarked.length > 0 && turn.archivedAmong ? await turn.archivedAmong(unmarked) : []);
    for (const messageId of unmarked) if (!archived.has(messageId)) edits.push({ id: messageId, text: "" });
  }
  for (const [order, message] of [...turn.messages, ...edits].entries()) {
    const key = messageItemKey(turn.threadId, message.id);
    const previous = puts.get(key) ?? byKey.get(key);
    const text = storedText(message.text, settings.maxMessageCharacters);
    if (previous && previous.text === text) continue;
    // Stored with other words: an edit by id (a message item is only ever written from its message).
    const edited = previous !== undefined;
    const at = message.at ?? previous?.at ?? minute;
    if (settings.keepMessages && message.text.trim() !== "")
      puts.set(key, {
        ...base,
        kind: "message",
        key,
        threadId: turn.threadId,
        messageId: message.id,
        at,
        text,
        ...(message.name ? { name: message.name } : {}),
        storedAt: previous?.storedAt ?? turn.now,
        order: previous?.order ?? order,
        updatedAt: turn.now,
      });
    else if (edited) {
      puts.delete(key);
      if (byKey.has(key)) deleted.add(key);
    }
    // Facts this message was the source of: each goes unless the new text states it again.
    const sourced = edited
      ? [...factItems.values()].filter((item) => item.threadId === turn.threadId && item.messageId === message.id)
      : [];
    const restated = new Set<string>();
    const candidates =
      settings.extract && message.text.trim() !== "" ? await settings.extract(message) : { facts: [], origin: "heuristic" as const };
    const dropSourced = () => {
      for (const item of sourced) {
        const factKey = item.fact?.key ?? "";
        if (restated.has(factKey)) continue;
        factItems.delete(factKey);
        puts.delete(item.key);
        if (byKey.has(item.key)) deleted.add(item.key);
        facts = facts.filter((fact) => fact.key !== factKey);
      }
    };
    if (candidates.facts.length === 0) {
      dropSourced();
      continue;
    }
    const origin = candidates.origin;
    clock += 1;
    const plan = planFactWrite({ facts, cursor: null, turn: clock, recalled: [] }, candidates.facts, {
      sourceMessageId: message.id,
      turn: clock,
      origin,
      maxFacts: Number.MAX_SAFE_INTEGER,
    });
    const written: Fact[] = [];
    // When this message was said, to order its values against stored ones: its timestamp when it
    // parses, else (a new message) when the run was said; an edited one keeps its first commit's.
    const said = edited || (message.at !== undefined && statedAt({ at: message.at }) !== undefined) ? undefined : (turn.saidAt ?? turn.now);
    const statement = { at, ...(said !== undefined ? { saidAt: said } : {}) };
    for (const planned of plan.upsert ?? []) {
      restated.add(planned.key);
      const previous = factItems.get(planned.key);
      // A value this very message stated before it was edited is corrected, not superseded: it
      // leaves no trace (the fact keeps the history it had before that value).
      const correction = edited && previous?.threadId === turn.threadId && previous.messageId === message.id;
      // A value stated before the stored one (a run of another thread that committed later):
      // the stored value stays, and this one joins its superseded values at its place in time.
      if (previous?.fact && previous.fact.value !== planned.value && !correction && statedBefore(statement, previous)) {
        const entry: SupersededValue = {
          value: planned.value,
          text: planned.text,
          threadId: turn.threadId,
          messageId: message.id,
          ...statement,
        };
        const values = (previous.superseded ?? []).filter(
          (value) => !(value.threadId === entry.threadId && value.messageId === entry.messageId && value.value === entry.value),
        );
        const place = values.findIndex((value) => statedBefore(value, statement));
        values.splice(place < 0 ? values.length : place, 0, entry);
        const superseded = values.slice(0, MAX_SUPERSEDED_VALUES);
        const item: UserItem = {
          ...previous,
          fact: withEarlierValue(previous.fact, planned, superseded, clock),
          superseded,
          updatedAt: turn.now,
        };
        puts.set(item.key, item);
        factItems.set(planned.key, item);
        written.push(item.fact as Fact);
        continue;
      }
      const fact = correction && previous?.fact ? corrected(planned, previous.fact) : planned;
      written.push(fact);
      const changed = previous?.fact && previous.fact.value !== fact.value && !correction;
      const superseded = changed
        ? [
            {
              value: (previous.fact as Fact).value,
              text: (previous.fact as Fact).text,
              threadId: previous.threadId,
              messageId: previous.messageId,
              at: previous.at,
              ...(previous.saidAt !== undefined ? { saidAt: previous.saidAt } : {}),
            },
            ...(previous.superseded ?? []),
          ].slice(0, MAX_SUPERSEDED_VALUES)
        : previous?.superseded;
      const itemKey = factItemKey(fact.key);
      const item: UserItem = {
        ...base,
        kind: "fact",
        key: itemKey,
        threadId: turn.threadId,
        messageId: message.id,
        ...statement,
        text: fact.text,
        fact,
        ...(superseded && superseded.length > 0 ? { superseded } : {}),
        storedAt: previous?.storedAt ?? turn.now,
        updatedAt: turn.now,
      };
      puts.set(itemKey, item);
      factItems.set(fact.key, item);
    }
    const upserted = new Map(written.map((fact) => [fact.key, fact]));
    facts = [
      ...facts.map((fact) => upserted.get(fact.key) ?? fact),
      ...[...upserted.values()].filter((f) => !facts.some((g) => g.key === f.key)),
    ];
    dropSourced();
  }

  if (turn.digest !== undefined && turn.digest.trim() !== "") {
    const key = digestItemKey(turn.threadId);
    const previous = byKey.get(key);
    if (previous?.text !== turn.digest)
      puts.set(key, {
        ...base,
        kind: "digest",
        key,
        threadId: turn.threadId,
        messageId: null,
        at: previous?.at ?? minute,
        text: turn.digest,
        storedAt: previous?.storedAt ?? turn.now,
        updatedAt: turn.now,
      });
  }

  // The bound, over what would be stored after the puts.
  const after = new Map(byKey);
  for (const key of deleted) after.delete(key);
  for (const [key, item] of puts) after.set(key, item);
  let count = after.size;
  let bytes = 0;
  const sizes = new Map<string, number>();
  for (const [key, item] of after) {
    const size = itemBytes(item);
    sizes.set(key, size);
    bytes += size;
  }
  const deletes: string[] = [];
  if (count > settings.maxItems || bytes > settings.maxBytes) {
    const rank = (item: UserItem) => (item.kind === "message" ? 0 : item.kind === "digest" ? 1 : 2);
    const order = [...after.values()].sort((a, b) => {
      const fresh = Number(puts.has(a.key)) - Number(puts.has(b.key));
      if (fresh !== 0) return fresh;
      if (rank(a) !== rank(b)) return rank(a) - rank(b);
      if (a.kind === "fact" && a.fact && b.fact) {
        const byUse = a.fact.uses - b.fact.uses;
        if (byUse !== 0) return byUse;
        const activity = Math.max(a.fact.updatedTurn, a.fact.lastUsedTurn) - Math.max(b.fact.updatedTurn, b.fact.lastUsedTurn);
        if (activity !== 0) return activity;
      }
      return a.storedAt < b.storedAt ? -1 : a.storedAt > b.storedAt ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    });
    for (const item of order) {
      if (count <= settings.maxItems && bytes <= settings.maxBytes) break;
      count -= 1;
      bytes -= sizes.get(item.key) ?? 0;
      if (puts.has(item.key)) puts.delete(item.key);
      if (byKey.has(item.key)) deletes.push(item.key);
    }
  }
  return { puts: [...puts.values()], deletes: [...deleted, ...deletes] };
}
