/**
 * What a whole conversation costs per step, with and without the message archive (issue 27):
 * CPU and bytes written of `createAgent` steps with a checkpointer, over a whole replayed LoCoMo
 * conversation and on threads of 1k / 10k / 50k stored messages.
 *
 *   pnpm tsx bench/replay-cost.ts                          # defaults below, tables on stdout
 *   pnpm tsx bench/replay-cost.ts --json                   # the figures as one JSON document on stdout
 *   pnpm tsx bench/replay-cost.ts --data <locomo file> --conversation conv-26
 *   pnpm tsx bench/replay-cost.ts --sizes 1000,10000 --steps 3 --savers memory,sqlite --only archive,langchain
 *   pnpm tsx bench/replay-cost.ts --postgres-url postgresql://postgres:postgres@127.0.0.1:5432/postgres
 *
 * Options: `--data` (LoCoMo format; default the file bench/recall.ts reads), `--conversation`
 * (sample id; default the one with the most exchanges), `--sizes` (stored messages, comma list;
 * default 1000,10000,50000; `0` or empty skips the sized part), `--steps` timed steps per size
 * (default 10), `--savers` (memory, sqlite, postgres; postgres only with a URL: `--postgres-url`
 * or THREADWISE_TEST_POSTGRES_URL; unset: all three, postgres left out without a URL; a list
 * naming postgres without a URL, or a kind not among the three, is refused naming `--savers`, exit 2), `--only` configuration keys (comma list), `--no-replay`, `--profile` (V8's sampling profiler on during the timed steps: a self-time table
 * per configuration (and size) on stderr, in ms per step; the raw profile in the OS temp dir),
 * `--hooks` (the whole replay's CPU per middleware hook, in ms per step: each `wrapModelCall`
 * without its handler, each `beforeModel` whole; `hooks` in the replay rows and a table on stderr.
 * It is `process.cpuUsage()` around the hook's own code, so a garbage collection that falls inside
 * a hook is billed to it; the timers add a layer per hook, so read the ratio from a run without),
 * `--sql-statements` (SQLite: the statements SQLite ran per step, `sqlStatementsPerStep` in the
 * replay rows, and per statement kind, `sqlStatementKindsPerStep` (the SQL with its values as `?`),
 * counted by better-sqlite3's `verbose` hook, which makes the run's CPU figures not
 * comparable with others),
 * `--sql-cpu` (SQLite, Linux: each statement kind's calls and main-thread CPU per step,
 * `sqlCpuPerStep` in the replay rows: better-sqlite3's `run`, `get`, `all` and `prepare` timed by
 * the main thread's `schedstat` (V8's other threads not billed), the reading's own cost taken off;
 * the timing adds two readings per statement, so the run's CPU figures are not comparable with
 * others; the bench's prune left out),
 * `--wal-frames` (SQLite: the pages each step wrote to the file's write-ahead log, read from the
 * log's own frame headers after each step (load-independent), by the table or index owning each
 * page then (`dbstat`; `(free)` for a page freed meanwhile), and the commits among them:
 * `walFramesPerStep` in the replay rows; the log is checkpointed at each reading instead of
 * automatically, so the run's CPU figures are not comparable with others; the bench's prune left out),
 * `--wal-autocheckpoint <pages>` and `--sqlite-synchronous <OFF|NORMAL|FULL|EXTRA>` (SQLite: set on
 * every lane's connection, LangChain's and threadwise's alike, to see what SQLite's automatic
 * checkpoint and its syncs cost (with `--sql-cpu`, they fall in the `COMMIT` or autocommit statement
 * that reaches the log's size); unset: the connection's defaults, 1000 pages and FULL (a fresh file
 * switched to WAL keeps SQLite's FULL: the log synced at each commit); a run with
 * either is not comparable with runs without; `--wal-autocheckpoint` is refused with `--wal-frames`),
 * `--step-cpu` (each replayed step's CPU ms, `stepCpuMs` in the replay rows, and for the archive
 * lanes the steps whose model call wrote to the archive, `archivingSteps`: to tell the steps that
 * archive from the others; with `--hooks`, each step's hook CPU too, `stepHooks`),
 * `--step-gc` (each replayed step's garbage collections by kind and their pauses, from perf_hooks'
 * `gc` entries; its `used_heap_size` growth, which is what it allocated when no collection fell
 * inside; and the CPU of the main thread and of the process's other threads apart, from
 * /proc/self/task/<tid>/schedstat (Linux): `stepGc` in the replay rows),
 * `--thread-cpu` (Linux: each thread's CPU over the replayed steps, billed to the lane whose step
 * ran, in ms per step by thread (`main`, else `<comm>#+<tid - pid>`: Node 20 names none of its
 * threads, so V8's platform workers (concurrent marking, sweeping, TurboFan) and libuv's pool are
 * told apart by their start order): `threadCpuMsPerStep` in the replay rows, and a table on stderr;
 * see bench/support/thread-cpu.ts),
 * `--heap-profile` (V8's sampling heap profiler over each replayed step, objects later collected
 * included, billed to the step's lane: `allocatedKiBPerStep` in the replay rows, and on stderr the
 * KiB per step by innermost frame and by innermost frame of `packages/`; a count, not a time),
 * `--heap-promoted` (the same profiler over the whole replay of one lane (`--only <one key>`, one
 * saver), keeping only objects that survived a scavenge: what a step puts into the old space, alive
 * at the end or collected by a major GC later, `promotedKiBPerStep`),
 * `--lane-offset <n>` (the order the replay's lanes took before session 63, rotated by one every
 * exchange and starting at n: with two lanes and LangChain's summary every 10 exchanges, 0 runs the
 * first configuration first and the second right after it at every summary exchange, 1 the other
 * way round; without it the order is balanced over the summary period, see "Method"),
 * `--warm-replays <n>` (n whole replays on lanes of their own before the measured one, dropped: the
 * measured replay then runs on code V8 has already optimized, as a long-lived process's would),
 * `--turbofan` (one configuration and one saver: the bench runs itself again with V8's code log on
 * (`--log-code --log-deopt`) and adds `turbofan` to its JSON: TurboFan jobs, KiB of machine code,
 * deoptimizations and functions of the whole process, those of `packages/`, and every function
 * compiled more than once; a count that does not depend on the load; bench/support/turbofan-log.ts),
 * `--jit-main-thread` (the bench runs itself again under `--no-concurrent-recompilation`: V8 then
 * optimizes a function on the main thread, in the step that made it hot, instead of on its worker
 * threads while later steps run, which `process.cpuUsage()` (every thread) bills to whichever
 * configuration's step is running; see bench/README.md, "cost30"),
 * `--built` (our packages from their tsdown build, `packages/<name>/dist`, as a user's install runs
 * them, instead of from `src` under tsx, whose esbuild `keepNames` adds a `__name(...)` call to each
 * function or class our code creates, which LangChain's built JS does not pay; refused, naming
 * `--built`, when a package's dist is missing or older than its src: run `pnpm build` first;
 * bench/support/built.ts). The JSON's `code` says which was measured (`"src"` or `"built"`) and
 * `codeModules` where each `@threadwise/*` package was loaded from.
 *
 * Configurations (each on its own thread; the model answers with the recorded assistant text):
 * - `none`: no middleware.
 * - `langchain`: LangChain's `summarizationMiddleware` (trigger 40 messages, keep 20), which deletes
 *   what it summarized.
 * - `langchain-tw`: the same middleware on the `ThreadwiseSaver` the threadwise configurations use
 *   (the same construction; on PostgreSQL `createMemoryPool`'s pool, as there), so
 *   `replayLangchainOnThreadwiseSaverOverPlain` in the summary (its replay CPU over `langchain`'s)
 *   is the saver's own overhead: registry transactions, heads, leases, archive marks, deferred writes.
 * - `threadwise`: `[windowTrim(20), summarize()]` on `ThreadwiseSaver` (keeps the whole thread).
 * - `archive`: the same plus `messageArchive` as `memoryStack` sets it (summarize declaring no state
 *   schema, core's `summarySlotMiddleware` declaring the slot; keepGroups: the window plus
 *   `ARCHIVE_MARGIN_GROUPS`; batches of `DEFAULT_ARCHIVE_BATCH_MESSAGES`, aligned to the window's
 *   step; `--archive-keep-groups`, `--archive-batch` to try others).
 * - `recall`: `archive` plus `recall()` after it, reading the archive as `memoryStack` wires it:
 *   the rows archived since its last call (`archivedChanges`; issue 27).
 * - `recall-whole`: `archive` plus `recall()` reading the whole archive at each model call
 *   (`archived` only: how recall read it before `archivedChanges`).
 *   For both, `recallCpuMsPerCall`: CPU ms recall's `wrapModelCall` spent per model call in the
 *   timed steps, the model call inside it left out (it carries the step's garbage collection), and
 *   `recallHookCpuMsMedian`: its hook called alone `--recall-calls` times (default 40) after the
 *   timed steps, the recall lanes of a size taking turns (e.g. `--only recall,recall-whole
 *   --no-replay --sizes 1000,50000 --savers memory`).
 * Every summarizer is core's offline extractive summarizer (`extractiveSummarizer()`), the same for
 * LangChain and threadwise.
 *
 * Method: CPU is `process.cpuUsage()` (user + system) around each `invoke`, minus the bench's own
 * counting; bytes written are what the saver's serializer produced during the step (checkpoints,
 * metadata, channel blobs, pending writes, and archived records, which are encoded with the same
 * serializer); reads are the saver's `getTuple` calls and the bytes its serializer decoded (checkpoints,
 * pending writes, archived records read back). The whole replay sums every step of the conversation (one step = one exchange;
 * the configurations take turns, one exchange each, so the machine's load falls on all alike). The
 * order within an exchange is balanced over LangChain's summary period (10 exchanges; a Williams
 * design moved on by one every exchange and by one more every period, bench/support/lane-order.ts):
 * at each exchange of the period, each configuration runs first, and right after each other one,
 * equally often, so V8's compilations that a summary step starts and later steps pay for (every
 * thread's CPU is counted) fall on every configuration alike. `laneOrder` in the JSON says which
 * order ran.
 *
 * A sized thread is built directly, not replayed through the agent (a replay of 50k messages takes
 * hours): each configuration is seeded with the state it holds after `size` messages of which all
 * but the newest 120 were summarized: `none` all `size` messages in the checkpoint; `threadwise`
 * the same plus a summary record covering all but the newest 30; `langchain` its summary message
 * (as `summarizationMiddleware` writes it) and the newest 120 (it deleted the rest); `archive` the
 * newest 120 and that summary record in the checkpoint (one `updateState`) and the other
 * `size - 120` in the archive (`ThreadwiseSaver.archiveMessages`, batches of 2,000). The newest 120
 * seeded messages and the stepped ones are the same texts at every size. Then untimed warm-up
 * steps bring each to its steady state (2; 12 for the archive: its first archiving and one summary
 * period after it), and `--steps` timed ones follow (default 10: one whole summary period of
 * LangChain and threadwise and one archive batch, so the per-step mean includes those steps),
 * every (configuration, size) lane of a saver taking turns, one step each per round; means and
 * medians are reported. Between steps, outside the timing, each thread is pruned to its
 * newest checkpoint. A full GC runs before each timed step. A real PostgreSQL server's own CPU is
 * not counted. On PostgreSQL the threadwise configurations run in a schema `migrate` set up, their
 * saver's statements inside the registry's transactions, on `createMemoryPool`'s pool (its
 * one-pass `bytea[]` parser included), as `createCheckpointer` builds it; LangChain's on a plain
 * `pg.Pool`, as a LangChain user builds it. `--profile` also writes each configuration's timed
 * windows next to the raw profile (`<profile>.windows.json`).
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { type PerformanceEntry, PerformanceObserver, performance } from "node:perf_hooks";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { SUMMARY_SLOT_KEY, summarySlotMiddleware } from "@threadwise/core";
import {
  ARCHIVE_MARGIN_GROUPS,
  assertSchemaVersion,
  DEFAULT_ARCHIVE_BATCH_MESSAGES,
  MemoryThreadRegistry,
  messageArchive,
  migrate,
  PgThreadRegistry,
  PgTransactionScope,
  SqliteThreadRegistry,
  ThreadwiseSaver,
} from "@threadwise/memory";
import { recall } from "@threadwise/recall";
import { extractiveSummarizer, summarize } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent, summarizationMiddleware } from "langchain";
import { measuredCode } from "./support/built.js";
import { benchArgs, printJson } from "./support/cli.js";
import { BenchOptionError } from "./support/data-file.js";
import { countGcKind } from "./support/gc-kinds.js";
import { cpuNow } from "./support/hook-calls.js";
import { laneOrder } from "./support/lane-order.js";
import { LOCOMO_PATH, loadLocomo, locomoThread, pickConversation, replayExchanges, type ThreadMessageSpec } from "./support/locomo.js";
import { machineLine, median } from "./support/machine.js";
import {
  addAllocations,
  type HeapSampling,
  type Profiling,
  profileClockUs,
  selfTimeTable,
  startHeapSampling,
  startProfile,
} from "./support/profile.js";
import { seedState } from "./support/seed-thread.js";
import {
  AnswerModel,
  memoryTarget,
  postgresTarget,
  type StatementCpu,
  sqliteSettingsOf,
  sqliteTarget,
  type Target,
} from "./support/step-savers.js";
import { billThreads, readThreads, type ThreadCpu, threadCpuPerStep } from "./support/thread-cpu.js";
import { turbofanCounts } from "./support/turbofan-log.js";
import type { WalFrameCounts } from "./support/wal-frames.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;
const NO_CONCURRENT_JIT = "--no-concurrent-recompilation";

const cli = benchArgs(LOCOMO_PATH, {
  conversation: { type: "string" },
  sizes: { type: "string", default: "1000,10000,50000" },
  steps: { type: "string", default: "10" },
  savers: { type: "string" },
  only: { type: "string" },
  "postgres-url": { type: "string" },
  "no-replay": { type: "boolean", default: false },
  profile: { type: "boolean", default: false },
  hooks: { type: "boolean", default: false },
  "sql-statements": { type: "boolean", default: false },
  "sql-cpu": { type: "boolean", default: false },
  "wal-frames": { type: "boolean", default: false },
  "wal-autocheckpoint": { type: "string" },
  "sqlite-synchronous": { type: "string" },
  "step-cpu": { type: "boolean", default: false },
  "step-gc": { type: "boolean", default: false },
  "thread-cpu": { type: "boolean", default: false },
  "heap-profile": { type: "boolean", default: false },
  "heap-promoted": { type: "boolean", default: false },
  "lane-offset": { type: "string" },
  "jit-main-thread": { type: "boolean", default: false },
  "warm-replays": { type: "string", default: "0" },
  turbofan: { type: "boolean", default: false },
  "archive-keep-groups": { type: "string" },
  "archive-batch": { type: "string" },
  "recall-calls": { type: "string", default: "40" },
});
// `--jit-main-thread`: V8 optimizes functions on the main thread, in the step that made them hot, instead of on its
// worker threads while later steps run (`process.cpuUsage()` counts every thread: a step otherwise pays for the
// compilations the steps before it started, another configuration's included). The flag is read when V8 starts,
// so the bench runs itself again with it.
if (cli.values["jit-main-thread"] && !process.execArgv.includes(NO_CONCURRENT_JIT)) {
  const { status } = spawnSync(process.execPath, [NO_CONCURRENT_JIT, ...process.execArgv, ...process.argv.slice(1)], { stdio: "inherit" });
  process.exit(status ?? 1);
}
const WINDOW = 20;
const TRIGGER = 40;
/** The archive's hot margin and batch: `memoryStack`'s (window plus ARCHIVE_MARGIN_GROUPS; DEFAULT_ARCHIVE_BATCH_MESSAGES) unless given. */
const KEEP_GROUPS = String(cli.values["archive-keep-groups"] ?? WINDOW + ARCHIVE_MARGIN_GROUPS)
  .split(",")
  .map(Number);
