/**
 * `pnpm tsx bench/<name>.ts --help` prints the benchmark's usage (the doc comment its file starts
 * with) and exits 0, for every benchmark script: one copy of it, in bench/support/cli.ts
 * (`benchArgs` calls `exitOnHelp`; the two scripts with options of their own call it first).
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it, vi } from "vitest";
import { benchUsage, exitOnHelp } from "../bench/support/cli.js";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const SCRIPTS = readdirSync(resolve(root, "bench")).filter((name) => name.endsWith(".ts"));

describe("bench --help", () => {
  afterEach(() => vi.restoreAllMocks());

  it.each(SCRIPTS)("bench/%s has a usage header and reaches exitOnHelp before any work", (name) => {
    const source = readFileSync(resolve(root, "bench", name), "utf8");
    const usage = benchUsage(source);
    expect(usage.length).toBeGreaterThan(80);
    expect(usage).not.toMatch(/^\s*\*|\*\/$/m);
    // Through benchArgs (which calls it first) or by a direct call.
    expect(/\bbenchArgs\(|\bexitOnHelp\(\)/.test(source)).toBe(true);
  });

  it("benchUsage: the leading doc comment without its marks, '' without one", () => {
    expect(benchUsage("/**\n * Recall on LoCoMo.\n *\n *   pnpm tsx bench/recall.ts --json\n */\nimport x;")).toBe(
      "Recall on LoCoMo.\n\n  pnpm tsx bench/recall.ts --json",
    );
    expect(benchUsage("import x;\n/** later */")).toBe("");
  });

  it("exitOnHelp prints the usage and exits 0 on --help or -h, not after `--` nor without it", () => {
    const exit = vi.spyOn(process, "exit").mockImplementation((() => undefined) as never);
    const write = vi.spyOn(process.stdout, "write").mockImplementation(() => true);
    const file = resolve(root, "bench/recall.ts");
    const argv = process.argv;
    try {
      for (const [args, helps] of [
        [["--help"], true],
        [["--json", "-h"], true],
        [["--json"], false],
        [["--", "--help"], false],
      ] as const) {
        exit.mockClear();
        write.mockClear();
        process.argv = [argv[0] as string, file, ...args];
        exitOnHelp(file);
        expect(exit.mock.calls).toEqual(helps ? [[0]] : []);
        expect(write.mock.calls.map(([text]) => String(text))).toEqual(helps ? [`${benchUsage(readFileSync(file, "utf8"))}\n`] : []);
      }
    } finally {
      process.argv = argv;
    }
  });

  it("pnpm tsx bench/recall.ts --help exits 0 with the header on stdout", async () => {
    const { stdout } = await run(resolve(root, "node_modules/.bin/tsx"), ["bench/recall.ts", "--help"], { cwd: root });
    expect(stdout).toMatch(/^Recall on LoCoMo-format conversations/);
    expect(stdout).toContain("Run: pnpm tsx bench/recall.ts [--data <file>]");
  });
});
