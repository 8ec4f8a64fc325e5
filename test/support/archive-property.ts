/**
 * The seeded edit property (test/support/edit-run.ts) on stacks with the message archive (issue 27,
 * R37): each case runs twice on a ThreadwiseSaver (in memory or SQLite, sometimes encrypting),
 * with `archive: true` and without (the control), and checks
 * (a) every model call of the archive run equals what a fresh process sends for the same stored
 *     state (hot checkpoint and archive as stored when the call began) and (b) passes the strict
 *     provider validator (both in `runCase`);
 * (c) an operation refused with ThreadwiseArchivedMessageError stores nothing and reaches no model,
 *     and had to be refused (it edits an archived message, or forks from a checkpoint whose thread
 *     does not begin with the archive); every other operation runs;
 * (d) after the first turn and after each operation, the thread read back (`readThread`) equals the
 *     control's stored thread: same messages, contents and order, none lost or duplicated;
 * (e) every request (messages and system prompt: summary, facts and recall blocks, so recall finds
 *     archived text) equals the control's.
 * A rewrite (`REMOVE_ALL_MESSAGES`, then a stored suffix) once something is archived empties the
 * archive; a fork from before it is refused by the checkpoint's archive mark (also once archiving
 * resumed), so the threads and requests are compared with the control to the end of the case
 * (cases that crossed such a rewrite are counted). A turn by another agent with
 * another stack once something is archived ends the comparison of requests (counted; a known limit:
 * it reads the hot part only, and the batches are aligned on the case's own window).
 */

import type { ThreadwiseSaver } from "@threadwise/memory";
import fc from "fast-check";
import { archiveCaseArb, archiveConfigArb, dupIdOpsArb, type EditCase, type Op, withOps } from "./edit-cases.js";
import { addRun, type CaseRun, emptyTallies, type Processes, runCase, type Tallies } from "./edit-run.js";

/** A case that failed a check: (a) to (d) in `mismatches`, (e) in `requests`; each with the case's operations first. */
export interface ArchiveFailure {
  index: number;
  saver: string;
  config: unknown;
  mismatches: string[];
  requests: string[];
}

/** Counts of the archive checks. */
export interface ArchiveTallies {
  /** The fresh-process tallies of the archive runs (a, b). */
  served: Tallies;
  /** Refused operations by `op:reason` (c). */
  refusals: Record<string, number>;
  /** Threads read back and compared with the control, and how many differed (d). */
  threads: { compared: number; differ: number };
  /** Requests compared with the control's, and how many differed (e). */
  requests: { compared: number; differ: number };
  /** Calls that moved messages to the archive (a `message_archive:` line logged). */
  archivingCalls: number;
  /** Cases whose threads and requests were compared with the control past a rewrite of an archived thread (was: the comparison ended there). */
  pastRewrite: number;
  /** Cases whose comparison of requests ended at a turn by another stack once something was archived. */
  endedAtOtherStack: number;
  /**
   * Cases whose comparison with the control ended at a race (the breaker's `concurrent` operation,
   * an `interrupted` run aborted by its signal): which run wins, and which of a parallel call's
   * results is stored before the abort, is timing; the fresh-process and validator checks go on.
   */
  endedAtRace: number;
}

const DRAWN_ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

const opOf = (where: string) => {
  const match = /^op (\d+) /.exec(where);
  return match ? Number(match[1]) : -1;
};

/** Where two lists of message shapes first differ. */
function firstDifference(got: readonly string[], want: readonly string[]): string {
  let at = 0;
  while (at < got.length && got[at] === want[at]) at += 1;
  return `at message ${at} of ${got.length} (control ${want.length}):\n  archive: ${got[at] ?? "(end)"}\n  control: ${want[at] ?? "(end)"}`;
}

