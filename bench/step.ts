/**
 * The whole agent step (issue 16): CPU time, checkpoint writes and bytes written of one
 * `createAgent(...).invoke` step with a checkpointer, on threads of real text, with no middleware,
 * one pass-through `wrapModelCall` middleware (the floor: it pays LangChain's re-read of the
 * checkpoint on every invoke), LangChain's `summarizationMiddleware`, each threadwise middleware
 * alone and the full threadwise stack in each placement mode.
 *
 *   pnpm tsx bench/step.ts                       # memory, sqlite, postgres x 100, 1k, 10k; writes bench/results/step.{md,json}
 *   pnpm tsx bench/step.ts --json                # the rows as one JSON document on stdout (tables to stderr; results files untouched)
 *   pnpm tsx bench/step.ts --sizes 1000 --steps 5 --runs 1 --savers memory,sqlite --only floor,stack
 *   pnpm tsx bench/step.ts --postgres-url postgresql://postgres:postgres@127.0.0.1:5432/postgres
 *
 * Options: `--sizes` stored messages per thread (comma list), `--steps` timed steps per run,
 * `--runs` runs, `--savers` (memory, sqlite, postgres), `--only` configuration keys or prefixes
 * (comma list; see CONFIGS), `--postgres-url` (else THREADWISE_TEST_POSTGRES_URL, else an embedded
 * PGlite server in this process), `--data <locomo file>`, `--json`. Runs with `--only`, `--sizes`, `--savers`, `--steps`
 * or `--runs` other than the defaults print their figures and leave the results files alone.
 *
 * Method (printed with the results):
 * - Thread: the LoCoMo conversations replayed as user/assistant exchanges (bench/support/locomo.ts),
 *   seeded into the checkpointer with one `updateState` per thread, then one step per invoke: a new
 *   user message in, the model answers at once ("ok"), the thread grows by 2 messages per step.
 * - Every configuration has its own thread on the same saver; the steps are interleaved (one step
 *   of each configuration in turn, the order rotated every step), after 2 untimed warm-up steps
 *   each (the first step makes the first summary, ingests the facts of the seeded thread, fills
 *   the token caches). A full GC runs before each step, outside the timing.
 * - CPU ms per step: `process.cpuUsage()` (user + system) around `invoke`, minus the time of the
 *   bench's own write counting; medians over all timed steps. A real PostgreSQL server's own CPU
 *   is in another process and not counted; embedded PGlite runs in this process and is.
 * - Checkpoint writes per step: calls of the saver's `put` (one per superstep and the input) and
 *   `putWrites` (one per task). Bytes written per step: the sum of the serializer's output
 *   (`serde.dumpsTyped`) during the step, i.e. the checkpoint, metadata, channel blobs and pending
 *   writes the saver stores (SqliteSaver stores every channel in each checkpoint, PostgresSaver
 *   only the channels that changed).
 * - Between steps (outside the timing) each thread is pruned to its newest checkpoint, so 30
 *   configurations x 22 steps of a 10k-message thread do not fill the memory.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { factRecall } from "@threadwise/fact-recall";
import { historyAware } from "@threadwise/history-aware";
import { persistTrim } from "@threadwise/persist-trim";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent, createMiddleware, summarizationMiddleware } from "langchain";
import { benchArgs, printJson } from "./support/cli.js";
import { cpuNow } from "./support/hook-calls.js";
import { LOCOMO_PATH, locomoThread, type ThreadMessageSpec } from "./support/locomo.js";
import { machineLine, median } from "./support/machine.js";
import {
  AnswerModel,
  fullStack,
  MAX_TOKENS,
  memoryTarget,
  postgresTarget,
  SummaryModel,
  sqliteTarget,
  type Target,
  WINDOW,
} from "./support/step-savers.js";

const here = dirname(fileURLToPath(import.meta.url));
const RESULTS_MD = resolve(here, "results/step.md");
const RESULTS_JSON = resolve(here, "results/step.json");

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const DEFAULTS = { sizes: "100,1000,10000", steps: "10", runs: "2", savers: "memory,sqlite,postgres" };
const cli = benchArgs(LOCOMO_PATH, {
  sizes: { type: "string", default: DEFAULTS.sizes },
  steps: { type: "string", default: DEFAULTS.steps },
  runs: { type: "string", default: DEFAULTS.runs },
  savers: { type: "string", default: DEFAULTS.savers },
  only: { type: "string" },
  "postgres-url": { type: "string" },
});
const args = cli.values;
const SIZES = String(args.sizes).split(",").map(Number);
const STEPS = Number(args.steps);
const RUNS = Number(args.runs);
const SAVERS = String(args.savers).split(",") as Array<"memory" | "sqlite" | "postgres">;
const WARMUP = 2;
const SYSTEM_PROMPT = "You are a warm, attentive companion who chats with the user about their life. Answer in two or three sentences.";

// ---------------------------------------------------------------------------------------------
// Model and middleware configurations

interface Config {
  key: string;
  name: string;
  make: () => AgentMiddleware[];
}

const CONFIGS_ALL: Config[] = [
  { key: "none", name: "no middleware", make: () => [] },
  {
    key: "floor",
    name: "one pass-through wrapModelCall middleware (the floor)",
    make: () => [createMiddleware({ name: "bench/pass-through", wrapModelCall: (request, handler) => handler(request) })],
  },
  {
    key: "langchain-summarization",
    name: "LangChain summarizationMiddleware (trigger never reached, keep 20)",
    make: () => [
      summarizationMiddleware({
        model: new SummaryModel({}),
        trigger: { tokens: 4_000_000 },
        keep: { messages: WINDOW },
      }) as unknown as AgentMiddleware,
    ],
  },
  {
    key: "tw-summarize",
    name: "threadwise summarize (window 20, threshold 40)",
    make: () => [summarize({ model: new SummaryModel({}), windowSize: WINDOW, threshold: 40, logger: false })],
  },
  { key: "tw-fact-recall", name: "threadwise factRecall (heuristic)", make: () => [factRecall({ mode: "heuristic", logger: false })] },
  { key: "tw-history-aware", name: "threadwise historyAware", make: () => [historyAware({ logger: false })] },
  { key: "tw-window-trim", name: "threadwise windowTrim (20)", make: () => [windowTrim({ maxMessages: WINDOW, logger: false })] },
  { key: "tw-token-cap", name: "threadwise tokenCap (8000)", make: () => [tokenCap({ maxTokens: MAX_TOKENS, logger: false })] },
  {
    key: "tw-persist-trim",
    name: "threadwise persistTrim (keep 100,000 groups: deletes nothing)",
    make: () => [persistTrim({ keepGroups: 100_000, logger: false })],
  },
  { key: "stack-legacy_system", name: "threadwise full stack (legacy_system)", make: () => fullStack("legacy_system") },
  { key: "stack-stable_tail", name: "threadwise full stack (stable_tail)", make: () => fullStack("stable_tail") },
  {
    key: "stack-slot-users",
    name: "threadwise full stack + workMemory, userMemory, persistTrim (legacy_system)",
    make: () => fullStack("legacy_system", { slotUsers: true }),
  },
];
const ONLY = args.only ? String(args.only).split(",") : undefined;
const CONFIGS = CONFIGS_ALL.filter((c) => !ONLY || ONLY.some((o) => c.key.startsWith(o)));

// ---------------------------------------------------------------------------------------------
// Measurement

interface Row {
  saver: string;
  config: string;
  name: string;
  size: number;
  /** CPU ms per step, median over timed steps. */
  cpuMs: number;
  /** Wall-clock ms per step, median (inflated on a busy machine). */
  wallMs: number;
  /** `put` + `putWrites` calls per step, median. */
  writes: number;
  puts: number;
  putWrites: number;
  /** Serialized bytes written per step, median. */
  bytes: number;
  steps: number;
}

