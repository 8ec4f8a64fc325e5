/**
 * Runs every benchmark the way a reviewer re-runs it on data of their own: `--data <file>` other than
 * the committed default (a Korean LoCoMo-format conversation, three tau-bench runs), `--json`, and
 * options that keep each run short. A benchmark passes when it exits 0 and prints one JSON
 * document holding measured figures (finite numbers); a crash on a file without the default's
 * sample ids, a harness that no longer fits a middleware, or a stray line on stdout fails it.
 * Figures themselves are not checked here: they are what the benchmarks report.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { TAU_AIRLINE_PATH } from "../data/paths.js";

const root = resolve(import.meta.dirname, "..");
const run = promisify(execFile);
const temp = mkdtempSync(join(tmpdir(), "tw-bench-smoke-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const KOREAN_LOCOMO = resolve(root, "bench/fixtures/korean-office.locomo.json");
const KOREAN_FACTS = resolve(root, "bench/fixtures/korean-facts-heldout.labelled.json");
/** The last three runs of the committed tau-bench file, as another `--data` file. */
const TAU_SLICE = join(temp, "tau-slice.json");
writeFileSync(TAU_SLICE, JSON.stringify((JSON.parse(readFileSync(TAU_AIRLINE_PATH, "utf8")) as unknown[]).slice(-3)));

/** Each benchmark with short options on non-default data (`--json` is added to every one). */
const RUNS: Array<{ bench: string; args: string[] }> = [
  { bench: "replay-cost", args: ["--data", KOREAN_LOCOMO, "--sizes", "1000", "--steps", "2", "--savers", "memory,sqlite"] },
  {
    bench: "scale",
    args: [
      "--data",
      KOREAN_LOCOMO,
      "--threads",
      "10",
      "--calls",
      "5",
      "--recall-threads",
      "",
      "--step-threads",
      "",
      "--fact-index-threads",
      "",
      "--cold-sizes",
      "",
    ],
  },
  { bench: "step", args: ["--data", KOREAN_LOCOMO, "--sizes", "100", "--steps", "2", "--runs", "1", "--savers", "memory"] },
  { bench: "overhead", args: ["--data", KOREAN_LOCOMO, "--runs", "1", "--calls", "2", "--sizes", "1000", "--no-profile"] },
  { bench: "summarize", args: ["--data", KOREAN_LOCOMO, "--imported", "200"] },
  { bench: "placement", args: ["--data", KOREAN_LOCOMO] },
  { bench: "cost", args: ["--data", KOREAN_LOCOMO, "--summarizer-ms", "10"] },
  { bench: "facts", args: ["--data", KOREAN_LOCOMO] },
  { bench: "fact-read", args: ["--data", KOREAN_LOCOMO, "--sizes", "50,200", "--calls", "5"] },
  { bench: "recall", args: ["--data", KOREAN_LOCOMO] },
  { bench: "user-memory", args: ["--data", KOREAN_LOCOMO, "--cost-items", "50", "--cost-calls", "3", "--cost-warmup", "3"] },
  { bench: "fact-extraction", args: ["--data", KOREAN_FACTS] },
  { bench: "token-count", args: ["--data", TAU_SLICE] },
  { bench: "token-cap", args: ["--data", TAU_SLICE, "--locomo", KOREAN_LOCOMO, "--sizes", "1000", "--calls", "2"] },
];

/** Whether `value` holds a finite number anywhere. */
function holdsFigure(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (Array.isArray(value)) return value.some(holdsFigure);
  if (value !== null && typeof value === "object") return Object.values(value).some(holdsFigure);
  return false;
}

const tsx = (bench: string, args: string[]) =>
  run(resolve(root, "node_modules/.bin/tsx"), [resolve(root, "bench", `${bench}.ts`), ...args], {
    cwd: root,
    env: { ...process.env, TMPDIR: temp },
    timeout: 290_000,
    maxBuffer: 256 * 1024 * 1024,
  });

describe("benchmarks run on other data with --json", () => {
  for (const { bench, args } of RUNS) {
    it(`bench/${bench}.ts`, { timeout: 300_000 }, async () => {
      const { stdout } = await tsx(bench, [...args, "--json"]);
      const figures: unknown = JSON.parse(stdout);
      expect(holdsFigure(figures)).toBe(true);
    });
  }

  it("a data file of the wrong format is refused by name", { timeout: 120_000 }, async () => {
    const failed = await tsx("token-count", ["--data", KOREAN_LOCOMO, "--json"]).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.code).not.toBe(0);
    expect(failed?.stderr).toContain(`--data ${KOREAN_LOCOMO}: not a tau-bench runs file: [0].traj:`);
  });

  // The quality benches, each given a file of the other kind: exit code 2 and one line naming the
  // file and the first field that does not fit (bench/support/data-file.ts), no stack trace.
  for (const [bench, data, expected] of [
    ["recall", KOREAN_FACTS, `--data ${KOREAN_FACTS}: not a LoCoMo-format file: (file):`],
    ["facts", KOREAN_FACTS, `--data ${KOREAN_FACTS}: not a LoCoMo-format file: (file):`],
    ["user-memory", KOREAN_FACTS, `--data ${KOREAN_FACTS}: not a LoCoMo-format file: (file):`],
    ["summarize", TAU_SLICE, `--data ${TAU_SLICE}: not a LoCoMo-format file: [0].sample_id:`],
    ["fact-extraction", KOREAN_LOCOMO, `--data ${KOREAN_LOCOMO}: not a labelled fact file: (file):`],
  ] as const) {
    it(`bench/${bench}.ts refuses a file of another kind by field`, { timeout: 120_000 }, async () => {
      const failed = await tsx(bench, ["--data", data, "--json"]).then(
        () => undefined,
        (error: { code?: number; stderr?: string; stdout?: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stdout).toBe("");
      expect(failed?.stderr?.trim().split("\n")).toHaveLength(1);
      expect(failed?.stderr).toContain(expected);
    });
  }

  it("a --conversation the file does not hold is refused with the ids it holds", { timeout: 120_000 }, async () => {
    const failed = await tsx("summarize", ["--data", KOREAN_LOCOMO, "--conversation", "conv-26", "--json"]).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.stderr).toContain("--conversation: no conversation conv-26");
    expect(failed?.stderr).toContain("it holds ko-office");
  });
});