/** The archive checks of one case: the archive run and its control; (e)'s differences apart. */
export function compareWithControl(
  served: CaseRun,
  control: CaseRun,
  tallies: ArchiveTallies,
  raceAt = Number.POSITIVE_INFINITY,
): { threads: string[]; requests: string[] } {
  const mismatches: string[] = [];
  const requests: string[] = [];
  if (served.rewroteArchiveAt !== undefined) tallies.pastRewrite += 1;
  if (raceAt !== Number.POSITIVE_INFINITY) tallies.endedAtRace += 1;
  // threads[0]: after the first turn; threads[k + 1]: after op k (up to a race, `raceAt`).
  for (const [k, thread] of served.threads.entries()) {
    if (k - 1 >= raceAt) break;
    tallies.threads.compared += 1;
    const want = control.threads[k] ?? [];
    if (JSON.stringify(thread) !== JSON.stringify(want)) {
      tallies.threads.differ += 1;
      mismatches.push(
        `thread after ${k === 0 ? "the first turn" : `op ${k - 1}`} differs from a run without the archive ${firstDifference(thread, want)}`,
      );
    }
  }
  // Another agent with another stack on the thread (`other-stack`) once something is archived
  // ends the comparison of requests (a known limit, README "Limits"): it reads the hot part only,
  // and the batches are aligned on the case's own window, not on its.
  const archivedAt = served.calls.findIndex((call) => call.outcome.logs.some((line) => line.startsWith("message_archive:")));
  const otherStack =
    archivedAt === -1
      ? undefined
      : served.calls.slice(archivedAt + 1).find((call) => / other-stack /.test(call.where) && opOf(call.where) >= 0);
  const requestsEnd = Math.min(raceAt, otherStack ? opOf(otherStack.where) : Number.POSITIVE_INFINITY);
  if (otherStack) tallies.endedAtOtherStack += 1;
  const calls = served.calls.filter((call) => opOf(call.where) < requestsEnd);
  // Ids LangGraph drew (a ToolNode result's, and a re-imported message that took one by position)
  // differ per run, as in the threads' shapes (edit-run's shapeOf).
  const prompt = (call: CaseRun["calls"][number]) => call.prompt.replace(DRAWN_ID, "(drawn)");
  for (const [j, call] of calls.entries()) {
    const other = control.calls[j];
    tallies.requests.compared += 1;
    if (
      !other ||
      opOf(other.where) !== opOf(call.where) ||
      prompt(other) !== prompt(call) ||
      other.outcome.system !== call.outcome.system
    ) {
      tallies.requests.differ += 1;
      const field =
        !other || opOf(other.where) !== opOf(call.where) ? "call order" : prompt(other) !== prompt(call) ? "messages" : "system";
      requests.push(
        `call ${j} (${call.where}): request ${field} differs from a run without the archive\n  archive: ${field === "system" ? call.outcome.system : call.prompt}\n  control: ${other ? (field === "system" ? other.outcome.system : other.prompt) : "(none)"}`.slice(
          0,
          1600,
        ) +
          `\n  archive logs: ${call.outcome.logs.join(" | ").slice(0, 600)}\n  control logs: ${other?.outcome.logs.join(" | ").slice(0, 600)}`,
      );
    }
  }
  tallies.archivingCalls += served.calls.filter((call) => call.outcome.logs.some((line) => line.startsWith("message_archive:"))).length;
  for (const refusal of served.refusals.values()) {
    const key = `${refusal.op}:${refusal.reason}`;
    tallies.refusals[key] = (tallies.refusals[key] ?? 0) + 1;
  }
  return { threads: mismatches, requests };
}

export function emptyArchiveTallies(): ArchiveTallies {
  return {
    served: emptyTallies(),
    refusals: {},
    threads: { compared: 0, differ: 0 },
    requests: { compared: 0, differ: 0 },
    archivingCalls: 0,
    pastRewrite: 0,
    endedAtOtherStack: 0,
    endedAtRace: 0,
  };
}

export function formatArchiveTallies(t: ArchiveTallies): string {
  return [
    `threads read back and compared with a run without the archive: ${t.threads.compared}, differing ${t.threads.differ}`,
    `requests compared with a run without the archive: ${t.requests.compared}, differing ${t.requests.differ}`,
    `calls that archived: ${t.archivingCalls}; cases whose threads and requests were compared past a rewrite of an archived thread: ${t.pastRewrite}; cases whose comparison of requests ended at another stack's turn on an archived thread: ${t.endedAtOtherStack}; cases whose comparison with the control ended at a race (concurrent invokes, an abort): ${t.endedAtRace}`,
    `refused (ThreadwiseArchivedMessageError): ${JSON.stringify(t.refusals)}`,
  ].join("\n");
}

