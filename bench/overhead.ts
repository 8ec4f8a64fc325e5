/**
 * Per-call overhead of the full threadwise stack versus thread length, next to LangChain's own
 * `summarizationMiddleware` + `trimMessages` (issue 9), and of windowTrim and tokenCap alone.
 * Targets (issue 16): the full stack at most 1.0 ms per model call at 10,000 messages and
 * t(50k) / t(1k) at most 1.2, in both placements; windowTrim (chunked default) and tokenCap
 * (either eviction) alone at most 0.3 ms per call at 10,000 messages.
 *
 *   pnpm tsx bench/overhead.ts                 # 1k, 10k, 50k messages; writes bench/results/overhead.{md,json}
 *   pnpm tsx bench/overhead.ts --runs 7 --calls 30
 *   pnpm tsx bench/overhead.ts --data <locomo.json> --json   # another LoCoMo file; figures as JSON on stdout
 *   pnpm tsx bench/overhead.ts --profile-config single-token-cap-sliding   # profile another configuration
 *   pnpm tsx bench/overhead.ts --gc minor      # scavenge before each call instead of a full GC (also: none)
 *   pnpm tsx bench/overhead.ts --langchain-max 50000   # LangChain's rows at 50k too (minutes per call; default: up to 10k)
 *   pnpm tsx bench/overhead.ts --no-profile    # skip the profiled pass (by default one extra, untimed run of the
 *                                              # threadwise stack at the largest size is profiled; the .cpuprofile
 *                                              # goes to the OS temp dir, a per-function table into overhead.md)
 *
 * Method (printed with the results):
 * - Thread: real text, the LoCoMo conversations replayed as user/assistant exchanges (the first
 *   speaker's merged turns are the user's, the second's the answers), repeated under new ids past
 *   their ~4,000 messages, cut at 100, 1,000 and 10,000 messages on a user message.
 * - One model call in steady state: the same thread plus 2 new messages (the previous answer and
 *   a new question) per call, every call with FRESH message objects (same ids), the way a
 *   checkpointer deserializes the thread on every turn. Building those objects is the
 *   checkpointer's work and is not timed.
 * - Timed: exactly the middleware hooks the agent runs around one model call, in the agent's
 *   order: every `beforeModel` (its state update applied through the channel's reducer, as
 *   LangGraph does before the next node), the `wrapModelCall` chain (first middleware outermost,
 *   with the agent's system-message normalization between layers), a model that answers at once,
 *   the `Command` updates applied, then every `afterModel` in reverse order. Not timed: the
 *   checkpointer, the graph runtime, the model itself.
 * - Per configuration and length: `--runs` runs, each with new middleware instances (cold
 *   caches), `WARMUP` calls not timed (the first call fills the token cache, ingests facts and
 *   makes the first summary), then `--calls` timed calls. Reported: the median over all timed
 *   calls of all runs, the p90, and the median of the run medians' spread.
 * - threadwise: `memoryMiddleware` of `@threadwise/memory` (the preset's exact order:
 *   placement mode, summarize, factRecall heuristic, historyAware, windowTrim 20, tokenCap 8000
 *   tokens o200k_base). The summarizer is a stub that answers a fixed 600-character text at once:
 *   building its input is timed, the model is not. A new summary is due every 10 calls
 *   (threshold 40 - window 20 = 20 messages), so about one timed call in ten includes it.
 * - LangChain: `summarizationMiddleware` (trigger 4,000,000 tokens, never reached, so it only
 *   counts and decides, as on every call before it fires; keep 20 messages) and a middleware that
 *   applies `trimMessages` (`strategy: "last"`, `maxTokens: 8000`, `startOn: "human"`,
 *   `endOn: ["human", "tool"]`) to the view. Two token counters: exact (js-tiktoken `o200k_base` per
 *   message, memoized per message object, so each fresh message is tokenized once per call and
 *   both middlewares share it) and LangChain's `countTokensApproximately` (4 characters a token).
 *   Slow configurations stop after `BUDGET_MS` per run (at least 3 timed calls); the call count is
 *   reported.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, type BaseMessage, HumanMessage, trimMessages } from "@langchain/core/messages";
import type { PromptContextMode } from "@threadwise/core";
import { memoryMiddleware, resolveMemoryConfig } from "@threadwise/memory";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { getEncoding } from "js-tiktoken";
import { type AgentMiddleware, countTokensApproximately, createMiddleware, summarizationMiddleware } from "langchain";
import { benchArgs, printJson } from "./support/cli.js";
import { BenchOptionError } from "./support/data-file.js";
import { cpuNow, modelCall, ownTotal, type Stack } from "./support/hook-calls.js";
import { LOCOMO_PATH, locomoThread, type ThreadMessageSpec } from "./support/locomo.js";
import { machineLine, median } from "./support/machine.js";
import { type Profiling, profileClockUs, selfTimeTable, startProfile } from "./support/profile.js";

const here = dirname(fileURLToPath(import.meta.url));

// A full GC before each timed call (outside the timing): the garbage of deserializing a 10k-message
// thread is the checkpointer's and would otherwise be collected inside whichever hook runs next.
setFlagsFromString("--expose-gc");
const gcFunction = runInNewContext("gc") as (options?: { type: "major" | "minor" }) => void;
const RESULTS_MD = resolve(here, "results/overhead.md");
const RESULTS_JSON = resolve(here, "results/overhead.json");

const cli = benchArgs(LOCOMO_PATH, {
  runs: { type: "string", default: "5" },
  calls: { type: "string", default: "20" },
  sizes: { type: "string", default: "1000,10000,50000" },
  "no-profile": { type: "boolean", default: false },
  gc: { type: "string", default: "full" },
  budget: { type: "string", default: "15000" },
  "langchain-max": { type: "string", default: "10000" },
  only: { type: "string" },
  "profile-config": { type: "string", default: "threadwise-legacy_system" },
});
const args = cli.values;
const RUNS = Number(args.runs);
/**
 * The collection before each timed call (outside the timing). `full` (default): a major GC, as
 * every figure of this bench so far; V8 then ages compiled code and allocation feedback, so the
 * first allocations and calls after it are slower than in a process that is not forced to
 * collect. `minor`: a scavenge only (the checkpointer's garbage is young; compiled code is kept).
 * `none`: no forced collection (GC during a call is billed to it).
 */
