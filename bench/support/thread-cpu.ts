/**
 * The CPU of each of this process's threads, by thread name (Linux `/proc/self/task/<tid>`), for
 * bench/replay-cost.ts `--thread-cpu`: read around each step, so the CPU V8's worker threads
 * (concurrent marking, sweeping, TurboFan: `V8 DefaultWorke`), libuv's pool (`libuv-worker`) and
 * the main thread spend while a configuration's step runs is billed to that configuration.
 * Node 20 names none of its threads (every `comm` is `node`), so each is keyed by its name and its
 * offset from the main thread's id (`node#+3`): threads are numbered in the order they start (V8's
 * platform workers first, then libuv's pool at its first use), the same threads for every lane
 * of one run.
 *
 * A thread's CPU is its `schedstat` run time (ns: a step of 10 ms is far below the 10 ms tick of
 * `stat`'s `utime` + `stime`); its name is `stat`'s `comm` (the same as `/comm`), read once per
 * thread id; the main thread (tid = pid) is named `main`. A thread that started during the step is
 * billed from 0; one that ended is left out (its last readings are gone with it).
 */
import { readdirSync, readFileSync } from "node:fs";

/** One thread's fields of `/proc/<pid>/task/<tid>/stat` that the bench reads. */
export interface TaskStat {
  /** `comm`: the thread's name, at most 15 characters (may hold spaces and parentheses). */
  comm: string;
  /** `utime` + `stime`, in clock ticks (`getconf CLK_TCK`, 100 on Linux). */
  ticks: number;
}

/**
 * Parses one `stat` line. `comm` is field 2 in parentheses and may itself hold `)` and spaces, so
 * it ends at the LAST `)`; `utime` and `stime` are fields 14 and 15 (proc(5)).
 *
 * @throws Error naming the line when it has no `(comm)` or fewer than 15 fields
 */
export function parseTaskStat(line: string): TaskStat {
  const open = line.indexOf("(");
  const close = line.lastIndexOf(")");
  if (open < 0 || close < open) throw new Error(`not a /proc stat line (no "(comm)"): ${JSON.stringify(line.slice(0, 80))}`);
  // After ") ": field 3 (state) is index 0, so field n is index n - 3.
  const rest = line
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const utime = Number(rest[14 - 3]);
  const stime = Number(rest[15 - 3]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime))
    throw new Error(`not a /proc stat line (no utime/stime): ${JSON.stringify(line.slice(0, 80))}`);
  return { comm: line.slice(open + 1, close), ticks: utime + stime };
}

/** A thread's key in the bill: `main` for the main thread, else its name and its id's offset from the main thread's (`node#+3`). */
export function threadKey(tid: number, pid: number, comm: string): string {
  return tid === pid ? "main" : `${comm}#+${tid - pid}`;
}

/** A reading of every thread: tid -> its name and its CPU ns so far. */
export type ThreadReading = Map<number, { name: string; ns: number }>;

const names = new Map<number, string>();

/** Reads every thread of this process (Linux). Empty where `/proc/self/task` does not exist. */
export function readThreads(): ThreadReading {
  const out: ThreadReading = new Map();
  let tids: string[];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return out;
  }
  for (const entry of tids) {
    const tid = Number(entry);
    try {
      let name = names.get(tid);
      if (name === undefined) {
        name = threadKey(
          tid,
          process.pid,
          tid === process.pid ? "" : parseTaskStat(readFileSync(`/proc/self/task/${entry}/stat`, "utf8")).comm,
        );
        names.set(tid, name);
      }
      out.set(tid, { name, ns: Number(readFileSync(`/proc/self/task/${entry}/schedstat`, "utf8").split(" ")[0]) });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** One thread name's share of a lane: how many threads of that name ran, and their CPU ms. */
export interface ThreadCpu {
  threads: number;
  ms: number;
}

/**
 * Adds what each thread ran between two readings to `into` (by thread key; `threads` counts the
 * distinct tids seen with CPU under that key, kept in `tids`: more than one when a thread ended and
 * another got its id). A thread only in `after` counts
 * from 0; one only in `before` is left out.
 */
export function billThreads(before: ThreadReading, after: ThreadReading, into: Map<string, { tids: Set<number>; ns: number }>): void {
  for (const [tid, { name, ns }] of after) {
    const delta = ns - (before.get(tid)?.ns ?? 0);
    if (delta <= 0) continue;
    let slot = into.get(name);
    if (!slot) {
      slot = { tids: new Set(), ns: 0 };
      into.set(name, slot);
    }
    slot.tids.add(tid);
    slot.ns += delta;
  }
}

/** `billThreads`' totals as ms per step by thread name, most CPU first. */
export function threadCpuPerStep(
  billed: ReadonlyMap<string, { tids: ReadonlySet<number>; ns: number }>,
  steps: number,
): Record<string, ThreadCpu> {
  return Object.fromEntries(
    [...billed].sort((a, b) => b[1].ns - a[1].ns).map(([name, { tids, ns }]) => [name, { threads: tids.size, ms: ns / 1e6 / steps }]),
  );
}
