/** bench/replay-cost.ts `--turbofan` reads V8's code log with `turbofanCounts`. */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { turbofanCounts } from "../bench/support/turbofan-log.js";

const OURS = (location: string) => location.includes("/packages/");

describe("turbofanCounts", () => {
  it("counts tier-13 code-creation events as TurboFan jobs, keyed by name and location, and bills each deopt to its code's function", () => {
    const log = [
      "v8-version,11,3,244,8,0,0",
      // Interpreted and baseline code (tiers 10, 11): not TurboFan's.
      "code-creation,JS,10,100,0xa000,120,groupMessages file:///w/packages/core/src/groups.ts:1:40,0x1,~",
      "code-creation,JS,11,110,0xa100,300,groupMessages file:///w/packages/core/src/groups.ts:1:40,0x1,^",
      "code-creation,JS,13,200,0xb000,4000,groupMessages file:///w/packages/core/src/groups.ts:1:40,0x1,*",
      // A name holding commas (a computed name), outside our packages.
      "code-creation,JS,13,210,0xc000,1000,get a,b file:///w/node_modules/x/index.js:3:7,0x2,*",
      "code-deopt,300,4000,0xb000,-1,37,deopt-eager,<file:///w/packages/core/src/groups.ts:1:80>,wrong map",
      "code-creation,JS,13,400,0xb800,4200,groupMessages file:///w/packages/core/src/groups.ts:1:40,0x1,*",
      // Moved code keeps its function; a deopt of code that is not TurboFan's is not counted.
      "code-move,0xc000,0xd000",
      "code-deopt,500,1000,0xd000,-1,3,deopt-lazy,<file:///w/node_modules/x/index.js:3:9>,(unknown)",
      "code-deopt,510,300,0xa100,-1,3,deopt-eager,<file:///w/packages/core/src/groups.ts:1:80>,wrong map",
      "code-creation,Builtin,2,1,0x100,768,DeoptimizationEntry_Eager",
      "",
    ].join("\n");
    const counts = turbofanCounts(log, OURS);
    expect(counts.jobs).toBe(3);
    expect(counts.codeKiB).toBeCloseTo(9200 / 1024, 6);
    expect(counts.deopts).toBe(2);
    expect(counts.functions).toBe(2);
    expect(counts.ours).toEqual({ functions: 1, jobs: 2, codeKiB: 8200 / 1024 });
    expect(counts.recompiled).toEqual([
      { function: "groupMessages file:///w/packages/core/src/groups.ts:1:40", jobs: 2, codeBytes: 8200, deopts: 1 },
    ]);
    expect(counts.ourFunctions.map((f) => f.function)).toEqual(["groupMessages file:///w/packages/core/src/groups.ts:1:40"]);
    expect(counts.ourFunctions[0]?.deopts).toBe(1);
    // The comma-holding name survives whole, and its deopt followed the move.
    expect(turbofanCounts(log, (location) => location.startsWith("get a,b ")).ourFunctions).toEqual([
      { function: "get a,b file:///w/node_modules/x/index.js:3:7", jobs: 1, codeBytes: 1000, deopts: 1 },
    ]);
  });

  it("reads a real log: a function made hot is compiled by TurboFan, and deoptimized when its map changes", () => {
    const dir = mkdtempSync(join(tmpdir(), "turbofan-log-"));
    try {
      const logfile = join(dir, "v8.log");
      const script = [
        "function sumX(o) { return o.x + 1; }",
        "let t = 0;",
        "for (let i = 0; i < 3e5; i += 1) t += sumX({ x: i });",
        "for (let i = 0; i < 10; i += 1) t += sumX({ y: 1, x: i });",
        "console.log(t > 0);",
      ].join("\n");
      const run = spawnSync(
        process.execPath,
        ["--log-code", "--log-deopt", `--logfile=${logfile}`, "--no-logfile-per-isolate", "--no-concurrent-recompilation", "-e", script],
        { encoding: "utf8" },
      );
      expect(run.status).toBe(0);
      const counts = turbofanCounts(readFileSync(logfile, "utf8"), (location) => location.startsWith("sumX "));
      expect(counts.jobs).toBeGreaterThan(0);
      expect(counts.ours.jobs).toBeGreaterThanOrEqual(1);
      expect(counts.ourFunctions[0]?.deopts).toBeGreaterThanOrEqual(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