const GC_MODE = String(args.gc);
/** Largest thread LangChain's configurations run on (`--langchain-max`), in messages. */
const LANGCHAIN_MAX = Number(args["langchain-max"]);
if (!["full", "minor", "none"].includes(GC_MODE)) throw new BenchOptionError("--gc", `expected full, minor or none, got ${GC_MODE}`);
const collectGarbage = (): void => {
  if (GC_MODE === "full") gcFunction();
  else if (GC_MODE === "minor") gcFunction({ type: "minor" });
};
const CALLS = Number(args.calls);
const SIZES = String(args.sizes).split(",").map(Number);
const WARMUP = 3;
/** Time budget of one run of one configuration, in milliseconds, after which it stops early. */
const BUDGET_MS = Number(args.budget);
const MAX_TOKENS = 8000;
/** Pause after the forced GC, before a timed call, in milliseconds. */
const SETTLE_MS = 25;
const WINDOW = 20;
/** Issue 16's targets: the full stack's hooks at most 1.0 ms per call at 10k messages, t(50k)/t(1k) at most 1.2. */
const TARGET_MS = 1;
const TARGET_RATIO = 1.2;
/** Issue 16's target for windowTrim (chunked default) and tokenCap (either eviction) alone: 0.3 ms per call at 10k. */
const SINGLE_TARGET_MS = 0.3;

const SYSTEM_PROMPT =
  "You are a warm, attentive companion who chats with the user about their life: family, work, hobbies, plans. " +
  "Answer in two or three sentences, ask a follow-up question when it fits, and remember what the user told you before.";

const SUMMARY_TEXT =
  "The user talked about their week: a support group meeting that moved them, plans to look into counseling " +
  "and adoption agencies, a painting they finished at a pottery class, and a camping trip with their kids. " +
  "The assistant shared its own news about a new job, a charity race and a trip to the beach, and encouraged " +
  "the user's plans. Open threads: the adoption research, the next race, and a visit to family in the summer. " +
  "The user prefers short answers and likes being asked about their children and their art.";

// ---------------------------------------------------------------------------------------------
// Thread of real text