const BATCH_MESSAGES = Number(cli.values["archive-batch"] ?? DEFAULT_ARCHIVE_BATCH_MESSAGES);
const WARMUP = 2;
/** `--heap-profile`: the sampling heap profiler's mean interval, bytes. */
const HEAP_INTERVAL = 1024;
/** `--heap-promoted`: the heap profile keeps only what survived a scavenge; one lane per run (see the option). */
const HEAP_PROMOTED = cli.values["heap-promoted"] === true;
/** `--thread-cpu`: every thread's CPU read around each replayed step (bench/support/thread-cpu.ts). */
const THREAD_CPU = cli.values["thread-cpu"] === true;
/**
 * `--lane-offset`: the rotated lane order of before session 63, starting at this lane (0: the first
 * configuration first at even exchanges, so at every summary exchange); unset: the balanced order.
 */
/** `--wal-autocheckpoint`, `--sqlite-synchronous`: every SQLite lane's connection settings (diagnostics; see SqliteSettings). */
const SQLITE_SETTINGS = sqliteSettingsOf({
  walAutocheckpoint: cli.values["wal-autocheckpoint"],
  synchronous: cli.values["sqlite-synchronous"],
});
if (SQLITE_SETTINGS.walAutocheckpoint !== undefined && cli.values["wal-frames"])
  throw new BenchOptionError(
    "--wal-autocheckpoint",
    "not with --wal-frames: the frame count checkpoints the log itself at each reading (automatic checkpoints off)",
  );
const LANE_OFFSET_TEXT = cli.values["lane-offset"] as string | undefined;
const LANE_OFFSET = LANE_OFFSET_TEXT === undefined ? undefined : Number(LANE_OFFSET_TEXT);
if (LANE_OFFSET !== undefined && (LANE_OFFSET_TEXT?.trim() === "" || !Number.isSafeInteger(LANE_OFFSET)))
  throw new BenchOptionError(
    "--lane-offset",
    `must be an integer (a lane to start the rotated order at), got "${cli.values["lane-offset"]}"`,
  );
