import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type CandidateFact, emptyFactSlot, type FactSlot, mergeFactSlot, planFactWrite } from "./fact-store.js";

const candidate = (attribute: string, value: string, multi = false): CandidateFact => ({
  subject: "user",
  attribute,
  value,
  text: `User ${attribute} ${value}`,
  language: "en",
  multi,
});

function write(slot: FactSlot, facts: CandidateFact[], turn: number, maxFacts = 100): FactSlot {
  return mergeFactSlot(slot, { ...planFactWrite(slot, facts, { sourceMessageId: `m${turn}`, turn, origin: "heuristic", maxFacts }), turn });
}

describe("fact slot", () => {
  it("supersedes a one-valued attribute and merges exact duplicates", () => {
    let slot = write(emptyFactSlot(), [candidate("residence", "Seoul")], 1);
    slot = write(slot, [candidate("residence", "seoul.")], 2);
    expect(slot.facts).toHaveLength(1);
    expect(slot.facts[0]).toMatchObject({ value: "Seoul", mentions: 2, createdTurn: 1, updatedTurn: 2, sourceMessageId: "m2" });
    slot = write(slot, [candidate("residence", "Busan")], 3);
    expect(slot.facts).toEqual([expect.objectContaining({ value: "Busan", previousValue: "Seoul", createdTurn: 3, mentions: 1 })]);
  });

  it("keeps list attributes side by side", () => {
    const slot = write(emptyFactSlot(), [candidate("likes", "tea", true), candidate("likes", "jazz", true)], 1);
    expect(slot.facts.map((f) => f.key)).toEqual(["user|likes|tea", "user|likes|jazz"]);
  });

  it("evicts the least used, then least recently active fact past maxFacts, never the new one", () => {
    let slot = emptyFactSlot();
    for (let turn = 1; turn <= 3; turn += 1) slot = write(slot, [candidate("event", `e${turn}`, true)], turn, 3);
    // e1 was recalled once: it outlives e2, the oldest never-used fact.
    slot = mergeFactSlot(slot, { upsert: [{ ...(slot.facts[0] as FactSlot["facts"][number]), uses: 1, lastUsedTurn: 3 }] });
    slot = write(slot, [candidate("event", "e4", true)], 4, 3);
    expect(slot.facts.map((f) => f.value)).toEqual(["e1", "e3", "e4"]);
  });

  it("applies an update idempotently, and a full slot parses as an update that changes nothing", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom("residence", "work", "likes"), fc.string({ minLength: 1, maxLength: 5 })), { maxLength: 12 }),
        (items) => {
          let slot = emptyFactSlot();
          items.forEach(([attribute, value], i) => {
            const update = planFactWrite(slot, [candidate(attribute, value, attribute === "likes")], {
              sourceMessageId: `m${i}`,
              turn: i + 1,
              origin: "heuristic",
              maxFacts: 4,
            });
            const once = mergeFactSlot(slot, update);
            expect(mergeFactSlot(once, update)).toEqual(once);
            slot = once;
          });
          expect(slot.facts.length).toBeLessThanOrEqual(4);
          expect(mergeFactSlot(slot, slot)).toEqual(slot);
        },
      ),
    );
  });
});
