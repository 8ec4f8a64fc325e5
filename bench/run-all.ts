/**
 * `pnpm bench`: runs every benchmark in sequence, each in its own process, then draws the charts
 * and prints a summary. Each benchmark writes its own `bench/results/<name>.md`; one that only
 * prints (no results file touched during its run) gets its output saved there by this script.
 *
 *   pnpm bench                          # everything (about 30 minutes on a busy 2-core machine)
 *   pnpm bench -- --only overhead,facts # some benchmarks, then the charts
 *   pnpm bench -- --skip placement      # all but some
 *   pnpm bench -- --charts-only         # redraw the charts from existing results
 *   pnpm bench -- --built               # each benchmark on the packages' dist (`pnpm build` first)
 *
 * `--only` and `--skip` take the names below (comma list); a name that is not one of them is refused.
 * `--built` is handed to every benchmark, which then measures our packages from their tsdown build
 * and refuses a missing or stale build (bench/support/built.ts).
 *
 * Exit code: 1 when a benchmark failed (the others still run, and the charts are drawn); 2 when an
 * option is refused (one line naming it, nothing run).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { drawCharts } from "./charts.js";
import { exitOnHelp } from "./support/cli.js";
import { BenchOptionError } from "./support/data-file.js";
import { machineLine } from "./support/machine.js";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "..");

/** The benchmarks, in the order they run, with what each measures. */
export const BENCHMARKS = [
  { name: "token-cap", measures: "tokenCap per-call time on 1k/10k-message threads vs an exact full recount" },
  { name: "placement", measures: "prompt-prefix reuse and tokens per call by placement mode and eviction (LoCoMo)" },
  { name: "summarize", measures: "summarizer input vs evicted tokens, threadwise vs LangChain (LoCoMo)" },
  { name: "facts", measures: "fact recall hit@k by question category vs BM25 over turns (LoCoMo)" },
  { name: "overhead", measures: "full-stack per-call overhead vs thread length, next to LangChain" },
  { name: "step", measures: "whole createAgent step: CPU, checkpoint writes and bytes per invoke, by saver and middleware" },
  { name: "scale", measures: "hooks' time and whole step with threads served round-robin; cold against warm in new processes" },
] as const;

exitOnHelp();
const { values } = parseArgs({
  options: {
    only: { type: "string" },
    skip: { type: "string" },
    "charts-only": { type: "boolean", default: false },
    built: { type: "boolean", default: false },
  },
  allowPositionals: true,
});

/** The benchmark names an `--only`/`--skip` value lists; exits 2 naming the option on a name not in {@link BENCHMARKS}. */
function benchNames(option: "--only" | "--skip", value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const names = value.split(",").map((s) => s.trim());
  const known: readonly string[] = BENCHMARKS.map((bench) => bench.name);
  const unknown = names.filter((name) => !known.includes(name));
  if (unknown.length > 0) {
    console.error(
      new BenchOptionError(option, `no benchmark ${unknown.map((name) => `"${name}"`).join(", ")}; the names are ${known.join(", ")}`)
        .message,
    );
    process.exit(2);
  }
  return names;
}
const only = benchNames("--only", values.only);
const skip = new Set(benchNames("--skip", values.skip) ?? []);

interface Outcome {
  name: string;
  status: "ok" | "failed" | "missing" | "skipped";
  seconds: number;
  code?: number | null;
}

/** Runs `bench/<name>.ts` with tsx, echoing its output; resolves with its exit code and output. */
function runScript(name: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(resolve(root, "node_modules/.bin/tsx"), [resolve(here, `${name}.ts`), ...(values.built ? ["--built"] : [])], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const echo = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
      output += chunk.toString();
      stream.write(chunk);
    };
    child.stdout.on("data", echo(process.stdout));
    child.stderr.on("data", echo(process.stderr));
    child.on("close", (code) => done({ code, output }));
  });
}

const mtime = (path: string) => (existsSync(path) ? statSync(path).mtimeMs : 0);

async function main() {
  const machine = machineLine();
  console.log(`threadwise benchmarks on ${machine}\n`);
  mkdirSync(resolve(here, "results"), { recursive: true });
  const outcomes: Outcome[] = [];
  for (const bench of values["charts-only"] ? [] : BENCHMARKS) {
    if ((only && !only.includes(bench.name)) || skip.has(bench.name)) {
      outcomes.push({ name: bench.name, status: "skipped", seconds: 0 });
      continue;
    }
    if (!existsSync(resolve(here, `${bench.name}.ts`))) {
      console.log(`== ${bench.name}: bench/${bench.name}.ts not found, skipped`);
      outcomes.push({ name: bench.name, status: "missing", seconds: 0 });
      continue;
    }
    console.log(`== ${bench.name}: ${bench.measures}`);
    const resultsPath = resolve(here, `results/${bench.name}.md`);
    const before = mtime(resultsPath);
    const started = Date.now();
    const { code, output } = await runScript(bench.name);
    const seconds = (Date.now() - started) / 1000;
    if (code === 0 && mtime(resultsPath) === before) {
      // The benchmark only prints: keep its output as its results file.
      writeFileSync(
        resultsPath,
        `# bench/${bench.name}.ts\n\nOutput of \`pnpm tsx bench/${bench.name}.ts\`, saved by \`pnpm bench\` (${new Date().toISOString().slice(0, 10)}, ${machine}).\n\n\`\`\`text\n${output.trim()}\n\`\`\`\n`,
      );
    }
    outcomes.push({ name: bench.name, status: code === 0 ? "ok" : "failed", seconds, code });
    console.log(`== ${bench.name}: ${code === 0 ? "ok" : `FAILED (exit ${code})`} in ${seconds.toFixed(0)} s\n`);
  }

  const { files, summary } = await drawCharts();
  console.log("\nSummary");
  console.log(`machine: ${machine}`);
  for (const o of outcomes) {
    const file = resolve(here, `results/${o.name}.md`);
    console.log(
      `${o.name.padEnd(10)} ${o.status.padEnd(8)} ${o.seconds ? `${o.seconds.toFixed(0).padStart(4)} s` : "      "}  ${existsSync(file) ? relative(root, file) : ""}`,
    );
  }
  for (const line of summary) console.log(line);
  for (const file of files) console.log(`chart: ${relative(root, file)}`);
  if (outcomes.some((o) => o.status === "failed")) process.exitCode = 1;
}

await main();
