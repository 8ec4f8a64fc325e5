import { ReducedValue, StateSchema } from "@langchain/langgraph";
import { analysisText } from "@threadwise/core";
import { z } from "zod/v4";

/**
 * Thread-scoped fact storage (spec R15-R17): one private, checkpointed state value per thread, so
 * facts live exactly where the checkpointer keeps the thread and never cross threads (R16).
 */
export const FACTS_STATE_KEY = "_threadwise_facts";

/**
 * One earlier value of a fact. Beside `value` and `untilTurn`, the fact as it was stated then
 * (`text`, `language`, `attribute`, the message it was stated in, and `ended` when it was an
 * ended value): after an edit, a fact whose newer values came from messages read again rolls back
 * to the newest of these whose message is neither edited, removed nor read again, e.g. one that
 * left through persistTrim or the archive (R37). Entries written before these fields existed have
 * only `value` and `untilTurn`.
 */
export const factHistoryEntrySchema = z.object({
  value: z.string(),
  untilTurn: z.number().int().nonnegative(),
  text: z.string().optional(),
  language: z.enum(["en", "ko"]).optional(),
  attribute: z.string().optional(),
  sourceMessageId: z.string().nullable().optional(),
  /** core's `messageDigest` of that message (its id and content), when it had an id; see `Fact.sourceDigest`. */
  sourceDigest: z.string().optional(),
  ended: z.boolean().optional(),
});
export type FactHistoryEntry = z.infer<typeof factHistoryEntrySchema>;

/** One durable fact about the user, or about a person the user named (`user's sister`). */
export const factSchema = z.object({
  /** Identity used for upserts: `subject|attribute` for one-valued attributes, `subject|attribute|value` for lists. */
  key: z.string(),
  /** Whom the fact is about: `user`, `user's sister`, or a speaker name. */
  subject: z.string(),
  /** What it is about: `name`, `residence`, `work`, `likes`, `plan`, ... (see the README). */
  attribute: z.string(),
  /** The value, as written by the user (`Busan`, `a golden retriever named Max`). */
  value: z.string(),
  /** One self-contained sentence, in the language of the source: what recall indexes and places. */
  text: z.string(),
  /** Language of the source message. */
  language: z.enum(["en", "ko"]),
  /** Id of the user message the fact was last stated in; `null` when the message had no id. */
  sourceMessageId: z.string().nullable(),
  /**
   * core's `messageDigest` (8 characters) of that message, when it had an id: after a rewrite
   * brought the message archive back into the checkpoint (the archive's digests of what it held
   * are kept: memory's `archiveClearedDigests`), a fact stated in an archived message the
   * rewrite left out is told from one stated in a message that left through a trim earlier.
   * Absent on facts written before it existed until a model call that reads a new user message
   * finds their message stored, and computes it (`planFactRead`). @default undefined
   */
  sourceDigest: z.string().optional(),
  /** How the fact was extracted. */
  origin: z.enum(["heuristic", "llm"]),
  /** Value this fact replaced (`Seoul` after a move to Busan), if any. */
  previousValue: z.string().optional(),
  /**
   * Earlier values of this fact, oldest first (at most {@link MAX_FACT_HISTORY}): what was true
   * when. `untilTurn` is the user-message count at which the value stopped holding (replaced, or
   * said to hold no longer).
   */
  history: z.array(factHistoryEntrySchema).optional(),
  /**
   * Set when the user said the value holds no longer ("I don't live in Seoul anymore", "이제 서울에
   * 살지 않아요", "I used to work at Google") and nothing replaced it yet: the user-message count at
   * which it ended. The fact is kept, never erased; {@link factLine} says it is no longer true.
   */
  endedTurn: z.number().int().nonnegative().optional(),
  /** User-message count (the thread's fact clock) when the fact was first stored. */
  createdTurn: z.number().int().nonnegative(),
  /** User-message count when it was last stated or replaced. */
  updatedTurn: z.number().int().nonnegative(),
  /** User-message count when it was last recalled; 0 when never. */
  lastUsedTurn: z.number().int().nonnegative(),
  /** How many user turns recalled it. */
  uses: z.number().int().nonnegative(),
  /** How many times it was stated (exact duplicates merge into one fact). */
  mentions: z.number().int().positive(),
});
export type Fact = z.infer<typeof factSchema>;