interface Lane {
  config: Config;
  threadId: string;
  agent: ReturnType<typeof createAgent>;
  next: number;
  cpu: number[];
  wall: number[];
  puts: number[];
  putWrites: number[];
  bytes: number[];
}

function toMessage(spec: ThreadMessageSpec, id = spec.id): BaseMessage {
  return spec.type === "human" ? new HumanMessage({ id, content: spec.content }) : new AIMessage({ id, content: spec.content });
}

async function step(target: Target, lane: Lane, specs: readonly ThreadMessageSpec[], timed: boolean): Promise<void> {
  // The next user message of the corpus after the seeded part, under a new id.
  let k = lane.next;
  while (specs[k % specs.length]?.type !== "human") k += 1;
  const spec = specs[k % specs.length] as ThreadMessageSpec;
  lane.next = k + 2;
  const input = { messages: [new HumanMessage({ id: `${lane.threadId}-u${k}`, content: spec.content })] };
  collectGarbage();
  await new Promise((done) => setTimeout(done, 20));
  const c = target.counters;
  const before = { ...c };
  const c0 = cpuNow();
  const t0 = performance.now();
  await lane.agent.invoke(input, { configurable: { thread_id: lane.threadId }, recursionLimit: 50 });
  const wall = performance.now() - t0;
  const cpu = cpuNow() - c0 - (c.overheadMs - before.overheadMs);
  if (timed) {
    lane.cpu.push(cpu);
    lane.wall.push(wall);
    lane.puts.push(c.puts - before.puts);
    lane.putWrites.push(c.putWrites - before.putWrites);
    lane.bytes.push(c.bytes - before.bytes);
  }
  await target.prune(lane.threadId);
}

