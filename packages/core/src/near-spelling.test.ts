import { describe, expect, it } from "vitest";
import { nearSpelling } from "./near-spelling.js";

describe("nearSpelling: one typo apart (session 60)", () => {
  it("is true for one letter inserted, dropped, replaced, or two neighbours swapped", () => {
    expect(nearSpelling("funraiser", "fundraiser")).toBe(true);
    expect(nearSpelling("fundraiser", "funraiser")).toBe(true);
    expect(nearSpelling("torunament", "tournament")).toBe(true);
    expect(nearSpelling("imposter", "impostor")).toBe(true);
    expect(nearSpelling("xenoblad", "xeonoblad")).toBe(true);
  });

  it("is false for equal terms, two edits, or lengths two apart", () => {
    expect(nearSpelling("tournament", "tournament")).toBe(false);
    expect(nearSpelling("external", "eternity")).toBe(false);
    expect(nearSpelling("practice", "practicing")).toBe(false);
    expect(nearSpelling("abcdef", "badcef")).toBe(false);
    expect(nearSpelling("", "ab")).toBe(false);
  });
});