type Spec = ThreadMessageSpec;

/** LoCoMo exchanges as alternating user/assistant specs, at least `need` of them. */
const corpus = (need: number): Spec[] => locomoThread(need, cli.data);

/** Fresh message objects, as a checkpointer deserializes them on every turn. */
function materialize(specs: readonly Spec[]): BaseMessage[] {
  return specs.map((s) =>
    s.type === "human" ? new HumanMessage({ id: s.id, content: s.content }) : new AIMessage({ id: s.id, content: s.content }),
  );
}

// ---------------------------------------------------------------------------------------------
// Configurations

/** A summarizer that answers a fixed text at once: its input is built and timed, the model is not. */
const stubSummarizer = { invoke: async () => new AIMessage(SUMMARY_TEXT) };

function threadwiseStack(mode: PromptContextMode): Stack {
  const config = resolveMemoryConfig(
    {
      backend: "in_memory",
      windowSize: WINDOW,
      maxHistoryTokens: MAX_TOKENS,
      summarize: true,
      summarizeThreshold: 40,
      factsMode: "heuristic",
      promptContextMode: mode,
    },
    {},
  );
  return {
    name: `threadwise full stack (${mode})`,
    middleware: memoryMiddleware(config, { models: { summarize: stubSummarizer as never }, logger: false }),
    channels: {},
    lastSent: 0,
  };
}

/**
 * js-tiktoken o200k_base on raw text, as a LangChain user counts exactly (`encoder.encode(text).length`,
 * no cache of its own; core's counter, which remembers texts, is not used for LangChain's rows).
 */
const tiktoken = getEncoding("o200k_base");
const encodeCount = (text: string): number => tiktoken.encode(text, "all").length;

function textOf(message: BaseMessage): string {
  return typeof message.content === "string" ? message.content : JSON.stringify(message.content);
}

/** Exact counter: js-tiktoken per message, memoized per message object (fresh objects each call). */
function exactCounter() {
  const memo = new WeakMap<BaseMessage, number>();
  return (messages: BaseMessage[]): number => {
    let total = 0;
    for (const message of messages) {
      let n = memo.get(message);
      if (n === undefined) {
        n = encodeCount(textOf(message)) + 3;
        memo.set(message, n);
      }
      total += n;
    }
    return total;
  };
}

function langchainStack(counter: "exact" | "approximate"): Stack {
  const tokenCounter = counter === "exact" ? exactCounter() : (messages: BaseMessage[]) => countTokensApproximately(messages);
  const trim = createMiddleware({
    name: "bench/trim-messages",
    wrapModelCall: async (request, handler) =>
      handler({
        ...request,
        messages: await trimMessages(request.messages, {
          maxTokens: MAX_TOKENS,
          strategy: "last",
          tokenCounter,
          startOn: "human",
          endOn: ["human", "tool"],
        }),
      }),
  });
  return {
    name: `LangChain summarizationMiddleware + trimMessages (${counter === "exact" ? "exact: js-tiktoken" : "approximate: countTokensApproximately"})`,
    middleware: [
      summarizationMiddleware({
        model: stubSummarizer as never,
        trigger: { tokens: 4_000_000 },
        keep: { messages: WINDOW },
        tokenCounter,
      }) as unknown as AgentMiddleware,
      trim as unknown as AgentMiddleware,
    ],
    channels: {},
    lastSent: 0,
  };
}

/** One threadwise middleware alone over the whole thread (no window before it). */
function single(name: string, middleware: AgentMiddleware): Stack {
  return { name, middleware: [middleware], channels: {}, lastSent: 0 };
}

