/**
 * The figures bench/scale.ts's Method text gives, computed from the run that writes it (they were
 * written by hand from earlier traces: "0.4-0.5 s of CPU at 5,000 threads", "up to 1.7x").
 */

/** What a wait until the process is idle took: wall time and the process's CPU time meanwhile, ms. */
export interface Settled {
  wallMs: number;
  cpuMs: number;
}

/**
 * The clause saying what the wait after the round-robin rows' heap measure absorbed in this run
 * (V8 sweeping the heap of T threads after the full GCs): the row whose wait took the most CPU.
 * `""` when no row waited on any work (or none ran).
 * @example
 * sweepClause([{ threads: 5000, settledAfterHeap: { wallMs: 700, cpuMs: 450 } }]);
 * // " (this run: up to 0.45 s of CPU over 0.70 s, at 5,000 threads)"
 */
export function sweepClause(rows: readonly { threads: number; settledAfterHeap?: Settled }[]): string {
  let most: { threads: number; settledAfterHeap?: Settled } | undefined;
  for (const row of rows) if ((row.settledAfterHeap?.cpuMs ?? 0) > (most?.settledAfterHeap?.cpuMs ?? 0)) most = row;
  const settled = most?.settledAfterHeap;
  if (!most || !settled) return "";
  return ` (this run: up to ${(settled.cpuMs / 1000).toFixed(2)} s of CPU over ${(settled.wallMs / 1000).toFixed(2)} s, at ${most.threads.toLocaleString("en-US")} threads)`;
}

/**
 * How much one lane's warm steps varied within one process in this run: the greatest ratio of a
 * lane's slowest warm step to its fastest, over every cold sample and both lanes. `undefined`
 * when no lane has two warm steps.
 */
export function warmStepSpread(
  samples: readonly { floorWarmSteps?: readonly number[]; stackWarmSteps?: readonly number[] }[],
): number | undefined {
  let spread: number | undefined;
  for (const sample of samples)
    for (const steps of [sample.floorWarmSteps, sample.stackWarmSteps]) {
      if (!steps || steps.length < 2) continue;
      const least = Math.min(...steps);
      if (least <= 0) continue;
      const ratio = Math.max(...steps) / least;
      spread = Math.max(spread ?? ratio, ratio);
    }
  return spread;
}
