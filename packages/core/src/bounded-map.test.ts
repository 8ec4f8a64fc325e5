import { describe, expect, it } from "vitest";
import { setBounded } from "./bounded-map.js";

describe("setBounded", () => {
  it("never holds more than the bound, evicts the oldest first and keeps the newest", () => {
    const map = new Map<string, number>();
    for (let i = 0; i < 1_000; i += 1) {
      setBounded(map, `k${i}`, i, 64);
      expect(map.size).toBeLessThanOrEqual(64);
      expect(map.get(`k${i}`)).toBe(i);
    }
    // What is kept is the newest keys, in insertion order.
    const kept = [...map.keys()].map((k) => Number(k.slice(1)));
    expect(kept).toEqual([...kept].sort((a, b) => a - b));
    expect(kept.at(-1)).toBe(999);
    expect(kept.length).toBeGreaterThanOrEqual(56);
  });

  it("updates an existing key in place without evicting", () => {
    const map = new Map([
      ["a", 1],
      ["b", 2],
    ]);
    setBounded(map, "a", 3, 2);
    expect([...map]).toEqual([
      ["a", 3],
      ["b", 2],
    ]);
  });

  it("takes a bound below 1 as 1", () => {
    const map = new Map<string, number>();
    setBounded(map, "a", 1, 0);
    setBounded(map, "b", 2, 0);
    expect([...map]).toEqual([["b", 2]]);
  });
});