const CONFIGS_ALL: Array<{ key: string; make: () => Stack }> = [
  {
    key: "baseline",
    make: () => ({ name: "baseline: no middleware (the harness and the model stub alone)", middleware: [], channels: {}, lastSent: 0 }),
  },
  { key: "threadwise-legacy_system", make: () => threadwiseStack("legacy_system") },
  { key: "threadwise-stable_tail", make: () => threadwiseStack("stable_tail") },
  {
    key: "single-window-trim",
    make: () =>
      single(`windowTrim alone (${WINDOW} messages, chunked default)`, windowTrim({ maxMessages: WINDOW, logger: false }) as never),
  },
  {
    key: "single-token-cap-sliding",
    make: () =>
      single(
        `tokenCap alone (${MAX_TOKENS} tokens, sliding)`,
        tokenCap({ maxTokens: MAX_TOKENS, encoding: "o200k_base", logger: false }) as never,
      ),
  },
  {
    key: "single-token-cap-chunked",
    make: () =>
      single(
        `tokenCap alone (${MAX_TOKENS} tokens, chunked)`,
        tokenCap({ maxTokens: MAX_TOKENS, encoding: "o200k_base", eviction: "chunked", logger: false }) as never,
      ),
  },
  { key: "langchain-exact", make: () => langchainStack("exact") },
  { key: "langchain-approximate", make: () => langchainStack("approximate") },
];
/** `--only threadwise,single` runs the configurations whose key starts with one of the prefixes. */
const ONLY = args.only ? String(args.only).split(",") : undefined;
const CONFIGS = CONFIGS_ALL.filter((c) => !ONLY || ONLY.some((prefix) => c.key.startsWith(prefix)));

// ---------------------------------------------------------------------------------------------
// Measurement