/**
 * One user message as it was read for facts (R37): its id (`index:<n>` when it has none) and a
 * digest of its text (`textDigest`, 8 characters). A later read compares these with the stored thread to tell a message
 * left through a trim (the oldest ones) from one removed or edited by the user.
 */
export const factReadEntrySchema = z.object({ id: z.string(), digest: z.string() });
export type FactReadEntry = z.infer<typeof factReadEntrySchema>;

/** The thread's fact slot. */
export const factSlotSchema = z.object({
  facts: z.array(factSchema),
  /** Id of the newest user message already read for facts; `null` before the first. */
  cursor: z.string().nullable(),
  /**
   * The stored user messages up to and including `cursor` when the slot was last written, oldest
   * first (see `fact-sources.ts`). Absent on slots written before it existed: the first write
   * after that adds it. @default undefined
   */
  read: z.array(factReadEntrySchema).optional(),
  /**
   * The root checkpoint the model call that recorded `read` ran from (LangGraph's
   * `checkpoint_map[""]`), kept with `factRecall({ archiveCleared })` only: the message archive's
   * cleared digests are news to the slot only when a rewrite emptied the archive after it (R37;
   * see `planFactRead`). Absent without the option, outside a checkpointed run, and on slots
   * written before it existed (then the digests are taken whenever asked, as before). @default undefined
   */
  checkpointId: z.string().optional(),
  /** User messages read so far: the clock of `createdTurn`, `updatedTurn`, `lastUsedTurn`. */
  turn: z.number().int().nonnegative(),
  /** Keys recalled for the newest user message, placed on every model call of that turn. */
  recalled: z.array(z.string()),
});
export type FactSlot = z.infer<typeof factSlotSchema>;

/**
 * An update to the slot: `facts`, when given, replaces the whole list (a full slot is a valid
 * update); then `remove` drops facts by key, and `upsert` replaces facts with a known key in place
 * and appends new ones; `cursor`, `read`, `turn`, `recalled` replace their values when given; an
 * update with `read` replaces `checkpointId` too (absent from it: none, the checkpoint of that read
 * being unknown).
 * Idempotent: applying one update twice gives the same slot, so a retried step cannot duplicate.
 *
 * A full slot must parse as an update: LangChain hands hooks the private state parsed with this
 * input schema, and writes it back through the reducer when a hook returns the whole state.
 */
export const factSlotUpdateSchema = z.object({
  facts: z.array(factSchema).optional(),
  upsert: z.array(factSchema).optional(),
  remove: z.array(z.string()).optional(),
  cursor: z.string().nullable().optional(),
  read: z.array(factReadEntrySchema).optional(),
  checkpointId: z.string().optional(),
  turn: z.number().int().nonnegative().optional(),
  recalled: z.array(z.string()).optional(),
});
export type FactSlotUpdate = z.infer<typeof factSlotUpdateSchema>;

/** An empty slot. */
export function emptyFactSlot(): FactSlot {
  return { facts: [], cursor: null, turn: 0, recalled: [] };
}

