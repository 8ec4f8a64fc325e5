import type { BaseMessage } from "@langchain/core/messages";
import { messageDigest, messageText } from "@threadwise/core";
import { type FactIndex, type RankedFact, recallFacts } from "./fact-index.js";
import { type FactReadPlan, MAX_BACKFILL_MESSAGES, type PendingMessage, planFactRead, readEntryOf } from "./fact-sources.js";
import {
  type CandidateFact,
  type Fact,
  type FactSlot,
  type FactSlotUpdate,
  mergeFactSlot,
  normalizeValue,
  planFactWrite,
} from "./fact-store.js";

export { MAX_BACKFILL_MESSAGES, type PendingMessage };

/**
 * User messages after the slot's cursor (rendered context messages excluded). Before the first
 * read: the newest {@link MAX_BACKFILL_MESSAGES}. When the cursor's message is gone (removed, or
 * the thread rewritten), the newest {@link MAX_BACKFILL_MESSAGES} again. Without the slot's `read`
 * record this cannot tell an edit; `factRecall` uses {@link planFactRead} with the whole slot.
 */
export function pendingUserMessages(messages: readonly BaseMessage[], cursor: string | null): PendingMessage[] {
  return planFactRead(messages, { cursor, facts: [] }).pending;
}

/** What {@link ingestUserMessages} needs. */
export interface IngestSettings {
  /** Extracts candidates from one message's text, and says how. */
  extract: (text: string) => Promise<{ facts: CandidateFact[]; origin: Fact["origin"] }>;
  maxFacts: number;
  maxItems: number;
  minScore: number;
  /** The thread's incremental fact index; synced with the slot before the search. Unset: a throwaway index. */
  index?: FactIndex;
}

/** The result of reading new user messages: the slot update, and the facts recalled for the newest. */
export interface IngestResult {
  update: FactSlotUpdate;
  slot: FactSlot;
  recalled: Fact[];
}

/**
 * Reads `pending` user messages in order into the slot (extraction, duplicates, supersession,
 * bound: see `planFactWrite`), then recalls the facts for the newest one and counts the use.
 * With `plan` (from {@link planFactRead}): its `facts` are read on instead of the slot's (a fact
 * read again with the same value keeps its use counters), and the slot's `read` record becomes
 * `plan.read` plus `pending`.
 * Returns one idempotent update carrying every changed fact (the whole list after an edit), the
 * removed keys, the new cursor, read record, clock and recalled keys.
 */
export async function ingestUserMessages(
  slot: FactSlot,
  pending: readonly PendingMessage[],
  settings: IngestSettings,
  plan?: Pick<FactReadPlan, "facts" | "read">,
): Promise<IngestResult> {
  const rebuilt = plan?.facts !== undefined;
  let current: FactSlot = rebuilt ? { ...slot, facts: plan.facts as Fact[] } : slot;
  for (const { message, cursor } of pending) {
    const text = messageText(message);
    const turn = current.turn + 1;
    const { facts, origin } = text.trim() === "" ? { facts: [], origin: "heuristic" as const } : await settings.extract(text);
    const write = planFactWrite(current, facts, {
      sourceMessageId: typeof message.id === "string" ? message.id : null,
      ...(typeof message.id === "string" ? { sourceDigest: messageDigest(message) } : {}),
      turn,
      origin,
      maxFacts: settings.maxFacts,
    });
    current = mergeFactSlot(current, { ...write, cursor, turn });
  }
  if (rebuilt)
    current = {
      ...current,
      facts: inSlotOrder(
        slot,
        current.facts.map((fact) => withUsesOf(slot, fact)),
      ),
    };
  if (plan) {
    const offset = plan.read.length;
    current = { ...current, read: [...plan.read, ...pending.map((p, k) => readEntryOf(p.message, offset + k))] };
  }
  const newest = pending[pending.length - 1];
  let recalled: Fact[] = [];
  if (newest) {
    const query = messageText(newest.message);
    let ranked: RankedFact[];
    if (settings.index) {
      settings.index.sync(current.facts);
      ranked = settings.index.search(query, settings.maxItems, settings.minScore);
    } else ranked = recallFacts(current.facts, query, { maxItems: settings.maxItems, minScore: settings.minScore });
    recalled = ranked.map(({ fact }) => ({ ...fact, uses: fact.uses + 1, lastUsedTurn: current.turn }));
    current = mergeFactSlot(current, { upsert: recalled, recalled: recalled.map((f) => f.key) });
  } else if (rebuilt) {
    const kept = new Set(current.facts.map((fact) => fact.key));
    current = { ...current, recalled: current.recalled.filter((key) => kept.has(key)) };
  }
  const before = new Map(slot.facts.map((fact) => [fact.key, fact]));
  const after = new Set(current.facts.map((fact) => fact.key));
  const update: FactSlotUpdate = {
    // After an edit the order of the list can change (a fact dropped and read again goes last).
    ...(rebuilt ? { facts: current.facts } : {}),
    upsert: rebuilt ? [] : current.facts.filter((fact) => before.get(fact.key) !== fact),
    remove: rebuilt ? [] : slot.facts.filter((fact) => !after.has(fact.key)).map((fact) => fact.key),
    cursor: current.cursor,
    ...(current.read ? { read: current.read } : {}),
    turn: current.turn,
    recalled: current.recalled,
  };
  return { update, slot: current, recalled };
}

/**
 * `fact` with the use counters of the fact of the same key and value in `slot`, when there is one
 * and `fact` has not been used since: a fact read again after an edit is the one the user stated,
 * not a new one. Only counters are carried: values and history come from the thread as stored.
 */
function withUsesOf(slot: FactSlot, fact: Fact): Fact {
  const old = slot.facts.find((f) => f.key === fact.key);
  if (!old || old === fact || fact.uses !== 0 || normalizeValue(old.value) !== normalizeValue(fact.value)) return fact;
  return { ...fact, uses: old.uses, lastUsedTurn: old.lastUsedTurn, createdTurn: Math.min(old.createdTurn, fact.createdTurn) };
}

/**
 * `facts` (read again after an edit) in the order of `slot`'s list: a fact whose key the slot
 * held keeps its place, one with a new key goes after them, in the order read. Equal scores rank
 * in list order, so a fact dropped and read again from an unchanged message would otherwise move
 * last, and which facts are placed would depend on how many messages were read again.
 */
function inSlotOrder(slot: FactSlot, facts: readonly Fact[]): Fact[] {
  const position = new Map(slot.facts.map((fact, index) => [fact.key, index]));
  const rank = (fact: Fact, index: number) => position.get(fact.key) ?? slot.facts.length + index;
  return facts
    .map((fact, index) => ({ fact, at: rank(fact, index) }))
    .sort((a, b) => a.at - b.at)
    .map(({ fact }) => fact);
}