interface Row {
  config: string;
  name: string;
  size: number;
  /** CPU time of the process during the call, median over timed calls, ms. */
  medianMs: number;
  p90Ms: number;
  /** Wall-clock time, median, ms (inflated when the machine is busy). */
  wallMedianMs: number;
  runMedians: number[];
  calls: number;
  sent: number;
  /** Mean ms per timed call spent in each middleware hook itself (inner handlers excluded). */
  breakdown: Record<string, number>;
  /** The hooks' own CPU time per call (all hooks, inner handlers, harness and model excluded), median over timed calls, ms. */
  ownMedianMs: number;
  ownP90Ms: number;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

async function measure(
  config: (typeof CONFIGS)[number],
  size: number,
  specs: readonly Spec[],
  onTimedStart?: () => Promise<void>,
  runs = RUNS,
  windows?: Array<[number, number]>,
): Promise<Row> {
  let start = size;
  while (specs[start - 1]?.type !== "human") start += 1;
  const all: number[] = [];
  const allWall: number[] = [];
  const allOwn: number[] = [];
  const runMedians: number[] = [];
  let name = "";
  let sent = 0;
  const selfTotals = new Map<string, number>();
  let runLimit = runs;
  for (let run = 0; run < runLimit; run += 1) {
    const runStartedAt = performance.now();
    const stack = config.make();
    name = stack.name;
    const threadId = `bench-${config.key}-${size}-${run}`;
    const times: number[] = [];
    const wall: number[] = [];
    const own: number[] = [];
    let length = start;
    const runStarted = performance.now();
    for (let call = 0; call < WARMUP + CALLS; call += 1) {
      const messages = materialize(specs.slice(0, length));
      if (call === WARMUP) {
        stack.selfMs = new Map();
        if (run === 0) await onTimedStart?.();
      }
      collectGarbage();
      // Let the GC's concurrent sweeper threads finish, so their CPU time is not billed to the call.
      await new Promise((done) => setTimeout(done, SETTLE_MS));
      const own0 = ownTotal(stack);
      const c0 = cpuNow();
      const t0 = performance.now();
      const h0 = profileClockUs();
      await modelCall(stack, messages, threadId, SYSTEM_PROMPT);
      if (windows && call >= WARMUP) windows.push([h0, profileClockUs()]);
      const ms = performance.now() - t0;
      const cpu = cpuNow() - c0;
      if (call >= WARMUP) {
        times.push(cpu);
        wall.push(ms);
        own.push(ownTotal(stack) - own0);
      }
      length += 2;
      if (call >= WARMUP + 2 && performance.now() - runStarted > BUDGET_MS) break;
    }
    sent = stack.lastSent;
    for (const [key, ms] of stack.selfMs ?? []) selfTotals.set(key, (selfTotals.get(key) ?? 0) + ms);
    all.push(...times);
    allOwn.push(...own);
    allWall.push(...wall);
    runMedians.push(median(times));
    // A configuration slower than the budget gets 2 runs, not `runs`: its medians are seconds, not noise.
    if (run === 0 && performance.now() - runStartedAt > BUDGET_MS) runLimit = Math.min(runLimit, 2);
  }
  const breakdown = Object.fromEntries([...selfTotals].map(([key, ms]) => [key, ms / all.length]));
  return {
    config: config.key,
    name,
    size,
    medianMs: median(all),
    ownMedianMs: median(allOwn),
    ownP90Ms: percentile(allOwn, 0.9),
    p90Ms: percentile(all, 0.9),
    wallMedianMs: median(allWall),
    runMedians,
    calls: all.length,
    sent,
    breakdown,
  };
}

/**
 * One extra run of the threadwise stack at the largest size with V8's sampling profiler on during
 * the timed calls (not the warm-up). Returns a markdown table of the functions with the most self
 * time, in ms per call, and writes the raw profile to the OS temp dir.
 */
async function profileThreadwise(specs: readonly Spec[]): Promise<string | undefined> {
  const config = CONFIGS.find((c) => c.key === args["profile-config"]);
  if (!config) return undefined;
  const size = Math.max(...SIZES);
  let profiling: Profiling | undefined;
  const start = async () => {
    profiling = await startProfile();
  };
  const windows: Array<[number, number]> = [];
  const row = await measure(config, size, specs, start, 1, windows);
  const { profile, path } = await (profiling as Profiling).stop(`threadwise-overhead-${size}`);
  console.log(`\nprofile of ${row.calls} timed calls at ${size} messages: ${path}`);
  // Only samples taken while a timed call ran (profile and hrtime share the monotonic clock, in µs).
  const { table, sampledMs } = selfTimeTable(profile, row.calls, windows);
  const windowUs = windows.reduce((sum, [a, b]) => sum + (b - a), 0);
  console.log(`profile samples inside the timed calls: ${sampledMs.toFixed(0)} ms of ${(windowUs / 1000).toFixed(0)} ms timed`);
  return table;
}

function fmt(ms: number): string {
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(3);
}

async function main() {
  const specs = corpus(Math.max(...SIZES) + 2 * (WARMUP + CALLS) + 4);
  const machine = machineLine();
  const loadStart = loadavg()[0] ?? 0;
  console.log(`machine: ${machine}; load average ${loadStart.toFixed(1)}`);
  console.log(
    `sizes ${SIZES.join(", ")} messages; ${RUNS} runs x (${WARMUP} warm-up + ${CALLS} timed calls); budget ${BUDGET_MS} ms per run\n`,
  );

  const rows: Row[] = [];
  for (const config of CONFIGS) {
    for (const size of SIZES) {
      // LangChain's rows stop at --langchain-max messages (default 10k, where a call already takes
      // seconds; at 50k one call takes minutes). They are the reference, not a target.
      if (config.key.startsWith("langchain") && size > LANGCHAIN_MAX) continue;
      const row = await measure(config, size, specs);
      rows.push(row);
      console.log(
        `${row.name.padEnd(96)} ${String(size).padStart(6)} msgs  cpu median ${fmt(row.medianMs).padStart(8)} ms (wall ${fmt(row.wallMedianMs)})  p90 ${fmt(row.p90Ms).padStart(8)} ms  (${row.calls} calls, sent ${row.sent})`,
      );
    }
  }
  const profileTable = args["no-profile"] ? undefined : await profileThreadwise(specs);

  const byConfig = new Map<string, Row[]>();
  for (const row of rows) byConfig.set(row.config, [...(byConfig.get(row.config) ?? []), row]);
  const largestSize = Math.max(...SIZES);
  const ratio = (config: string) => {
    const r = byConfig.get(config) ?? [];
    const t1k = r.find((x) => x.size === 1000)?.medianMs;
    const tBig = r.find((x) => x.size === largestSize)?.medianMs;
    return t1k && tBig && largestSize > 1000 ? tBig / t1k : undefined;
  };
  const bigLabel = largestSize >= 1000 ? `${largestSize / 1000}k` : String(largestSize);
  // Targets are on the hooks' own time (harness and model stub excluded: see the baseline row).
  const own10k = (config: string) => byConfig.get(config)?.find((x) => x.size === 10000)?.ownMedianMs;
  const ownRatio = (config: string) => {
    const r = byConfig.get(config) ?? [];
    const t1k = r.find((x) => x.size === 1000)?.ownMedianMs;
    const tBig = r.find((x) => x.size === largestSize)?.ownMedianMs;
    return t1k && tBig && largestSize > 1000 ? tBig / t1k : undefined;
  };
  const verdict = (config: string, t10k: number | undefined): string => {
    if (config.startsWith("single-")) {
      return t10k === undefined ? "n/a" : t10k <= SINGLE_TARGET_MS ? "met" : `missed (${fmt(t10k)} ms > ${SINGLE_TARGET_MS} ms)`;
    }
    if (!config.startsWith("threadwise")) return "(reference)";
    const g = ownRatio(config);
    if (t10k === undefined || g === undefined) return "n/a";
    const misses = [
      ...(t10k > TARGET_MS ? [`${fmt(t10k)} ms > ${TARGET_MS} ms`] : []),
      ...(g > TARGET_RATIO ? [`ratio ${g.toFixed(2)} > ${TARGET_RATIO}`] : []),
    ];
    return misses.length === 0 ? "met" : `missed (${misses.join(", ")})`;
  };

  const table = [
    "| configuration | thread msgs | median CPU ms / call | p90 CPU ms / call | run medians (CPU ms) | median wall ms / call | timed calls | msgs sent |",
    "|---|---:|---:|---:|---|---:|---:|---:|",
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.size.toLocaleString("en-US")} | ${fmt(r.medianMs)} | ${fmt(r.p90Ms)} | ${r.runMedians.map(fmt).join(", ")} | ${fmt(r.wallMedianMs)} | ${r.calls} | ${r.sent} |`,
    ),
  ];
  const growth = [
    `| configuration | hooks' own ms, 1k | own, 10k | own, ${bigLabel} | own growth ${bigLabel}/1k | call CPU ms (harness incl.), 1k / 10k / ${bigLabel} | target on own time (full stack: <= ${TARGET_MS} ms at 10k, growth <= ${TARGET_RATIO}; windowTrim, tokenCap alone: <= ${SINGLE_TARGET_MS} ms at 10k) |`,
    "|---|---:|---:|---:|---:|---|---|",
    ...[...byConfig.entries()].map(([config, r]) => {
      const at = (size: number) => r.find((x) => x.size === size);
      const cell = (v: number | undefined) => (v === undefined ? "n/a" : fmt(v));
      const g = ownRatio(config);
      const calls = [1000, 10000, largestSize].map((size) => cell(at(size)?.medianMs)).join(" / ");
      return `| ${r[0]?.name ?? config} | ${cell(at(1000)?.ownMedianMs)} | ${cell(own10k(config))} | ${cell(at(largestSize)?.ownMedianMs)} | ${g === undefined ? "n/a" : g.toFixed(2)} | ${calls} | ${verdict(config, own10k(config))} |`;
    }),
  ];
  console.log(`\n${growth.join("\n")}`);

