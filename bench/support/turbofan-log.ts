/**
 * What V8's optimizing compiler made in one process, read from its log (`node --log-code
 * --log-deopt --logfile=<file> --no-logfile-per-isolate`): bench/replay-cost.ts `--turbofan`.
 * Counts, not times: TurboFan's job times in `--trace-opt` are wall times of threads that wait for
 * a CPU on a loaded machine, while what it compiled (jobs, bytes of machine code) and how often
 * compiled code was thrown away (deoptimizations) do not depend on the load.
 *
 * A `code-creation` event of kind `JS` and tier 13 is one TurboFan job (OSR included): its 6th
 * field is the machine code's size in bytes, the fields after it up to the last two the function's
 * name and location (`name file:///...:line:column`; a name may hold commas). A `code-deopt` event
 * names the code thrown away by its address (4th field), billed to the function that code was
 * made for (`code-move` events followed). Functions are keyed by name and location, so a function
 * compiled again (after a deoptimization, or for a closure whose feedback differs) counts its jobs
 * together.
 */

/** One function's TurboFan jobs. */
export interface TurbofanFunction {
  /** Name and location as V8 logs them (`name file:///path:line:column`; the name may be empty). */
  function: string;
  jobs: number;
  /** Machine code made over all its jobs, bytes. */
  codeBytes: number;
  /** Deoptimizations of its TurboFan code. */
  deopts: number;
}

/** What TurboFan made in the logged process. */
export interface TurbofanCounts {
  jobs: number;
  /** Machine code made, KiB (1,024 bytes). */
  codeKiB: number;
  /** Deoptimizations of TurboFan code (eager, lazy and soft). */
  deopts: number;
  /** Functions compiled at least once. */
  functions: number;
  /** Functions `isOurs` accepts: their jobs and code. */
  ours: { functions: number; jobs: number; codeKiB: number };
  /** Functions compiled more than once, most jobs first: a deoptimization loop shows here. */
  recompiled: TurbofanFunction[];
  /** Functions `isOurs` accepts, most code first. */
  ourFunctions: TurbofanFunction[];
}

/** TurboFan's tier in `code-creation` events (V8's `CodeKind::TURBOFAN`). */
const TURBOFAN_TIER = "13";

/**
 * Counts the TurboFan jobs and deoptimizations of a V8 log.
 * @param log the log's text (`--log-code --log-deopt`; other events are skipped)
 * @param isOurs which functions (by name and location) are counted under `ours`
 */
export function turbofanCounts(log: string, isOurs: (location: string) => boolean): TurbofanCounts {
  const byFunction = new Map<string, TurbofanFunction>();
  // Address of each live TurboFan code object -> its function.
  const codeAt = new Map<string, TurbofanFunction>();
  let jobs = 0;
  let codeBytes = 0;
  let deopts = 0;
  for (const line of log.split("\n")) {
    if (line.startsWith("code-creation,JS,")) {
      const fields = line.split(",");
      if (fields[2] !== TURBOFAN_TIER || fields.length < 9) {
        // A baseline or interpreted object at an address TurboFan code left: no longer TurboFan's.
        if (fields[4] !== undefined) codeAt.delete(fields[4]);
        continue;
      }
      const size = Number(fields[5]);
      const name = fields.slice(6, -2).join(",").trim();
      let entry = byFunction.get(name);
      if (entry === undefined) {
        entry = { function: name, jobs: 0, codeBytes: 0, deopts: 0 };
        byFunction.set(name, entry);
      }
      entry.jobs += 1;
      entry.codeBytes += size;
      jobs += 1;
      codeBytes += size;
      codeAt.set(fields[4] as string, entry);
    } else if (line.startsWith("code-move,")) {
      const [, from, to] = line.split(",");
      const entry = from === undefined ? undefined : codeAt.get(from);
      if (entry !== undefined && to !== undefined) {
        codeAt.delete(from as string);
        codeAt.set(to, entry);
      }
    } else if (line.startsWith("code-deopt,")) {
      const entry = codeAt.get(line.split(",")[3] ?? "");
      if (entry === undefined) continue;
      entry.deopts += 1;
      deopts += 1;
    }
  }
  const all = [...byFunction.values()];
  const ours = all.filter((entry) => isOurs(entry.function));
  return {
    jobs,
    codeKiB: codeBytes / 1024,
    deopts,
    functions: all.length,
    ours: {
      functions: ours.length,
      jobs: ours.reduce((sum, entry) => sum + entry.jobs, 0),
      codeKiB: ours.reduce((sum, entry) => sum + entry.codeBytes, 0) / 1024,
    },
    recompiled: all.filter((entry) => entry.jobs > 1).sort((a, b) => b.jobs - a.jobs || b.codeBytes - a.codeBytes),
    ourFunctions: ours.sort((a, b) => b.codeBytes - a.codeBytes),
  };
}
