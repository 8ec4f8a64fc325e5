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
import { basename, join, resolve } from "node:path";
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

/** Two verbs and a noun of the committed Korean paradigm, as another `--data` file. */
const PARADIGM = join(temp, "paradigm-slice.json");
const paradigm = JSON.parse(readFileSync(resolve(root, "bench/fixtures/korean-paradigm.json"), "utf8")) as {
  verbs: unknown[];
  nouns?: unknown[];
};
writeFileSync(PARADIGM, JSON.stringify({ verbs: paradigm.verbs.slice(-2), nouns: (paradigm.nouns ?? []).slice(-1) }));

/** Labelled statements without a statement. */
const NO_STATEMENTS = join(temp, "no-statements.labelled.json");
writeFileSync(NO_STATEMENTS, JSON.stringify({ items: [] }));
/** A conversation of one speaker, without questions: nothing to replay, nothing to ask. */
const ONE_SPEAKER = join(temp, "one-speaker.locomo.json");
writeFileSync(
  ONE_SPEAKER,
  JSON.stringify([
    {
      sample_id: "one",
      conversation: { speaker_a: "A", speaker_b: "B", session_1: [{ speaker: "A", dia_id: "D1:1", text: "hello?" }] },
      qa: [],
    },
  ]),
);

/** Three runs of another domain (retail tools, one run without a tool call), as a reviewer writes them. */
const RETAIL = join(temp, "retail-runs.json");
const retailCall = (id: string, name: string, args: Record<string, unknown>) => ({
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }],
});
const RETAIL_RUNS = [
  [
    { role: "user", content: "I want to return the earbuds from order #W981." },
    retailCall("c1", "get_order_details", { order_id: "#W981" }),
    { role: "tool", tool_call_id: "c1", name: "get_order_details", content: '{"status":"delivered","items":[{"item_id":"645"}]}' },
    retailCall("c2", "return_delivered_order_items", { order_id: "#W981", item_ids: ["645"], payment_method_id: "paypal_1" }),
    { role: "tool", tool_call_id: "c2", name: "return_delivered_order_items", content: '{"status":"return requested"}' },
    { role: "assistant", content: "The return is requested; the refund goes to your PayPal." },
  ],
  [
    { role: "user", content: "Change the address of order #W242 to 255 Elm Street, Denver." },
    retailCall("c1", "modify_pending_order_address", { order_id: "#W242", address1: "255 Elm Street", city: "Denver" }),
    { role: "tool", tool_call_id: "c1", name: "modify_pending_order_address", content: "" },
    { role: "assistant", content: "Done: the order ships to 255 Elm Street, Denver." },
  ],
  [
    { role: "user", content: "What are your opening hours?" },
    { role: "assistant", content: "Our support answers around the clock." },
  ],
].map((traj, task) => ({ task_id: task, trial: 0, traj: [{ role: "system", content: "# Retail agent policy" }, ...traj] }));
writeFileSync(RETAIL, JSON.stringify(RETAIL_RUNS));
/** The retail runs cut to their system prompt: no message a thread or a model call could be built from. */
const SYSTEM_ONLY = join(temp, "system-only-runs.json");
writeFileSync(SYSTEM_ONLY, JSON.stringify(RETAIL_RUNS.map((run) => ({ ...run, traj: run.traj.slice(0, 1) }))));
/** The retail runs with one tool call's arguments cut short. */
const RETAIL_BROKEN = join(temp, "retail-broken.json");
writeFileSync(RETAIL_BROKEN, JSON.stringify(RETAIL_RUNS).replace('"{\\"order_id\\":\\"#W242\\"', '"{\\"order_id\\": '));

/**
 * Each benchmark with short options on non-default data (`--json` is added to every one).
 * `nullAt`: fields that are null by design with these options (a growth ratio with one size).
 * `check`: what the figures must show of the data given.
 */
