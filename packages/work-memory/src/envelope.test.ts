import { countCharacters, mergeSummarySlot, TRUNCATION_MARKER, type WorkMemoryEntry } from "@threadwise/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundEnvelope, renderWorkMemory } from "./envelope.js";

const entry = (id: string, text: string): WorkMemoryEntry => ({ id, text, createdAt: "2026-01-01T00:00:00Z" });

describe("boundEnvelope", () => {
  it("keeps the newest maxItems entries", () => {
    const current = [entry("a", "1"), entry("b", "2"), entry("c", "3")];
    const out = boundEnvelope(current, entry("d", "4"), { maxItems: 3, maxCharacters: 100 });
    expect(out.keepIds).toEqual(["b", "c", "d"]);
    expect(out.entries.map((e) => e.text)).toEqual(["2", "3", "4"]);
  });

  it("drops the oldest entries until the characters fit, counting Korean in characters", () => {
    const current = [entry("a", "가".repeat(10)), entry("b", "나".repeat(10))];
    const out = boundEnvelope(current, entry("c", "다".repeat(10)), { maxItems: 3, maxCharacters: 25 });
    expect(out.keepIds).toEqual(["b", "c"]);
    expect(out.characters).toBe(20);
  });

  it("stops at the first entry that does not fit, so an older one never outlives a newer one", () => {
    const current = [entry("a", "x"), entry("b", "y".repeat(50)), entry("c", "z")];
    const out = boundEnvelope(current, entry("d", "w"), { maxItems: 5, maxCharacters: 10 });
    expect(out.keepIds).toEqual(["c", "d"]);
  });

  it("shortens a new entry that alone exceeds maxCharacters", () => {
    const out = boundEnvelope([entry("a", "old")], entry("b", "한".repeat(30)), { maxItems: 3, maxCharacters: 10 });
    expect(out.keepIds).toEqual(["b"]);
    expect(out.entry.text).toBe(`${"한".repeat(9)}${TRUNCATION_MARKER}`);
    expect(out.characters).toBe(10);
  });

  // Code points split an emoji sequence (the stored entry ended in a man and a dangling joiner) and
  // counted a decomposed Korean syllable (NFD, as macOS sends it) as three characters.
  it("counts and cuts characters as a user counts them: an emoji family and a decomposed syllable are one each", () => {
    const family = "\u{1F468}\u200D\u{1F469}\u200D\u{1F467}";
    const cut = boundEnvelope([], entry("a", family.repeat(5)), { maxItems: 3, maxCharacters: 3 });
    expect(cut.entry.text).toBe(`${family}${family}${TRUNCATION_MARKER}`);
    expect(cut.characters).toBe(3);
    const nfd = "부산에 살아요".normalize("NFD");
    const kept = boundEnvelope([entry("a", "1234")], entry("b", nfd), { maxItems: 3, maxCharacters: 11 });
    expect(kept.keepIds).toEqual(["a", "b"]);
    expect(kept.characters).toBe(11);
  });

  it("replaces an entry with the same id in place of appending it", () => {
    const out = boundEnvelope([entry("a", "1"), entry("b", "2")], entry("a", "1b"), { maxItems: 3, maxCharacters: 100 });
    expect(out.entries.map((e) => [e.id, e.text])).toEqual([
      ["b", "2"],
      ["a", "1b"],
    ]);
  });

  it("never exceeds the bounds and always keeps the new entry (property)", () => {
    const text = fc.string({ unit: fc.constantFrom("a", "가", "😀", " ", "\n"), maxLength: 60 });
    fc.assert(
      fc.property(
        fc.array(text, { maxLength: 8 }),
        text,
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 80 }),
        (olds, fresh, maxItems, maxCharacters) => {
          const current = olds.map((t, i) => entry(`e${i}`, t));
          const out = boundEnvelope(current, entry("new", fresh), { maxItems, maxCharacters });
          expect(out.entries.length).toBeLessThanOrEqual(maxItems);
          expect(out.entries.reduce((n, e) => n + countCharacters(e.text), 0)).toBeLessThanOrEqual(maxCharacters);
          expect(out.keepIds.at(-1)).toBe("new");
          // Kept old entries are a suffix of the stored ones: oldest out first.
          const keptOld = out.keepIds.slice(0, -1);
          expect(keptOld).toEqual(current.slice(current.length - keptOld.length).map((e) => e.id));
          // Applied through the slot reducer (twice: idempotent), the slot equals the envelope.
          const update = { workMemory: { entries: [out.entry], keepIds: out.keepIds } };
          const once = mergeSummarySlot({ workMemory: { entries: current } }, update);
          expect(mergeSummarySlot(once, update)).toEqual(once);
          expect(once.workMemory?.entries).toEqual(out.entries);
        },
      ),
      { seed: 18, numRuns: 300 },
    );
  });
});

describe("renderWorkMemory", () => {
  it("renders one line per entry, oldest first, indenting inner lines", () => {
    expect(renderWorkMemory([entry("a", "Booked 12A"), entry("b", "Hotel:\nSeoul Inn"), entry("c", "  ")])).toBe(
      "- Booked 12A\n- Hotel:\n  Seoul Inn",
    );
    expect(renderWorkMemory([])).toBe("");
  });
});
