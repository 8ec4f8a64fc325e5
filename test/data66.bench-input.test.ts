/**
 * Benchmarks on input they were not tuned on (session 66, data66): the blind held-out files of
 * session 66 are left out of the tools that read the committed data to tune. English and Korean
 * file names.
 */
import { describe, expect, it } from "vitest";
import { BLIND_FIXTURES, isBlindFixture } from "../bench/support/blind.js";

describe("blind held-out files of session 66", () => {
  it("names the four sets of session 66 and no older measured set whose name is close", () => {
    for (const name of [
      "korean-heldout21.locomo.json",
      "english-heldout21.locomo.json",
      "bench/fixtures/korean-facts-heldout28.labelled.json",
      "english-facts-heldout15.labelled.json",
    ])
      expect(isBlindFixture(name), name).toBe(true);
    // Older sets measured in sessions 59 and 60 whose names hold a blind number.
    for (const name of ["korean-facts-heldout21.labelled.json", "english-heldout15.locomo.json", "korean-heldout210.locomo.json"])
      expect(isBlindFixture(name), name).toBe(false);
    expect(BLIND_FIXTURES.length).toBe(new Set(BLIND_FIXTURES).size);
  });
});