const RUNS: Array<{ bench: string; args: string[]; nullAt?: RegExp; check?: (figures: Record<string, unknown>) => void }> = [
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
  {
    bench: "saver-replay",
    args: ["--data", KOREAN_LOCOMO, "--savers", "memory", "--pairs", "1"],
    // The file read is named in the document, as every other bench names it (was: not said).
    check: (figures) => expect(figures).toMatchObject({ data: KOREAN_LOCOMO, conversation: "ko-office" }),
  },
  {
    bench: "overhead",
    args: ["--data", KOREAN_LOCOMO, "--runs", "1", "--calls", "2", "--sizes", "1000", "--no-profile"],
    nullAt: /^(growth|ownGrowth)\./,
  },
  {
    bench: "summarize",
    args: ["--data", KOREAN_LOCOMO, "--imported", "200,2000"],
    // Was: "left the window" counted when the import arrived and "covered" at the end, after the
    // window had moved on: 1,986 covered of 1,980 evicted on 2,000 imported messages.
    check: (figures) => {
      const imported = figures.imported as Array<{ evictedMessages: number; coveredMessages: number; uncoveredMessages: number }>;
      expect(imported).toHaveLength(2);
      for (const result of imported) {
        expect(result.coveredMessages).toBe(result.evictedMessages);
        expect(result.uncoveredMessages).toBe(0);
      }
    },
  },
  { bench: "placement", args: ["--data", KOREAN_LOCOMO] },
  // A configuration without a summarizer has no turn that called it: no wait percentile over them.
  { bench: "cost", args: ["--data", KOREAN_LOCOMO, "--summarizer-ms", "10"], nullAt: /\.wait\.dueP(50|95)$/ },
  { bench: "facts", args: ["--data", KOREAN_LOCOMO] },
  { bench: "fact-read", args: ["--data", KOREAN_LOCOMO, "--sizes", "50,200", "--calls", "5"] },
  { bench: "recall", args: ["--data", KOREAN_LOCOMO] },
  {
    bench: "user-memory",
    args: ["--data", KOREAN_LOCOMO, "--cost-items", "1000", "--cost-calls", "3", "--cost-warmup", "3"],
    // The cost part's user holds the file's items (fewer than 1,000), not the committed LoCoMo file's.
    check: (figures) => expect((figures.cost as { itemsPerUser: number }).itemsPerUser).toBe(figures.meanItemsPerUser),
  },
  { bench: "fact-extraction", args: ["--data", KOREAN_FACTS] },
  {
    bench: "korean-paradigm",
    args: ["--data", PARADIGM],
    check: (figures) => expect(figures).toMatchObject({ data: PARADIGM }),
  },
  { bench: "token-count", args: ["--data", TAU_SLICE] },
  {
    bench: "token-count",
    args: ["--data", RETAIL],
    check: (figures) => expect(figures.withTools).toMatchObject({ points: 6 }),
  },
  { bench: "token-cap", args: ["--data", RETAIL, "--locomo", KOREAN_LOCOMO, "--sizes", "1000", "--calls", "2"] },
  {
    bench: "cost",
    args: ["--data", RETAIL, "--summarizer-ms", "10", "--only", "langchain"],
    // Runs this short never call the summarizer: no turn to take a wait percentile over.
    nullAt: /\.wait\.dueP(50|95)$/,
    check: (figures) => {
      const [replay] = figures.replays as Array<{ description: string; data: string }>;
      expect(replay?.description).toBe(
        "3 runs, 3 user turns, the recorded policy prompt and 3 tool schemas (3 inferred from the recorded calls)",
      );
      // The file read is named in the document, as every other bench names it (was: not said).
      expect(replay?.data).toBe(RETAIL);
    },
  },
  { bench: "token-cap", args: ["--data", TAU_SLICE, "--locomo", KOREAN_LOCOMO, "--sizes", "1000", "--calls", "2"] },
];

