/**
 * bench/replay-cost.ts refuses a bad diagnostic option in one line naming it, exit 2, before it
 * replays anything: `--lane-offset` not an integer (an empty one read as 0 before), the SQLite
 * settings `--wal-autocheckpoint` and `--sqlite-synchronous` out of range, and
 * `--wal-autocheckpoint` with `--wal-frames` (each was a plain Error with a stack, exit 1).
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const TSX = resolve(root, "node_modules/.bin/tsx");

/** The bench's exit code and stderr lines for `args` (it is expected to refuse them). */
async function refusal(args: string[]): Promise<{ code: number | undefined; lines: string[] }> {
  const failed = await run(TSX, ["bench/replay-cost.ts", "--json", "--sizes", "0", "--savers", "memory", ...args], {
    cwd: root,
    timeout: 110_000,
  }).then(
    () => undefined,
    (error: { code?: number; stderr?: string }) => error,
  );
  expect(failed, `replay-cost ${args.join(" ")} ran`).toBeDefined();
  const lines = String(failed?.stderr ?? "")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.startsWith("$ "));
  return { code: failed?.code, lines };
}

describe("bench/replay-cost.ts option errors", () => {
  it("refuses each bad option in one line naming it, exit 2", { timeout: 300_000 }, async () => {
    for (const [args, option] of [
      [["--lane-offset", "first"], "--lane-offset"],
      [["--lane-offset", ""], "--lane-offset"],
      [["--wal-autocheckpoint", "1.5"], "--wal-autocheckpoint"],
      [["--sqlite-synchronous", "가끔"], "--sqlite-synchronous"],
      [["--wal-autocheckpoint", "4000", "--wal-frames"], "--wal-autocheckpoint"],
    ] as const) {
      const { code, lines } = await refusal([...args]);
      expect({ args, code, lines }).toEqual({ args, code: 2, lines: [expect.stringMatching(new RegExp(`^${option}: `))] });
    }
  });
});