/** LangChain's summary period in exchanges: it summarizes at TRIGGER messages down to WINDOW, two messages an exchange. */
const SUMMARY_PERIOD_EXCHANGES = (TRIGGER - WINDOW) / 2;
/** Warm-up steps of the archive configuration: its first archiving of the seeded hot part and one summary period (20 messages, 10 steps) after it. */
const WARMUP_ARCHIVE = 12;
/** Seeded messages kept the same at every size (the hot part and a margin). */
const TAIL = 120;
const sizes = String(cli.values.sizes)
  .split(",")
  .map((s) => Number(s.trim()))
  .filter((n) => n > 0);
const steps = Math.max(1, Number(cli.values.steps));
const only = cli.values.only ? new Set(String(cli.values.only).split(",")) : undefined;
const postgresUrl = (cli.values["postgres-url"] as string | undefined) ?? process.env.THREADWISE_TEST_POSTGRES_URL;
/** The saver kinds `--savers` can name. */
const SAVER_KINDS = ["memory", "sqlite", "postgres"];
const saverKinds = saverKindsOf(cli.values.savers as string | undefined, postgresUrl);

/**
 * The saver kinds to run: `--savers` as given, else all three, PostgreSQL only with a URL.
 * @throws BenchOptionError naming `--savers` for a kind it does not know (`memroy` ran the
 *   PostgreSQL lanes) or for `postgres` asked without a URL (it was dropped silently: a run asked
 *   for three savers reported two).
 */
function saverKindsOf(given: string | undefined, url: string | undefined): string[] {
  if (given === undefined) return SAVER_KINDS.filter((kind) => kind !== "postgres" || url !== undefined);
  const kinds = given.split(",").map((kind) => kind.trim());
  for (const kind of kinds)
    if (!SAVER_KINDS.includes(kind))
      throw new BenchOptionError(
        "--savers",
        `unknown saver ${JSON.stringify(kind)} (one or more of ${SAVER_KINDS.join(", ")}, comma-separated)`,
      );
  if (kinds.includes("postgres") && url === undefined)
    throw new BenchOptionError("--savers", "postgres needs a server: give --postgres-url <url> or set THREADWISE_TEST_POSTGRES_URL");
  return kinds;
}

interface Config {
  kind: "none" | "langchain" | "langchain-tw" | "threadwise" | "archive" | "recall" | "recall-whole";
  /** The configuration's name in the tables: its kind, or `archive@keep<n>` when several margins are compared. */
  key: string;
  name: string;
  threadwiseSaver: boolean;
  make: (saver: BaseCheckpointSaver, probe: RecallProbe) => AgentMiddleware[];
}

/** CPU recall's `wrapModelCall` spent in its own code (the model call inside it left out), and its calls. */
interface RecallProbe {
  ms: number;
  calls: number;
  /** The recall middleware itself (untimed), for the hook-only calls. */
  middleware?: AgentMiddleware;
}

/** Configurations whose thread is archived (seeded and warmed up alike). */
const ARCHIVED_KINDS: ReadonlySet<Config["kind"]> = new Set(["archive", "recall", "recall-whole"]);

/** `middleware` with its `wrapModelCall` timed into `probe` (CPU, the inner handler's time taken out). */
function timedModelCall(middleware: AgentMiddleware, probe: RecallProbe): AgentMiddleware {
  const wrap = middleware.wrapModelCall as NonNullable<AgentMiddleware["wrapModelCall"]>;
  return {
    ...middleware,
    wrapModelCall: async (request, handler) => {
      let inner = 0;
      const t0 = cpuNow();
      const result = await wrap(request, async (next) => {
        const h0 = cpuNow();
        try {
          return await handler(next);
        } finally {
          inner += cpuNow() - h0;
        }
      });
      probe.ms += cpuNow() - t0 - inner;
      probe.calls += 1;
      return result;
    },
  };
}

/** CPU ms per middleware hook of the lane being stepped (`--hooks`), by `<lane> <middleware>.<hook>`. */
const HOOK_CPU = new Map<string, number>();
/** The lane whose step runs now (`<saver>/<configuration>`), for {@link HOOK_CPU}. */
let hookLane = "";

/**
 * `middleware` with its `wrapModelCall` (handler excluded) and `beforeModel` timed into
 * {@link HOOK_CPU} under `label` (`--hooks`); unchanged otherwise.
 */
function timedHooks(middleware: AgentMiddleware, label: string): AgentMiddleware {
  if (!cli.values.hooks) return middleware;
  const add = (hook: string, ms: number) => {
    const key = `${hookLane} ${label}.${hook}`;
    HOOK_CPU.set(key, (HOOK_CPU.get(key) ?? 0) + ms);
  };
  const out: Record<string, unknown> = { ...middleware };
  const wrap = middleware.wrapModelCall as ((request: unknown, handler: (r: unknown) => Promise<unknown>) => Promise<unknown>) | undefined;
  if (wrap)
    out.wrapModelCall = async (request: unknown, handler: (r: unknown) => Promise<unknown>) => {
      let inner = 0;
      const t0 = cpuNow();
      try {
        return await wrap(request, async (next) => {
          const h0 = cpuNow();
          try {
            return await handler(next);
          } finally {
            inner += cpuNow() - h0;
          }
        });
      } finally {
        add("wrapModelCall", cpuNow() - t0 - inner);
      }
    };
  const before = (middleware as { beforeModel?: unknown }).beforeModel;
  if (before) {
    const hook = (typeof before === "function" ? before : (before as { hook: unknown }).hook) as (...args: unknown[]) => Promise<unknown>;
    const timed = async (...args: unknown[]) => {
      const t0 = cpuNow();
      try {
        return await hook(...args);
      } finally {
        add("beforeModel", cpuNow() - t0);
      }
    };
    out.beforeModel = typeof before === "function" ? timed : { ...(before as object), hook: timed };
  }
  return out as unknown as AgentMiddleware;
}

/** The archive configuration's middleware (`memoryStack`'s order), with `recall` after it when `withRecall` says how it reads the archive. */
function archiveStack(saver: ThreadwiseSaver, keepGroups: number, probe: RecallProbe, withRecall?: "changes" | "whole"): AgentMiddleware[] {
  const archived = (threadId: string, options?: { last?: number }) => saver.archivedMessages(threadId, options);
  const stack: AgentMiddleware[] = [
    timedHooks(windowTrim({ maxMessages: WINDOW, logger: false }), "windowTrim"),
    summarySlotMiddleware(),
    timedHooks(summarize({ model: extractiveSummarizer(), declareState: false, archived, logger: false }), "summarize"),
    timedHooks(
      messageArchive(saver, { keepGroups, batchMessages: BATCH_MESSAGES, alignMessages: WINDOW - WINDOW / 2, logger: false }),
      "messageArchive",
    ),
  ];
  if (withRecall) {
    probe.middleware = recall({
      facts: false,
      archived,
      ...(withRecall === "changes" ? { archivedChanges: (threadId, since) => saver.archivedChanges(threadId, since) } : {}),
      logger: false,
    });
    stack.push(timedModelCall(probe.middleware, probe));
  }
  return stack;
}

/** LangChain's `summarizationMiddleware` as the `langchain` configurations set it. */
const langchainSummarization = () => [
  timedHooks(
    summarizationMiddleware({
      model: extractiveSummarizer(),
      trigger: { messages: TRIGGER },
      keep: { messages: WINDOW },
    }) as unknown as AgentMiddleware,
    "summarizationMiddleware",
  ),
];

const ALL_CONFIGS: Config[] = [
  { kind: "none", key: "none", name: "no middleware", threadwiseSaver: false, make: () => [] },
  {
    kind: "langchain",
    key: "langchain",
    name: `LangChain summarizationMiddleware (trigger ${TRIGGER}, keep ${WINDOW})`,
    threadwiseSaver: false,
    make: langchainSummarization,
  },
  {
    kind: "langchain-tw",
    key: "langchain-tw",
    name: `LangChain summarizationMiddleware (trigger ${TRIGGER}, keep ${WINDOW}) on ThreadwiseSaver`,
    threadwiseSaver: true,
    make: langchainSummarization,
  },
  {
    kind: "threadwise",
    key: "threadwise",
    name: `threadwise [windowTrim(${WINDOW}), summarize()], no archive`,
    threadwiseSaver: true,
    make: () => [windowTrim({ maxMessages: WINDOW, logger: false }), summarize({ model: extractiveSummarizer(), logger: false })],
  },
  ...KEEP_GROUPS.map(
    (keepGroups): Config => ({
      kind: "archive",
      key: KEEP_GROUPS.length > 1 ? `archive@keep${keepGroups}` : "archive",
      name: `threadwise [windowTrim(${WINDOW}), summarize(), messageArchive(keepGroups ${keepGroups}, batchMessages ${BATCH_MESSAGES})]`,
      threadwiseSaver: true,
      make: (saver, probe) => archiveStack(saver as ThreadwiseSaver, keepGroups, probe),
    }),
  ),
  {
    kind: "recall",
    key: "recall",
    name: "archive plus recall() reading the rows archived since its last call (archivedChanges, as memoryStack wires it)",
    threadwiseSaver: true,
    make: (saver, probe) => archiveStack(saver as ThreadwiseSaver, KEEP_GROUPS[0] as number, probe, "changes"),
  },
  {
    kind: "recall-whole",
    key: "recall-whole",
    name: "archive plus recall() reading the whole archive at each model call (archived only; memoryStack before issue 27's recall change)",
    threadwiseSaver: true,
    make: (saver, probe) => archiveStack(saver as ThreadwiseSaver, KEEP_GROUPS[0] as number, probe, "whole"),
  },
];
const CONFIGS = ALL_CONFIGS.filter((config) => !only || only.has(config.kind));
if (HEAP_PROMOTED && (CONFIGS.length !== 1 || saverKinds.length !== 1))
  throw new BenchOptionError(
    "--heap-promoted",
    "give one configuration (--only <key>) and one saver (--savers <kind>): the profile is not split by lane",
  );