/** The paths of the null fields of `value` (JSON writes NaN and Infinity as null). */
function nullsOf(value: unknown, path = ""): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((v, i) => nullsOf(v, `${path}[${i}]`));
  if (typeof value === "object") return Object.entries(value).flatMap(([k, v]) => nullsOf(v, path === "" ? k : `${path}.${k}`));
  return [];
}

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
  for (const { bench, args, nullAt, check } of RUNS) {
    it(`bench/${bench}.ts on ${basename(args[1] ?? "")}`, { timeout: 300_000 }, async () => {
      const { stdout } = await tsx(bench, [...args, "--json"]);
      const figures = JSON.parse(stdout) as Record<string, unknown>;
      expect(holdsFigure(figures)).toBe(true);
      expect(nullsOf(figures).filter((path) => !nullAt?.test(path))).toEqual([]);
      check?.(figures);
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

  // A run whose tool arguments are not JSON: exit 2 and the entry, not a SyntaxError from the replay.
  for (const bench of ["token-count", "cost"]) {
    it(`bench/${bench}.ts names the run entry whose tool arguments are not JSON`, { timeout: 120_000 }, async () => {
      const failed = await tsx(bench, ["--data", RETAIL_BROKEN, "--json"]).then(
        () => undefined,
        (error: { code?: number; stderr?: string; stdout?: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stdout).toBe("");
      expect(failed?.stderr?.trim().split("\n")).toHaveLength(1);
      expect(failed?.stderr).toContain(
        `--data ${RETAIL_BROKEN}: not a tau-bench runs file: [1].traj[2].tool_calls[0].function.arguments: not JSON (`,
      );
    });
  }

  // The quality benches, each given a file of the other kind: exit code 2 and one line naming the
  // file and the first field that does not fit (bench/support/data-file.ts), no stack trace.
  for (const [bench, data, expected] of [
    ["recall", KOREAN_FACTS, `--data ${KOREAN_FACTS}: not a LoCoMo-format file: (file):`],
    ["facts", KOREAN_FACTS, `--data ${KOREAN_FACTS}: not a LoCoMo-format file: (file):`],
    ["user-memory", KOREAN_FACTS, `--data ${KOREAN_FACTS}: not a LoCoMo-format file: (file):`],
    ["summarize", TAU_SLICE, `--data ${TAU_SLICE}: not a LoCoMo-format file: [0].sample_id:`],
    ["fact-extraction", KOREAN_LOCOMO, `--data ${KOREAN_LOCOMO}: not a labelled fact file: (file):`],
    ["fact-extraction", NO_STATEMENTS, `--data ${NO_STATEMENTS}: not a labelled fact file: items: no statement`],
    ["facts", ONE_SPEAKER, `--data ${ONE_SPEAKER}: not a LoCoMo-format file: (file): no QA item with evidence turn ids in one`],
    ["summarize", ONE_SPEAKER, `--data ${ONE_SPEAKER}: not a LoCoMo-format file: [0].conversation: one: no turn of speaker_a`],
    ["overhead", ONE_SPEAKER, `--data ${ONE_SPEAKER}: not a LoCoMo-format file: (file): no turn of a speaker_a answered`],
    // Was (data64): scale printed its machine line to stderr before the refusal (two lines).
    ["scale", ONE_SPEAKER, `--data ${ONE_SPEAKER}: not a LoCoMo-format file: (file): no turn of a speaker_a answered`],
    ["step", ONE_SPEAKER, `--data ${ONE_SPEAKER}: not a LoCoMo-format file: (file): no turn of a speaker_a answered`],
    // Was: token-cap measured the LoCoMo text alone, the file adding nothing, and said nothing.
    ["token-cap", SYSTEM_ONLY, `--data ${SYSTEM_ONLY}: not a tau-bench runs file: (file): no user, assistant or tool message in any run`],
    ["token-count", SYSTEM_ONLY, `--data ${SYSTEM_ONLY}: not a tau-bench runs file: (file): no assistant message in any run`],
  ] as const) {
    it(`bench/${bench}.ts refuses ${basename(data)} by field`, { timeout: 120_000 }, async () => {
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

  // Was (data64): the refusal of token-cap's LoCoMo file named it `--data`, the option of the runs file.
  it("bench/token-cap.ts refuses a --locomo file naming --locomo", { timeout: 120_000 }, async () => {
    const failed = await tsx("token-cap", ["--data", TAU_SLICE, "--locomo", ONE_SPEAKER, "--json"]).then(
      () => undefined,
      (error: { code?: number; stderr?: string; stdout?: string }) => error,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stdout).toBe("");
    expect(failed?.stderr?.trim().split("\n")).toHaveLength(1);
    expect(failed?.stderr).toContain(`--locomo ${ONE_SPEAKER}: not a LoCoMo-format file: (file): no turn of a speaker_a`);
  });

  // Was: a stack trace and exit code 1 (a plain Error from pickConversation / selectSamples).
  for (const [bench, option] of [
    ["summarize", "--conversation"],
    ["recall", "--samples"],
  ] as const) {
    it(`bench/${bench}.ts refuses a ${option} the file does not hold with the ids it holds, in one line`, {
      timeout: 120_000,
    }, async () => {
      const failed = await tsx(bench, ["--data", KOREAN_LOCOMO, option, "conv-26", "--json"]).then(
        () => undefined,
        (error: { code?: number; stderr?: string; stdout?: string }) => error,
      );
      expect(failed?.code).toBe(2);
      expect(failed?.stdout).toBe("");
      expect(failed?.stderr?.trim().split("\n")).toHaveLength(1);
      expect(failed?.stderr).toContain(`${option}: no conversation conv-26`);
      expect(failed?.stderr).toContain("it holds ko-office");
    });
  }
});
