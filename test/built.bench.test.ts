/**
 * `--built` (bench/support/built.ts) refuses a package whose `dist` is missing or older than its
 * sources, naming the option, the file and `pnpm build`. Here on a made-up repository with set
 * modification times; the run on the real build is in built.bench.slow.test.ts.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StaleBuildError, staleBuilds } from "../bench/support/built.js";
import { BenchOptionError } from "../bench/support/data-file.js";

const EXPORTS = {
  ".": {
    import: { types: "./dist/index.d.mts", default: "./dist/index.mjs" },
    require: { types: "./dist/index.d.cts", default: "./dist/index.cjs" },
  },
  "./package.json": "./package.json",
};
const DIST = ["dist/index.d.mts", "dist/index.mjs", "dist/index.d.cts", "dist/index.cjs"];
/** A fixed moment, seconds: sources at T, the build at T + 100. */
const T = 1_700_000_000;

let root: string;
function file(path: string, at: number, text = "export {};\n"): void {
  const full = join(root, path);
  mkdirSync(dirname(full), { recursive: true });
  writeFileSync(full, text);
  utimesSync(full, at, at);
}
/** A package `name` whose sources (a nested one included) are at T and, with `built`, its dist at T + 100. */
function pkg(name: string, built: boolean): void {
  file(`packages/${name}/package.json`, T, JSON.stringify({ name: `@threadwise/${name}`, exports: EXPORTS }));
  file(`packages/${name}/tsdown.config.ts`, T);
  file(`packages/${name}/src/index.ts`, T);
  file(`packages/${name}/src/deep/part.ts`, T);
  if (built) for (const path of DIST) file(`packages/${name}/${path}`, T + 100);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "tw-built-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("staleBuilds", () => {
  it("is empty when every package's exported dist files are newer than its sources", () => {
    pkg("core", true);
    pkg("memory", true);
    expect(staleBuilds(root)).toEqual([]);
  });

  it("names a package without its dist, and the first exported file missing", () => {
    pkg("core", true);
    pkg("memory", false);
    expect(staleBuilds(root)).toEqual([{ pkg: "memory", problem: "missing", dist: "packages/memory/dist/index.d.mts" }]);
    // One exported file missing is enough.
    pkg("memory", true);
    rmSync(join(root, "packages/memory/dist/index.cjs"));
    expect(staleBuilds(root)).toEqual([{ pkg: "memory", problem: "missing", dist: "packages/memory/dist/index.cjs" }]);
  });

  it("names a package whose oldest dist file is older than its newest source, nested sources and its package.json included", () => {
    pkg("core", true);
    pkg("memory", true);
    utimesSync(join(root, "packages/memory/dist/index.mjs"), T + 50, T + 50);
    file("packages/memory/src/deep/part.ts", T + 60, "export const changed = 1;\n");
    expect(staleBuilds(root)).toEqual([
      { pkg: "memory", problem: "stale", dist: "packages/memory/dist/index.mjs", source: "packages/memory/src/deep/part.ts" },
    ]);
    utimesSync(join(root, "packages/core/package.json"), T + 200, T + 200);
    expect(staleBuilds(root).map((s) => [s.pkg, s.source])).toEqual([
      ["core", "packages/core/package.json"],
      ["memory", "packages/memory/src/deep/part.ts"],
    ]);
  });

  it("leaves test files out: a test edited after the build does not make it stale", () => {
    pkg("memory", true);
    file("packages/memory/src/part.test.ts", T + 500);
    expect(staleBuilds(root)).toEqual([]);
  });
});

describe("StaleBuildError", () => {
  it("is a BenchOptionError naming --built, each package's file, and pnpm build", () => {
    const error = new StaleBuildError([
      { pkg: "core", problem: "missing", dist: "packages/core/dist/index.mjs" },
      { pkg: "memory", problem: "stale", dist: "packages/memory/dist/index.cjs", source: "packages/memory/src/saver.ts" },
    ]);
    expect(error).toBeInstanceOf(BenchOptionError);
    expect(error.option).toBe("--built");
    expect(error.code).toBe("BENCH_OPTION");
    expect(error.message).toMatch(/^--built: /);
    expect(error.message).toContain("packages/core/dist/index.mjs is missing");
    expect(error.message).toContain("packages/memory/dist/index.cjs is older than packages/memory/src/saver.ts");
    expect(error.message).toContain("run `pnpm build` first (`pnpm build --force` when turbo replays its cache");
    expect(error.stale).toHaveLength(2);
  });
});
