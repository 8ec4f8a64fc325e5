/**
 * bench/replay-cost.ts `--built` on the real build: it measures the packages' tsdown `dist`, each
 * `@threadwise/*` loaded from the file its `exports` give an `import`, with none of tsx's
 * `__name(...)` calls (`keepNames`), and says so in its JSON (`code: "built"`); without the option
 * it measures `src` (the control). With a dist file older than its sources it refuses, exit 2,
 * naming `--built`, the file and `pnpm build`. Slow: it runs `pnpm build` first when the build is
 * not current (about 3 minutes on 2 cores), then the bench on a short conversation twice. The
 * refusal ages one dist file's modification time for a moment and restores it.
 */
import { execFile, execFileSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, utimesSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { BUILT_TSCONFIG, staleBuilds } from "../bench/support/built.js";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const TSX = resolve(root, "node_modules/.bin/tsx");
const KOREAN_LOCOMO = resolve(root, "bench/fixtures/korean-office.locomo.json");
const ARGS = ["--data", KOREAN_LOCOMO, "--sizes", "0", "--savers", "memory", "--only", "langchain,archive", "--json"];

const tsx = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  run(TSX, args, { cwd: root, env: { ...process.env, ...env }, timeout: 290_000, maxBuffer: 64 * 1024 * 1024 });
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code?: number; stdout?: string; stderr?: string }) => error,
  );

/** What each package's `exports` give an ESM `import` of the package, repository-relative: a user's install loads that file. */
function userEntryPoints(): Record<string, string> {
  const entries: Record<string, string> = {};
  for (const pkg of readdirSync(resolve(root, "packages")).sort()) {
    const manifest = JSON.parse(readFileSync(resolve(root, "packages", pkg, "package.json"), "utf8")) as {
      exports: Record<string, { import?: { default?: string } }>;
    };
    const target = manifest.exports["."]?.import?.default;
    if (target) entries[`@threadwise/${pkg}`] = `packages/${pkg}/${target.replace(/^\.\//, "")}`;
  }
  return entries;
}

/** The functions and classes `@threadwise/memory` exports whose code calls tsx's `__name` (esbuild keepNames). */
const NAMED_PROBE =
  'import("@threadwise/memory").then((m) => console.log(Object.values(m).filter((v) => typeof v === "function" && String(v).includes("__name(")).length))';

beforeAll(() => {
  if (staleBuilds().length > 0) execFileSync("pnpm", ["build"], { cwd: root, stdio: "ignore", timeout: 15 * 60_000 });
  expect(staleBuilds()).toEqual([]);
}, 16 * 60_000);

describe("replay-cost --built", () => {
  it("measures each package's built entry point, as a user's install loads it, and says code: built; without it, src", {
    timeout: 600_000,
  }, async () => {
    const built = JSON.parse((await tsx(["bench/replay-cost.ts", ...ARGS, "--built"])).stdout) as {
      code: string;
      codeModules: Record<string, string>;
      summary: Array<{ replayArchiveOverLangchainCpu?: number }>;
    };
    expect(built.code).toBe("built");
    expect(built.codeModules).toEqual(userEntryPoints());
    expect(built.summary[0]?.replayArchiveOverLangchainCpu).toBeGreaterThan(0);

    const src = JSON.parse((await tsx(["bench/replay-cost.ts", ...ARGS])).stdout) as { code: string; codeModules: Record<string, string> };
    expect(src.code).toBe("src");
    for (const path of Object.values(src.codeModules)) expect(path).toMatch(/^packages\/[^/]+\/src\/index\.ts$/);
  });

  it("every bench takes --built and its JSON says which code it measured (printJson adds code)", { timeout: 300_000 }, async () => {
    const built = JSON.parse((await tsx(["bench/fact-read.ts", "--json", "--built"])).stdout) as { code: string };
    expect(built.code).toBe("built");
    const src = JSON.parse((await tsx(["bench/fact-read.ts", "--json"])).stdout) as { code: string };
    expect(src.code).toBe("src");
  });

  it("loads the dist as built, without tsx's __name calls that the src carries", { timeout: 120_000 }, async () => {
    const built = await tsx(["-e", NAMED_PROBE], { TSX_TSCONFIG_PATH: BUILT_TSCONFIG });
    expect(Number(built.stdout.trim())).toBe(0);
    const src = await tsx(["-e", NAMED_PROBE]);
    expect(Number(src.stdout.trim())).toBeGreaterThan(0);
  });

  it("refuses a dist file older than its sources, naming --built, the file and pnpm build", { timeout: 120_000 }, async () => {
    const dist = "packages/window-trim/dist/index.mjs";
    const { atime, mtime } = statSync(resolve(root, dist));
    utimesSync(resolve(root, dist), new Date("2000-01-01T00:00:00Z"), new Date("2000-01-01T00:00:00Z"));
    try {
      const failed = await failure(tsx(["bench/replay-cost.ts", ...ARGS, "--built"]));
      expect(failed?.code).toBe(2);
      expect(failed?.stdout).toBe("");
      expect(failed?.stderr).toMatch(new RegExp(`^--built: .*${dist} is older than packages/window-trim/.*pnpm build`, "m"));
    } finally {
      utimesSync(resolve(root, dist), atime, mtime);
    }
    expect(staleBuilds()).toEqual([]);
  });
});
