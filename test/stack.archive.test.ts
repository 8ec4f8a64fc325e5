/**
 * The message archive under the edit property (issue 27, R37; see test/support/archive-property.ts):
 * random threads and operations (turns, edits by id at any position, edits of older checkpoints,
 * removes, rewrites, forks, replays, re-imports, another stack on the thread, human-in-the-loop)
 * through a real `createAgent` with `archive: true` on a ThreadwiseSaver (in memory, SQLite,
 * sometimes encrypting), compared call by call with a fresh process and with a run without the
 * archive. The longer run is test/stack.archive.slow.test.ts.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { formatArchiveTallies, runArchiveProperty } from "./support/archive-property.js";
import { archiveCaseArb, LIB_A, loadProcess } from "./support/edit-cases.js";
import { formatTallies, type Processes } from "./support/edit-run.js";

const SEED = Number(process.env.STACK_ARCHIVE_SEED ?? 20261202);
const RUNS = Number(process.env.STACK_ARCHIVE_RUNS ?? 4);
const ONLY = process.env.STACK_ARCHIVE_CASE === undefined ? undefined : Number(process.env.STACK_ARCHIVE_CASE);
let processes: Processes;

describe("message archive: every request = a fresh process's and a run without the archive's (R37)", () => {
  beforeAll(async () => {
    processes = { A: LIB_A, B: await loadProcess(), R: await loadProcess() };
  });

  it("random operations: no request differs, nothing lost or duplicated, only due refusals", async () => {
    const { tallies, failures } = await runArchiveProperty(processes, { seed: SEED, runs: RUNS, only: ONLY });
    console.log(
      `[stack.archive] seed=${SEED} runs=${RUNS} (replay: STACK_ARCHIVE_SEED=${SEED} STACK_ARCHIVE_CASE=<n>)\n${formatArchiveTallies(tallies)}\n${formatTallies(tallies.served)}`,
    );
    const report = failures.map(
      (f) => `case ${f.index} (${f.saver}, ${JSON.stringify(f.config)}):\n${[...f.mismatches, ...f.requests].join("\n")}`,
    );
    expect(report.slice(0, 3).join("\n\n")).toBe("");
    if (ONLY !== undefined) return;
    // Messages did move, and the comparisons ran.
    expect(tallies.archivingCalls).toBeGreaterThan(0);
    expect(tallies.threads.compared).toBeGreaterThan(RUNS * 3);
  }, 600_000);

  // persistTrim's trim mark (`trimmed`) is stored in the summary slot beside the summary; a call of
  // another stack (summarize in the background) that adopts a job is compared with a fresh process
  // holding the job's record and the rest of the slot as stored, the mark included (was: the
  // record alone, so the slots after the call differed though no request did: stack.archive.slow
  // seed 312 case 4, SQLite). The same draws on the in-memory saver (`map` draws nothing more).
  for (const saver of ["sqlite", "memory"] as const) {
    it(`a call adopting a background summary on a thread persistTrim trimmed = a fresh process holding the stored slot (${saver})`, async () => {
      const { tallies, failures } = await runArchiveProperty(processes, {
        seed: 312,
        runs: 5,
        only: 4,
        persistTrim: true,
        cases: archiveCaseArb.map((c) => ({ ...c, saver })),
      });
      const report = failures.map((f) => [...f.mismatches, ...f.requests].join("\n"));
      expect(report.join("\n\n")).toBe("");
      expect(tallies.served.total.calls).toBeGreaterThan(0);
    }, 300_000);
  }

  // Updates carrying two messages with one id (langgraphjs#846: the later wins in the reducer): a
  // fresh id, or a stored message's (hot, or archived: refused, and only when due), in one
  // updateState or with a turn's input; compared with the control as every other operation.
  it("updates with duplicate message ids (fresh, hot, archived): no request differs, nothing lost or duplicated, only due refusals", async () => {
    const seed = Number(process.env.STACK_ARCHIVE_DUP_SEED ?? 20261206);
    const { tallies, failures } = await runArchiveProperty(processes, { seed, runs: RUNS, only: ONLY, duplicateIds: true });
    console.log(
      `[stack.archive] duplicate ids, seed=${seed} runs=${RUNS}\n${formatArchiveTallies(tallies)}\n${formatTallies(tallies.served)}`,
    );
    const report = failures.map(
      (f) => `case ${f.index} (${f.saver}, ${JSON.stringify(f.config)}):\n${[...f.mismatches, ...f.requests].join("\n")}`,
    );
    expect(report.slice(0, 3).join("\n\n")).toBe("");
    if (ONLY !== undefined) return;
    expect(tallies.served.byOp["dup-ids"]?.calls).toBeGreaterThan(0);
    expect(tallies.archivingCalls).toBeGreaterThan(0);
  }, 600_000);

  describe("self-check: a planted archive fault is caught", () => {
    // One case of the property's seed in which messages move to the archive (case 4: 3 calls
    // archive), so the fast suite stays fast.
    const PLANT_SEED = 20261202;
    const PLANT_RUNS = 6;

    it("messages removed from the checkpoint but never written to the archive: lost, the thread differs", async () => {
      const { tallies } = await runArchiveProperty(processes, {
        seed: PLANT_SEED,
        runs: PLANT_RUNS,
        only: 4,
        plantSaver: (saver) => {
          saver.archiveMessages = async () => {};
        },
      });
      expect(tallies.archivingCalls).toBeGreaterThan(0);
      expect(tallies.threads.differ).toBeGreaterThan(0);
    }, 300_000);

    it("an archive read once per thread and kept (stale after the next move): requests differ", async () => {
      const { tallies } = await runArchiveProperty(processes, {
        seed: PLANT_SEED,
        runs: PLANT_RUNS,
        only: 4,
        plantSaver: (saver) => {
          const read = saver.archivedMessages.bind(saver);
          const kept = new Map<string, Promise<Awaited<ReturnType<typeof read>>>>();
          saver.archivedMessages = (threadId) => {
            if (!kept.has(threadId)) kept.set(threadId, read(threadId));
            return kept.get(threadId) as ReturnType<typeof read>;
          };
        },
      });
      expect(tallies.served.total.requestDiffers + tallies.requests.differ).toBeGreaterThan(0);
    }, 300_000);
  });
});