/** Runs `runs` random archive cases drawn with `seed` (or only case `only`), each to the end. */
export async function runArchiveProperty(
  processes: Processes,
  options: {
    seed: number;
    runs: number;
    only?: number;
    plantSaver?: (saver: ThreadwiseSaver) => void;
    onCase?: (index: number, tallies: ArchiveTallies) => void;
    /** Other cases to draw (the breaker's fuzz: its operations, PostgreSQL); by default `archiveCaseArb`. */
    cases?: fc.Arbitrary<EditCase>;
    /** Operations drawn after the stack and inserted into the case (`asNodeOpsArb`): a seed draws the cases and stacks it drew without them. */
    afterStack?: fc.Arbitrary<Array<[number, Op]>>;
    /** persistTrim in the archive stack (and its control) with the drawn `trimKeepGroups`, about half the cases; the same draws otherwise. */
    persistTrim?: boolean;
    /**
     * One to three `dup-ids` operations (`dupIdOpsArb`: an update carrying two messages with one id,
     * fresh or a stored message's, hot or archived) inserted into each case, drawn after `afterStack`'s:
     * a seed draws the cases, stacks and other operations it drew without them.
     */
    duplicateIds?: boolean;
    /** Operations drawn after every other (`breakerLastOpsArb`): a seed draws the cases, stacks and other operations it drew without them. */
    lastOps?: fc.Arbitrary<Array<[number, Op]>>;
  },
): Promise<{ tallies: ArchiveTallies; failures: ArchiveFailure[] }> {
  const afterStack: fc.Arbitrary<Array<[number, Op]>> = options.afterStack ?? fc.constant([]);
  const drawn = options.duplicateIds ? fc.tuple(afterStack, dupIdOpsArb).map(([ops, dups]) => [...ops, ...dups]) : afterStack;
  const extra = options.lastOps ? fc.tuple(drawn, options.lastOps).map(([ops, last]) => [...ops, ...last]) : drawn;
  const cases = fc.sample(fc.tuple(options.cases ?? archiveCaseArb, archiveConfigArb, extra), {
    seed: options.seed,
    numRuns: options.runs,
  });
  const tallies = emptyArchiveTallies();
  const failures: ArchiveFailure[] = [];
  for (const [index, [base, drawn, extra]] of cases.entries()) {
    if (options.only !== undefined && index !== options.only) continue;
    const c = withOps(base, extra);
    // The PostgreSQL cases share one database, where sealed and plaintext records may not mix (R26: a plaintext saver refuses to write beside sealed ones).
    const trimmed = options.persistTrim ? { ...drawn, keepGroups: drawn.trimKeepGroups } : drawn;
    const config = c.saver === "postgres" ? { ...trimmed, archiveEncrypted: false } : trimmed;
    const ops = `ops: ${c.ops.map((op, i) => `${i} ${op.kind}(${op.by})${"back" in op ? ` back=${op.back}` : ""}`).join(", ")}`;
    const run = async <T>(what: string, body: () => Promise<T>): Promise<T> => {
      try {
        return await body();
      } catch (error) {
        throw new Error(`case ${index} (${c.saver}, ${what}; ${ops}): ${String(error)}`, { cause: error });
      }
    };
    const served = await run("archive run", () => runCase(c, config, processes, {}, { plantSaver: options.plantSaver }));
    const control = await run("control run", () => runCase(c, { ...config, kind: "preset" }, processes, {}, { control: served }));
    addRun(tallies.served, served, c.saver);
    const race = c.ops.findIndex((op) => op.kind === "concurrent" || (op.kind === "interrupted" && op.how === "abort"));
    const compared = compareWithControl(served, control, tallies, race === -1 ? undefined : race);
    const mismatches = [...served.mismatches, ...control.mismatches.map((m) => `control: ${m}`), ...compared.threads];
    options.onCase?.(index, tallies);
    if (mismatches.length > 0 || compared.requests.length > 0)
      failures.push({
        index,
        saver: c.saver,
        config,
        mismatches: mismatches.length > 0 ? [ops, ...mismatches.slice(0, 3)] : [],
        requests: compared.requests.length > 0 ? [ops, ...compared.requests.slice(0, 2)] : [],
      });
  }
  return { tallies, failures };
}
