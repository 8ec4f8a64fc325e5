/**
 * `--built`: a benchmark measures the packages' built `dist`, as a user's install runs them, instead
 * of their `src` under tsx.
 *
 * By default the benches import `@threadwise/*` from `packages/<name>/src` (the root tsconfig's
 * `paths`), which tsx compiles with esbuild's `keepNames`: every function or class our code creates
 * at run time then pays a `__name(...)` call that the tsdown build does not have, while LangChain
 * runs as built JS from node_modules. With `--built`, {@link runBuiltIfAsked} checks that every
 * package's `dist` is there and newer than its sources, then runs the benchmark again in a child
 * process with `TSX_TSCONFIG_PATH` set to `bench/tsconfig.built.json`: the same compiler options,
 * but `paths` that send each `@threadwise/<name>` to `packages/<name>/dist/index.mjs` (and
 * `@threadwise/core/testing` to `dist/testing.mjs`), the files the packages' `exports` give an
 * `import`. The bench's own files still run under tsx; tsx loads `.mjs` files as they are (no
 * `keepNames`), and a built package's own `@threadwise/*` imports go to `dist` through the same
 * `paths`. The child's children (scale.ts's cold samples) inherit the setting.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { BenchOptionError } from "./data-file.js";

/** The repository's root (this file is bench/support/built.ts). */
const ROOT = resolve(import.meta.dirname, "../..");
/** The tsconfig the `--built` child runs with: the root's, `paths` into each package's `dist`. */
export const BUILT_TSCONFIG = join(ROOT, "bench", "tsconfig.built.json");

/** Which code a benchmark measured: the packages' sources under tsx, or their tsdown build. */
export type MeasuredCode = "src" | "built";

/** One package whose build cannot be measured: its `dist` file is missing, or older than a source. */
export interface StaleBuild {
  /** The package's directory name under `packages/` (`memory`). */
  pkg: string;
  problem: "missing" | "stale";
  /** The dist file missing or oldest, repository-relative (`packages/memory/dist/index.mjs`). */
  dist: string;
  /** For `stale`: the newest source file, repository-relative, modified after `dist`. */
  source?: string;
}

/**
 * `--built` with a package whose `dist` is missing or older than its sources: the run would
 * measure code that is not the code in `src`. `option` is `--built`; `stale` lists each package
 * and why. Ends a benchmark with its one line and exit code 2, as every {@link BenchOptionError}.
 */
export class StaleBuildError extends BenchOptionError {
  readonly stale: readonly StaleBuild[];
  constructor(stale: readonly StaleBuild[]) {
    const which = stale.map((s) => (s.problem === "missing" ? `${s.dist} is missing` : `${s.dist} is older than ${s.source}`)).join("; ");
    super(
      "--built",
      `the packages' build is not current (${which}): run \`pnpm build\` first (\`pnpm build --force\` when turbo replays its cache, FULL TURBO, and leaves the files' times as they were), or leave out --built to measure src`,
    );
    this.name = "StaleBuildError";
    this.stale = stale;
  }
}

/** Every string an `exports` map points at, `./package.json` left out. */
function exportTargets(exports: unknown): string[] {
  if (typeof exports === "string") return exports.endsWith("package.json") ? [] : [exports];
  if (exports === null || typeof exports !== "object") return [];
  return Object.values(exports).flatMap(exportTargets);
}

/** Newest mtime among `dir`'s files, recursively; test files (`*.test.ts`, never built) left out. */
function newestFile(dir: string): { path: string; mtimeMs: number } | undefined {
  let newest: { path: string; mtimeMs: number } | undefined;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || entry.name.endsWith(".test.ts")) continue;
    const path = join(entry.parentPath, entry.name);
    const { mtimeMs } = statSync(path);
    if (!newest || mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
  }
  return newest;
}

/**
 * The packages whose build does not match their sources: a file their `package.json` `exports`
 * name is missing, or the oldest of them is older than the newest file of `src/` (tests left out),
 * `package.json` or `tsdown.config.ts`. By modification time, so a source saved again unchanged
 * (or rewritten by a git checkout) counts as changed; turbo, which keys its cache by content, then
 * answers `pnpm build` from its cache without rewriting `dist`, and `pnpm build --force` is needed.
 *
 * @param root - the repository's root; @default this repository
 * @returns one entry per such package, in directory order; `[]` when every build is current
 */
