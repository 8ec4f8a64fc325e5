/**
 * The options every benchmark takes: `--data <file>` (the data file to read; the committed copy
 * under `data/` by default) and `--json` (print the measured figures as one JSON document on
 * stdout; everything else the benchmark prints goes to stderr then, and results files are left as
 * they were). A run on another `--data` file leaves the committed results alone too. A `--data`
 * file of the wrong kind (`BenchDataError`, see `data-file.ts`) ends the run with exit code 2 and
 * one line naming the file and the first field that does not fit; so does an option value the run
 * cannot use (`BenchOptionError`: a `--conversation` the file lacks), naming the option. `--help` (or `-h`) prints the
 * benchmark's usage, the doc comment its file starts with, and exits 0 ({@link exitOnHelp}).
 * `--built` runs the benchmark on the packages' tsdown build (`packages/<name>/dist`, what a user's
 * install runs) instead of their `src` under tsx, and refuses (exit 2, `StaleBuildError` naming
 * `--built`) when a package's dist is missing or older than its sources: see `built.ts`.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { measuredCode, runBuiltIfAsked } from "./built.js";
import { BenchDataError, BenchOptionError } from "./data-file.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

const COMMON = {
  data: { type: "string" },
  json: { type: "boolean", default: false },
  built: { type: "boolean", default: false },
} as const;

/** What {@link benchArgs} returns; `values` is typed from the options given. */
export interface BenchArgs<T extends Options> {
  /** Absolute path of the data file to read. */
  data: string;
  /** `--json` was given: stdout is for the JSON document only. */
  json: boolean;
  /** The run may replace the committed `bench/results/` files (default data, no `--json`). */
  writesResults: boolean;
  values: ReturnType<typeof parseArgs<{ options: T & typeof COMMON; allowPositionals: true }>>["values"];
}

/**
 * Parses the command line with the common options plus `extra`.
 *
 * @param defaultData - path read when `--data` is not given
 * @param extra - the benchmark's own options, as for `node:util` `parseArgs`
 * @returns `data` (an absolute path), `json`, and `values` (every option, the common ones included)
 */
export function benchArgs<T extends Options = Record<never, never>>(defaultData: string, extra?: T): BenchArgs<T> {
  exitOnHelp();
  let parsed: ReturnType<typeof parseArgs<{ options: T & typeof COMMON; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ options: { ...extra, ...COMMON } as T & typeof COMMON, allowPositionals: true });
  } catch (error) {
    // An unknown or malformed option: its one line (`Unknown option '--budgt'`), exit code 2.
    if (!String((error as { code?: unknown }).code).startsWith("ERR_PARSE_ARGS_")) throw error;
    console.error((error as Error).message);
    process.exit(2);
  }
  const { values } = parsed;
  const common = values as { data?: string; json?: boolean };
  const data = resolve(common.data ?? defaultData);
  const json = common.json === true;
  // Keep stdout for the JSON document: the benchmark's own progress and tables go to stderr.
  if (json) console.log = console.error;
  // A data file of the wrong kind ends the run with its one line (exit 2), not a stack trace.
  if (!process.listenerCount("uncaughtException")) process.on("uncaughtException", exitOnError);
  // `--built`: refuse a stale build, else run again on the packages' dist (support/built.ts).
  runBuiltIfAsked((values as { built?: boolean }).built === true);
  return { data, json, values, writesResults: !json && data === resolve(defaultData) };
}

function exitOnError(error: Error): void {
  const refused = error instanceof BenchDataError || error instanceof BenchOptionError;
  console.error(refused ? error.message : error);
  process.exit(refused ? 2 : 1);
}

/**
 * Prints `figures` as indented JSON on stdout (the `--json` output). An object without a `code` key
 * gets one first: which code of ours was measured, `"src"` (the packages' sources under tsx, the
 * default) or `"built"` (their dist, `--built`; {@link measuredCode}).
 */
export function printJson(figures: unknown): void {
  const document =
    figures !== null && typeof figures === "object" && !Array.isArray(figures) && !("code" in figures)
      ? { code: measuredCode().code, ...figures }
      : figures;
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

/**
 * A benchmark's usage: the doc comment its source starts with (`/** ... *\/`), without the
 * comment marks and the ` * ` at the start of each line.
 *
 * @param source - the text of a bench file
 * @returns the usage text, `""` when the file does not start with a doc comment
 */
export function benchUsage(source: string): string {
  const header = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source)?.[1];
  if (header === undefined) return "";
  return header
    .split("\n")
    .map((line) => line.replace(/^\s*\* ?/, ""))
    .join("\n")
    .trim();
}

/**
 * With `--help` or `-h` among the arguments (before a `--` that ends the options), prints the
 * usage of the running benchmark ({@link benchUsage} of `file`) on stdout and exits 0. Called by
 * {@link benchArgs}; a script that parses its own options calls it first.
 *
 * @param file - the benchmark's file; @default process.argv[1] (the script tsx runs)
 */
export function exitOnHelp(file: string | undefined = process.argv[1]): void {
  const args = process.argv.slice(2);
  const end = args.indexOf("--");
  const options = end === -1 ? args : args.slice(0, end);
  if (file === undefined || !options.some((arg) => arg === "--help" || arg === "-h")) return;
  process.stdout.write(`${benchUsage(readFileSync(file, "utf8"))}\n`);
  process.exit(0);
}
