/**
 * The longer run of test/stack.edits.test.ts (R37): the same property (every model call = what a
 * fresh process sends, no request refused) over more random cases, with its own seed. Sized to
 * take a few minutes on a 2-core machine; STACK_EDIT_SLOW_RUNS and STACK_EDIT_SLOW_SEED run more
 * or others (STACK_EDIT_CASE replays one case of the seed). Prints calls, differing calls and
 * refused requests per operation, stack and saver.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { LIB_A, loadProcess } from "./support/edit-cases.js";
import { addRun, type CaseRun, emptyTallies, formatTallies, type Processes, runProperty } from "./support/edit-run.js";

const SEED = Number(process.env.STACK_EDIT_SLOW_SEED ?? 20261222);
const RUNS = Number(process.env.STACK_EDIT_SLOW_RUNS ?? 60);
const ONLY = process.env.STACK_EDIT_CASE === undefined ? undefined : Number(process.env.STACK_EDIT_CASE);
let processes: Processes;

describe("every model call = a fresh process's, longer run (R37)", () => {
  beforeAll(async () => {
    processes = { A: LIB_A, B: await loadProcess(), R: await loadProcess() };
  });

  it("random operations, two processes, both savers: no request differs and none is refused", async () => {
    const started = Date.now();
    let done = 0;
    let calls = 0;
    let differing = 0;
    let refused = 0;
    // A progress line every 20 cases: the cumulative figures of a run cut short stay readable.
    const tallies = emptyTallies();
    const onCase = (index: number, run: CaseRun) => {
      addRun(tallies, run, "all");
      done += 1;
      if (done % 100 === 0) console.log(`[stack.edits.slow] seed=${SEED} cases 0..${index}:\n${formatTallies(tallies)}`);
      calls += run.results.length;
      differing += run.results.filter((r) => r.differs.length > 0).length;
      refused += run.results.filter((r) => r.refused > 0).length;
      if (done % 20 === 0)
        console.log(`[stack.edits.slow] seed=${SEED} cases 0..${index}: ${calls} calls, ${differing} differing, ${refused} refused`);
    };
    const { tallies: all, failures } = await runProperty(processes, { seed: SEED, runs: RUNS, only: ONLY, onCase });
    console.log(
      `[stack.edits.slow] seed=${SEED} runs=${RUNS} in ${Math.round((Date.now() - started) / 1000)} s (replay: STACK_EDIT_SLOW_SEED=${SEED} STACK_EDIT_CASE=<n>)\n${formatTallies(all)}`,
    );
    const report = failures.map((f) => `case ${f.index} (${f.saver}, ${JSON.stringify(f.config)}):\n${f.mismatches.join("\n")}`);
    console.log(`[stack.edits.slow] failing cases: ${failures.map((f) => f.index).join(", ") || "none"}`);
    expect(report.slice(0, 3).join("\n\n")).toBe("");
    if (ONLY === undefined) expect(all.total.calls).toBeGreaterThan(RUNS * 5);
  }, 3_600_000);
});
