/**
 * Cost per call when one process serves many threads, and on a process that has never seen the
 * thread (issue 21, spec R37: "a call costs the same on a process that has never seen the thread
 * as on one that has").
 *
 *   pnpm tsx bench/scale.ts                   # the default run (a few minutes on 2 cores); writes bench/results/scale.{md,json}
 *   pnpm tsx bench/scale.ts --json            # the figures as one JSON document on stdout (tables to stderr; results files untouched)
 *   pnpm tsx bench/scale.ts --step-threads 10,1000,2000,5000 --cold-sizes 1000,10000,50000 --cold-runs 5   # the full sizes
 *   pnpm tsx bench/scale.ts --postgres-url postgresql://... # PostgreSQL too (else THREADWISE_TEST_POSTGRES_URL; without either it is not run)
 *
 * Options: `--threads` (threads served round-robin, hooks' own time; default 10,1000,2000,5000),
 * `--size` (messages per round-robin thread, default 1000), `--calls` (timed calls per thread
 * count, default 300), `--step-threads` (threads served round-robin, whole step on a MemorySaver;
 * default 10,1000), `--step-rounds` (timed full rounds over the threads, default 1), `--step-warmup`
 * (untimed steps per configuration first: `round`, every thread once (default), or a count),
 * `--cold-sizes` (default 1000,10000,50000), `--cold-savers` (default memory,sqlite, plus
 * postgres with a URL), `--cold-runs` (fresh processes per size and saver, default 3; a list gives one per cold size), `--warm`
 * (warm steps per process, default 5), `--recall` (recall in every part), `--recall-threads`
 * (round-robin rows with recall, default 10,200), `--profile` (V8's profiler on during each
 * round-robin row's timed calls; prints the functions with the most self time and writes the
 * profile to the OS temp dir; in each cold sample, the stack's cold steps against the floor's and its own
 * warm ones, by function), `--write` (write bench/results/scale.{md,json} with other options
 * too; the command is recorded in them), `--out <name>` (write bench/results/<name>.{md,json}
 * instead), `--cold-step-max-other` (the largest thread, in messages, measured on SQLite and PostgreSQL;
 * default 10000), `--cold-warmup-size` (messages of each cold sample's warm-up threads; default the
 * measured size, at most 10,000; `--cold-warmup-size 100` is the warm-up before 3 December), `--postgres-url`, `--data <locomo file>`, `--json`.
 *
 * Method (printed with the results):
 * - Threads: LoCoMo conversations replayed as user/assistant exchanges (bench/support/locomo.ts);
 *   round-robin threads each carry their own marker in every message, so no two threads share a
 *   text (a content-keyed cache is not helped by another thread's copy).
 * - Stack: the full threadwise stack of bench/step.ts (`memoryMiddleware`: window 20, summaries
 *   with a stub summarizer, facts heuristic, historyAware, tokenCap 8000), legacy_system, without
 *   recall (the stack the targets were set on) unless `--recall`; round-robin rows with recall
 *   (memoryStack's default) at `--recall-threads` (default 10,200: past recall's 64-thread bound).
 *   The floor is one pass-through `wrapModelCall` middleware, as in bench/step.ts.
 * - Round-robin, hooks' own time: one set of middleware instances serves T threads in turn, each
 *   call with fresh message objects (as a checkpointer deserializes them) and the thread 2
 *   messages longer than at its previous call; the hooks run as `createAgent` runs them
 *   (bench/support/hook-calls.ts, the harness of bench/overhead.ts). Every thread starts from the
 *   private channels (summary, facts) a long-served thread holds: made by other instances over
 *   calls until the summary caught up, then rewritten for each thread's text (its ids, texts and
 *   the summary's digests of what it covers). The threads are spread over the summary period, so
 *   the timed calls hold due calls in the same share whether a thread is served once or often.
 *   One untimed round over all T threads (each thread's first call), then `--calls` timed calls
 *   continuing the round-robin. A minor GC before each timed call; V8's GC pauses begun inside
 *   the timed calls are counted (`performance` "gc" entries). Heap per thread: `heapUsed`
 *   after a full GC once the untimed round is over, minus before it, over T: what the process
 *   keeps per thread besides the stored state (the channels existed before).
 * - Round-robin, whole step: `createAgent(...).invoke` of one agent per configuration (one set of
 *   middleware instances, as a server has) on a MemorySaver holding T seeded threads per
 *   configuration (pruned to their newest checkpoint; thread 0 seeded with `updateState`, the others
 *   with a copy of its checkpoint rewritten for their ids and text, bench/support/seed-thread.ts),
 *   every thread visited in order, the floor's and the stack's in turn (f0, s0, f1, s1, ...); the
 *   untimed warm-up (`--step-warmup`), then `--step-rounds` full timed rounds. CPU time of the
 *   process; median and mean per step over the rounds, and each round's means.
 * - Cold against warm: each sample is a new process (this script with `--child`), which first
 *   serves 3 steps on a thread of other text as large as the measured one (`--cold-warmup-size`;
 *   real LoCoMo text past the measured thread's, so the code paths real text and a thread of that
 *   size take are compiled, and the heap has grown to such a step, as on a replica that has served
 *   other threads; the hooks also read 1,000 messages of it, 100 at a time, as threads new to
 *   them), then takes one step on the
 *   measured thread (cold: the first call of this process on the thread), then `--warm` more steps
 *   (warm, median); the floor and the stack each on a thread of their own, interleaved (which goes
 *   first alternates between processes), a full GC before each step outside the timing. The hooks'
 *   own time is measured the same way in the same process on a third thread of its own text.
 *   Under each sample's line, one line per step says where its CPU went (`StepDetail`: user and
 *   system ms, GC pauses, page faults, preemptions, wall ms, and the saver's reads, writes and
 *   serialized KiB), to tell a step that did more work from one the machine made dearer.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type PerformanceEntry, PerformanceObserver, constants as perfConstants, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { SUMMARY_SLOT_KEY, type SummaryRecord } from "@threadwise/core";
import {
  DEFAULT_FACT_INDEX_MAX_FACTS,
  DEFAULT_FACT_INDEX_MAX_THREADS,
  DEFAULT_MAX_ITEMS,
  DEFAULT_MIN_SCORE,
  FACTS_STATE_KEY,
  type Fact,
  FactIndexCache,
} from "@threadwise/fact-recall";
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain";
// The digests summarize keeps of what a summary covers (not part of its public API; the bench
// rewrites a prepared thread's channels for another thread's text, see `retarget`).
import { coveredDigestsOf, coveredMessages } from "../packages/summarize/src/summary-coverage.js";
import { benchArgs, printJson } from "./support/cli.js";
import { BenchOptionError } from "./support/data-file.js";
import { GC_KIND_NAMES, type GcKind } from "./support/gc-kinds.js";
import { cpuNow, modelCall, ownTotal, type Stack } from "./support/hook-calls.js";
import { LOCOMO_PATH, locomoThread, type ThreadMessageSpec } from "./support/locomo.js";
import { machineLine, median } from "./support/machine.js";
import { profileClockUs, selfTimeDiffTable, selfTimeTable, startProfile } from "./support/profile.js";
import { type Settled, sweepClause, warmStepSpread } from "./support/scale-method.js";
import { newestCheckpoint, putCheckpointCopy, seedState } from "./support/seed-thread.js";
import {
  AnswerModel,
  fullStack,
  memoryTarget,
  postgresTarget,
  SUMMARIZE_THRESHOLD,
  sqliteTarget,
  type Target,
  WINDOW,
} from "./support/step-savers.js";

const here = dirname(fileURLToPath(import.meta.url));

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as (options?: { type: "major" | "minor" }) => void;

const DEFAULTS = {
  threads: "10,1000,2000,5000",
  size: "1000",
  calls: "300",
  "step-threads": "10,1000",
  "step-rounds": "1",
  "step-warmup": "round",
  "cold-sizes": "1000,10000,50000",
  "cold-savers": "memory,sqlite",
  "cold-runs": "3",
  warm: "5",
  "recall-threads": "10,200",
  "cold-step-max-other": "10000",
  "fact-index-threads": "10,5000",
  "cold-warmup-size": "",
};
const cli = benchArgs(LOCOMO_PATH, {
  threads: { type: "string", default: DEFAULTS.threads },
  size: { type: "string", default: DEFAULTS.size },
  calls: { type: "string", default: DEFAULTS.calls },
  "step-threads": { type: "string", default: DEFAULTS["step-threads"] },
  "step-rounds": { type: "string", default: DEFAULTS["step-rounds"] },
  "step-warmup": { type: "string", default: DEFAULTS["step-warmup"] },
  "cold-sizes": { type: "string", default: DEFAULTS["cold-sizes"] },
  "cold-savers": { type: "string", default: DEFAULTS["cold-savers"] },
  "cold-runs": { type: "string", default: DEFAULTS["cold-runs"] },
  warm: { type: "string", default: DEFAULTS.warm },
  "recall-threads": { type: "string", default: DEFAULTS["recall-threads"] },
  "cold-step-max-other": { type: "string", default: DEFAULTS["cold-step-max-other"] },
  "fact-index-threads": { type: "string", default: DEFAULTS["fact-index-threads"] },
  "cold-warmup-size": { type: "string", default: DEFAULTS["cold-warmup-size"] },
  recall: { type: "boolean", default: false },
  profile: { type: "boolean", default: false },
  write: { type: "boolean", default: false },
  out: { type: "string", default: "scale" },
  "postgres-url": { type: "string" },
  child: { type: "string" },
  channels: { type: "string" },
});
const args = cli.values;
/** `--out <name>`: the results files are bench/results/<name>.{md,json} (default `scale`). */
const OUT = String(args.out);
if (!/^[a-z0-9-]+$/.test(OUT)) throw new BenchOptionError("--out", `a file name of a-z, 0-9 and "-" (got ${JSON.stringify(OUT)})`);
const RESULTS_MD = resolve(here, `results/${OUT}.md`);
const RESULTS_JSON = resolve(here, `results/${OUT}.json`);
const list = (value: unknown) => (String(value) === "" ? [] : String(value).split(",").map(Number));
const THREADS = list(args.threads);
const SIZE = Number(args.size);
const CALLS = Number(args.calls);
const STEP_THREADS = list(args["step-threads"]);
/** `--step-rounds`: timed full rounds of the round-robin whole step (every thread once per round). */
const STEP_ROUNDS = Number(args["step-rounds"]);
/** `--step-warmup`: untimed steps per configuration before the timed rounds: `round` (every thread once) or a count. */
const STEP_WARMUP: "round" | number = args["step-warmup"] === "round" ? "round" : Number(args["step-warmup"]);
if (!(STEP_ROUNDS >= 1) || (STEP_WARMUP !== "round" && !(STEP_WARMUP >= 0)))
  throw new BenchOptionError(
    "--step-rounds",
    `1 or more, with --step-warmup "round" or a count (got ${args["step-rounds"]}, ${args["step-warmup"]})`,
  );
