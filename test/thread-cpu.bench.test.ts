/**
 * bench/replay-cost.ts `--thread-cpu` reads each thread's name from `/proc/self/task/<tid>/stat`
 * and its CPU from `schedstat` around each step, and bills the difference to the step's lane by
 * thread (bench/support/thread-cpu.ts).
 */
import { describe, expect, it } from "vitest";
import { billThreads, parseTaskStat, readThreads, type ThreadReading, threadCpuPerStep, threadKey } from "../bench/support/thread-cpu.js";

// proc(5): pid (comm) state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime ...
const statLine = (comm: string, utime: number, stime: number) =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 1200 0 3 0 ${utime} ${stime} 0 0 20 0 12 0 4455 1234567 890 18446744073709551615\n`;

describe("parseTaskStat", () => {
  it("reads comm and utime + stime (fields 14 and 15)", () => {
    expect(parseTaskStat(statLine("node", 31, 7))).toEqual({ comm: "node", ticks: 38 });
  });

  it("takes comm up to the LAST parenthesis, spaces and parentheses included", () => {
    expect(parseTaskStat(statLine("V8 DefaultWorke", 5, 1))).toEqual({ comm: "V8 DefaultWorke", ticks: 6 });
    expect(parseTaskStat(statLine("a) b (c", 2, 3))).toEqual({ comm: "a) b (c", ticks: 5 });
  });

  it("refuses a line without (comm) or without utime/stime, quoting it", () => {
    expect(() => parseTaskStat("4242 node S 1")).toThrow(/no "\(comm\)".*4242 node/);
    expect(() => parseTaskStat("4242 (node) S 1 2 3")).toThrow(/no utime\/stime/);
  });
});

describe("threadKey", () => {
  it("names the main thread main and the others by comm and offset from it", () => {
    expect(threadKey(100, 100, "")).toBe("main");
    expect(threadKey(103, 100, "node")).toBe("node#+3");
  });
});

describe("billThreads", () => {
  const reading = (rows: Array<[number, string, number]>): ThreadReading => new Map(rows.map(([tid, name, ns]) => [tid, { name, ns }]));

  it("bills each thread's difference by key, a new thread from 0, an ended one not at all, idle ones not counted", () => {
    const bill = new Map<string, { tids: Set<number>; ns: number }>();
    billThreads(
      reading([
        [1, "main", 1_000_000],
        [2, "node#+1", 500_000],
        [3, "node#+2", 700_000],
        [9, "node#+8", 100],
      ]),
      reading([
        [1, "main", 4_000_000],
        [2, "node#+1", 1_500_000],
        [3, "node#+2", 700_000],
        [5, "node#+4", 250_000],
      ]),
      bill,
    );
    // A second step of the same lane adds to the same keys.
    billThreads(reading([[1, "main", 4_000_000]]), reading([[1, "main", 5_000_000]]), bill);
    expect(threadCpuPerStep(bill, 2)).toEqual({
      main: { threads: 1, ms: 2 },
      "node#+1": { threads: 1, ms: 0.5 },
      "node#+4": { threads: 1, ms: 0.125 },
    });
    // Most CPU first.
    expect(Object.keys(threadCpuPerStep(bill, 2))).toEqual(["main", "node#+1", "node#+4"]);
  });

  it.runIf(process.platform === "linux")("reads this process's threads: the main thread and its CPU growing", () => {
    const before = readThreads();
    let x = 0;
    for (let i = 0; i < 2_000_000; i += 1) x += Math.sqrt(i);
    const after = readThreads();
    expect(x).toBeGreaterThan(0);
    const bill = new Map<string, { tids: Set<number>; ns: number }>();
    billThreads(before, after, bill);
    expect([...after.values()].filter((t) => t.name === "main")).toHaveLength(1);
    expect(bill.get("main")?.ns).toBeGreaterThan(0);
  });
});
