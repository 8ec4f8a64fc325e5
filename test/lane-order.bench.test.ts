/**
 * bench/support/lane-order.ts: the replay's lane order (bench/replay-cost.ts). The balanced order
 * gives no lane a fixed place after another lane's summary step; the rotated one (`--lane-offset`)
 * is the order before session 63, kept as it was.
 */
import { describe, expect, it } from "vitest";
import { balancedOrders, laneOrder } from "../bench/support/lane-order.js";

/** The steps of `exchanges` exchanges in the order they run: [exchange, lane]. */
function stepsOf(lanes: number, exchanges: number, period: number, offset?: number): Array<[number, number]> {
  return Array.from({ length: exchanges }, (_, i) => laneOrder(lanes, i, period, offset).map((lane): [number, number] => [i, lane])).flat();
}

describe("balancedOrders", () => {
  it.each([1, 2, 3, 4, 5, 6, 7])(
    "%i lanes: permutations, each lane at each position and right after each other lane equally often",
    (n) => {
      const rows = balancedOrders(n);
      expect(rows.length).toBe(n % 2 === 0 ? n : 2 * n);
      const positions = new Map<string, number>();
      const pairs = new Map<string, number>();
      for (const row of rows) {
        expect([...row].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, k) => k));
        for (const [j, lane] of row.entries()) positions.set(`${lane}@${j}`, (positions.get(`${lane}@${j}`) ?? 0) + 1);
        for (let j = 1; j < n; j += 1) pairs.set(`${row[j - 1]}>${row[j]}`, (pairs.get(`${row[j - 1]}>${row[j]}`) ?? 0) + 1);
      }
      expect(positions.size).toBe(n * n);
      expect(new Set(positions.values())).toEqual(new Set([rows.length / n]));
      if (n > 1) {
        expect(pairs.size).toBe(n * (n - 1));
        expect(new Set(pairs.values()).size).toBe(1);
      }
    },
  );

  it("refuses a lane count that is not a positive integer", () => {
    expect(() => balancedOrders(0)).toThrow(RangeError);
    expect(() => balancedOrders(1.5)).toThrow(/lanes must be a positive integer, got 1.5/);
  });
});

describe("laneOrder", () => {
  it("rotated (an offset): the order before session 63, (exchange + position + offset) mod lanes", () => {
    for (const lanes of [1, 2, 3])
      for (const offset of [0, 1, 2])
        for (let i = 0; i < 25; i += 1)
          expect(laneOrder(lanes, i, 10, offset)).toEqual(Array.from({ length: lanes }, (_, j) => (i + j + offset) % lanes));
  });

  it("rotated, two lanes, period 10: the same lane first at every summary exchange (why the default changed)", () => {
    for (let period = 0; period < 20; period += 1) {
      expect(laneOrder(2, period * 10, 10, 0)[0]).toBe(0);
      expect(laneOrder(2, period * 10, 10, 1)[0]).toBe(1);
    }
  });

  it.each([
    [2, 10],
    [2, 7],
    [3, 10],
    [4, 10],
    [3, 6],
  ])(
    "balanced, %i lanes, period %i: at each exchange of the period each lane first and each lane right after each other equally often",
    (lanes, period) => {
      const rows = balancedOrders(lanes).length;
      const cycles = rows * 3;
      const first = new Map<string, number>();
      const pairs = new Map<string, number>();
      for (let i = 0; i < cycles * period; i += 1) {
        const order = laneOrder(lanes, i, period);
        const phase = i % period;
        first.set(`${phase}:${order[0]}`, (first.get(`${phase}:${order[0]}`) ?? 0) + 1);
        for (let j = 1; j < lanes; j += 1)
          pairs.set(`${phase}:${order[j - 1]}>${order[j]}`, (pairs.get(`${phase}:${order[j - 1]}>${order[j]}`) ?? 0) + 1);
      }
      expect(first.size).toBe(period * lanes);
      expect(new Set(first.values())).toEqual(new Set([cycles / lanes]));
      expect(pairs.size).toBe(period * lanes * (lanes - 1));
      expect(new Set(pairs.values()).size).toBe(1);
    },
  );

  it("balanced, two lanes, period 10: the step after a lane's summary-exchange step is the other lane's half the time", () => {
    const steps = stepsOf(2, 400, 10);
    for (const lane of [0, 1]) {
      const next = steps.flatMap(([i, l], k) =>
        i % 10 === 0 && l === lane && k + 1 < steps.length ? [(steps[k + 1] as [number, number])[1]] : [],
      );
      expect(next.length).toBe(40);
      expect(next.filter((l) => l !== lane).length).toBe(20);
    }
    // The rotated order: always the other lane after lane 0, never after lane 1.
    const rotated = stepsOf(2, 400, 10, 0);
    const followers = (lane: number) =>
      rotated.flatMap(([i, l], k) => (i % 10 === 0 && l === lane ? [(rotated[k + 1] as [number, number])[1]] : []));
    expect(new Set(followers(0))).toEqual(new Set([1]));
    expect(new Set(followers(1))).toEqual(new Set([1]));
  });

  it("refuses a period that is not a positive integer", () => {
    expect(() => laneOrder(2, 0, 0)).toThrow(/period must be a positive integer, got 0/);
    expect(() => laneOrder(0, 0, 10, 0)).toThrow(RangeError);
  });
});
