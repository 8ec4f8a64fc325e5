/**
 * What tests compare a synced {@link MessageIndex} by (spec R37): everything a fresh index of the
 * same stored thread would hold (entries, neighbours, lookups, search results and scores).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { tokenize } from "@threadwise/core";
import { MessageIndex } from "../message-index.js";

export const WORDS = ["apple", "Busan", "dog", "Coco", "flight", "seat", "12A", "tea", "rain", "서울", "invoice", "red"];
export const QUERIES = [["apple"], ["dog", "coco"], ["seat", "12a"], ["flight", "rain", "tea"], ["서울"], ["invoice", "red", "apple"]];

export function snapshot(index: MessageIndex) {
  const entries = index.entries();
  return {
    entries: entries.map(({ id, position, role, name, text, timestamp, tokens, terms }) => ({
      id,
      position,
      role,
      name,
      text,
      timestamp,
      tokens,
      terms,
    })),
    neighbours: entries.map((e) => [index.entry(e.seq - 1)?.id, index.entry(e.seq + 1)?.id]),
    byId: entries.every((e) => index.byMessageId(e.id) === e),
    search: QUERIES.map((q) => index.search(tokenize(q.join(" ")), 100).map((r) => [r.entry.id, r.score])),
  };
}

export function fresh(stored: readonly BaseMessage[], maxMessages: number): MessageIndex {
  const index = new MessageIndex({ maxMessages, countText: (text) => text.length });
  index.sync(stored);
  return index;
}