const COLD_SIZES = list(args["cold-sizes"]);
/** `--cold-runs`: processes per size and saver; a list gives one per `--cold-sizes` entry (the last repeated). */
const COLD_RUNS = list(args["cold-runs"]);
const coldRunsAt = (index: number) => COLD_RUNS[Math.min(index, COLD_RUNS.length - 1)] as number;
/** `--recall`: every part with recall in the stack (memoryStack's default); by default only the `--recall-threads` round-robin rows. */
const RECALL = args.recall === true;
const RECALL_THREADS = list(args["recall-threads"]);
/** `--profile`: V8's sampling profiler on during each round-robin row's timed calls; the functions with the most self time are printed. */
const PROFILE = args.profile === true;
const WARM = Number(args.warm);
const POSTGRES_URL = args["postgres-url"] ?? process.env.THREADWISE_TEST_POSTGRES_URL;
/** Each saver once: `--cold-savers memory,sqlite,postgres` with a URL ran PostgreSQL twice. */
const COLD_SAVERS = [...new Set([...String(args["cold-savers"]).split(","), ...(POSTGRES_URL ? ["postgres"] : [])])] as Array<
  Target["kind"]
>;
/** Issue 21's targets. */
const STEP_TARGET = 1.15;
const THREADS_TARGET = 1.5;
/** Whole-step targets apply at these sizes (issue 21: 1k and 10k messages). */
const STEP_TARGET_SIZES = [1000, 10000];
/** `--cold-step-max-other`: the largest thread (messages) the whole step is measured on with a saver other than memory (a 50k-message seed is minutes on SQLite); past it only the hooks' own time. */
const COLD_STEP_MAX_OTHER = Number(args["cold-step-max-other"]);
/** Largest default warm-up thread of a cold sample, messages (a 50k-message warm-up thread would double the sample's heap and seeding). */
const COLD_WARMUP_MAX = 10_000;
/**
 * `--cold-warmup-size`: messages of a cold sample's warm-up threads, by measured size. Default the
 * measured size (at most {@link COLD_WARMUP_MAX}): the process has taken steps on threads as large
 * before, so the measured step pays what is new about its thread, not V8's first compilation of
 * code at that size or the heap's growth to it, which a replica pays once (whichever lane went
 * first paid them, ours and LangGraph's).
 */
const coldWarmupSize = (size: number): number => {
  const given = String(args["cold-warmup-size"]);
  if (given === "") return Math.min(size, COLD_WARMUP_MAX);
  const n = Number(given);
  if (!Number.isInteger(n) || n < 10)
    throw new BenchOptionError("--cold-warmup-size", `a whole number of messages, 10 or more (got ${JSON.stringify(given)})`);
  return n;
};
// A bad value is refused before any sample runs (the samples read it).
coldWarmupSize(0);
/** `--fact-index-threads`: threads served round-robin by fact-recall's index cache alone (its bound against holding every thread). */
const FACT_INDEX_THREADS = list(args["fact-index-threads"]);
const SYSTEM_PROMPT = "You are a warm, attentive companion who chats with the user about their life. Answer in two or three sentences.";

/** The stack under test: the full stack of bench/step.ts, with or without recall (`--recall`). */
const stackMiddleware = (recall = RECALL): AgentMiddleware[] => fullStack("legacy_system", { recall });

const floorMiddleware = (): AgentMiddleware[] => [
  createMiddleware({ name: "bench/pass-through", wrapModelCall: (request, handler) => handler(request) }),
];

/** Fresh message objects for `specs`, each text with `marker` appended (threads do not share texts). */
function materialize(specs: readonly ThreadMessageSpec[], prefix: string, marker: string): BaseMessage[] {
  return specs.map((s) =>
    s.type === "human"
      ? new HumanMessage({ id: `${prefix}${s.id}`, content: `${s.content}${marker}` })
      : new AIMessage({ id: `${prefix}${s.id}`, content: `${s.content}${marker}` }),
  );
}

/** The first user message at or after `from`. */
function userAt(specs: readonly ThreadMessageSpec[], from: number): number {
  let k = from;
  while (specs[k]?.type !== "human") k += 1;
  return k;
}

/**
 * The private channels (summary, facts) a thread holds after its previous call, in the steady
 * state a long-served thread is in: calls of a full stack of its own (other instances, other
 * process state) on the thread's first `end + 1` messages (`end`: a user message), repeated until
 * the summary has caught up (a call folds at most `maxPassesPerCall` passes of backlog in, so one
 * call on a 1k-message thread leaves most of it behind). A process serving the thread next finds
 * them in the checkpoint, as a replica finds what another one wrote.
 */
async function preparedChannels(specs: readonly ThreadMessageSpec[], end: number, prefix: string, marker: string, recall = RECALL) {
  const stack: Stack = { name: "prepare", middleware: stackMiddleware(recall), channels: {}, lastSent: 0 };
  const messages = materialize(specs.slice(0, end + 1), prefix, marker);
  let covered = -1;
  for (let i = 0; i < 100; i += 1) {
    await modelCall(stack, messages, `prepare-${prefix}`, SYSTEM_PROMPT);
    const now = (stack.channels[SUMMARY_SLOT_KEY] as { summary?: SummaryRecord } | undefined)?.summary?.coveredCount ?? 0;
    if (now === covered) break;
    covered = now;
  }
  return stack.channels;
}

/**
 * `channels` of the thread with `from` prefix and marker, for the thread with `to`'s (same text
 * otherwise, `messages`): ids and texts rewritten, and the summary's `coveredDigests` (digests of
 * the covered messages' content, spec R37) made again from the new thread's messages, as a call
 * on that thread would have written them. Left as they were, every call would find the covered
 * messages changed and summarize the thread again from its start.
 */
function retarget(
  channels: Record<string, unknown>,
  from: [string, string],
  to: [string, string],
  messages: readonly BaseMessage[],
): Record<string, unknown> {
  const out = JSON.parse(JSON.stringify(channels).replaceAll(`"${from[0]}`, `"${to[0]}`).replaceAll(from[1], to[1])) as Record<
    string,
    unknown
  >;
  const summary = (out[SUMMARY_SLOT_KEY] as { summary?: SummaryRecord } | undefined)?.summary;
  if (summary?.coveredDigests !== undefined) {
    const covered = coveredMessages(messages, summary);
    summary.coveredDigests = coveredDigestsOf(covered);
  }
  return out;
}

/** Calls of one thread (2 messages each) between two summaries of the full stack. */
const PERIOD_CALLS = Math.max(1, (SUMMARIZE_THRESHOLD - WINDOW) / 2);

const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const heapUsed = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

// ---------------------------------------------------------------------------------------------
// Round-robin, hooks' own time

interface HooksRow {
  /** Recall in the stack. */
  recall: boolean;
  threads: number;
  size: number;
  /** The hooks' own CPU ms per call (median, p90) and the whole call in the harness (median). */
  ownMs: number;
  ownP90Ms: number;
  /** The hooks' own CPU ms per call, mean (due summary calls included). */
  ownMeanMs: number;
  callMs: number;
  calls: number;
  /** Heap held per thread after every thread's first call, bytes. */
  heapPerThread: number;
  /** The wait until the process was idle after the heap measure (V8 sweeping T threads' heap), before the timed calls. */
  settledAfterHeap: Settled;
  /** The hooks' own CPU ms per call, by middleware and hook (mean over the timed calls). */
  byHook: Record<string, number>;
  /**
   * V8's garbage collections whose pause began inside a timed call, by kind: how many, and their
   * pause ms per timed call (main thread; the work of V8's helper threads is in the CPU time but not here).
   */
  gc: Record<GcKind, { count: number; msPerCall: number }>;
  /** Load average (1 min) when the row was done. */
  load: number;
}

