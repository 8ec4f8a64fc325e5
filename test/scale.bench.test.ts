/**
 * The figures of bench/scale.ts's Method text come from the run that writes it: they were written
 * by hand from earlier traces ("0.4-0.5 s of CPU at 5,000 threads", "a single step varies by up
 * to 1.7x") and printed under every later run's tables.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { sweepClause, warmStepSpread } from "../bench/support/scale-method.js";

describe("sweepClause", () => {
  it("names the row whose wait after the heap measure took the most CPU", () => {
    const rows = [
      { threads: 10, settledAfterHeap: { wallMs: 10, cpuMs: 0.5 } },
      { threads: 5000, settledAfterHeap: { wallMs: 720, cpuMs: 480 } },
      { threads: 1000, settledAfterHeap: { wallMs: 90, cpuMs: 60 } },
    ];
    expect(sweepClause(rows)).toBe(" (this run: up to 0.48 s of CPU over 0.72 s, at 5,000 threads)");
  });

  it("says nothing when no row ran, or none waited on any work", () => {
    expect(sweepClause([])).toBe("");
    expect(sweepClause([{ threads: 10, settledAfterHeap: { wallMs: 10, cpuMs: 0 } }])).toBe("");
  });
});

describe("warmStepSpread", () => {
  it("is the greatest slowest-over-fastest ratio of one lane's warm steps in one process", () => {
    const samples = [
      { floorWarmSteps: [10, 12, 11], stackWarmSteps: [11, 11.5] },
      { floorWarmSteps: [10, 10], stackWarmSteps: [8, 20, 9] },
    ];
    expect(warmStepSpread(samples)).toBe(2.5);
  });

  it("is undefined without a lane of two warm steps", () => {
    expect(warmStepSpread([])).toBeUndefined();
    expect(warmStepSpread([{ floorWarmSteps: [10], stackWarmSteps: [] }, {}])).toBeUndefined();
  });
});

describe("bench/scale.ts's Method text", () => {
  it("quotes no figure of an earlier trace", () => {
    const source = readFileSync(resolve(import.meta.dirname, "../bench/scale.ts"), "utf8");
    const doc = source.slice(source.indexOf('"## Method"'), source.indexOf("].join", source.indexOf('"## Method"')));
    expect(doc).toContain("sweepClause(hooks)");
    expect(doc).not.toContain("0.4-0.5 s");
    expect(doc).not.toContain("1.7x");
  });
});
