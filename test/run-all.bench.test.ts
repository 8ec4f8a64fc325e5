/**
 * `pnpm bench` (bench/run-all.ts) refuses an `--only` or `--skip` name that is no benchmark, in one
 * line naming the option and listing the names, exit 2, before running anything (a typo such as
 * `--only fact` used to skip every benchmark silently and redraw the charts).
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const TSX = resolve(root, "node_modules/.bin/tsx");

describe("bench/run-all.ts --only / --skip", () => {
  it("refuses a name that is no benchmark, naming the option, exit 2", { timeout: 120_000 }, async () => {
    for (const [option, value] of [
      ["--only", "fact"],
      ["--skip", "overhead,요약"],
    ] as const) {
      const failed = await run(TSX, ["bench/run-all.ts", option, value], { cwd: root, timeout: 60_000 }).then(
        () => undefined,
        (error: { code?: number; stdout?: string; stderr?: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stdout).toBe("");
      expect(failed?.stderr?.trim().split("\n")).toEqual([
        expect.stringMatching(new RegExp(`^${option}: no benchmark "${value.split(",").at(-1)}"; the names are token-cap, `)),
      ]);
    }
  });
});