/** The reducer of the slot; see {@link FactSlotUpdate}. Never mutates its inputs. */
export function mergeFactSlot(current: FactSlot | undefined, update: FactSlotUpdate | undefined): FactSlot {
  const base = current ?? emptyFactSlot();
  if (!update) return base;
  const removed = new Set(update.remove ?? []);
  const facts = (update.facts ?? base.facts).filter((fact) => !removed.has(fact.key));
  for (const fact of update.upsert ?? []) {
    const at = facts.findIndex((f) => f.key === fact.key);
    if (at === -1) facts.push(fact);
    else facts[at] = fact;
  }
  const read = update.read ?? base.read;
  const checkpointId = update.read === undefined ? base.checkpointId : update.checkpointId;
  return {
    facts,
    cursor: update.cursor === undefined ? base.cursor : update.cursor,
    ...(read ? { read } : {}),
    ...(checkpointId !== undefined ? { checkpointId } : {}),
    turn: update.turn ?? base.turn,
    recalled: update.recalled ?? base.recalled,
  };
}

/**
 * State schema holding the slot (private: the key starts with `_`, so it is checkpointed but not
 * part of the agent's input or output; read it with `agent.graph.getState(config)`).
 */
export const factSlotState = new StateSchema({
  [FACTS_STATE_KEY]: new ReducedValue(
    factSlotSchema.default(() => emptyFactSlot()),
    {
      inputSchema: factSlotUpdateSchema,
      reducer: mergeFactSlot,
    },
  ),
});

/** Reads the slot from agent state; an empty slot when absent. */
export function readFactSlot(state: unknown): FactSlot {
  const value = (state as Record<string, unknown> | undefined)?.[FACTS_STATE_KEY];
  return (value as FactSlot | undefined) ?? emptyFactSlot();
}

/** A fact as an extractor produces it, before it gets a key and counters. */
export interface CandidateFact {
  subject: string;
  attribute: string;
  value: string;
  text: string;
  language: "en" | "ko";
  /** `true` when the attribute holds a list (likes, plans, pets): the value is part of the key. */
  multi: boolean;
  /** Attribute part of the key when it differs (`likes` and `dislikes` share `preference`). */
  keyAttribute?: string;
  /** Value part of the key of a list attribute when it differs from `value` (the liked object). */
  keyValue?: string;
  /**
   * `true` when the message says the value held before and holds no longer (negation with
   * "anymore"/"no longer"/"이제 ... 않아요", or "used to"/"예전에는 ...았는데"); `text` states the value
   * as it held ("User lives in Seoul"), {@link factLine} adds that it holds no longer.
   */
  ended?: boolean;
}

/**
 * Attributes a value of which can stop holding (`ended` candidates): a name, an age, a hometown or
 * a past event cannot. One list for the English and the Korean rules.
 */
export const ENDABLE_ATTRIBUTES: ReadonlySet<string> = new Set([
  "residence",
  "work",
  "school",
  "study",
  "marital",
  "likes",
  "dislikes",
  "pet",
  "belonging",
  "health",
  "constraint",
  "hobby",
  "plan",
  "favorite",
]);

/** Most earlier values a fact keeps in `history`. */
export const MAX_FACT_HISTORY = 3;

/**
 * The line a model receives for a fact: its text, then whether it still holds and what held
 * before, in the fact's language: `User lives in Seoul (no longer true)`, `User moved to Busan and
 * lives there (before: Seoul)`, `사용자는 부산에 산다 (사는 곳) (이전: 서울)`, `... (지금은 아님)`.
 * Indexes rank on `text` alone, so a fact's status never moves its rank.
 */
export function factLine(fact: Pick<Fact, "text" | "language" | "endedTurn" | "history">): string {
  const ko = fact.language === "ko";
  const ended = fact.endedTurn === undefined ? "" : ko ? " (지금은 아님)" : " (no longer true)";
  const values = (fact.history ?? []).map((h) => h.value).join(", ");
  const before = values === "" ? "" : ko ? ` (이전: ${values})` : ` (before: ${values})`;
  return `${fact.text}${ended}${before}`;
}

/** `history` with `entry` appended: deduplicated by value, newest last, bounded. */
function withHistory(history: Fact["history"], entry: FactHistoryEntry): NonNullable<Fact["history"]> {
  const kept = (history ?? []).filter((h) => normalizeValue(h.value) !== normalizeValue(entry.value));
  return [...kept, entry].slice(-MAX_FACT_HISTORY);
}