  // Where the time goes: each hook's own time (inner handlers excluded), mean ms per call.
  const hookKeys = [...new Set(rows.filter((r) => r.config === "threadwise-legacy_system").flatMap((r) => Object.keys(r.breakdown)))];
  const twRows = rows.filter((r) => r.config === "threadwise-legacy_system");
  const breakdown = [
    `| hook (own time, inner handlers excluded) | ${twRows.map((r) => `${r.size.toLocaleString("en-US")} msgs`).join(" | ")} |`,
    `|---|${twRows.map(() => "---:").join("|")}|`,
    ...hookKeys.map((key) => `| ${key} | ${twRows.map((r) => fmt(r.breakdown[key] ?? 0)).join(" | ")} |`),
    `| sum of hooks | ${twRows.map((r) => fmt(Object.values(r.breakdown).reduce((a, b) => a + b, 0))).join(" | ")} |`,
  ];
  console.log(`\n${breakdown.join("\n")}`);

  // Findings, computed from the figures above.
  const largest = Math.max(...SIZES);
  const findings: string[] = [];
  const tw = byConfig.get("threadwise-legacy_system") ?? [];
  const twBig = tw.find((r) => r.size === largest);
  const twMid = tw.find((r) => r.size === 1000);
  if (twBig) {
    const g = ratio("threadwise-legacy_system");
    findings.push(
      `threadwise full stack: ${fmt(twBig.medianMs)} ms per call at ${largest.toLocaleString("en-US")} messages, growth t(${bigLabel})/t(1k) ${g === undefined ? `not measured (target ${TARGET_RATIO}; it needs 1k and a larger size)` : `${g.toFixed(2)} (target ${TARGET_RATIO}: ${g <= TARGET_RATIO ? "met" : "missed"})`}.`,
    );
    const total = Object.values(twBig.breakdown).reduce((a, b) => a + b, 0);
    const ranked = Object.entries(twBig.breakdown).sort((a, b) => b[1] - a[1]);
    findings.push(
      `Where it goes at ${largest.toLocaleString("en-US")} messages (own CPU time per hook, sum ${fmt(total)} ms): ${ranked
        .slice(0, 4)
        .map(([k, v]) => `${k} ${fmt(v)} ms (${Math.round((100 * v) / Math.max(total, 1e-9))}%)`)
        .join(", ")}.`,
    );
    // Growth needs two lengths: with 1k alone there is nothing to compare.
    if (twMid && largest > 1000) {
      const growing = ranked
        .map(([k, v]) => [k, v, twMid.breakdown[k] ?? 0] as const)
        .filter(([, big, mid]) => big > 0.1 && big > 1.5 * mid)
        .map(([k, big, mid]) => `${k} (${fmt(mid)} -> ${fmt(big)} ms)`);
      findings.push(
        growing.length > 0
          ? `Hooks whose own time grows with the thread from 1k to ${largest.toLocaleString("en-US")} messages: ${growing.join(", ")}; the others cost about the same at every length (per new message, not per thread).`
          : `No hook's own time grows by more than 1.5x from 1k to ${largest.toLocaleString("en-US")} messages: the cost is per new message, not per thread.`,
      );
    }
    for (const key of ["langchain-exact", "langchain-approximate"]) {
      const lc = byConfig.get(key)?.find((r) => r.size === largest);
      if (lc)
        findings.push(
          `${lc.name}: ${fmt(lc.medianMs)} ms per call at ${largest.toLocaleString("en-US")} messages, ${(lc.medianMs / twBig.medianMs).toFixed(0)}x the threadwise stack; growth ${ratio(key)?.toFixed(2) ?? "n/a"}.`,
        );
    }
  }
  console.log(`\n${findings.map((f) => `- ${f}`).join("\n")}`);