// `--turbofan`: the bench runs itself again with V8's code log on, one lane per process (the log is the process's),
// and adds what TurboFan made (bench/support/turbofan-log.ts) to its figures.
const TURBOFAN_LOG_FLAG = "--log-code";
if (cli.values.turbofan && !process.execArgv.includes(TURBOFAN_LOG_FLAG)) {
  if (CONFIGS.length !== 1 || String(cli.values.savers).includes(","))
    throw new BenchOptionError(
      "--turbofan",
      "give one configuration (--only <key>) and one saver (--savers <kind>): V8's log is not split by lane",
    );
  const logfile = join(tmpdir(), `replay-cost-turbofan-${process.pid}-${randomUUID()}.log`);
  const child = spawnSync(
    process.execPath,
    [TURBOFAN_LOG_FLAG, "--log-deopt", `--logfile=${logfile}`, "--no-logfile-per-isolate", ...process.execArgv, ...process.argv.slice(1)],
    { stdio: ["inherit", "pipe", "inherit"], maxBuffer: 256 * 1024 * 1024, encoding: "utf8" },
  );
  let log = "";
  try {
    log = readFileSync(logfile, "utf8");
  } finally {
    rmSync(logfile, { force: true });
  }
  // Our code: the packages' sources (tsx loads them from packages/*/src) or, with `--built`, their dist; the bench's own files left out.
  const counts = turbofanCounts(log, (location) => /\/packages\/[^/]+\/(src|dist)\//.test(location));
  const turbofan = { lane: CONFIGS[0]?.key, saver: cli.values.savers, ...counts, ourFunctions: counts.ourFunctions.slice(0, 40) };
  // `--log-deopt` also prints a `[bailout ...]` line per deoptimization on stdout: left out of the figures.
  const stdout = child.stdout
    .split("\n")
    .filter((line) => !line.startsWith("[bailout "))
    .join("\n");
  if (cli.json && child.status === 0) printJson({ ...JSON.parse(stdout), turbofan });
  else {
    process.stdout.write(stdout);
    process.stdout.write(
      `\nTurboFan (whole process, --only ${turbofan.lane} --savers ${turbofan.saver}): ${counts.jobs} jobs, ${counts.codeKiB.toFixed(1)} KiB of code, ${counts.deopts} deopts, ${counts.functions} functions; packages/: ${counts.ours.jobs} jobs, ${counts.ours.codeKiB.toFixed(1)} KiB\n` +
        `compiled more than once: ${counts.recompiled.map((f) => `${f.function.split(" ")[0] || "(anonymous)"} ${f.jobs}x/${f.deopts} deopts`).join(", ")}\n`,
    );
  }
  process.exit(child.status ?? 1);
}

/** The next recorded assistant text (or "ok"), set before each step. */
let nextAnswer = "ok";
/** Answers with {@link nextAnswer} at once. */
/** Messages the model received in its last call (system message included), for `messagesSentPerStep`. */
let lastSent = 0;

class RecordedModel extends AnswerModel {
  override async _generate(messages?: BaseMessage[]): Promise<ChatResult> {
    lastSent = messages?.length ?? 0;
    const message = new AIMessage({ id: `ai-${randomUUID()}`, content: nextAnswer });
    return { generations: [{ text: nextAnswer, message }] };
  }
}

/** A configuration's saver and checkpointer: the target's saver, wrapped in ThreadwiseSaver for threadwise's (on PostgreSQL in a schema `migrate` set up). */
async function openLane(kind: string, config: Config): Promise<{ target: Target; checkpointer: BaseCheckpointSaver }> {
  if (kind === "memory") {
    const target = await memoryTarget();
    if (!config.threadwiseSaver) return { target, checkpointer: target.saver };
    return { target, checkpointer: new ThreadwiseSaver(target.saver, new MemoryThreadRegistry(target.saver as never)) };
  }
  if (kind === "sqlite") {
    const target = await sqliteTarget({
      countStatements: cli.values["sql-statements"],
      timeStatements: cli.values["sql-cpu"],
      countWalFrames: cli.values["wal-frames"],
      settings: SQLITE_SETTINGS,
    });
    if (!config.threadwiseSaver) return { target, checkpointer: target.saver };
    const db = (target.saver as unknown as { db: never }).db;
    return { target, checkpointer: new ThreadwiseSaver(target.saver, new SqliteThreadRegistry(db)) };
  }
  if (!config.threadwiseSaver) {
    const target = await postgresTarget(postgresUrl);
    return { target, checkpointer: target.saver };
  }
  // As createCheckpointer builds it: createMemoryPool's pool; the saver's statements join the registry's transactions.
  const scope = new PgTransactionScope();
  const target = await postgresTarget(postgresUrl, { scope, poolMax: 4, memoryPool: true });
  const { url, schema, pool } = target.postgres as NonNullable<Target["postgres"]>;
  await migrate({ dsn: url, schema });
  const checkpointer = new ThreadwiseSaver(target.saver, new PgThreadRegistry(pool, schema, scope), {
    ready: () => assertSchemaVersion(pool, schema),
    uniqueChannelVersions: true,
  });
  return { target, checkpointer };
}

function laneOf(checkpointer: BaseCheckpointSaver, config: Config) {
  const probe: RecallProbe = { ms: 0, calls: 0 };
  const agent = createAgent({ model: new RecordedModel({}), checkpointer, middleware: config.make(checkpointer, probe) });
  const threadId = `${config.key}-${randomUUID()}`;
  return {
    config,
    threadId,
    agent,
    checkpointer,
    probe,
    invoke: async (text: string) => {
      await agent.invoke(
        { messages: [new HumanMessage({ id: `u-${randomUUID()}`, content: text })] },
        { configurable: { thread_id: threadId } },
      );
    },
  };
}
type Lane = ReturnType<typeof laneOf>;

/** With `--step-gc`: the collector's entries of the whole replay (performance timeline), and the process's threads' CPU. */
const GC_ENTRIES: Array<{ start: number; duration: number; kind: number }> = [];
if (cli.values["step-gc"])
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      GC_ENTRIES.push({
        start: entry.startTime,
        duration: entry.duration,
        kind: (entry as PerformanceEntry & { detail: { kind: number } }).detail.kind,
      });
  }).observe({ entryTypes: ["gc"] });

/** CPU ns of this process's main thread and of its other threads (V8's collector helpers, libuv's pool), from /proc's schedstat. */
function threadCpuNs(): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const [tid, { ns }] of readThreads()) {
    if (tid === process.pid) main = ns;
    else others += ns;
  }
  return { main, others };
}

/** With `--step-gc`: one step's window on the performance timeline, its heap growth and its threads' CPU. */
interface StepGc {
  start: number;
  end: number;
  heapDeltaBytes: number;
  mainThreadMs: number;
  otherThreadsMs: number;
}

/** One timed step: CPU ms (counting overhead taken out) and bytes the serializer produced. */
async function timedStep(
  target: Target,
  lane: Lane,
  text: string,
  answer: string,
): Promise<{
  cpuMs: number;
  bytes: number;
  puts: number;
  putWrites: number;
  gets: number;
  bytesRead: number;
  encodes: number;
  decodes: number;
  messageCheckpointsRead: number;
  messagesRead: number;
  sent: number;
  statements: number;
  gc?: StepGc;
}> {
  nextAnswer = answer;
  const gcOn = cli.values["step-gc"] === true;
  const threads0 = gcOn ? threadCpuNs() : undefined;
  const heap0 = gcOn ? getHeapStatistics().used_heap_size : 0;
  const perf0 = gcOn ? performance.now() : 0;
  lastSent = 0;
  const statements0 = target.statements?.() ?? 0;
  const {
    bytes: bytes0,
    overheadMs: overhead0,
    puts: puts0,
    putWrites: putWrites0,
    gets: gets0,
    bytesRead: read0,
    encodes: encodes0,
    decodes: decodes0,
    messageCheckpointsRead: checkpointsRead0,
    messagesRead: messagesRead0,
  } = target.counters;
  const t0 = cpuNow();
  await lane.invoke(text);
  const cpuMs = cpuNow() - t0 - (target.counters.overheadMs - overhead0);
  let gc: StepGc | undefined;
  if (threads0) {
    const perf1 = performance.now();
    const heap1 = getHeapStatistics().used_heap_size;
    const threads1 = threadCpuNs();
    gc = {
      start: perf0,
      end: perf1,
      heapDeltaBytes: heap1 - heap0,
      mainThreadMs: (threads1.main - threads0.main) / 1e6,
      otherThreadsMs: (threads1.others - threads0.others) / 1e6,
    };
  }
  return {
    ...(gc ? { gc } : {}),
    cpuMs,
    bytes: target.counters.bytes - bytes0,
    puts: target.counters.puts - puts0,
    putWrites: target.counters.putWrites - putWrites0,
    gets: target.counters.gets - gets0,
    bytesRead: target.counters.bytesRead - read0,
    encodes: target.counters.encodes - encodes0,
    decodes: target.counters.decodes - decodes0,
    messageCheckpointsRead: target.counters.messageCheckpointsRead - checkpointsRead0,
    messagesRead: target.counters.messagesRead - messagesRead0,
    sent: lastSent,
    statements: (target.statements?.() ?? 0) - statements0,
  };
}

