/**
 * The longer run of test/stack.archive.test.ts (issue 27, R37): the same archive property over more
 * random cases, with its own seed. STACK_ARCHIVE_SLOW_RUNS and STACK_ARCHIVE_SLOW_SEED run more or
 * others (STACK_ARCHIVE_CASE replays one case of the seed). Asserts the same five checks as the fast
 * run, (e) included: every request equals the one a run without the archive sends. Prints the
 * archive checks and the per-operation, per-stack and per-saver tallies against a fresh process.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { formatArchiveTallies, runArchiveProperty } from "./support/archive-property.js";
import { LIB_A, loadProcess } from "./support/edit-cases.js";
import { formatTallies, type Processes } from "./support/edit-run.js";

const SEED = Number(process.env.STACK_ARCHIVE_SLOW_SEED ?? 20261203);
const RUNS = Number(process.env.STACK_ARCHIVE_SLOW_RUNS ?? 40);
const ONLY = process.env.STACK_ARCHIVE_CASE === undefined ? undefined : Number(process.env.STACK_ARCHIVE_CASE);
let processes: Processes;

describe("message archive, longer run (R37)", () => {
  beforeAll(async () => {
    processes = { A: LIB_A, B: await loadProcess(), R: await loadProcess() };
  });

  it("random operations: no request differs (from a fresh process's or a run without the archive's), nothing lost or duplicated, only due refusals", async () => {
    const started = Date.now();
    const { tallies, failures } = await runArchiveProperty(processes, {
      seed: SEED,
      runs: RUNS,
      only: ONLY,
      onCase: (index, t) => {
        if ((index + 1) % 10 === 0) console.log(`[stack.archive.slow] seed=${SEED} cases 0..${index}:\n${formatArchiveTallies(t)}`);
      },
    });
    console.log(
      `[stack.archive.slow] seed=${SEED} runs=${RUNS} in ${Math.round((Date.now() - started) / 1000)} s (replay: STACK_ARCHIVE_SLOW_SEED=${SEED} STACK_ARCHIVE_CASE=<n>)\n${formatArchiveTallies(tallies)}\n${formatTallies(tallies.served)}`,
    );
    const failing = failures.filter((f) => f.mismatches.length > 0);
    console.log(`[stack.archive.slow] failing cases: ${failing.map((f) => f.index).join(", ") || "none"}`);
    // (e): every request equals the control's (messages and system prompt).
    const requests = failures.filter((f) => f.requests.length > 0);
    const shown = requests.slice(0, 2).map((f) => `case ${f.index} (${f.saver}, ${JSON.stringify(f.config)}):\n${f.requests.join("\n")}`);
    console.log(
      `[stack.archive.slow] requests compared with the control: ${tallies.requests.compared}, differing ${tallies.requests.differ} (cases ${requests.map((f) => f.index).join(", ") || "none"})`,
    );
    const report = failing.map((f) => `case ${f.index} (${f.saver}, ${JSON.stringify(f.config)}):\n${f.mismatches.join("\n")}`);
    expect(report.slice(0, 3).join("\n\n")).toBe("");
    expect(shown.join("\n\n")).toBe("");
    expect(tallies.requests.differ).toBe(0);
    if (ONLY !== undefined) return;
    // Messages did move, and the requests were compared.
    expect(tallies.archivingCalls).toBeGreaterThan(RUNS / 2);
    expect(tallies.requests.compared).toBeGreaterThan(RUNS * 5);
  }, 3_600_000);

  // persistTrim in the archive stack (issue 27): it decides over the archive and the checkpoint, so
  // the thread read back is what a run without the archive keeps, archived messages it keeps
  // brought back; a trim of archived messages only empties the archive.
  it("with persistTrim in the stack: the same checks", async () => {
    const runs = ONLY === undefined ? Math.ceil(RUNS / 2) : RUNS;
    const { tallies, failures } = await runArchiveProperty(processes, { seed: SEED, runs, only: ONLY, persistTrim: true });
    const failing = failures.filter((f) => f.mismatches.length > 0);
    console.log(
      `[stack.archive.slow] with persistTrim, seed=${SEED} runs=${runs}: failing cases ${failing.map((f) => f.index).join(", ") || "none"}\n${formatArchiveTallies(tallies)}`,
    );
    const report = failing.map((f) => `case ${f.index} (${f.saver}, ${JSON.stringify(f.config)}):\n${f.mismatches.join("\n")}`);
    expect(report.slice(0, 3).join("\n\n")).toBe("");
    const requests = failures.filter((f) => f.requests.length > 0);
    expect(
      requests
        .slice(0, 2)
        .map((f) => `case ${f.index}:\n${f.requests.join("\n")}`)
        .join("\n\n"),
    ).toBe("");
    expect(tallies.requests.differ).toBe(0);
    if (ONLY !== undefined) return;
    expect(tallies.archivingCalls).toBeGreaterThan(0);
  }, 3_600_000);
});