/** The history entry of `fact`'s own value, ended at `turn`. */
function historyEntryOf(fact: Fact, turn: number): FactHistoryEntry {
  return {
    value: fact.value,
    untilTurn: turn,
    text: fact.text,
    language: fact.language,
    attribute: fact.attribute,
    sourceMessageId: fact.sourceMessageId,
    ...(fact.sourceDigest !== undefined ? { sourceDigest: fact.sourceDigest } : {}),
    ...(fact.endedTurn !== undefined ? { ended: true } : {}),
  };
}

/**
 * `fact` without what the messages `gone` says are gone stated (R37: edited, removed, or about to
 * be read again): its value and the earlier values stated in them are taken off, and the fact rolls
 * back to the newest earlier value stated in a message that stays (one that left through a trim
 * or the archive, or one not read again), with that statement's text. `undefined` when no such
 * value is known (none, stated in a message without an id, or history written before entries
 * carried their statement): the fact is dropped, and reading the messages again gives it back.
 */
export function rollBackFact(fact: Fact, gone: (messageId: string) => boolean): Fact | undefined {
  const stays = (entry: FactHistoryEntry): boolean =>
    typeof entry.sourceMessageId === "string" && !gone(entry.sourceMessageId) && entry.text !== undefined && entry.language !== undefined;
  const history = (fact.history ?? []).filter(stays);
  const back = history.pop();
  if (!back || back.text === undefined || back.language === undefined) return undefined;
  const previous = history[history.length - 1];
  // The key order of a fact `planFactWrite` writes: a slot serializes the same either way.
  return {
    key: fact.key,
    subject: fact.subject,
    attribute: back.attribute ?? fact.attribute,
    value: back.value,
    text: back.text,
    language: back.language,
    sourceMessageId: back.sourceMessageId ?? null,
    ...(back.sourceDigest !== undefined ? { sourceDigest: back.sourceDigest } : {}),
    origin: fact.origin,
    ...(previous ? { previousValue: previous.value } : {}),
    ...(history.length > 0 ? { history } : {}),
    ...(back.ended ? { endedTurn: back.untilTurn } : {}),
    createdTurn: fact.createdTurn,
    updatedTurn: fact.updatedTurn,
    lastUsedTurn: fact.lastUsedTurn,
    uses: fact.uses,
    mentions: fact.mentions,
  };
}

/**
 * `fact` without the earlier values (`history`) stated in the messages `gone` says are gone (R37:
 * removed, or archived and left out by a rewrite), its own value kept: for a fact stated last in a
 * message that stays and is not read again, whose history a re-read would no longer give.
 * `previousValue` follows the newest value left. `fact` itself when none is gone.
 */
export function withoutGoneHistory(fact: Fact, gone: (messageId: string) => boolean): Fact {
  const history = fact.history ?? [];
  const kept = history.filter((entry) => typeof entry.sourceMessageId !== "string" || !gone(entry.sourceMessageId));
  if (kept.length === history.length) return fact;
  const previous = kept[kept.length - 1];
  // The key order of a fact `planFactWrite` writes: a slot serializes the same either way.
  return {
    key: fact.key,
    subject: fact.subject,
    attribute: fact.attribute,
    value: fact.value,
    text: fact.text,
    language: fact.language,
    sourceMessageId: fact.sourceMessageId,
    ...(fact.sourceDigest !== undefined ? { sourceDigest: fact.sourceDigest } : {}),
    origin: fact.origin,
    ...(previous ? { previousValue: previous.value } : {}),
    ...(kept.length > 0 ? { history: kept } : {}),
    ...(fact.endedTurn !== undefined ? { endedTurn: fact.endedTurn } : {}),
    createdTurn: fact.createdTurn,
    updatedTurn: fact.updatedTurn,
    lastUsedTurn: fact.lastUsedTurn,
    uses: fact.uses,
    mentions: fact.mentions,
  };
}