/** Statements by kind run since `before`, per step, most first (4 decimals). */
function kindsPerStep(
  now: ReadonlyMap<string, number>,
  before: ReadonlyMap<string, number> | undefined,
  steps: number,
): Record<string, number> {
  return Object.fromEntries(
    [...now]
      .map(([kind, n]) => [kind, Math.round(((n - (before?.get(kind) ?? 0)) / steps) * 1e4) / 1e4] as const)
      .filter(([, n]) => n > 0)
      .sort((a, b) => b[1] - a[1]),
  );
}

/** `--sql-cpu`: the statements' main-thread CPU between `before` and `now`, per step, in microseconds, by kind (most first) and in all. */
function cpuPerStep(
  now: ReadonlyMap<string, StatementCpu>,
  before: ReadonlyMap<string, StatementCpu> | undefined,
  steps: number,
): NonNullable<ReplayRow["sqlCpuPerStep"]> {
  const round = (x: number) => Math.round(x * 100) / 100;
  let total = 0;
  const kinds: Array<[string, { calls: number; us: number }]> = [];
  for (const [kind, { calls, ns }] of now) {
    const was = before?.get(kind);
    const n = calls - (was?.calls ?? 0);
    if (n === 0) continue;
    const us = (ns - (was?.ns ?? 0)) / 1000;
    total += us;
    kinds.push([kind, { calls: round(n / steps), us: round(us / steps) }]);
  }
  kinds.sort((a, b) => b[1].us - a[1].us);
  return { totalUs: round(total / steps), kinds: Object.fromEntries(kinds) };
}

/** `--wal-frames`: a replay's WAL frames and commits per step, and the frames by owner (most first). */
function walFramesPerStep(counts: WalFrameCounts, steps: number): NonNullable<ReplayRow["walFramesPerStep"]> {
  const round = (x: number) => Math.round(x * 100) / 100;
  return {
    frames: round(counts.frames / steps),
    commits: round(counts.commits / steps),
    byOwner: Object.fromEntries([...counts.byOwner].sort((a, b) => b[1] - a[1]).map(([owner, n]) => [owner, round(n / steps)])),
  };
}

interface ReplayRow {
  saver: string;
  config: string;
  steps: number;
  cpuSeconds: number;
  cpuMsPerStep: number;
  bytesPerStep: number;
  /** Checkpoints (`put`) and pending-write batches (`putWrites`) the saver stored per step. */
  putsPerStep: number;
  putWritesPerStep: number;
  /** Checkpoint reads (`getTuple`) and bytes the serializer decoded per step (checkpoints, writes, archived records). */
  getsPerStep: number;
  bytesReadPerStep: number;
  /** Values the saver's serializer encoded (`dumpsTyped`) and decoded (`loadsTyped`) per step: checkpoints, their metadata, pending writes, archived records. */
  encodesPerStep: number;
  decodesPerStep: number;
  /** Messages in the checkpoint after the replay. */
  hotMessages: number;
  /** Messages per checkpoint read, averaged over every read of the replay (what each step decodes, per read). */
  messagesPerCheckpointRead: number;
  /** Messages the model received per step (system message included), averaged over the replay. */
  messagesSentPerStep: number;
  /** With `--hooks`: CPU ms per step of each middleware hook (`<middleware>.<hook>`). */
  hooks?: Record<string, number>;
  /** With `--sql-statements`, on SQLite: statements SQLite ran per step (the saver's and threadwise's registry's). */
  sqlStatementsPerStep?: number;
  /** With `--sql-statements`, on SQLite: the same by kind (`statementKind`: the SQL with its values as `?`), per step, most first. */
  sqlStatementKindsPerStep?: Record<string, number>;
  /** With `--sql-cpu`, on SQLite: main-thread CPU of the statements per step (`totalUs`) and by kind (calls and us per step, most CPU first). */
  sqlCpuPerStep?: { totalUs: number; kinds: Record<string, { calls: number; us: number }> };
  /** With `--wal-frames`, on SQLite: WAL frames (pages) and commits per step, and the frames by the table or index owning each page, most first. */
  walFramesPerStep?: { frames: number; commits: number; byOwner: Record<string, number> };
  /** With `--step-cpu`: each step's CPU ms, in replay order. */
  stepCpuMs?: number[];
  /** With `--step-cpu`, archive lanes: the indexes (in `stepCpuMs`) of the steps that wrote to the archive. */
  archivingSteps?: number[];
  /** With `--step-cpu` and `--hooks`: each step's CPU ms per middleware hook, in replay order. */
  stepHooks?: Array<Record<string, number>>;
  /** With `--step-gc`: each step's collections, heap growth and threads' CPU, in replay order. */
  stepGc?: StepGcRow[];
  /** With `--thread-cpu`: CPU ms per step of each thread (`main`, `<comm>#+<tid - pid>`) while this lane's steps ran, most first. */
  threadCpuMsPerStep?: Record<string, ThreadCpu>;
  /** With `--heap-profile`: KiB allocated per step (V8's sampling heap profiler, objects collected later included). */
  allocatedKiBPerStep?: number;
  /** With `--heap-promoted`: KiB per step that survived a scavenge (promoted or allocated in the old space; sampled). */
  promotedKiBPerStep?: number;
}

interface StepGcRow {
  /** Collections that started inside the step, by kind (perf_hooks' `gc` entries), and their pauses' ms. */
  minor: number;
  major: number;
  incremental: number;
  weak: number;
  pauseMs: number;
  /** `used_heap_size` after the step minus before it (what it allocated when no collection fell inside). */
  heapDeltaBytes: number;
  /** CPU ms of the main thread and of the process's other threads (the collector's helpers, libuv's pool) in the step. */
  mainThreadMs: number;
  otherThreadsMs: number;
}

/** A step's collections (from {@link GC_ENTRIES}: those that started inside its window), by kind, with its heap growth and threads' CPU. */
function gcOfStep(step: StepGc): StepGcRow {
  const row: StepGcRow = {
    minor: 0,
    major: 0,
    incremental: 0,
    weak: 0,
    pauseMs: 0,
    heapDeltaBytes: step.heapDeltaBytes,
    mainThreadMs: step.mainThreadMs,
    otherThreadsMs: step.otherThreadsMs,
  };
  for (const entry of GC_ENTRIES) {
    if (entry.start < step.start || entry.start >= step.end) continue;
    row.pauseMs += entry.duration;
    countGcKind(row, entry.kind);
  }
  return row;
}

/** The hook CPU ms lane `lane` (`<saver>/<configuration>`) spent since `before` (a copy of {@link HOOK_CPU}), by `<middleware>.<hook>`. */
function hookSnapshot(lane: string, before: ReadonlyMap<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, ms] of HOOK_CPU) if (key.startsWith(`${lane} `)) out[key.slice(lane.length + 1)] = ms - (before.get(key) ?? 0);
  return out;
}

/** `--thread-cpu`: lane `lane`'s thread bill in ms per step by thread; also a line per thread on stderr. */
function threadCpuOf(
  lane: string,
  billed: ReadonlyMap<string, { tids: ReadonlySet<number>; ns: number }>,
  stepCount: number,
): Record<string, ThreadCpu> {
  const out = threadCpuPerStep(billed, stepCount);
  for (const [name, { threads, ms }] of Object.entries(out))
    console.error(`thread ${lane} ${name}${threads > 1 ? ` (${threads} threads)` : ""}: ${ms.toFixed(3)} ms/step`);
  return out;
}

/** The hook CPU of lane `lane` (`<saver>/<configuration>`) in ms per step over `stepCount` steps; also a table on stderr. */
function hooksOf(lane: string, stepCount: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, ms] of HOOK_CPU) {
    if (!key.startsWith(`${lane} `)) continue;
    out[key.slice(lane.length + 1)] = ms / stepCount;
    console.error(`hook ${key}: ${(ms / stepCount).toFixed(3)} ms/step`);
  }
  return out;
}