  const presetOrder = threadwiseStack("legacy_system")
    .middleware.map((m) => `\`${m.name}\``)
    .join(", ");
  const doc = [
    "# Per-call overhead of the memory middlewares versus thread length",
    "",
    `Command: \`pnpm tsx bench/overhead.ts\` (runs ${RUNS}, timed calls per run ${CALLS}, warm-up ${WARMUP}). Machine: ${machine}; load average (1 min) ${loadStart.toFixed(1)} at the start, ${loadavg()[0]?.toFixed(1)} at the end on ${cpus().length} cores.`,
    "",
    table.join("\n"),
    "",
    "## Growth",
    "",
    growth.join("\n"),
    "",
    "## Findings",
    "",
    ...findings.map((f) => `- ${f}`),
    "",
    "## Where the time goes (threadwise, legacy_system)",
    "",
    "Mean ms per call spent in each hook itself (the time of the handlers it calls is subtracted), over the same timed calls.",
    "",
    breakdown.join("\n"),
    "",
    ...(profileTable
      ? [
          `## Profile (threadwise, legacy_system, ${Math.max(...SIZES).toLocaleString("en-US")} messages)`,
          "",
          "V8 sampling profile of one extra run's timed calls (100 µs interval), self time per function in ms per call; `(garbage collector)` is GC during the calls.",
          "",
          profileTable,
          "",
        ]
      : []),
    "## Method",
    "",
    "- **Thread**: real text, the LoCoMo conversations (`" +
      (cli.data === LOCOMO_PATH ? "data/locomo/locomo-dev.json" : cli.data) +
      "`, CC BY-NC 4.0, Maharana et al. 2024) replayed as user/assistant exchanges, repeated under new ids past their length, cut on a user message at each size.",
    "- **Steady state**: each call sees the same thread plus 2 new messages (the previous answer and a new question), as fresh message objects with the same ids, the way a checkpointer hands the thread back every turn. Building the objects is the checkpointer's work and is not timed.",
    "- **What is timed**: the hooks `createAgent` runs around one model call, in its order: every `beforeModel` (state update applied through the channel's reducer), the `wrapModelCall` chain (first middleware outermost, with the agent's system-message normalization between layers), a model that answers at once, the `Command` updates applied, every `afterModel` in reverse. Not timed: checkpointer, graph runtime, the model.",
    `- **Runs**: ${RUNS} runs per configuration and size, each with new middleware instances; ${WARMUP} warm-up calls (first token count of the thread, fact backfill, first summary) then up to ${CALLS} timed calls; a run stops early after ${BUDGET_MS / 1000} s (at least 3 timed calls), and a configuration whose first run took longer than that gets 2 runs. Median and p90 over every timed call.`,
    `- **Clock**: ${GC_MODE === "full" ? "a full GC" : GC_MODE === "minor" ? "a scavenge (minor GC, `--gc minor`)" : "no forced GC (`--gc none`)"} runs before each timed call and the bench waits 25 ms for its sweeper threads (outside the timing); the time reported is the process's CPU time (user + system, \`process.cpuUsage()\`) during the call, because this machine is shared and wall-clock time there includes waiting for a core. Wall-clock medians are in the first table for comparison. Per-hook times are CPU time too, measured around each hook.`,
    `- **threadwise**: \`memoryMiddleware\` from \`@threadwise/memory\` for the config window ${WINDOW} messages, \`maxHistoryTokens\` ${MAX_TOKENS} (o200k_base), summaries on (threshold 40), facts heuristic; the preset built, outermost first: ${presetOrder}. The summarizer is a stub answering a fixed 600-character text, so building its input is timed and the model is not; a summary is due every 10th call.`,
    "- **baseline**: the same harness with no middleware: what the measurement itself costs.",
    "- **Hooks' own time**: per call, the sum of every hook's own CPU time (the handlers it calls subtracted), so the harness and the model stub are not in it; the targets are on its median.",
    `- **windowTrim, tokenCap alone**: each middleware by itself over the whole thread (no window before it): windowTrim ${WINDOW} messages with its default chunked eviction; tokenCap ${MAX_TOKENS} tokens, o200k_base, sliding and chunked.`,
    `- **LangChain**: \`summarizationMiddleware\` (trigger 4,000,000 tokens, never reached in the bench, so it counts the thread and decides, as it does on every call before it fires; keep ${WINDOW} messages) plus a middleware applying \`trimMessages\` (last ${MAX_TOKENS} tokens, start on human, end on human or tool). Exact counter: js-tiktoken o200k_base per message, memoized per message object (each fresh message tokenized once per call, shared by both middlewares: the most favourable way to give LangChain an exact count). Approximate: LangChain's \`countTokensApproximately\`.`,
    "",
  ].join("\n");
  const figures = {
    machine,
    runs: RUNS,
    calls: CALLS,
    warmup: WARMUP,
    gc: GC_MODE,
    rows,
    growth: Object.fromEntries([...byConfig.keys()].map((k) => [k, ratio(k) ?? null])),
    /** Growth of the hooks' own median time, t(largest)/t(1k), per configuration. */
    ownGrowth: Object.fromEntries([...byConfig.keys()].map((k) => [k, ownRatio(k) ?? null])),
    targets: Object.fromEntries([...byConfig.keys()].map((k) => [k, verdict(k, own10k(k))])),
  };
  if (cli.json) printJson({ bench: "overhead", data: cli.data, ...figures });
  // Only a run of every configuration and size on the committed data replaces the committed results.
  if (args.only || args.sizes !== "1000,10000,50000" || GC_MODE !== "full" || !cli.writesResults) {
    console.log("\n--only, --sizes, --gc, --data or --json given: bench/results/overhead.{md,json} left as they were");
    return;
  }
  mkdirSync(dirname(RESULTS_MD), { recursive: true });
  writeFileSync(RESULTS_MD, doc);
  writeFileSync(RESULTS_JSON, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`\nwrote ${RESULTS_MD} and ${RESULTS_JSON}`);
}

await main();