export function staleBuilds(root: string = ROOT): StaleBuild[] {
  const packagesDir = join(root, "packages");
  const stale: StaleBuild[] = [];
  for (const pkg of readdirSync(packagesDir).sort()) {
    const dir = join(packagesDir, pkg);
    if (!existsSync(join(dir, "package.json")) || !existsSync(join(dir, "src"))) continue;
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { exports?: unknown };
    const targets = exportTargets(manifest.exports).map((target) => join(dir, target));
    const missing = targets.find((target) => !existsSync(target));
    if (missing) {
      stale.push({ pkg, problem: "missing", dist: relative(root, missing) });
      continue;
    }
    const oldest = targets.map((path) => ({ path, mtimeMs: statSync(path).mtimeMs })).sort((a, b) => a.mtimeMs - b.mtimeMs)[0];
    const inputs = [
      newestFile(join(dir, "src")),
      ...["package.json", "tsdown.config.ts"]
        .map((name) => join(dir, name))
        .filter((path) => existsSync(path))
        .map((path) => ({ path, mtimeMs: statSync(path).mtimeMs })),
    ];
    const newest = inputs.filter((input) => input !== undefined).sort((a, b) => b.mtimeMs - a.mtimeMs)[0];
    if (oldest && newest && newest.mtimeMs > oldest.mtimeMs)
      stale.push({ pkg, problem: "stale", dist: relative(root, oldest.path), source: relative(root, newest.path) });
  }
  return stale;
}

/** This process runs with the `--built` tsconfig (it is the child {@link runBuiltIfAsked} started, or one of its children). */
function inBuiltChild(): boolean {
  const tsconfig = process.env.TSX_TSCONFIG_PATH;
  return tsconfig !== undefined && resolve(tsconfig) === BUILT_TSCONFIG;
}

/**
 * With `built` true, in the first process: refuses a missing or stale build
 * ({@link StaleBuildError}), then runs this benchmark again (same Node flags, tsx's loader
 * included, and arguments) with `TSX_TSCONFIG_PATH` set to {@link BUILT_TSCONFIG}, its stdio
 * inherited, and exits with its exit code. In that child, and with `built` false, it returns.
 *
 * @param built - `--built` was given
 * @throws StaleBuildError (option `--built`) naming each package whose dist is missing or older than its src
 */
export function runBuiltIfAsked(built: boolean): void {
  if (!built || inBuiltChild()) return;
  const stale = staleBuilds();
  if (stale.length > 0) throw new StaleBuildError(stale);
  const { status } = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: "inherit",
    env: { ...process.env, TSX_TSCONFIG_PATH: BUILT_TSCONFIG },
  });
  process.exit(status ?? 1);
}

/**
 * Where this process loads each `@threadwise/*` package from, and so which code it measures:
 * `built` when every package resolves into its `dist/`, `src` when every one resolves into `src/`.
 *
 * @returns `code`, and `modules`: each package's entry point, repository-relative
 * @throws Error when some resolve into `dist/` and others not (a mix is neither)
 */
export function measuredCode(): { code: MeasuredCode; modules: Record<string, string> } {
  const modules: Record<string, string> = {};
  for (const pkg of readdirSync(join(ROOT, "packages")).sort()) {
    if (!existsSync(join(ROOT, "packages", pkg, "src", "index.ts"))) continue;
    modules[`@threadwise/${pkg}`] = relative(ROOT, fileURLToPath(import.meta.resolve(`@threadwise/${pkg}`)));
  }
  const where = Object.values(modules).map((path) => (/^packages\/[^/]+\/dist\//.test(path) ? "built" : "src"));
  if (new Set(where).size > 1) throw new Error(`@threadwise/* packages load from both dist and src: ${JSON.stringify(modules)}`);
  return { code: where[0] === "built" ? "built" : "src", modules };
}