async function wholeReplay(kind: string): Promise<ReplayRow[]> {
  const conversations = loadLocomo(cli.data);
  const conversation = pickConversation(
    conversations,
    cli.values.conversation,
    cli.data,
    (all) => [...all].sort((a, b) => replayExchanges(b).length - replayExchanges(a).length)[0],
  );
  const exchanges = replayExchanges(conversation).filter((e) => e.user !== "" && e.assistant !== "");
  // Interleaved: one exchange of each configuration in turn, so the machine's load falls on every
  // configuration alike; the order balanced over the summary period (`laneOrder`) unless
  // `--lane-offset` asks for the rotated one. Each has its own saver.
  const lanes = [];
  for (const config of CONFIGS) {
    const { target, checkpointer } = await openLane(kind, config);
    lanes.push({
      config,
      target,
      lane: laneOf(checkpointer, config),
      cpu: 0,
      bytes: 0,
      puts: 0,
      putWrites: 0,
      gets: 0,
      bytesRead: 0,
      encodes: 0,
      decodes: 0,
      checkpointsRead: 0,
      messagesRead: 0,
      sent: 0,
      statements: 0,
      windows: [] as Array<[number, number]>,
      stepCpu: [] as number[],
      archivingSteps: [] as number[],
      stepHooks: [] as Array<Record<string, number>>,
      stepGc: [] as StepGc[],
      hooksBefore: new Map<string, number>(),
      allocated: 0,
      allocatedByFrame: new Map<string, number>(),
      allocatedByOurs: new Map<string, number>(),
      threadCpu: new Map<string, { tids: Set<number>; ns: number }>(),
    });
  }
  if (cli.values["step-cpu"])
    for (const entry of lanes) {
      const saver = entry.lane.checkpointer as Partial<ThreadwiseSaver>;
      const write = saver.archiveMessages?.bind(saver);
      if (!write || !ARCHIVED_KINDS.has(entry.config.kind)) continue;
      // The step running now is the lane's next one (steps are counted as they end).
      saver.archiveMessages = async (threadId, messages) => {
        if (entry.archivingSteps.at(-1) !== entry.stepCpu.length) entry.archivingSteps.push(entry.stepCpu.length);
        return write(threadId, messages);
      };
    }
  const rows: ReplayRow[] = [];
  // What opening the lanes ran is not the replay's.
  const kinds0 = new Map(lanes.map((entry) => [entry.target, new Map(entry.target.statementKinds?.() ?? [])]));
  const cpu0 = new Map(lanes.map((entry) => [entry.target, structuredClone(new Map(entry.target.statementCpu?.() ?? []))]));
  for (const entry of lanes) entry.target.walFrames?.read(false);
  try {
    const profiling: Profiling | undefined = cli.values.profile ? await startProfile() : undefined;
    const heap: HeapSampling | undefined =
      cli.values["heap-profile"] || HEAP_PROMOTED ? await startHeapSampling(HEAP_INTERVAL, !HEAP_PROMOTED) : undefined;
    for (const [i, exchange] of exchanges.entries()) {
      const order = laneOrder(lanes.length, i, SUMMARY_PERIOD_EXCHANGES, LANE_OFFSET);
      for (let j = 0; j < lanes.length; j += 1) {
        const entry = lanes[order[j] as number] as (typeof lanes)[number];
        if (heap && !HEAP_PROMOTED && (i > 0 || j > 0)) await heap.restart();
        const h0 = profileClockUs();
        const threads0 = THREAD_CPU ? readThreads() : undefined;
        hookLane = `${kind}/${entry.config.key}`;
        if (cli.values["step-cpu"] && cli.values.hooks) entry.hooksBefore = new Map(HOOK_CPU);
        const step = await timedStep(entry.target, entry.lane, exchange.user, exchange.assistant);
        hookLane = "";
        entry.target.walFrames?.read();
        if (threads0) billThreads(threads0, readThreads(), entry.threadCpu);
        // The step's allocations, billed to its lane (the profiler is stopped between steps).
        if (heap && !HEAP_PROMOTED)
          entry.allocated += addAllocations(await heap.take(), HEAP_INTERVAL, entry.allocatedByFrame, entry.allocatedByOurs);
        entry.windows.push([h0, profileClockUs()]);
        entry.cpu += step.cpuMs;
        if (cli.values["step-cpu"]) {
          entry.stepCpu.push(step.cpuMs);
          if (cli.values.hooks) entry.stepHooks.push(hookSnapshot(`${kind}/${entry.config.key}`, entry.hooksBefore));
        }
        if (step.gc) entry.stepGc.push(step.gc);
        entry.bytes += step.bytes;
        entry.puts += step.puts;
        entry.putWrites += step.putWrites;
        entry.gets += step.gets;
        entry.bytesRead += step.bytesRead;
        entry.encodes += step.encodes;
        entry.decodes += step.decodes;
        entry.checkpointsRead += step.messageCheckpointsRead;
        entry.messagesRead += step.messagesRead;
        entry.sent += step.sent;
        entry.statements += step.statements;
        if (i % 50 === 49) await entry.target.prune(entry.lane.threadId);
      }
    }
    // `--heap-promoted`: one period over the whole replay (its one lane's), so that an object's sample stays until a scavenge collects it.
    if (heap && HEAP_PROMOTED) {
      const entry = lanes[0] as (typeof lanes)[number];
      entry.allocated = addAllocations(await heap.take(), HEAP_INTERVAL, entry.allocatedByFrame, entry.allocatedByOurs);
    }
    heap?.close();
    if (heap)
      for (const entry of lanes) {
        const top = (m: Map<string, number>) =>
          [...m]
            .sort((a, b) => b[1] - a[1])
            .slice(0, 30)
            .map(([key, bytes]) => `| ${key} | ${(bytes / 1024 / exchanges.length).toFixed(1)} |`)
            .join("\n");
        // `name` | where[:line] -> where, summed.
        const byWhere = (m: Map<string, number>) => {
          const out = new Map<string, number>();
          for (const [key, bytes] of m) {
            const where = (key.split(" | ")[1] ?? key).replace(/:\d+$/, "");
            out.set(where, (out.get(where) ?? 0) + bytes);
          }
          return out;
        };
        console.error(
          `\n${HEAP_PROMOTED ? "promoted (survived a scavenge)" : "allocated"} per step, replay ${kind} ${entry.config.key}: ${(entry.allocated / 1024 / exchanges.length).toFixed(1)} KiB\n| innermost frame | where | KiB / step |\n|---|---|---:|\n${top(entry.allocatedByFrame)}\n\n| innermost frame's package | KiB / step |\n|---|---:|\n${top(byWhere(entry.allocatedByFrame))}\n\n| innermost frame of packages/ | where | KiB / step |\n|---|---|---:|\n${top(entry.allocatedByOurs)}\n`,
        );
      }
    if (profiling) {
      const { profile, path } = await profiling.stop(`replay-cost-replay-${kind}`);
      console.error(`\nprofile of the whole replay on ${kind}: ${path}`);
      writeFileSync(`${path}.windows.json`, JSON.stringify(Object.fromEntries(lanes.map((entry) => [entry.config.key, entry.windows]))));
      for (const entry of lanes) {
        const { table, sampledMs } = selfTimeTable(profile, exchanges.length, entry.windows, 25);
        console.error(`\nreplay ${kind} ${entry.config.key} (${sampledMs.toFixed(0)} ms sampled)\n${table}\n`);
      }
    }
    // The collector's entries reach the observer on a later turn of the event loop; the replay's steps may run on promises alone.
    if (cli.values["step-gc"]) await new Promise((resolve) => setTimeout(resolve, 50));
    for (const {
      config,
      target,
      lane,
      cpu,
      bytes,
      puts,
      putWrites,
      gets,
      bytesRead,
      encodes,
      decodes,
      checkpointsRead,
      messagesRead,
      sent,
      statements,
      stepCpu,
      archivingSteps,
      stepHooks,
      stepGc,
      allocated,
      threadCpu,
    } of lanes) {
      const state = await lane.agent.graph.getState({ configurable: { thread_id: lane.threadId } });
      rows.push({
        saver: target.label,
        config: config.key,
        steps: exchanges.length,
        cpuSeconds: cpu / 1000,
        cpuMsPerStep: cpu / exchanges.length,
        bytesPerStep: bytes / exchanges.length,
        putsPerStep: puts / exchanges.length,
        putWritesPerStep: putWrites / exchanges.length,
        getsPerStep: gets / exchanges.length,
        bytesReadPerStep: bytesRead / exchanges.length,
        encodesPerStep: encodes / exchanges.length,
        decodesPerStep: decodes / exchanges.length,
        hotMessages: (state.values.messages as BaseMessage[]).length,
        messagesPerCheckpointRead: checkpointsRead === 0 ? 0 : messagesRead / checkpointsRead,
        messagesSentPerStep: sent / exchanges.length,
        ...(cli.values.hooks ? { hooks: hooksOf(`${kind}/${config.key}`, exchanges.length) } : {}),
        ...(target.statements ? { sqlStatementsPerStep: statements / exchanges.length } : {}),
        ...(target.statementKinds
          ? {
              sqlStatementKindsPerStep: kindsPerStep(target.statementKinds(), kinds0.get(target), exchanges.length),
            }
          : {}),
        ...(target.statementCpu ? { sqlCpuPerStep: cpuPerStep(target.statementCpu(), cpu0.get(target), exchanges.length) } : {}),
        ...(target.walFrames ? { walFramesPerStep: walFramesPerStep(target.walFrames.counts, exchanges.length) } : {}),
        ...(cli.values["step-cpu"]
          ? {
              stepCpuMs: stepCpu,
              ...(ARCHIVED_KINDS.has(config.kind) ? { archivingSteps } : {}),
              ...(cli.values.hooks ? { stepHooks } : {}),
            }
          : {}),
        ...(cli.values["step-gc"] ? { stepGc: stepGc.map(gcOfStep) } : {}),
        ...(THREAD_CPU ? { threadCpuMsPerStep: threadCpuOf(`${kind}/${config.key}`, threadCpu, exchanges.length) } : {}),
        ...(cli.values["heap-profile"] && !HEAP_PROMOTED ? { allocatedKiBPerStep: allocated / 1024 / exchanges.length } : {}),
        ...(HEAP_PROMOTED ? { promotedKiBPerStep: allocated / 1024 / exchanges.length } : {}),
      });
      console.error(
        `replay ${conversation.sampleId} ${kind} ${config.key}: ${(cpu / 1000).toFixed(2)} s CPU, ${(bytes / exchanges.length / 1024).toFixed(1)} KiB/step, ${(puts / exchanges.length).toFixed(2)} puts + ${(putWrites / exchanges.length).toFixed(2)} putWrites/step, ${(gets / exchanges.length).toFixed(2)} reads and ${(bytesRead / exchanges.length / 1024).toFixed(1)} KiB decoded/step, ${(encodes / exchanges.length).toFixed(2)} values encoded + ${(decodes / exchanges.length).toFixed(2)} decoded/step, ${(checkpointsRead === 0 ? 0 : messagesRead / checkpointsRead).toFixed(1)} messages per checkpoint read, ${(sent / exchanges.length).toFixed(1)} sent to the model/step, hot ${(state.values.messages as BaseMessage[]).length} at the end${target.statements ? `, ${(statements / exchanges.length).toFixed(1)} SQL statements/step` : ""}`,
      );
    }
  } finally {
    for (const { target } of lanes) await target.close();
  }
  return rows;
}