/** A "gc" entry's kind (`perf_hooks.constants.NODE_PERFORMANCE_GC_*`; -1 when it has none). */
const gcKindOf = (entry: PerformanceEntry): number => (entry as { detail?: { kind?: number } }).detail?.kind ?? -1;

/**
 * Collects V8's GC pauses (`performance` "gc" entries) until `stop`, which returns them by kind
 * for the pauses that began inside one of `windows` (`performance.now()` ms), per window.
 */
function watchGc(): { stop: (windows: ReadonlyArray<readonly [number, number]>) => Promise<HooksRow["gc"]> } {
  const entries: PerformanceEntry[] = [];
  const observer = new PerformanceObserver((list) => entries.push(...list.getEntries()));
  observer.observe({ entryTypes: ["gc"] });
  return {
    stop: async (windows) => {
      // Entries are delivered on a timer turn of the event loop (not yet at the next setImmediate).
      await new Promise((resolve) => setTimeout(resolve, 50));
      observer.disconnect();
      const out = Object.fromEntries(Object.values(GC_KIND_NAMES).map((k) => [k, { count: 0, msPerCall: 0 }])) as HooksRow["gc"];
      for (const entry of entries) {
        const kind = GC_KIND_NAMES[gcKindOf(entry)];
        if (kind === undefined || !windows.some(([a, b]) => entry.startTime >= a && entry.startTime < b)) continue;
        out[kind].count += 1;
        out[kind].msPerCall += entry.duration / Math.max(1, windows.length);
      }
      return out;
    },
  };
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

async function roundRobinHooks(threads: number, specs: readonly ThreadMessageSpec[], recall = RECALL): Promise<HooksRow> {
  const stack: Stack = { name: "full stack", middleware: stackMiddleware(recall), channels: {}, lastSent: 0 };
  // Every thread starts where its previous call (served elsewhere) left it: its summary and facts stored.
  const end = userAt(specs, SIZE - 1);
  const template = await preparedChannels(specs, end, "t0-", " ⟨0⟩", recall);
  const channels = Array.from({ length: threads }, (_, k) =>
    retarget(template, ["t0-", " ⟨0⟩"], [`t${k}-`, ` ⟨${k}⟩`], materialize(specs.slice(0, end + 1), `t${k}-`, ` ⟨${k}⟩`)),
  );
  // Threads in every phase of the summary period (a summary is made every PERIOD_CALLS calls of a
  // thread): the first call of thread k comes k % PERIOD_CALLS exchanges later, so the timed
  // calls sample due and other calls alike whether each thread is served once or many times.
  const lengths: number[] = Array.from({ length: threads }, (_, k) => userAt(specs, end + 2 + 2 * (k % PERIOD_CALLS)) + 1);
  const call = async (k: number, timed: boolean) => {
    const messages = materialize(specs.slice(0, lengths[k]), `t${k}-`, ` ⟨${k}⟩`);
    stack.channels = channels[k] as Record<string, unknown>;
    if (timed) gc({ type: "minor" });
    const own0 = ownTotal(stack);
    // The call's span on `performance`'s clock (GC entries) and the profiler's, after the minor GC.
    const t0 = performance.now();
    const h0 = profileClockUs();
    const c0 = cpuNow();
    await modelCall(stack, messages, `rr-${threads}-${k}`, SYSTEM_PROMPT);
    const cpu = cpuNow() - c0;
    const window = [t0, performance.now()] as const;
    const profiled: [number, number] = [h0, profileClockUs()];
    channels[k] = stack.channels;
    lengths[k] = (lengths[k] as number) + 2;
    return { own: ownTotal(stack) - own0, cpu, window, profiled };
  };
  const before = heapUsed();
  for (let k = 0; k < threads; k += 1) await call(k, false);
  const heapPerThread = (heapUsed() - before) / threads;
  // The full GCs of `heapUsed` leave V8 sweeping a heap of T threads; at 5,000 threads the first
  // timed call paid for it (0.4-0.5 s of CPU, 1.4-1.6 ms of the row's mean per call), so the timed calls wait.
  const settledAfterHeap = await settle(SETTLE_HEAP_MAX_MS);
  stack.selfMs = new Map();
  const own: number[] = [];
  const cpu: number[] = [];
  const windows: Array<[number, number]> = [];
  const callWindows: Array<readonly [number, number]> = [];
  const profiling = PROFILE ? await startProfile() : undefined;
  const gcWatch = watchGc();
  for (let i = 0; i < CALLS; i += 1) {
    const out = await call(i % threads, true);
    windows.push(out.profiled);
    callWindows.push(out.window);
    own.push(out.own);
    cpu.push(out.cpu);
  }
  const gcInCalls = await gcWatch.stop(callWindows);
  if (profiling) {
    const { profile, path } = await profiling.stop(`threadwise-scale-${threads}${recall ? "-recall" : ""}`);
    const { table, sampledMs } = selfTimeTable(profile, CALLS, windows, 20);
    console.log(`profile of ${CALLS} timed calls, ${threads} threads (${sampledMs.toFixed(0)} ms sampled): ${path}\n${table}`);
  }
  return {
    recall,
    threads,
    size: SIZE,
    ownMs: median(own),
    ownP90Ms: percentile(own, 0.9),
    ownMeanMs: own.reduce((a, b) => a + b, 0) / own.length,
    callMs: median(cpu),
    calls: own.length,
    heapPerThread,
    settledAfterHeap,
    byHook: Object.fromEntries([...(stack.selfMs ?? new Map<string, number>())].map(([k, v]) => [k, v / own.length])),
    gc: gcInCalls,
    load: loadavg()[0] ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Round-robin, fact-recall's index cache alone

interface FactIndexRow {
  threads: number;
  /** Facts per thread (the stack's prepared facts). */
  factsPerThread: number;
  /** The cache's bound in facts (`maxHeldFacts`): the default, or every thread's facts. */
  maxHeldFacts: number;
  /** Threads whose index the cache held after the untimed round. */
  held: number;
  /** CPU ms per call of what fact-recall does with its index on a user message (sync, then search): median, mean, p90. */
  callMs: number;
  callMeanMs: number;
  callP90Ms: number;
  calls: number;
  /** Heap held per thread after the untimed round (the indexes and the fact objects they point at), bytes. */
  heapPerThread: number;
  load: number;
}

/**
 * fact-recall's per-thread index (`FactIndexCache`, as `factRecall` makes it) serving T threads in
 * turn: each thread holds the stack's prepared facts made its own (its marker on every fact's key
 * and text, so no two threads share an index entry), each call hands over fresh fact objects (as
 * a checkpointer does) and does what fact-recall does on a user message: the cache's index for the
 * thread, `sync` with the slot's facts, `search` with the thread's newest user message. Once with
 * the default `maxHeldFacts` and once with a bound that holds every thread.
 */
async function roundRobinFactIndex(threads: number, maxHeldFacts: number, facts: readonly Fact[], query: string): Promise<FactIndexRow> {
  const own = Array.from({ length: threads }, (_, k) =>
    facts.map((fact) => ({ ...fact, key: `${fact.key} ⟨f${k}⟩`, text: `${fact.text} ⟨f${k}⟩` })),
  );
  const cache = new FactIndexCache(DEFAULT_FACT_INDEX_MAX_THREADS, maxHeldFacts);
  const call = (k: number) => {
    const fresh = (own[k] as Fact[]).map((fact) => ({ ...fact }));
    const c0 = cpuNow();
    const index = cache.for(`fi-${k}`);
    index.sync(fresh);
    index.search(`${query} ⟨f${k}⟩`, DEFAULT_MAX_ITEMS, DEFAULT_MIN_SCORE);
    return cpuNow() - c0;
  };
  const before = heapUsed();
  for (let k = 0; k < threads; k += 1) call(k);
  const heapPerThread = (heapUsed() - before) / threads;
  await settle(SETTLE_HEAP_MAX_MS);
  const held = cache.threads;
  const times: number[] = [];
  const calls = Math.max(CALLS, Math.min(threads, 5 * CALLS));
  for (let i = 0; i < calls; i += 1) {
    if (i % 50 === 0) gc({ type: "minor" });
    times.push(call(i % threads));
  }
  return {
    threads,
    factsPerThread: facts.length,
    maxHeldFacts,
    held,
    callMs: median(times),
    callMeanMs: mean(times),
    callP90Ms: percentile(times, 0.9),
    calls,
    heapPerThread,
    load: loadavg()[0] ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Whole step

interface Lane {
  key: "floor" | "stack";
  agent: ReturnType<typeof createAgent>;
  threadId: string;
  prefix: string;
  marker: string;
  next: number;
  /** Where the CPU of the lane's last step went ({@link StepDetail}). */
  last?: StepDetail;
}

/**
 * Where a step's CPU time went, from `process.resourceUsage()` and V8's GC entries over the step:
 * user and system CPU ms (system: the kernel's, e.g. page faults), GC pauses on the main thread
 * (ms of wall time, count, and how many were full mark-compacts), page faults, involuntary context
 * switches (how often the machine took the CPU away), wall ms. Read next to a sample's CPU ms to
 * tell a step that did more work from one the machine made dearer.
 */
interface StepDetail {
  userMs: number;
  systemMs: number;
  gcMs: number;
  gcs: number;
  majorGcs: number;
  minorFaults: number;
  majorFaults: number;
  involuntarySwitches: number;
  wallMs: number;
  /** The saver's checkpoint reads, checkpoint writes, pending-write batches and serialized KiB. */
  gets: number;
  puts: number;
  putWrites: number;
  kib: number;
}

/** GC entries since the process started observing (`--child` only); a step reads the ones in its window. */
const gcEntries: Array<{ startTime: number; duration: number; major: boolean }> = [];

function observeGc(): void {
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      gcEntries.push({
        startTime: entry.startTime,
        duration: entry.duration,
        major: (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR,
      });
  }).observe({ entryTypes: ["gc"] });
}

const formatDetail = (d: StepDetail): string =>
  `user ${d.userMs.toFixed(0)} sys ${d.systemMs.toFixed(0)}, gc ${d.gcMs.toFixed(0)} ms in ${d.gcs} (${d.majorGcs} full), faults ${d.minorFaults}/${d.majorFaults}, preempted ${d.involuntarySwitches}, wall ${d.wallMs.toFixed(0)}; saver gets ${d.gets}, puts ${d.puts}, putWrites ${d.putWrites}, ${d.kib.toFixed(0)} KiB`;

/** The floor's or the stack's agent on `target`'s saver (new middleware instances). */
function agentOf(target: Target, key: Lane["key"]): Lane["agent"] {
  return createAgent({
    model: new AnswerModel({}),
    tools: [],
    systemPrompt: SYSTEM_PROMPT,
    checkpointer: target.saver,
    middleware: key === "floor" ? floorMiddleware() : stackMiddleware(),
  });
}

/** A thread served by `agent` (by default an agent of its own). */
function laneOf(target: Target, key: Lane["key"], threadId: string, marker: string, agent = agentOf(target, key)): Lane {
  return { key, agent, threadId, prefix: `${threadId}-`, marker, next: 0 };
}

/**
 * Seeds the lane's thread (one state update, pruned to that checkpoint): about `size` messages,
 * ending on an answer, and for the stack the private channels its previous call left
 * ({@link preparedChannels}).
 */
async function seed(
  target: Target,
  lane: Lane,
  specs: readonly ThreadMessageSpec[],
  size: number,
  channels: Record<string, unknown> = {},
): Promise<void> {
  const end = userAt(specs, size - 1);
  await seedState(lane.agent, target, lane.threadId, {
    messages: materialize(specs.slice(0, end + 2), lane.prefix, lane.marker),
    ...(lane.key === "stack" ? channels : {}),
  });
  lane.next = end + 2;
}

/** Longest wait of {@link settle} before a step, ms. */
const SETTLE_MAX_MS = 300;
/** Longest wait of {@link settle} after the round-robin rows' heap measure, ms (sweeping the heap of 5,000 threads took 0.7 s of wall time at load 14). */
const SETTLE_HEAP_MAX_MS = 5000;

/**
 * Waits until the process is idle (under 1 ms of CPU over a 10 ms wait, at most `maxMs`): after a
 * full GC, V8 sweeps and frees on helper threads, and the process's CPU time would bill that work
 * (the seeding's garbage, or the other lane's last step's) to the step that comes next.
 * @returns the wait's wall time and the process's CPU time meanwhile, ms.
 */
async function settle(maxMs = SETTLE_MAX_MS): Promise<Settled> {
  const t0 = performance.now();
  const cpu0 = cpuNow();
  for (let waited = 0; waited < maxMs; waited += 10) {
    const c0 = cpuNow();
    await new Promise((resolve) => setTimeout(resolve, 10));
    if (cpuNow() - c0 < 1) break;
  }
  return { wallMs: performance.now() - t0, cpuMs: cpuNow() - cpu0 };
}

/**
 * One step of the lane (a new user message in, "ok" out); CPU ms of the process. A minor GC
 * before it, outside the timing, or with `gcBefore: "major"` a full one and a wait until the
 * process is idle ({@link settle}; the cold samples: a major GC owed to the seeding, and the
 * sweeping after it on V8's helper threads, otherwise land in whichever step comes next).
 */
async function step(
  target: Target,
  lane: Lane,
  specs: readonly ThreadMessageSpec[],
  gcBefore: "minor" | "major" = "minor",
): Promise<number> {
  const k = userAt(specs, lane.next);
  lane.next = k + 2;
  const spec = specs[k] as ThreadMessageSpec;
  const input = {
    messages: [new HumanMessage({ id: `${lane.prefix}u${k}-${randomUUID().slice(0, 8)}`, content: `${spec.content}${lane.marker}` })],
  };
  if (gcBefore === "major") {
    gc();
    await settle();
  } else gc({ type: "minor" });
  const c = target.counters;
  const overhead0 = c.overheadMs;
  const counts0 = { gets: c.gets, puts: c.puts, putWrites: c.putWrites, bytes: c.bytes };
  const u0 = process.resourceUsage();
  const w0 = performance.now();
  const c0 = cpuNow();
  await lane.agent.invoke(input, { configurable: { thread_id: lane.threadId }, recursionLimit: 50 });
  const cpu = cpuNow() - c0 - (c.overheadMs - overhead0);
  const w1 = performance.now();
  const u1 = process.resourceUsage();
  // GC entries are queued: a step's last ones arrive after a turn of the event loop.
  await new Promise((resolve) => setImmediate(resolve));
  const gcs = gcEntries.filter((e) => e.startTime >= w0 && e.startTime < w1);
  lane.last = {
    userMs: (u1.userCPUTime - u0.userCPUTime) / 1000,
    systemMs: (u1.systemCPUTime - u0.systemCPUTime) / 1000,
    gcMs: gcs.reduce((sum, e) => sum + e.duration, 0),
    gcs: gcs.length,
    majorGcs: gcs.filter((e) => e.major).length,
    minorFaults: u1.minorPageFault - u0.minorPageFault,
    majorFaults: u1.majorPageFault - u0.majorPageFault,
    involuntarySwitches: u1.involuntaryContextSwitches - u0.involuntaryContextSwitches,
    wallMs: w1 - w0,
    gets: c.gets - counts0.gets,
    puts: c.puts - counts0.puts,
    putWrites: c.putWrites - counts0.putWrites,
    kib: (c.bytes - counts0.bytes) / 1024,
  };
  await target.prune(lane.threadId);
  return cpu;
}

interface StepRow {
  saver: string;
  threads: number;
  size: number;
  /** Untimed steps before the timed rounds (a full round: every thread's first step in this process). */
  warmupSteps: number;
  /** Timed rounds (every thread once per round, the floor's and the stack's in turn). */
  rounds: number;
  /** CPU ms per step over the timed rounds: median and mean. */
  floorMs: number;
  stackMs: number;
  floorMeanMs: number;
  stackMeanMs: number;
  /** Per timed round: mean CPU ms per step of the floor and of the stack, and the load at its end. */
  byRound: Array<{ floorMeanMs: number; stackMeanMs: number; load: number }>;
  steps: number;
  /** Seconds spent seeding the 2 x T threads. */
  seedSeconds: number;
  /** Load average (1 min) when the row was done. */
  load: number;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/**
 * Whole steps of one floor agent and one stack agent, each serving T threads of SIZE messages in
 * turn on one MemorySaver, as a server does: thread 0 of each is seeded with `updateState`, the
 * others get a copy of its checkpoint rewritten for their own ids and text (bench/support/seed-thread.ts;
 * checked once against an `updateState` seed), then the untimed warm-up, then `--step-rounds`
 * full rounds visiting f0, s0, f1, s1, ... in order.
 */
async function roundRobinSteps(threads: number, specs: readonly ThreadMessageSpec[]): Promise<StepRow> {
  const target = await memoryTarget();
  try {
    const seed0 = Date.now();
    const end = userAt(specs, SIZE - 1);
    const template = await preparedChannels(specs, end, "s0-", " ⟨s0⟩");
    // One agent (one set of middleware instances) serves every thread, as in a server.
    const agents = { floor: agentOf(target, "floor"), stack: agentOf(target, "stack") };
    const laneAt = (key: Lane["key"], k: number | string) => laneOf(target, key, `${key[0]}${k}`, ` ⟨${key[0]}${k}⟩`, agents[key]);
    const first = { floor: laneAt("floor", 0), stack: laneAt("stack", 0) };
    for (const lane of Object.values(first)) await seed(target, lane, specs, SIZE, template);
    const templates = {
      floor: await newestCheckpoint(target.saver, first.floor.threadId),
      stack: await newestCheckpoint(target.saver, first.stack.threadId),
    };
    /** Thread k's checkpoint: the template's, with thread k's messages and the stack's channels rewritten for them. */
    const copy = async (lane: Lane) => {
      const messages = materialize(specs.slice(0, end + 2), lane.prefix, lane.marker);
      await putCheckpointCopy(target.saver, templates[lane.key], lane.threadId, (values) => {
        const { messages: _old, ...rest } = values;
        const channels =
          lane.key === "stack"
            ? retarget(rest, [first.stack.prefix, first.stack.marker], [lane.prefix, lane.marker], messages.slice(0, end + 1))
            : rest;
        return { ...channels, messages };
      });
      lane.next = end + 2;
    };
    // The copy is what an updateState seed stores (ids and text aside): checked once per row.
    for (const key of ["floor", "stack"] as const) {
      const seeded = laneAt(key, "check");
      // Another thread with the same ids and text (the summary's digests depend on the text).
      const copied: Lane = { ...laneAt(key, "check-copy"), prefix: seeded.prefix, marker: seeded.marker };
      await seed(
        target,
        seeded,
        specs,
        SIZE,
        retarget(
          template,
          ["s0-", " ⟨s0⟩"],
          [seeded.prefix, seeded.marker],
          materialize(specs.slice(0, end + 1), seeded.prefix, seeded.marker),
        ),
      );
      await copy(copied);
      const values = async (lane: Lane) =>
        JSON.stringify((await lane.agent.graph.getState({ configurable: { thread_id: lane.threadId } })).values);
      if ((await values(seeded)) !== (await values(copied)))
        throw new Error(`scale: a copied ${key} checkpoint differs from an updateState seed`);
      const state = await values(copied);
      if (key === "stack" && !state.includes("coveredDigests")) throw new Error("scale: the stack's seeded thread holds no summary");
    }
    const lanes: Lane[] = [];
    for (let k = 0; k < threads; k += 1) {
      for (const key of ["floor", "stack"] as const) {
        const lane = k === 0 ? first[key] : laneAt(key, k);
        if (k > 0) await copy(lane);
        lanes.push(lane);
      }
    }
    const seedSeconds = (Date.now() - seed0) / 1000;
    console.error(`round-robin step ${threads} threads: seeded in ${seedSeconds.toFixed(0)} s`);
    const warmup = STEP_WARMUP === "round" ? lanes.length : Math.min(lanes.length, 2 * STEP_WARMUP);
    for (let i = 0; i < warmup; i += 1) {
      await step(target, lanes[i] as Lane, specs);
      if ((i + 1) % 1000 === 0) console.error(`  untimed ${i + 1} / ${warmup} steps, load ${(loadavg()[0] ?? 0).toFixed(1)}`);
    }
    const times: Record<Lane["key"], number[]> = { floor: [], stack: [] };
    const byRound: StepRow["byRound"] = [];
    for (let round = 0; round < STEP_ROUNDS; round += 1) {
      const these: Record<Lane["key"], number[]> = { floor: [], stack: [] };
      for (const [i, lane] of lanes.entries()) {
        const ms = await step(target, lane, specs);
        these[lane.key].push(ms);
        times[lane.key].push(ms);
        if ((i + 1) % 1000 === 0)
          console.error(
            `  round ${round + 1}: ${i + 1} / ${lanes.length} steps, floor ${fmt(mean(these.floor))} stack ${fmt(mean(these.stack))} ms mean, load ${(loadavg()[0] ?? 0).toFixed(1)}`,
          );
      }
      byRound.push({ floorMeanMs: mean(these.floor), stackMeanMs: mean(these.stack), load: loadavg()[0] ?? 0 });
    }
    return {
      saver: "memory",
      threads,
      size: SIZE,
      warmupSteps: warmup,
      rounds: STEP_ROUNDS,
      floorMs: median(times.floor),
      stackMs: median(times.stack),
      floorMeanMs: mean(times.floor),
      stackMeanMs: mean(times.stack),
      byRound,
      steps: times.stack.length,
      seedSeconds,
      load: loadavg()[0] ?? 0,
    };
  } finally {
    await target.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Cold against warm: one new process per sample

interface ColdSample {
  saver: string;
  size: number;
  /** Whole step CPU ms: the first step of this process on the thread, and the median of the next ones. */
  floorCold?: number;
  floorWarm?: number;
  stackCold?: number;
  stackWarm?: number;
  /** Every warm step's CPU ms, in order; step i of one lane ran right before or after step i of the other. */
  floorWarmSteps?: number[];
  stackWarmSteps?: number[];
  /** The hooks' own CPU ms, first call and warm median. */
  hooksCold: number;
  hooksWarm: number;
}

/** Untimed steps per configuration a cold sample takes on threads of other text before the measured ones. */
const WARMUP_STEPS = 3;

/** Messages of other text a cold sample's warm-up reads (see {@link otherText}). */
const WARMUP_MESSAGES = 1000;

/**
 * Text for a cold sample's warm-up threads: the {@link WARMUP_MESSAGES} exchange messages of the
 * LoCoMo thread right after the first `measured` (those the measured threads hold), under ids of
 * their own. Real text,
 * not text made unreadable: the stack's code paths depend on what the text says (a fact rule's
 * expression is compiled the first time a message reaches it, which costs milliseconds), and text
 * no rule reads left them to the measured steps. Past the corpus (about 4,000 messages) the
 * thread repeats, so at 10k and 50k this text also occurs in the measured threads, with another
 * marker on every message (no content-keyed memo is shared; words are, as on any process that
 * has served other threads).
 */
function otherText(measured: number, count = WARMUP_MESSAGES): ThreadMessageSpec[] {
  return locomoThread(measured + count, cli.data)
    .slice(measured, measured + count)
    .map((s) => ({ ...s, id: `w-${s.id}` }));
}

/** The threads a cold sample measures: the floor's, the stack's and the hooks' (prefix, marker). */
const COLD_THREADS = { floor: ["cf-", " ⟨f⟩"], stack: ["cs-", " ⟨s⟩"], hooks: ["ch-", " ⟨h⟩"] } as const;

/**
 * In a new process: `--child <saver>:<size>`, with the stack's and the hooks' prepared channels as
 * JSON in the file `--channels` (a file: at 10k messages the summary's digests are over the 128 KiB
 * Linux allows one argument). Prints one JSON line.
 */
async function child(spec: string): Promise<void> {
  const [saver, sizeText, sampleText] = spec.split(":") as [Target["kind"], string, string | undefined];
  const size = Number(sizeText);
  const sample = Number(sampleText ?? 0);
  observeGc();
  const specs = locomoThread(size + 2 * (WARM + 6) + 8, cli.data);
  const prepared = JSON.parse(readFileSync(String(args.channels), "utf8")) as {
    stack: Record<string, unknown>;
    hooks: Record<string, unknown>;
  };
  const target = saver === "memory" ? await memoryTarget() : saver === "sqlite" ? await sqliteTarget() : await postgresTarget(POSTGRES_URL);
  const runStep = saver === "memory" || size <= COLD_STEP_MAX_OTHER;
  try {
    // Compile the code first, on threads of other text: real text (the exchanges after the
    // measured thread's), so the paths real text takes (fact rules, index updates, summaries) are
    // compiled before the measured steps, as on a process that has served other threads.
    const warmupSize = coldWarmupSize(size);
    const other = otherText(specs.length, Math.max(WARMUP_MESSAGES, warmupSize + 2 * (WARMUP_STEPS + 1) + 8));
    const warmLanes = runStep ? [laneOf(target, "floor", "warm-floor", " ~w"), laneOf(target, "stack", "warm-stack", " ~w")] : [];
    for (const lane of warmLanes) await seed(target, lane, other, warmupSize);
    for (let i = 0; i < WARMUP_STEPS; i += 1) for (const lane of warmLanes) await step(target, lane, other);
    // Dropped, so the measured steps run with the same stored threads as without this warm-up (a
    // MemorySaver holds them on the heap, where a full GC would mark them).
    for (const lane of warmLanes) await target.saver.deleteThread(lane.threadId);
    const warmStack: Stack = { name: "warm", middleware: stackMiddleware(), channels: {}, lastSent: 0 };
    for (let i = 0; i < WARMUP_STEPS; i += 1)
      await modelCall(warmStack, materialize(other.slice(0, 101 + 2 * i), "w-", " ~w"), "warm-hooks", SYSTEM_PROMPT);
    // The hooks once on each further window of that text, each a thread new to its instances (so
    // each reads its window's user messages for facts): a process that has served other threads
    // has run its rules on hundreds of messages, and a rule's expression compiled on its first use
    // costs milliseconds (8 ms for one LoCoMo message that 50 others had not prepared).
    for (let at = 100; at + 101 <= WARMUP_MESSAGES; at += 100) {
      const hooks: Stack = { name: "warm", middleware: stackMiddleware(), channels: {}, lastSent: 0 };
      await modelCall(hooks, materialize(other.slice(at, at + 101), "w-", " ~w"), `warm-hooks-${at}`, SYSTEM_PROMPT);
    }

    if (PROFILE && runStep) await profileColdSteps(target, specs, size, prepared.stack);
    const out: ColdSample = { saver, size, hooksCold: 0, hooksWarm: 0 };
    if (runStep) {
      // Which goes first alternates between samples (`--child <saver>:<size>:<sample>`).
      const lanes = [laneOf(target, "floor", "cf", COLD_THREADS.floor[1]), laneOf(target, "stack", "cs", COLD_THREADS.stack[1])];
      if (sample % 2 === 1) lanes.reverse();
      for (const lane of lanes) await seed(target, lane, specs, size, prepared.stack);
      const cold = { floor: 0, stack: 0 };
      const details: string[] = [];
      for (const lane of lanes) {
        cold[lane.key] = await step(target, lane, specs, "major");
        details.push(`${lane.key} cold: ${formatDetail(lane.last as StepDetail)}`);
      }
      const warm: Record<Lane["key"], number[]> = { floor: [], stack: [] };
      for (let i = 0; i < WARM; i += 1)
        for (const lane of lanes) {
          warm[lane.key].push(await step(target, lane, specs, "major"));
          details.push(`${lane.key} warm ${i + 1}: ${formatDetail(lane.last as StepDetail)}`);
        }
      Object.assign(out, {
        floorCold: cold.floor,
        stackCold: cold.stack,
        floorWarm: median(warm.floor),
        stackWarm: median(warm.stack),
        floorWarmSteps: warm.floor,
        stackWarmSteps: warm.stack,
      });
      // Every step of the sample (the row keeps medians): printed by the parent under the row.
      const each = (values: readonly number[]) => values.map((v) => v.toFixed(0)).join(", ");
      console.error(
        `sample ${saver}:${size}:${sample} CPU ms: floor cold ${cold.floor.toFixed(0)}, warm ${each(warm.floor)}; stack cold ${cold.stack.toFixed(0)}, warm ${each(warm.stack)}`,
      );
      for (const line of details) console.error(`sample ${saver}:${size}:${sample}   ${line}`);
    }
    // The hooks alone, on a thread of its own text, with new middleware instances.
    const stack: Stack = { name: "hooks", middleware: stackMiddleware(), channels: prepared.hooks, lastSent: 0 };
    let length = userAt(specs, userAt(specs, size - 1) + 2) + 1;
    const own: number[] = [];
    for (let i = 0; i <= WARM; i += 1) {
      const messages = materialize(specs.slice(0, length), ...COLD_THREADS.hooks);
      gc({ type: "minor" });
      const own0 = ownTotal(stack);
      stack.selfMs ??= new Map();
      await modelCall(stack, messages, "cold-hooks", SYSTEM_PROMPT);
      own.push(ownTotal(stack) - own0);
      length += 2;
    }
    out.hooksCold = own[0] as number;
    out.hooksWarm = median(own.slice(1));
    process.stdout.write(`${JSON.stringify(out)}\n`);
  } finally {
    await target.close();
  }
}

/** Threads per configuration a `--profile` cold sample profiles. */
const PROFILE_THREADS = 6;

/**
 * `--profile` in a cold sample: V8's profiler over the first step of {@link PROFILE_THREADS} floor
 * and stack threads of their own text (each cold: the first step of this process on it), then
 * `--warm` steps each; prints to stderr (the sample's stdout is its JSON line) the self time the
 * stack's cold steps spend over the floor's, and over the stack's warm steps, by function.
 */
async function profileColdSteps(target: Target, specs: readonly ThreadMessageSpec[], size: number, channels: Record<string, unknown>) {
  const end = userAt(specs, size - 1);
  const lanes: Lane[] = [];
  for (let k = 0; k < PROFILE_THREADS; k += 1) {
    for (const key of ["floor", "stack"] as const) {
      const lane = laneOf(target, key, `p${key[0]}${k}`, ` ⟨p${key[0]}${k}⟩`);
      const own = retarget(
        channels,
        [COLD_THREADS.stack[0], COLD_THREADS.stack[1]],
        [lane.prefix, lane.marker],
        materialize(specs.slice(0, end + 1), lane.prefix, lane.marker),
      );
      await seed(target, lane, specs, size, own);
      lanes.push(lane);
    }
  }
  const windows = {
    cold: { floor: [] as Array<[number, number]>, stack: [] as Array<[number, number]> },
    warm: { floor: [] as Array<[number, number]>, stack: [] as Array<[number, number]> },
  };
  const profiling = await startProfile();
  for (let i = 0; i <= WARM; i += 1) {
    // The cold steps, and the last warm ones (one step of each thread, as cold).
    const phase = i === 0 ? "cold" : i === WARM ? "warm" : undefined;
    for (const lane of lanes) {
      const h0 = profileClockUs();
      await step(target, lane, specs, "major");
      if (phase) windows[phase][lane.key].push([h0, profileClockUs()]);
    }
  }
  const { profile, path } = await profiling.stop(`threadwise-scale-cold-${target.kind}-${size}`);
  console.error(
    [
      `profile of cold steps, ${target.kind} ${size} msgs, ${PROFILE_THREADS} threads each (${path}): a = stack cold, b = floor cold`,
      selfTimeDiffTable(profile, PROFILE_THREADS, windows.cold.stack, windows.cold.floor, 30),
      `a = stack cold, b = stack warm (step ${WARM + 1} of each thread)`,
      // One warm window per thread (step WARM + 1 of each), as one cold window per thread.
      selfTimeDiffTable(profile, PROFILE_THREADS, windows.cold.stack, windows.warm.stack, 20),
    ].join("\n"),
  );
}

/** The heap limit of a cold sample's process, MiB (a 50k-message thread's checkpoints and views are over Node's default). */
const CHILD_HEAP_MB = 8192;
/** A cold sample's process is stopped after this long, ms (a 50k-message SQLite or PostgreSQL seed takes minutes). */
const CHILD_TIMEOUT_MS = 60 * 60_000;

/**
 * One cold sample in a new process (`--child`); `channelsFile` holds the prepared channels as JSON.
 *
 * @throws Error naming the sample and why its process failed: not started (`error`, e.g. E2BIG or
 *   ENOBUFS), stopped by a signal (a timeout after {@link CHILD_TIMEOUT_MS} is SIGTERM), a non-zero
 *   exit code, or no JSON line on stdout; with the tail of its stderr.
 */
function coldSample(saver: string, size: number, channelsFile: string, sample: number): ColdSample {
  const argv = [
    ...process.execArgv,
    `--max-old-space-size=${CHILD_HEAP_MB}`,
    fileURLToPath(import.meta.url),
    ...["--child", `${saver}:${size}:${sample}`, "--warm", String(WARM), "--data", cli.data, "--channels", channelsFile],
    ...["--cold-step-max-other", String(COLD_STEP_MAX_OTHER)],
    ...(args["cold-warmup-size"] === "" ? [] : ["--cold-warmup-size", String(args["cold-warmup-size"])]),
  ];
  if (POSTGRES_URL) argv.push("--postgres-url", POSTGRES_URL);
  if (RECALL) argv.push("--recall");
  if (PROFILE) argv.push("--profile");
  const result = spawnSync(process.execPath, argv, { encoding: "utf8", maxBuffer: 1 << 28, timeout: CHILD_TIMEOUT_MS });
  const line = (result.stdout ?? "").trim().split("\n").at(-1) ?? "";
  const why = result.error
    ? `not run to the end: ${result.error.message}`
    : result.signal
      ? `stopped by ${result.signal}${result.signal === "SIGTERM" ? ` (timeout ${CHILD_TIMEOUT_MS / 60_000} min?)` : ""}`
      : result.status !== 0
        ? `exit code ${result.status}`
        : !line.startsWith("{")
          ? "no JSON line on stdout"
          : undefined;
  if (why !== undefined)
    throw new Error(`scale: the cold sample ${saver}:${size} failed, ${why}; its stderr ends:\n${(result.stderr ?? "").slice(-3000)}`);
  if (PROFILE) console.log(result.stderr.slice(result.stderr.indexOf("profile of cold steps")));
  for (const line of (result.stderr ?? "").split("\n")) if (line.startsWith("sample ")) console.log(`  ${line}`);
  return JSON.parse(line) as ColdSample;
}

interface ColdRow {
  saver: string;
  size: number;
  runs: number;
  floorCold?: number;
  floorWarm?: number;
  stackCold?: number;
  stackWarm?: number;
  /**
   * Median over the processes of each one's stack / floor ratio, cold and warm, and the least and
   * greatest of those ratios: both lanes of a process ran interleaved under the same load, so a
   * process or a stretch of time slowed as a whole (the machine is shared) moves both; the ratio
   * of the lanes' medians above mixes processes (see bench/README.md, "Which ratio").
   */
  pairedCold?: number;
  pairedWarm?: number;
  pairedColdRange?: [number, number];
  pairedWarmRange?: [number, number];
  /** Median over every pair of warm steps (step i of the stack over step i of the floor, run back to back), all processes. */
  pairedWarmSteps?: number;
  /** Each process's figures. */
  samples: ColdSample[];
  hooksCold: number;
  hooksWarm: number;
  /** Load average (1 min) when the row was done. */
  load: number;
  /** Why the row's processes failed (then the row has no figures). */
  failed?: string;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  // The data first: a file that cannot be measured ends the run with its one line, before any output.
  const specs = locomoThread(SIZE + 2 * (CALLS + STEP_ROUNDS + 1 + PERIOD_CALLS) + 16, cli.data);
  const machine = machineLine();
  const loadStart = loadavg()[0] ?? 0;
  console.log(`machine: ${machine}; load average ${loadStart.toFixed(1)}`);

  const hooks: HooksRow[] = [];
  const hookRuns = [...THREADS.map((t) => [t, RECALL] as const), ...(RECALL ? [] : RECALL_THREADS.map((t) => [t, true] as const))];
  for (const [threads, recall] of hookRuns) {
    const row = await roundRobinHooks(threads, specs, recall);
    hooks.push(row);
    console.log(
      `round-robin hooks${recall ? " +recall" : "        "}  ${String(threads).padStart(5)} threads x ${SIZE} msgs  own ${fmt(row.ownMs)} ms (p90 ${fmt(row.ownP90Ms)}, mean ${fmt(row.ownMeanMs)})  call ${fmt(row.callMs)} ms  heap/thread ${(row.heapPerThread / 1024).toFixed(1)} KiB`,
    );
    console.log(
      `  by hook (mean ms): ${Object.entries(row.byHook)
        .filter(([, v]) => v >= 0.05)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${fmt(v)}`)
        .join(", ")}`,
    );
    console.log(
      `  GC pauses begun in timed calls: ${Object.entries(row.gc)
        .map(([k, v]) => `${k} ${v.count} (${fmt(v.msPerCall)} ms/call)`)
        .join(", ")}`,
    );
  }
  const factIndex: FactIndexRow[] = [];
  if (FACT_INDEX_THREADS.length > 0) {
    const end = userAt(specs, SIZE - 1);
    const prepared = await preparedChannels(specs, end, "fi-", " ⟨fi⟩");
    const facts = (prepared[FACTS_STATE_KEY] as { facts?: Fact[] } | undefined)?.facts ?? [];
    const query = (specs[userAt(specs, end + 2)] as ThreadMessageSpec).content;
    for (const threads of FACT_INDEX_THREADS) {
      const all = threads * facts.length;
      for (const bound of all > DEFAULT_FACT_INDEX_MAX_FACTS ? [DEFAULT_FACT_INDEX_MAX_FACTS, all] : [DEFAULT_FACT_INDEX_MAX_FACTS]) {
        const row = await roundRobinFactIndex(threads, bound, facts, query);
        factIndex.push(row);
        console.log(
          `round-robin fact index ${String(threads).padStart(5)} threads x ${facts.length} facts  maxHeldFacts ${bound}  held ${row.held}  ${fmt(row.callMs)} ms (mean ${fmt(row.callMeanMs)}, p90 ${fmt(row.callP90Ms)})  heap/thread ${(row.heapPerThread / 1024).toFixed(1)} KiB`,
        );
      }
    }
  }
  const steps: StepRow[] = [];
  for (const threads of STEP_THREADS) {
    const row = await roundRobinSteps(threads, specs);
    steps.push(row);
    console.log(
      `round-robin step   ${String(threads).padStart(5)} threads x ${SIZE} msgs  floor ${fmt(row.floorMs)} ms  stack ${fmt(row.stackMs)} ms  ${(row.stackMs / row.floorMs).toFixed(2)}x floor`,
    );
  }
  const cold: ColdRow[] = [];
  for (const [sizeIndex, size] of COLD_SIZES.entries()) {
    // What the threads hold from their previous call, made here (another process than the samples').
    const coldSpecs = locomoThread(size + 2 * (WARM + 6) + 8, cli.data);
    const end = userAt(coldSpecs, size - 1);
    const channels = join(mkdtempSync(join(tmpdir(), "threadwise-scale-")), "channels.json");
    writeFileSync(
      channels,
      JSON.stringify({
        stack: await preparedChannels(coldSpecs, end, ...COLD_THREADS.stack),
        hooks: await preparedChannels(coldSpecs, end, ...COLD_THREADS.hooks),
      }),
    );
    for (const saver of COLD_SAVERS) {
      if (saver !== "memory" && size > COLD_STEP_MAX_OTHER) continue;
      const samples: ColdSample[] = [];
      let failed: string | undefined;
      try {
        for (let i = 0; i < coldRunsAt(sizeIndex); i += 1) samples.push(coldSample(saver, size, channels, i));
      } catch (error) {
        // Keep the other rows: a 50k-message sample can run out of time or memory.
        failed = (error as Error).message;
        console.error(failed);
      }
      if (samples.length === 0) {
        cold.push({
          saver,
          size,
          runs: 0,
          samples: [],
          hooksCold: Number.NaN,
          hooksWarm: Number.NaN,
          load: loadavg()[0] ?? 0,
          failed: failed?.split("\n")[0],
        });
        continue;
      }
      const mid = (pick: (s: ColdSample) => number | undefined) => {
        const values = samples.map(pick).filter((v): v is number => v !== undefined);
        return values.length > 0 ? median(values) : undefined;
      };
      /** Each process's stack / floor ratio (processes without both figures left out). */
      const ratios = (stack: (s: ColdSample) => number | undefined, floor: (s: ColdSample) => number | undefined) =>
        samples.flatMap((s) => {
          const a = stack(s);
          const b = floor(s);
          return a === undefined || b === undefined ? [] : [a / b];
        });
      const coldRatios = ratios(
        (s) => s.stackCold,
        (s) => s.floorCold,
      );
      const warmRatios = ratios(
        (s) => s.stackWarm,
        (s) => s.floorWarm,
      );
      const stepRatios = samples.flatMap((s) =>
        (s.stackWarmSteps ?? []).flatMap((a, i) => (s.floorWarmSteps?.[i] === undefined ? [] : [a / s.floorWarmSteps[i]])),
      );
      const range = (values: readonly number[]): [number, number] | undefined =>
        values.length > 0 ? [Math.min(...values), Math.max(...values)] : undefined;
      const row: ColdRow = {
        saver,
        size,
        runs: samples.length,
        ...(coldRatios.length > 0
          ? {
              pairedCold: median(coldRatios),
              pairedColdRange: range(coldRatios),
              pairedWarm: median(warmRatios),
              pairedWarmRange: range(warmRatios),
            }
          : {}),
        ...(stepRatios.length > 0 ? { pairedWarmSteps: median(stepRatios) } : {}),
        floorCold: mid((s) => s.floorCold),
        floorWarm: mid((s) => s.floorWarm),
        stackCold: mid((s) => s.stackCold),
        stackWarm: mid((s) => s.stackWarm),
        hooksCold: mid((s) => s.hooksCold) as number,
        hooksWarm: mid((s) => s.hooksWarm) as number,
        load: loadavg()[0] ?? 0,
        samples,
        ...(failed === undefined ? {} : { failed: failed.split("\n")[0] }),
      };
      cold.push(row);
      console.log(
        `cold/warm  ${saver.padEnd(8)} ${String(size).padStart(6)} msgs  hooks ${fmt(row.hooksCold)} / ${fmt(row.hooksWarm)} ms  floor ${row.floorCold === undefined ? "n/a" : `${fmt(row.floorCold)} / ${fmt(row.floorWarm as number)}`} ms  stack ${row.stackCold === undefined ? "n/a" : `${fmt(row.stackCold)} / ${fmt(row.stackWarm as number)}`} ms`,
      );
    }
  }
  const loadEnd = loadavg()[0] ?? 0;

  // Each row against the row of the fewest threads with the same stack.
  const baseOf = (r: HooksRow) =>
    hooks.filter((b) => b.recall === r.recall).reduce<HooksRow | undefined>((a, b) => (a && a.threads <= b.threads ? a : b), undefined);
  const hooksTable = [
    `| stack | threads (round-robin, ${SIZE.toLocaleString("en-US")} msgs each) | hooks' own ms / call (median) | p90 | mean | x the fewest threads, median (target at 5,000 over 10: <= ${THREADS_TARGET}) / mean | GC pauses begun in timed calls, ms / call | call ms in the harness | heap held / thread | load |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...hooks.map((r) => {
      const base = baseOf(r);
      const gcMs = Object.values(r.gc).reduce((sum, g) => sum + g.msPerCall, 0);
      return `| ${r.recall ? "full stack + recall" : "full stack"} | ${r.threads.toLocaleString("en-US")} | ${fmt(r.ownMs)} | ${fmt(r.ownP90Ms)} | ${fmt(r.ownMeanMs)} | ${base ? `${(r.ownMs / base.ownMs).toFixed(2)} / ${(r.ownMeanMs / base.ownMeanMs).toFixed(2)} (over ${base.threads})` : "n/a"} | ${fmt(gcMs)} | ${fmt(r.callMs)} | ${(r.heapPerThread / 1024).toFixed(1)} KiB | ${r.load.toFixed(1)} |`;
    }),
  ];
  const factIndexTable = [
    "| threads (round-robin) | facts / thread | maxHeldFacts | threads held | CPU ms / call, median / mean | p90 | timed calls | heap held / thread | load |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...factIndex.map(
      (r) =>
        `| ${r.threads.toLocaleString("en-US")} | ${r.factsPerThread} | ${r.maxHeldFacts.toLocaleString("en-US")}${r.maxHeldFacts === DEFAULT_FACT_INDEX_MAX_FACTS ? " (default)" : ""} | ${r.held.toLocaleString("en-US")} | ${fmt(r.callMs)} / ${fmt(r.callMeanMs)} | ${fmt(r.callP90Ms)} | ${r.calls} | ${(r.heapPerThread / 1024).toFixed(1)} KiB | ${r.load.toFixed(1)} |`,
    ),
  ];
  const stepTable = [
    `| saver | threads (round-robin, ${SIZE.toLocaleString("en-US")} msgs each) | floor CPU ms / step, median / mean | full stack CPU ms / step, median / mean | x floor, median / mean (target <= ${STEP_TARGET}) | x floor by round (mean) | untimed steps each, then timed rounds | timed steps each | seeding s | load by round |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...steps.map(
      (r) =>
        `| ${r.saver} | ${r.threads.toLocaleString("en-US")} | ${fmt(r.floorMs)} / ${fmt(r.floorMeanMs)} | ${fmt(r.stackMs)} / ${fmt(r.stackMeanMs)} | ${(r.stackMs / r.floorMs).toFixed(2)} / ${(r.stackMeanMs / r.floorMeanMs).toFixed(2)} | ${r.byRound.map((b) => (b.stackMeanMs / b.floorMeanMs).toFixed(2)).join(", ")} | ${r.warmupSteps / 2}, ${r.rounds} | ${r.steps} | ${r.seedSeconds.toFixed(0)} | ${r.byRound.map((b) => b.load.toFixed(1)).join(", ")} |`,
    ),
  ];
  const x = (a?: number, b?: number) => (a === undefined || b === undefined ? "n/a" : (a / b).toFixed(2));
  const ms = (v?: number) => (v === undefined ? "n/a" : fmt(v));
  const target = `target at ${STEP_TARGET_SIZES.map((s) => s.toLocaleString("en-US")).join(", ")}: <= ${STEP_TARGET}`;
  /** A median of ratios with the least and greatest of them. */
  const spread = (value?: number, range?: [number, number]) =>
    value === undefined ? "n/a" : `${value.toFixed(2)}${range ? ` (${range[0].toFixed(2)}-${range[1].toFixed(2)})` : ""}`;
  const coldTable = [
    `| saver | thread msgs | floor ms cold / warm | full stack ms cold / warm | x floor cold, lanes' medians | x floor warm, lanes' medians | x floor cold, median of each process's ratio (least-greatest; ${target}) | x floor warm, likewise (${target}) | x floor warm, median over step pairs | stack cold - warm | hooks' own ms cold / warm | processes | load |`,
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...cold.map((r) =>
      r.runs === 0
        ? `| ${r.saver} | ${r.size.toLocaleString("en-US")} | failed: ${r.failed} | | | | | | | | | 0 | ${r.load.toFixed(1)} |`
        : `| ${r.saver} | ${r.size.toLocaleString("en-US")} | ${ms(r.floorCold)} / ${ms(r.floorWarm)} | ${ms(r.stackCold)} / ${ms(r.stackWarm)} | ${x(r.stackCold, r.floorCold)} | ${x(r.stackWarm, r.floorWarm)} | ${spread(r.pairedCold, r.pairedColdRange)} | ${spread(r.pairedWarm, r.pairedWarmRange)} | ${spread(r.pairedWarmSteps)} | ${r.stackCold === undefined ? "n/a" : `${fmt((r.stackCold as number) - (r.stackWarm as number))} ms`} | ${fmt(r.hooksCold)} / ${fmt(r.hooksWarm)} | ${r.runs}${r.failed === undefined ? "" : ` (then failed: ${r.failed})`} | ${r.load.toFixed(1)} |`,
    ),
  ];
  console.log(`\n${hooksTable.join("\n")}\n\n${factIndexTable.join("\n")}\n\n${stepTable.join("\n")}\n\n${coldTable.join("\n")}`);

  const command = `pnpm tsx bench/scale.ts${process.argv
    .slice(2)
    .filter((a) => a !== "--json")
    .map((a) => ` ${a === "" || /\s/.test(a) ? JSON.stringify(a) : a}`)
    .join("")}`;
  const stepSpread = warmStepSpread(cold.flatMap((row) => row.samples));
  const doc = [
    "# Many threads in one process, and a process that has never seen the thread",
    "",
    `Command: \`${command}\`. Machine: ${machine}; load average (1 min) ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end on ${cpus().length} cores. Stack: the full threadwise stack of bench/step.ts (legacy_system)${RECALL ? " with recall" : ", recall left out but for the rows that name it"}; the floor: one pass-through \`wrapModelCall\` middleware.`,
    "",
    // Only the parts this run measured.
    ...(hooks.length > 0 ? ["## Threads served round-robin: the hooks' own time per call", "", hooksTable.join("\n"), ""] : []),
    ...(factIndex.length > 0 ? ["## Threads served round-robin: fact-recall's index cache alone", "", factIndexTable.join("\n"), ""] : []),
    ...(steps.length > 0 ? ["## Threads served round-robin: the whole step (MemorySaver)", "", stepTable.join("\n"), ""] : []),
    ...(cold.length > 0 ? ["## Cold (the first call of a process on a thread) against warm", "", coldTable.join("\n"), ""] : []),
    "## Method",
    "",
    "- Threads of LoCoMo text (user/assistant exchanges); each round-robin thread carries its own marker in every message, so no two threads share a text.",
    `- Round-robin, hooks: one set of middleware instances serves T threads in turn; each call gets fresh message objects and a thread 2 messages longer than at its previous call; the hooks run as \`createAgent\` runs them (bench/support/hook-calls.ts, as bench/overhead.ts). Each thread starts from the summary and facts a long-served thread holds (made by other instances until the summary caught up, rewritten for the thread's own text and digests); threads are spread over the summary period (${PERIOD_CALLS} calls), so due calls are sampled alike at any T. One untimed round over all threads, then ${CALLS} timed calls continuing the round-robin; a minor GC before each, outside the timing. GC pauses: V8's \`performance\` "gc" entries whose pause began inside a timed call (main thread; the CPU time also holds V8's helper threads). Heap per thread: \`heapUsed\` after a full GC once the untimed round is done, minus before it, over T: what the process keeps per thread besides the stored state; then a wait until the process is idle (at most ${SETTLE_HEAP_MAX_MS / 1000} s): V8 sweeps the heap after a full GC, and the first timed call paid for sweeping T threads' heap${sweepClause(hooks)}.`,
    `- Round-robin, fact-recall's index cache alone: a \`FactIndexCache\` (as \`factRecall\` makes it) serving T threads in turn, each holding the stack's prepared facts made its own (its marker on every fact's key and text); each call hands over fresh fact objects (as a checkpointer does) and does what fact-recall does on a user message: the thread's index, \`sync\` with the slot's facts, \`search\` with the newest user message (default maxItems and minScore). Once with the default \`maxHeldFacts\` and once with a bound that holds every thread; one untimed round, then at least ${CALLS} timed calls (up to 5x that, at most one round); CPU time, a minor GC every 50 calls. Heap per thread: as for the hooks (the indexes and the fact objects they point at).`,
    `- Round-robin, whole step: \`invoke\` of one \`createAgent\` agent per configuration serving every thread (model answers at once) on a MemorySaver holding T seeded threads per configuration, pruned to their newest checkpoint (thread 0 seeded with \`updateState\`, the others with a copy of its checkpoint rewritten for their own ids, text and summary digests, checked once against an \`updateState\` seed); every thread visited in order, the floor's and the stack's in turn (f0, s0, f1, s1, ...); untimed steps first (${STEP_WARMUP === "round" ? "one full round" : `${STEP_WARMUP} per configuration`}), then ${STEP_ROUNDS} full timed round(s); a minor GC before each step, outside the timing. CPU time of the process; median and mean per step over the timed rounds.`,
    `- Cold against warm: each sample is a new process (\`--child\`): ${WARMUP_STEPS} steps on threads of other text first, of ${args["cold-warmup-size"] === "" ? `the measured size (at most ${COLD_WARMUP_MAX.toLocaleString("en-US")} messages)` : `${Number(args["cold-warmup-size"]).toLocaleString("en-US")} messages`} (the LoCoMo exchanges after the measured thread's, so the code paths real text and a thread of that size take are compiled and the heap has grown to such a step, as on a replica that has served other threads; the hooks also read ${WARMUP_MESSAGES.toLocaleString("en-US")} messages of it, 100 at a time, as threads new to them), then one step on the measured thread (cold), then ${WARM} more (warm, median); the floor and the stack each on their own seeded thread, which goes first alternating between processes, a full GC before each step (outside the timing). The hooks' own time likewise, on a third thread. Medians over the processes. "Lanes' medians" divides the stack's median by the floor's, which may come from different processes; the target columns take each process's own stack / floor ratio (both lanes of a process ran interleaved under the same load) and give their median, least and greatest; "over step pairs" is the median of stack step i over floor step i (run back to back) across every warm step of every process. A single step varies on a shared machine${stepSpread === undefined ? "" : ` (one lane's warm steps within one process, this run: up to ${stepSpread.toFixed(2)}x, slowest over fastest)`}, so with few processes each lane's median can fall on a slowed step in one lane and not in the other: the ratio of the lanes' medians then moves by more than the paired ratios (bench/README.md, "Which ratio"). Past ${COLD_STEP_MAX_OTHER.toLocaleString("en-US")} messages only MemorySaver (seeding 50k messages into SQLite or PostgreSQL takes minutes).`,
    "",
  ].join("\n");
  const figures = {
    bench: "scale",
    data: cli.data,
    machine,
    loadStart,
    loadEnd,
    size: SIZE,
    calls: CALLS,
    stepRounds: STEP_ROUNDS,
    stepWarmup: STEP_WARMUP,
    coldRuns: COLD_RUNS,
    coldStepMaxOther: COLD_STEP_MAX_OTHER,
    coldWarmupSize: args["cold-warmup-size"] === "" ? `measured size, at most ${COLD_WARMUP_MAX}` : Number(args["cold-warmup-size"]),
    warm: WARM,
    targets: { stepOverFloor: STEP_TARGET, hooks5000Over10: THREADS_TARGET },
    hooks,
    factIndex,
    steps,
    cold,
  };
  const defaults = !RECALL && Object.entries(DEFAULTS).every(([k, v]) => String(args[k as keyof typeof args]) === v);
  if ((defaults || args.write === true) && cli.writesResults) {
    mkdirSync(dirname(RESULTS_MD), { recursive: true });
    writeFileSync(RESULTS_MD, doc);
    writeFileSync(RESULTS_JSON, `${JSON.stringify(figures, null, 2)}\n`);
    console.log(`\nwrote ${RESULTS_MD} and ${RESULTS_JSON}`);
  } else console.log(`\nnon-default options: bench/results/${OUT}.{md,json} left as they were`);
  if (cli.json) printJson(figures);
}

if (args.child) await child(String(args.child));
else await main();
