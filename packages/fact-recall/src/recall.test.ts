import { describe, expect, it } from "vitest";
import { extractFactsHeuristic } from "./extract-heuristic.js";
import { recallFacts, renderFacts } from "./fact-index.js";
import { emptyFactSlot, type FactSlot, mergeFactSlot, planFactWrite } from "./fact-store.js";
import { englishFollowUps, englishSessions } from "./fixtures/english-chat.js";
import { koreanFollowUps, koreanSessions } from "./fixtures/korean-chat.js";

function replay(sessions: string[][]): FactSlot {
  let slot = emptyFactSlot();
  sessions.flat().forEach((message, i) => {
    slot = mergeFactSlot(
      slot,
      planFactWrite(slot, extractFactsHeuristic(message), { sourceMessageId: `m${i}`, turn: i + 1, origin: "heuristic", maxFacts: 200 }),
    );
  });
  return slot;
}

describe("recall", () => {
  it.each(englishFollowUps)("English follow-up %s recalls %s first", (question, value) => {
    const slot = replay(englishSessions);
    expect(recallFacts(slot.facts, question, { maxItems: 3, minScore: 0.5 })[0]?.fact.value).toBe(value);
  });

  it.each(koreanFollowUps)("Korean follow-up %s recalls %s first", (question, value) => {
    const slot = replay(koreanSessions);
    expect(recallFacts(slot.facts, question, { maxItems: 3, minScore: 0.5 })[0]?.fact.value).toBe(value);
  });

  it("returns nothing for small talk that shares no word with any fact", () => {
    const slot = replay(englishSessions);
    expect(recallFacts(slot.facts, "Thanks, that's all!", { maxItems: 3 })).toEqual([]);
    expect(recallFacts(slot.facts, "How are you?", { maxItems: 3 })).toEqual([]);
  });

  it("never returns more than maxItems and renders one line per fact", () => {
    const slot = replay(englishSessions);
    const ranked = recallFacts(slot.facts, "health allergy vegetarian wrist", { maxItems: 2 });
    expect(ranked).toHaveLength(2);
    expect(renderFacts(ranked.map((r) => r.fact)).split("\n")).toEqual(ranked.map((r) => `- ${r.fact.text}`));
  });
});
