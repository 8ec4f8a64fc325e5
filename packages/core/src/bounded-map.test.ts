import { describe, expect, it } from "vitest";
import { SizedLru, setBounded } from "./bounded-map.js";

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

describe("SizedLru", () => {
  it("evicts the least recently used others past the size bound, never the key just resized", () => {
    const lru = new SizedLru<string, string>(10, 10);
    lru.set("a", "A");
    lru.resize("a", 4);
    lru.set("b", "B");
    lru.resize("b", 4);
    expect(lru.get("a")).toBe("A"); // a is now the newest
    lru.set("c", "C");
    lru.resize("c", 4); // 12 > 10: the oldest (b) goes
    expect([lru.peek("a"), lru.peek("b"), lru.peek("c")]).toEqual(["A", undefined, "C"]);
    expect(lru.totalSize).toBe(8);
    lru.resize("c", 50); // larger than the bound alone: held, every other one goes
    expect([lru.peek("a"), lru.peek("c"), lru.size, lru.totalSize]).toEqual([undefined, "C", 1, 50]);
  });

  it("evicts past the entry bound, oldest first; peek does not refresh", () => {
    const lru = new SizedLru<number, number>(2, Number.POSITIVE_INFINITY);
    lru.set(1, 1);
    lru.set(2, 2);
    lru.peek(1);
    lru.set(3, 3);
    expect([lru.peek(1), lru.peek(2), lru.peek(3)]).toEqual([undefined, 2, 3]);
    lru.get(2);
    lru.set(4, 4);
    expect([lru.peek(2), lru.peek(3), lru.peek(4)]).toEqual([2, undefined, 4]);
  });

  it("a key set again replaces its value and size", () => {
    const lru = new SizedLru<string, string>(5, 100);
    lru.set("a", "x");
    lru.resize("a", 30);
    lru.set("a", "y");
    expect([lru.get("a"), lru.totalSize]).toEqual(["y", 0]);
    lru.resize("missing", 5);
    expect(lru.totalSize).toBe(0);
  });
});
