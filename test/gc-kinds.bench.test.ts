/** bench/replay-cost.ts `--step-gc` counts perf_hooks' `gc` entries by kind with `countGcKind`. */
import { constants, PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { countGcKind, type GcKindCounts } from "../bench/support/gc-kinds.js";

const zero = (): GcKindCounts => ({ minor: 0, major: 0, incremental: 0, weak: 0 });

describe("countGcKind", () => {
  it("counts each of Node's NODE_PERFORMANCE_GC_* kinds under its own name", () => {
    const cases: Array<[number, keyof GcKindCounts]> = [
      [constants.NODE_PERFORMANCE_GC_MINOR, "minor"],
      [constants.NODE_PERFORMANCE_GC_MAJOR, "major"],
      [constants.NODE_PERFORMANCE_GC_INCREMENTAL, "incremental"],
      [constants.NODE_PERFORMANCE_GC_WEAKCB, "weak"],
    ];
    for (const [kind, name] of cases) {
      const counts = zero();
      countGcKind(counts, kind);
      expect(counts, `kind ${kind}`).toEqual({ ...zero(), [name]: 1 });
    }
  });

  it("counts a forced full collection (gc()) as major, the first entry after it", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const counts = zero();
    const seen = new Promise<void>((resolve) => {
      const observer = new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) countGcKind(counts, (entry as unknown as { detail: { kind: number } }).detail.kind);
        observer.disconnect();
        resolve();
      });
      observer.observe({ entryTypes: ["gc"] });
    });
    gc();
    await seen;
    expect(counts.major).toBeGreaterThan(0);
  });
});
