/**
 * bench/replay-cost.ts `--savers`: a list naming `postgres` without a server URL, or a saver kind
 * it does not know, is refused in one line naming `--savers`, exit 2. Was: `postgres` dropped
 * silently (a run asked for three savers reported two, its JSON and summary without PostgreSQL),
 * and an unknown kind (`memroy`) ran the PostgreSQL lanes.
 */
import { execFile } from "node:child_process";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const TSX = resolve(root, "node_modules/.bin/tsx");

/** The environment without a PostgreSQL URL, so only `--postgres-url` could give one. */
function envWithoutPostgres(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.THREADWISE_TEST_POSTGRES_URL;
  return env;
}

async function refusal(savers: string) {
  // Nothing to measure (no replay, no size): a run that is not refused ends at once with its JSON.
  const args = ["bench/replay-cost.ts", "--json", "--no-replay", "--sizes", "0", "--savers", savers];
  return run(TSX, args, { cwd: root, timeout: 110_000, env: envWithoutPostgres() }).then(
    (done) => ({ code: 0, stdout: done.stdout, stderr: done.stderr }),
    (error: { code?: number; stdout?: string; stderr?: string }) => error,
  );
}

describe("bench/replay-cost.ts --savers", () => {
  it("refuses postgres without a URL, and a saver kind it does not know, naming --savers, exit 2", { timeout: 240_000 }, async () => {
    for (const [savers, problem] of [
      ["memory,postgres", /^--savers: postgres needs a server: give --postgres-url <url> or set THREADWISE_TEST_POSTGRES_URL$/],
      ["memroy,sqlite", /^--savers: unknown saver "memroy"/],
    ] as const) {
      const failed = await refusal(savers);
      expect(failed.code).toBe(2);
      expect(failed.stdout).toBe("");
      expect(failed.stderr?.trim().split("\n")).toEqual([expect.stringMatching(problem)]);
    }
  });

  it("runs a list without postgres as given", { timeout: 120_000 }, async () => {
    const done = await refusal("sqlite,memory");
    expect(done.code).toBe(0);
    expect(JSON.parse(done.stdout as string)).toMatchObject({ sizes: [], replay: [], sized: [] });
  });
});
