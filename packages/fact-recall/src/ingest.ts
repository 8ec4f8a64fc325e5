import type { BaseMessage } from "@langchain/core/messages";
import { isContextMessage, messageText, messageType } from "@threadwise/core";
import { type FactIndex, type RankedFact, recallFacts } from "./fact-index.js";
import { type CandidateFact, type Fact, type FactSlot, type FactSlotUpdate, mergeFactSlot, planFactWrite } from "./fact-store.js";

/** Most earlier user messages read when a thread's facts are read for the first time (seeded history). */
export const MAX_BACKFILL_MESSAGES = 50;

/** A user message not yet read for facts, with the cursor value it leaves behind. */
export interface PendingMessage {
  message: BaseMessage;
  /** The message id, or `index:<n>` (position among user messages) when it has none. */
  cursor: string;
}

function cursorOf(message: BaseMessage, index: number): string {
  return typeof message.id === "string" && message.id !== "" ? message.id : `index:${index}`;
}

/**
 * User messages after the slot's cursor (rendered context messages excluded). Before the first
 * read: the newest {@link MAX_BACKFILL_MESSAGES}. When the cursor's message is gone (deleted by a
 * persistent trim), only the newest user message, unless it is the cursor itself.
 */
export function pendingUserMessages(messages: readonly BaseMessage[], cursor: string | null): PendingMessage[] {
  // Usual case: the cursor is the id of a recent user message. Walking back to it costs O(new
  // messages) instead of listing every user message of a long thread on each model call.
  if (cursor !== null && !cursor.startsWith("index:")) {
    const newer: BaseMessage[] = [];
    for (let i = messages.length - 1; i >= 0; i -= 1) {
      const m = messages[i] as BaseMessage;
      if (messageType(m) !== "human" || isContextMessage(m)) continue;
      if (typeof m.id !== "string" || m.id === "") break; // positional cursors: take the full path below
      if (m.id === cursor) return newer.reverse().map((message) => ({ message, cursor: message.id as string }));
      newer.push(m);
    }
  }
  const users = messages.filter((m) => messageType(m) === "human" && !isContextMessage(m));
  const pending = users.map((message, index) => ({ message, cursor: cursorOf(message, index) }));
  if (pending.length === 0) return [];
  if (cursor === null) return pending.slice(-MAX_BACKFILL_MESSAGES);
  const at = pending.findIndex((p) => p.cursor === cursor);
  if (at !== -1) return pending.slice(at + 1);
  const last = pending[pending.length - 1] as PendingMessage;
  return last.cursor === cursor ? [] : [last];
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
 * Returns one idempotent update carrying every changed fact, the removed keys, the new cursor,
 * clock and recalled keys.
 */
export async function ingestUserMessages(
  slot: FactSlot,
  pending: readonly PendingMessage[],
  settings: IngestSettings,
): Promise<IngestResult> {
  let current = slot;
  for (const { message, cursor } of pending) {
    const text = messageText(message);
    const turn = current.turn + 1;
    const { facts, origin } = text.trim() === "" ? { facts: [], origin: "heuristic" as const } : await settings.extract(text);
    const plan = planFactWrite(current, facts, {
      sourceMessageId: typeof message.id === "string" ? message.id : null,
      turn,
      origin,
      maxFacts: settings.maxFacts,
    });
    current = mergeFactSlot(current, { ...plan, cursor, turn });
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
  }
  const before = new Map(slot.facts.map((fact) => [fact.key, fact]));
  const after = new Set(current.facts.map((fact) => fact.key));
  const update: FactSlotUpdate = {
    upsert: current.facts.filter((fact) => before.get(fact.key) !== fact),
    remove: slot.facts.filter((fact) => !after.has(fact.key)).map((fact) => fact.key),
    cursor: current.cursor,
    turn: current.turn,
    recalled: current.recalled,
  };
  return { update, slot: current, recalled };
}