async function measureSize(target: Target, size: number, specs: readonly ThreadMessageSpec[]): Promise<Row[]> {
  let seedEnd = size;
  while (specs[seedEnd]?.type !== "human") seedEnd += 1;
  const lanes: Lane[] = [];
  for (const config of CONFIGS) {
    const threadId = `step-${target.kind}-${config.key}-${size}-${randomUUID().slice(0, 8)}`;
    const agent = createAgent({
      model: new AnswerModel({}),
      tools: [],
      systemPrompt: SYSTEM_PROMPT,
      checkpointer: target.saver,
      middleware: config.make(),
    });
    // Seed the thread with one state update; the checkpointer then holds `size` messages.
    await agent.graph.updateState(
      { configurable: { thread_id: threadId } },
      { messages: specs.slice(0, seedEnd).map((s) => toMessage(s)) },
      "model_request",
    );
    await target.prune(threadId);
    lanes.push({ config, threadId, agent, next: seedEnd, cpu: [], wall: [], puts: [], putWrites: [], bytes: [] });
  }
  for (let w = 0; w < WARMUP; w += 1) for (const lane of lanes) await step(target, lane, specs, false);
  let turn = 0;
  for (let run = 0; run < RUNS; run += 1) {
    for (let s = 0; s < STEPS; s += 1) {
      // Interleaved, the order rotated each step, so a change of machine load hits every configuration alike.
      for (let i = 0; i < lanes.length; i += 1) await step(target, lanes[(i + turn) % lanes.length] as Lane, specs, true);
      turn += 1;
    }
  }
  return lanes.map((lane) => ({
    saver: target.kind,
    config: lane.config.key,
    name: lane.config.name,
    size,
    cpuMs: median(lane.cpu),
    wallMs: median(lane.wall),
    writes: median(lane.puts.map((p, i) => p + (lane.putWrites[i] ?? 0))),
    puts: median(lane.puts),
    putWrites: median(lane.putWrites),
    bytes: median(lane.bytes),
    steps: lane.cpu.length,
  }));
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

function fmtBytes(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : n >= 1e3 ? `${(n / 1e3).toFixed(1)} kB` : `${n} B`;
}

async function main() {
  const specs = locomoThread(Math.max(...SIZES) + 2 * (WARMUP + RUNS * STEPS) + 8, cli.data);
  const machine = machineLine();
  const loadStart = loadavg()[0] ?? 0;
  console.log(`machine: ${machine}; load average ${loadStart.toFixed(1)}`);
  console.log(
    `savers ${SAVERS.join(", ")}; sizes ${SIZES.join(", ")}; ${RUNS} runs x ${STEPS} steps (+${WARMUP} warm-up) per configuration\n`,
  );
  const rows: Row[] = [];
  const labels: Record<string, string> = {};
  for (const kind of SAVERS) {
    const target =
      kind === "memory" ? await memoryTarget() : kind === "sqlite" ? await sqliteTarget() : await postgresTarget(args["postgres-url"]);
    labels[kind] = target.label;
    try {
      for (const size of SIZES) {
        const sized = await measureSize(target, size, specs);
        const floor = sized.find((r) => r.config === "floor");
        for (const row of sized) {
          rows.push(row);
          const x = floor ? ` ${(row.cpuMs / floor.cpuMs).toFixed(2)}x floor` : "";
          console.log(
            `${target.kind.padEnd(8)} ${String(size).padStart(6)}  ${row.name.padEnd(64)} cpu ${fmt(row.cpuMs).padStart(7)} ms${x}  wall ${fmt(row.wallMs).padStart(7)} ms  writes ${row.puts}+${row.putWrites}  ${fmtBytes(row.bytes)}`,
          );
        }
      }
    } finally {
      await target.close();
    }
  }
  const loadEnd = loadavg()[0] ?? 0;

  const ratio = (row: Row, key: string) => {
    const ref = rows.find((r) => r.saver === row.saver && r.size === row.size && r.config === key);
    return ref ? row.cpuMs / ref.cpuMs : undefined;
  };
  const table = [
    "| saver | thread msgs | configuration | CPU ms / step | x floor | x none | wall ms / step | writes / step (put + putWrites) | bytes written / step |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map((r) => {
      const xf = ratio(r, "floor");
      const xn = ratio(r, "none");
      return `| ${r.saver} | ${r.size.toLocaleString("en-US")} | ${r.name} | ${fmt(r.cpuMs)} | ${xf === undefined ? "n/a" : xf.toFixed(2)} | ${xn === undefined ? "n/a" : xn.toFixed(2)} | ${fmt(r.wallMs)} | ${r.puts} + ${r.putWrites} | ${fmtBytes(r.bytes)} |`;
    }),
  ];
  const targets: string[] = [];
  for (const kind of SAVERS) {
    for (const size of SIZES.filter((s) => s >= 1000)) {
      const floor = rows.find((r) => r.saver === kind && r.size === size && r.config === "floor");
      for (const key of ["stack-legacy_system", "stack-stable_tail"]) {
        const row = rows.find((r) => r.saver === kind && r.size === size && r.config === key);
        if (!row || !floor) continue;
        const x = row.cpuMs / floor.cpuMs;
        const extra = row.writes - floor.writes;
        targets.push(
          `| ${kind} | ${size.toLocaleString("en-US")} | ${key.slice(6)} | ${x.toFixed(2)} (${x <= 1.15 ? "met" : "missed"}) | ${extra >= 0 ? "+" : ""}${extra} (${extra <= 1 ? "met" : "missed"}) |`,
        );
      }
    }
  }
  const targetTable = [
    "| saver | thread msgs | full stack | CPU x floor (target <= 1.15) | writes over the floor (target <= +1) |",
    "|---|---:|---|---:|---:|",
    ...targets,
  ];
  console.log(`\n${targetTable.join("\n")}`);
  const doc = [
    "# The whole agent step: CPU, checkpoint writes and bytes per `invoke`",
    "",
    `Command: \`pnpm tsx bench/step.ts\` (runs ${RUNS}, steps per run ${STEPS}, warm-up ${WARMUP}). Machine: ${machine}; load average (1 min) ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end on ${cpus().length} cores.`,
    `Savers: ${SAVERS.map((k) => labels[k]).join("; ")}.`,
    "",
    table.join("\n"),
    "",
    "## Targets (issue 16)",
    "",
    targetTable.join("\n"),
    "",
    "## Method",
    "",
    "- **Step**: `agent.invoke({ messages: [new user message] }, { configurable: { thread_id } })` on a `createAgent` agent with no tools and a model that answers `ok` at once; the thread was seeded with the LoCoMo conversations (user/assistant exchanges) by one `updateState`, and grows by 2 messages per step.",
    `- **Interleaved**: every configuration has its own thread on the same saver; one step of each in turn, the order rotated every step; ${WARMUP} untimed warm-up steps each (first summary, fact ingestion of the seeded thread, token caches). A full GC before each step, outside the timing.`,
    "- **CPU**: `process.cpuUsage()` (user + system) around `invoke`, minus the bench's own counting; median over all timed steps. A real PostgreSQL server's CPU is in another process and not counted; embedded PGlite runs in this process and is.",
    "- **Writes**: calls of the saver's `put` (one per superstep, including the input) and `putWrites` (one per task that wrote); **bytes**: what the serializer produced during the step (`serde.dumpsTyped`: checkpoints, metadata, channel blobs, pending writes). SqliteSaver and MemorySaver store every channel in each checkpoint, PostgresSaver only the changed channels as blobs.",
    "- **Pruning**: between steps, outside the timing, every thread is cut to its newest checkpoint (and its writes, and for PostgreSQL the blobs it no longer references), so the savers hold one checkpoint per thread.",
    "- **The floor** is one pass-through `wrapModelCall` middleware: with any middleware `createAgent` re-reads the whole checkpoint on every invoke (see [upstream/createAgent-reread.md](./upstream/createAgent-reread.md)).",
    `- **Full stack**: \`memoryMiddleware\` for window ${WINDOW}, summaries (threshold 40, stub summarizer), facts heuristic, historyAware, tokenCap ${MAX_TOKENS} tokens.`,
    "",
  ].join("\n");
  const defaults =
    !args.only &&
    args.sizes === DEFAULTS.sizes &&
    args.steps === DEFAULTS.steps &&
    args.runs === DEFAULTS.runs &&
    args.savers === DEFAULTS.savers;
  if (defaults && cli.writesResults) {
    mkdirSync(dirname(RESULTS_MD), { recursive: true });
    writeFileSync(RESULTS_MD, doc);
    writeFileSync(
      RESULTS_JSON,
      `${JSON.stringify({ machine, runs: RUNS, steps: STEPS, warmup: WARMUP, savers: labels, rows }, null, 2)}\n`,
    );
    console.log(`\nwrote ${RESULTS_MD} and ${RESULTS_JSON}`);
  } else console.log("\nnon-default options: bench/results/step.{md,json} left as they were");
  if (cli.json) printJson({ bench: "step", data: cli.data, machine, loadStart, loadEnd, runs: RUNS, steps: STEPS, savers: labels, rows });
}

await main();
