/**
 * Benchmarks on input they were not tuned on (session 65, data65): the blind held-out files of
 * session 65 are left out of the tools that read the committed data to tune. Small files written
 * here; English and Korean text.
 */
import { describe, expect, it } from "vitest";
import { BLIND_FIXTURES, isBlindFixture } from "../bench/support/blind.js";

describe("blind held-out files of session 65", () => {
  it("names the four sets of session 65 and no older measured set whose name is close", () => {
    for (const name of [
      "korean-heldout20.locomo.json",
      "english-heldout20.locomo.json",
      "bench/fixtures/korean-facts-heldout27.labelled.json",
      "english-facts-heldout14.labelled.json",
    ])
      expect(isBlindFixture(name), name).toBe(true);
    // Older sets measured in sessions 58 and 59 whose names hold a blind number.
    for (const name of ["korean-facts-heldout20.labelled.json", "english-heldout14.locomo.json", "korean-heldout200.locomo.json"])
      expect(isBlindFixture(name), name).toBe(false);
    expect(BLIND_FIXTURES.length).toBe(new Set(BLIND_FIXTURES).size);
  });
});