/** core's `analysisText`, lowercased, trimmed, single-spaced, without trailing punctuation: the form keys and duplicates compare on. */
export function normalizeValue(value: string): string {
  return analysisText(value)
    .toLowerCase()
    .replace(/[\s]+/g, " ")
    .replace(/^[\s"'“”‘’]+|[\s.,!?;:"'“”‘’]+$/g, "")
    .trim();
}

// English work and study values kept their preposition in slots written before this fix ("at Naver", "as a nurse"): a
// fact stored then is the same value as the one the rules give now.
const FORMER_ENGLISH_PREFIX = /^(?:at|for|in|as an?|as) /;

/** Whether `value` is `fact`'s value (normalized; a work or study value stored with its English preposition counts as without). */
function sameStoredValue(fact: Pick<Fact, "attribute" | "value" | "language">, value: string): boolean {
  const stored = normalizeValue(fact.value);
  const given = normalizeValue(value);
  if (stored === given) return true;
  return (
    fact.language === "en" &&
    (fact.attribute === "work" || fact.attribute === "study") &&
    stored.replace(FORMER_ENGLISH_PREFIX, "") === given
  );
}

/** The `sourceDigest` field a statement gets: the message's, else (no id) `existing`'s when it is restated. */
function sourceDigestOf(options: IngestOptions, existing?: Fact): { sourceDigest?: string } {
  if (options.sourceMessageId !== null) return options.sourceDigest !== undefined ? { sourceDigest: options.sourceDigest } : {};
  return existing?.sourceDigest !== undefined ? { sourceDigest: existing.sourceDigest } : {};
}

/** The upsert key of a candidate: subject and attribute, plus the value for list attributes. */
export function factKey(candidate: Pick<CandidateFact, "subject" | "attribute" | "value" | "multi" | "keyAttribute" | "keyValue">): string {
  const head = `${normalizeValue(candidate.subject)}|${candidate.keyAttribute ?? candidate.attribute}`;
  return candidate.multi ? `${head}|${normalizeValue(candidate.keyValue ?? candidate.value)}` : head;
}

/** What one ingestion changes. */
export interface IngestOptions {
  sourceMessageId: string | null;
  /** core's `messageDigest` of the source message, when it has an id (`Fact.sourceDigest`). @default undefined */
  sourceDigest?: string;
  /** The thread's user-message count after this message. */
  turn: number;
  origin: Fact["origin"];
  /** Most facts kept; see {@link planFactWrite}. */
  maxFacts: number;
}

/**
 * Turns candidates from one user message into a slot update:
 * - a candidate whose key is new is stored;
 * - the same key with the same value is an exact duplicate: merged (one fact, `mentions` + 1);
 * - the same key with another value supersedes the stored fact: the old value goes to `history`
 *   with the turn it ended (and stays in `previousValue`), and {@link factLine} names it, e.g.
 *   `residence` Seoul -> Busan gives "User moved to Busan and lives there (before: Seoul)";
 * - an `ended` candidate ("I don't live in Seoul anymore") ends the stored fact of the same value:
 *   it is kept with `endedTurn` ({@link factLine}: "... (no longer true)"), so the model never
 *   receives both "lives in Seoul" and "no longer lives in Seoul"; for another value it goes to
 *   `history`; with no stored fact it is stored as ended ("I used to live in Seoul"); a later
 *   statement of a value revives or supersedes it;
 * - preferences share one key per object across `likes` and `dislikes` (see the extractors), so
 *   "I don't like coffee anymore" ends "I like coffee".
 * Then the bound: while more than `maxFacts` facts would be stored, the fact with the fewest uses
 * goes first, ties broken by the oldest last activity (latest of updated and used turn), then by
 * storage order; facts written by this message are never evicted by it.
 */
export function planFactWrite(slot: FactSlot, candidates: readonly CandidateFact[], options: IngestOptions): FactSlotUpdate {
  const byKey = new Map(slot.facts.map((fact) => [fact.key, fact]));
  const upserts = new Map<string, Fact>();
  for (const candidate of candidates) {
    const key = factKey(candidate);
    const existing = upserts.get(key) ?? byKey.get(key);
    const sameValue = existing !== undefined && sameStoredValue(existing, candidate.value) && existing.attribute === candidate.attribute;
    const ended = candidate.ended === true;
    if (existing && sameValue && (existing.endedTurn !== undefined) === ended) {
      // Stated again as it is stored (holding, or ended): one fact, one more mention.
      upserts.set(key, {
        ...existing,
        text: candidate.text,
        sourceMessageId: options.sourceMessageId ?? existing.sourceMessageId,
        ...sourceDigestOf(options, existing),
        updatedTurn: options.turn,
        mentions: upserts.has(key) ? existing.mentions : existing.mentions + 1,
      });
      continue;
    }
    if (existing && ended && !sameValue && existing.endedTurn === undefined) {
      // "I don't live in Seoul anymore" while Busan is stored: Seoul becomes history, Busan stays.
      const said: FactHistoryEntry = {
        value: candidate.value,
        untilTurn: options.turn,
        text: candidate.text,
        language: candidate.language,
        attribute: candidate.attribute,
        sourceMessageId: options.sourceMessageId,
        ...sourceDigestOf(options),
        ended: true,
      };
      upserts.set(key, { ...existing, history: withHistory(existing.history, said), updatedTurn: options.turn });
      continue;
    }
    // New, revived (ended -> holding again), ended, or superseded by another value.
    // Only another value is history: `likes coffee` -> `dislikes coffee` is the same object, re-judged.
    const otherValue = existing !== undefined && !sameStoredValue(existing, candidate.value);
    const history = otherValue
      ? withHistory(existing.history, historyEntryOf(existing, existing.endedTurn ?? options.turn))
      : existing?.history;
    const fact: Fact = {
      key,
      subject: candidate.subject,
      attribute: candidate.attribute,
      value: candidate.value,
      text: candidate.text,
      language: candidate.language,
      sourceMessageId: options.sourceMessageId,
      ...sourceDigestOf(options),
      origin: options.origin,
      ...(existing && !sameValue
        ? { previousValue: existing.value }
        : existing?.previousValue
          ? { previousValue: existing.previousValue }
          : {}),
      ...(history && history.length > 0 ? { history } : {}),
      ...(ended ? { endedTurn: options.turn } : {}),
      createdTurn: existing && sameValue ? existing.createdTurn : options.turn,
      updatedTurn: options.turn,
      lastUsedTurn: existing?.lastUsedTurn ?? 0,
      uses: existing?.uses ?? 0,
      mentions: existing && sameValue ? existing.mentions + 1 : 1,
    };
    upserts.set(key, fact);
  }
  const newKeys = [...upserts.keys()].filter((key) => !byKey.has(key));
  const excess = slot.facts.length + newKeys.length - options.maxFacts;
  const remove: string[] = [];
  if (excess > 0) {
    const order = new Map(slot.facts.map((fact, index) => [fact.key, index]));
    const evictable = slot.facts
      .filter((fact) => !upserts.has(fact.key))
      .sort(
        (a, b) =>
          a.uses - b.uses ||
          Math.max(a.updatedTurn, a.lastUsedTurn) - Math.max(b.updatedTurn, b.lastUsedTurn) ||
          (order.get(a.key) ?? 0) - (order.get(b.key) ?? 0),
      );
    for (const fact of evictable.slice(0, excess)) remove.push(fact.key);
    // More new facts than the bound in one message: keep the last ones stated.
    const overflow = excess - remove.length;
    if (overflow > 0) for (const key of newKeys.slice(0, overflow)) upserts.delete(key);
  }
  return { upsert: [...upserts.values()], ...(remove.length > 0 ? { remove } : {}) };
}