interface SizedRow {
  saver: string;
  config: string;
  size: number;
  /** Mean over the timed steps (whole summary and archive periods), CPU ms. */
  cpuMsPerStep: number;
  cpuMsMedian: number;
  /** Mean over the timed steps, bytes. */
  bytesPerStep: number;
  bytesMedian: number;
  /** Messages in the checkpoint after the timed steps. */
  hotMessages: number;
  /** Messages the thread keeps after the timed steps: the checkpoint's, plus the archived ones for `archive`. */
  keptMessages: number;
  /** recall configurations: CPU ms recall's `wrapModelCall` spent per model call in the timed steps (the model call inside it left out). */
  recallCpuMsPerCall?: number;
  recallCpuMsMedian?: number;
  /**
   * recall configurations: median CPU ms of recall's `wrapModelCall` called alone (`--recall-calls`
   * calls after the timed steps, two messages appended to the stored thread before each, the recall
   * lanes of a size taking turns), without the step's GC of the other middleware and the saver.
   */
  recallHookCpuMsMedian?: number;
}

const mean = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
/** LangChain's summary message as `summarizationMiddleware` writes it (its default prefix). */
const LANGCHAIN_SUMMARY_PREFIX = "Here is a summary of the conversation to date:";
const SEED_SUMMARY = "Earlier: the two friends talked about their weeks.";
/** Archived messages written per `archiveMessages` call when seeding. */
const SEED_ARCHIVE_BATCH = 2000;

/**
 * Seeds `lane`'s thread with the state its configuration holds after `seed.length` messages, all
 * but the newest {@link TAIL} summarized (see the method text at the top).
 */
async function seedThread(target: Target, lane: Lane, seed: readonly BaseMessage[]): Promise<void> {
  const size = seed.length;
  const tailStart = Math.max(0, size - TAIL);
  const write = (values: Record<string, unknown>) => seedState(lane.agent, target, lane.threadId, values);
  const record = {
    [SUMMARY_SLOT_KEY]: {
      summary: {
        text: SEED_SUMMARY,
        coveredThroughId: (seed[Math.max(0, size - 31)] as BaseMessage).id ?? null,
        coveredCount: size - 30,
        updatedAt: new Date(0).toISOString(),
      },
    },
  };
  const key = lane.config.kind;
  if (key === "none") await write({ messages: [...seed] });
  else if (key === "threadwise") await write({ messages: [...seed], ...record });
  else if (key === "langchain" || key === "langchain-tw") {
    // What LangChain's middleware left: its summary message (under the first message's id) and what it kept.
    const summary = new HumanMessage({
      id: (seed[0] as BaseMessage).id,
      content: `${LANGCHAIN_SUMMARY_PREFIX}\n\n${SEED_SUMMARY}`,
      additional_kwargs: { lc_source: "summarization" },
    });
    await write({ messages: [summary, ...seed.slice(tailStart)] });
  } else {
    // The newest TAIL in the checkpoint, the rest in the archive, as messageArchive leaves a thread.
    await write({ messages: seed.slice(tailStart), ...record });
    const saver = lane.checkpointer as ThreadwiseSaver;
    for (let i = 0; i < tailStart; i += SEED_ARCHIVE_BATCH)
      await saver.archiveMessages(lane.threadId, seed.slice(i, Math.min(tailStart, i + SEED_ARCHIVE_BATCH)));
  }
}

/**
 * Per step at each of `sizes` stored messages on one saver kind: every (configuration, size) lane
 * is seeded and warmed up, then the timed steps take turns (one step of each lane per round, the
 * order rotated every round), so the machine's load falls on every lane alike.
 */
async function sized(kind: string): Promise<SizedRow[]> {
  const largest = Math.max(...sizes);
  // The newest TAIL seeded messages and every stepped message are the same texts at every size,
  // so sizes differ only by what lies before them (LoCoMo's texts differ in length by conversation).
  const fixedCount = TAIL + WARMUP_ARCHIVE * 2 + steps * 2 + 2 + Math.max(0, Number(cli.values["recall-calls"])) * 2;
  const all = locomoThread(largest + fixedCount, cli.data);
  const fixed = all.slice(0, fixedCount);
  const lanes: Array<{
    size: number;
    target: Target;
    lane: Lane;
    specs: ThreadMessageSpec[];
    next: number;
    cpu: number[];
    bytes: number[];
    recallMs: number[];
    windows: Array<[number, number]>;
  }> = [];
  const rows: SizedRow[] = [];
  try {
    for (const size of sizes)
      for (const config of CONFIGS) {
        const specs = [...all.slice(fixed.length, fixed.length + Math.max(0, size - TAIL)), ...fixed];
        const { target, checkpointer } = await openLane(kind, config);
        const lane = laneOf(checkpointer, config);
        lanes.push({ size, target, lane, specs, next: size, cpu: [], bytes: [], recallMs: [], windows: [] });
        const seed = specs
          .slice(0, size)
          .map((s) =>
            s.type === "human"
              ? new HumanMessage({ id: `${lane.threadId}-${s.id}`, content: s.content })
              : new AIMessage({ id: `${lane.threadId}-${s.id}`, content: s.content }),
          );
        await seedThread(target, lane, seed);
      }
    const stepOf = async (entry: (typeof lanes)[number], timed: boolean) => {
      const user = entry.specs[entry.next]?.content ?? "hello";
      const answer = entry.specs[entry.next + 1]?.content ?? "ok";
      entry.next += 2;
      if (timed) collectGarbage();
      const h0 = profileClockUs();
      const { ms: recall0, calls: calls0 } = entry.lane.probe;
      const step = await timedStep(entry.target, entry.lane, user, answer);
      const calls = entry.lane.probe.calls - calls0;
      if (timed) entry.windows.push([h0, profileClockUs()]);
      await entry.target.prune(entry.lane.threadId);
      if (!timed) return;
      entry.cpu.push(step.cpuMs);
      entry.bytes.push(step.bytes);
      if (calls > 0) entry.recallMs.push((entry.lane.probe.ms - recall0) / calls);
    };
    for (const entry of lanes) {
      const warmup = ARCHIVED_KINDS.has(entry.lane.config.kind) ? WARMUP_ARCHIVE : WARMUP;
      for (let i = 0; i < warmup; i += 1) await stepOf(entry, false);
    }
    const profiling: Profiling | undefined = cli.values.profile ? await startProfile() : undefined;
    // Rotated every round and reversed every other one, so each lane runs before each other lane
    // as often as after it (lanes share process-wide caches: the first to meet a text pays for it).
    for (let round = 0; round < steps; round += 1)
      for (let j = 0; j < lanes.length; j += 1) {
        const k = round % 2 === 0 ? j : lanes.length - 1 - j;
        await stepOf(lanes[(Math.floor(round / 2) + k) % lanes.length] as (typeof lanes)[number], true);
      }
    if (profiling) {
      const { profile, path } = await profiling.stop(`replay-cost-${kind}`);
      console.error(`\nprofile ${kind}: ${path}`);
      for (const entry of lanes) {
        const { table, sampledMs } = selfTimeTable(profile, steps, entry.windows, 25);
        console.error(`\n${kind} ${entry.lane.config.key} ${entry.size} (${sampledMs.toFixed(0)} ms sampled in timed steps)\n${table}\n`);
      }
    }
    const hookMs = await recallHookCalls(lanes);
    for (const { size, target, lane, cpu, bytes, recallMs } of lanes) {
      const state = await lane.agent.graph.getState({ configurable: { thread_id: lane.threadId } });
      const hot = (state.values.messages as BaseMessage[]).length;
      const kept = ARCHIVED_KINDS.has(lane.config.kind)
        ? (await (lane.checkpointer as ThreadwiseSaver).readThread({ configurable: { thread_id: lane.threadId } })).length
        : hot;
      rows.push({
        saver: target.label,
        config: lane.config.key,
        size,
        cpuMsPerStep: mean(cpu),
        cpuMsMedian: median(cpu),
        bytesPerStep: mean(bytes),
        bytesMedian: median(bytes),
        hotMessages: hot,
        keptMessages: kept,
        ...(recallMs.length > 0 ? { recallCpuMsPerCall: mean(recallMs), recallCpuMsMedian: median(recallMs) } : {}),
        ...(hookMs.has(lane) ? { recallHookCpuMsMedian: median(hookMs.get(lane) as number[]) } : {}),
      });
      console.error(
        `size ${size} ${kind} ${lane.config.key}: ${mean(cpu).toFixed(1)} ms CPU/step (median ${median(cpu).toFixed(1)}), ${(mean(bytes) / 1024).toFixed(1)} KiB/step, hot ${hot}, kept ${kept}${recallMs.length > 0 ? `, recall ${mean(recallMs).toFixed(2)} ms CPU/call (median ${median(recallMs).toFixed(2)}), alone ${median(hookMs.get(lane) ?? []).toFixed(2)} ms (median)` : ""}`,
      );
    }
  } finally {
    for (const { target } of lanes) await target.close();
  }
  return rows;
}

/**
 * recall's `wrapModelCall` alone on each recall lane's thread (see `recallHookCpuMsMedian`): the
 * stored thread as the last step left it, two messages appended (not stored) before each call, the
 * newest user message the query, the newest 20 messages the view. CPU ms per call, by lane.
 */
async function recallHookCalls(
  lanes: ReadonlyArray<{ lane: Lane; specs: ThreadMessageSpec[]; next: number }>,
): Promise<Map<Lane, number[]>> {
  const out = new Map<Lane, number[]>();
  const calls = Math.max(0, Number(cli.values["recall-calls"]));
  const runs = [];
  for (const entry of lanes) {
    if (!entry.lane.probe.middleware || calls === 0) continue;
    const state = await entry.lane.agent.graph.getState({ configurable: { thread_id: entry.lane.threadId } });
    runs.push({ entry, hot: [...(state.values.messages as BaseMessage[])], next: entry.next, ms: [] as number[] });
  }
  for (let round = 0; round < calls; round += 1)
    for (let j = 0; j < runs.length; j += 1) {
      const k = round % 2 === 0 ? j : runs.length - 1 - j;
      const run = runs[(Math.floor(round / 2) + k) % runs.length] as (typeof runs)[number];
      const { lane, specs } = run.entry;
      const user = specs[run.next]?.content ?? "hello";
      const answer = specs[run.next + 1]?.content ?? "ok";
      run.hot.push(new AIMessage({ id: `${lane.threadId}-hook-a${round}`, content: answer }));
      run.hot.push(new HumanMessage({ id: `${lane.threadId}-hook-u${round}`, content: user }));
      run.next += 2;
      const request = {
        messages: run.hot.slice(-WINDOW),
        systemMessage: new SystemMessage(""),
        state: { messages: run.hot },
        tools: [],
        model: {},
        runtime: { configurable: { thread_id: lane.threadId } },
      };
      const wrap = lane.probe.middleware?.wrapModelCall as unknown as (
        request: unknown,
        handler: () => Promise<AIMessage>,
      ) => Promise<unknown>;
      const t0 = cpuNow();
      await wrap(request, async () => new AIMessage("ok"));
      run.ms.push(cpuNow() - t0);
    }
  for (const run of runs) out.set(run.entry.lane, run.ms);
  return out;
}

const replayRows: ReplayRow[] = [];
const sizedRows: SizedRow[] = [];
for (const kind of saverKinds) {
  if (!cli.values["no-replay"]) {
    // `--warm-replays <n>`: whole replays on their own lanes before the measured one, their figures dropped, so the
    // measured replay runs on code V8 has already optimized (as a long-lived process would).
    for (let warm = 0; warm < Number(cli.values["warm-replays"]); warm += 1) await wholeReplay(kind);
    HOOK_CPU.clear();
    GC_ENTRIES.length = 0;
    replayRows.push(...(await wholeReplay(kind)));
  }
  if (sizes.length > 0) sizedRows.push(...(await sized(kind)));
}

const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? a / b : undefined);
const savedOn = (saver: string, kind: string) => saver.toLowerCase().includes(kind === "memory" ? "memorysaver" : kind);
/** Per saver and archive configuration (or `langchain-tw` when none runs): the targets' ratios (replay over LangChain; largest size over smallest). */
const summarized = CONFIGS.filter((config) => ARCHIVED_KINDS.has(config.kind));
const summary = saverKinds.flatMap((kind) =>
  (summarized.length > 0 ? summarized : CONFIGS.filter((config) => config.kind === "langchain-tw")).map((archive) => {
    const of = (config: string) => replayRows.find((r) => savedOn(r.saver, kind) && r.config === config);
    const at = (config: string, size: number) => sizedRows.find((r) => savedOn(r.saver, kind) && r.config === config && r.size === size);
    const small = sizes.length > 0 ? Math.min(...sizes) : undefined;
    const large = sizes.length > 0 ? Math.max(...sizes) : undefined;
    return {
      saver: kind,
      config: archive.key,
      replayArchiveOverLangchainCpu: ratio(of(archive.key)?.cpuSeconds, of("langchain")?.cpuSeconds),
      replayThreadwiseOverLangchainCpu: ratio(of("threadwise")?.cpuSeconds, of("langchain")?.cpuSeconds),
      replayLangchainOnThreadwiseSaverOverPlain: ratio(of("langchain-tw")?.cpuSeconds, of("langchain")?.cpuSeconds),
      archiveLargeOverSmallCpu:
        small && large ? ratio(at(archive.key, large)?.cpuMsPerStep, at(archive.key, small)?.cpuMsPerStep) : undefined,
      archiveLargeOverSmallBytes:
        small && large ? ratio(at(archive.key, large)?.bytesPerStep, at(archive.key, small)?.bytesPerStep) : undefined,
      recallLargeOverSmallCpuPerCall:
        small && large ? ratio(at(archive.key, large)?.recallCpuMsPerCall, at(archive.key, small)?.recallCpuMsPerCall) : undefined,
      recallAloneLargeOverSmallCpu:
        small && large ? ratio(at(archive.key, large)?.recallHookCpuMsMedian, at(archive.key, small)?.recallHookCpuMsMedian) : undefined,
      langchainLargeOverSmallCpu:
        small && large ? ratio(at("langchain", large)?.cpuMsPerStep, at("langchain", small)?.cpuMsPerStep) : undefined,
    };
  }),
);

const code = measuredCode();
const figures = {
  /** Which code of ours was measured: `src` under tsx (the default) or the packages' `built` dist (`--built`). */
  code: code.code,
  /** Where each `@threadwise/*` package was loaded from, repository-relative. */
  codeModules: code.modules,
  machine: machineLine(),
  cpus: cpus().length,
  loadavg: loadavg(),
  data: cli.data,
  /** The replay's lane order: balanced over the summary period, or the rotated one `--lane-offset` asks for. */
  laneOrder: LANE_OFFSET === undefined ? `balanced over ${SUMMARY_PERIOD_EXCHANGES} exchanges` : `rotated from lane ${LANE_OFFSET}`,
  sizes,
  steps,
  replay: replayRows,
  sized: sizedRows,
  summary,
};
if (cli.json) printJson(figures);
else {
  console.log(
    `\n${figures.machine}; load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}; our code: ${figures.code}`,
  );
  console.log("\nWhole replay (sum over every exchange):");
  console.table(replayRows.map((r) => ({ ...r, cpuMsPerStep: r.cpuMsPerStep.toFixed(1), bytesPerStep: Math.round(r.bytesPerStep) })));
  console.log("\nPer step at a stored size (median):");
  console.table(sizedRows.map((r) => ({ ...r, cpuMsPerStep: r.cpuMsPerStep.toFixed(1), bytesPerStep: Math.round(r.bytesPerStep) })));
  console.log("\nTargets (issue 27): replay archive/langchain CPU <= 1.0; archive largest/smallest size <= 1.2 (CPU and bytes)");
  console.table(summary);
}
