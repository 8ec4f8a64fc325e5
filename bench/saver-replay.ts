/**
 * `ThreadwiseSaver`'s own per-step cost without the graph (issue 27): the exact sequence of
 * `put` / `putWrites` / `getTuple` calls one replay of `bench/replay-cost.ts`'s `langchain` lane
 * makes (LangChain's `summarizationMiddleware`, trigger 40, keep 20, over one LoCoMo
 * conversation), recorded once from a real `createAgent` run, then sent again to a plain saver and
 * to `ThreadwiseSaver` wrapping the same kind of saver, the two alternating.
 *
 *   pnpm tsx bench/saver-replay.ts --json                      # memory and sqlite, 6 pairs
 *   pnpm tsx bench/saver-replay.ts --savers sqlite --pairs 10 --conversation conv-26
 *
 * Options: `--data` (LoCoMo file; default the one bench/recall.ts reads), `--conversation`
 * (sample id; default the one with the most exchanges), `--savers` (memory, sqlite), `--pairs`
 * (alternating plain / ThreadwiseSaver replays per saver, default 6), `--profile` (V8's sampling
 * profiler on during the timed replays: the functions whose self time per step differs most
 * between the ThreadwiseSaver and the plain replays, a table per saver on stderr).
 *
 * Method: each recorded call keeps its arguments (the run's `control` and abort signal stand in
 * for fresh objects of a fresh run at each replay, the thread id is a fresh one) and which earlier
 * calls had settled when it was made; a replay makes each call once those have settled, so puts
 * and pending writes overlap as they did under LangGraph's `async` durability (a write sent before
 * its checkpoint's put is done included). Everything runs inside an `AsyncLocalStorage`, as a
 * LangGraph run does (on Node 20 every promise then passes its init hook). CPU is
 * `process.cpuUsage()` around each step's calls; between steps every 50, outside the timing,
 * the thread is pruned to its newest checkpoint, as replay-cost does. Counted in one more replay
 * of each lane, outside the timed ones: promises created per step (`async_hooks`), and on SQLite
 * the statements SQLite ran per step (better-sqlite3's `verbose` hook).
 */
import { AsyncLocalStorage, createHook } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { RunnableConfig } from "@langchain/core/runnables";
import { MemorySaver } from "@langchain/langgraph";
import type { BaseCheckpointSaver, ChannelVersions, Checkpoint, CheckpointMetadata, PendingWrite } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { MemoryThreadRegistry, SqliteThreadRegistry, ThreadwiseSaver } from "@threadwise/memory";
import { extractiveSummarizer } from "@threadwise/summarize";
import Database from "better-sqlite3";
import { type AgentMiddleware, createAgent, summarizationMiddleware } from "langchain";
import { benchArgs, printJson } from "./support/cli.js";
import { cpuNow } from "./support/hook-calls.js";
import { LOCOMO_PATH, loadLocomo, pickConversation, replayExchanges } from "./support/locomo.js";
import { machineLine, median } from "./support/machine.js";
import { profileClockUs, selfTimeDiffTable, startProfile } from "./support/profile.js";
import { AnswerModel } from "./support/step-savers.js";

const cli = benchArgs(LOCOMO_PATH, {
  conversation: { type: "string" },
  savers: { type: "string", default: "memory,sqlite" },
  pairs: { type: "string", default: "6" },
  profile: { type: "boolean", default: false },
});
const WINDOW = 20;
const TRIGGER = 40;
/** Steps between two prunes of the thread (replay-cost's). */
const PRUNE_EVERY = 50;

/** One recorded saver call. */
type Call =
  | { op: "put"; config: RunnableConfig; checkpoint: Checkpoint; metadata: CheckpointMetadata; newVersions: ChannelVersions }
  | { op: "putWrites"; config: RunnableConfig; writes: PendingWrite[]; taskId: string; taskPath?: string }
  | { op: "getTuple"; config: RunnableConfig };
interface Recorded {
  call: Call;
  /** Calls (indexes in the step) that settled since the previous call of the step was made. */
  after: number[];
}

let nextAnswer = "ok";
class RecordedModel extends AnswerModel {
  override async _generate(): Promise<ChatResult> {
    const message = new AIMessage({ id: `ai-${randomUUID()}`, content: nextAnswer });
    return { generations: [{ text: nextAnswer, message }] };
  }
}

/** A MemorySaver recording every call of the current step into `steps`. */
class RecordingSaver extends MemorySaver {
  readonly steps: Recorded[][] = [];
  #settled: number[] = [];
  #record(call: Call, result: Promise<unknown>): void {
    const step = this.steps.at(-1) as Recorded[];
    const index = step.length;
    step.push({ call, after: this.#settled });
    this.#settled = [];
    void result.finally(() => this.#settled.push(index));
  }
  startStep(): void {
    this.steps.push([]);
    this.#settled = [];
  }
  // LangGraph passes `newVersions` too (MemorySaver's typing leaves it out): recorded for the wrapping saver.
  override put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions = {}) {
    const result = super.put(config, checkpoint, metadata);
    this.#record({ op: "put", config, checkpoint, metadata, newVersions }, result);
    return result;
  }
  override putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string) {
    const result = super.putWrites(config, writes, taskId, taskPath);
    this.#record({ op: "putWrites", config, writes, taskId, taskPath }, result);
    return result;
  }
  override getTuple(config: RunnableConfig) {
    const result = super.getTuple(config);
    this.#record({ op: "getTuple", config }, result);
    return result;
  }
}

/** Replays the `langchain` lane over the conversation once, recording its saver calls per step. */
async function record(): Promise<{ sampleId: string; steps: Recorded[][] }> {
  const conversation = pickConversation(
    loadLocomo(cli.data),
    cli.values.conversation,
    cli.data,
    (all) => [...all].sort((a, b) => replayExchanges(b).length - replayExchanges(a).length)[0],
  );
  const exchanges = replayExchanges(conversation).filter((e) => e.user !== "" && e.assistant !== "");
  const saver = new RecordingSaver();
  const middleware = summarizationMiddleware({
    model: extractiveSummarizer(),
    trigger: { messages: TRIGGER },
    keep: { messages: WINDOW },
  }) as unknown as AgentMiddleware;
  const agent = createAgent({ model: new RecordedModel({}), checkpointer: saver, middleware: [middleware] });
  const threadId = `record-${randomUUID()}`;
  for (const exchange of exchanges) {
    nextAnswer = exchange.assistant;
    saver.startStep();
    await agent.invoke(
      { messages: [new HumanMessage({ id: `u-${randomUUID()}`, content: exchange.user })] },
      { configurable: { thread_id: threadId } },
    );
  }
  return { sampleId: conversation.sampleId, steps: saver.steps };
}

/** A saver under test: the store, a way to prune a thread, and a count of SQLite statements when asked. */
interface Lane {
  saver: BaseCheckpointSaver;
  prune: (threadId: string) => void;
  statements: () => number;
  close: () => void;
}

function openLane(kind: string, threadwise: boolean, countStatements: boolean): Lane {
  if (kind === "memory") {
    const inner = new MemorySaver();
    return {
      saver: threadwise ? new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner)) : inner,
      prune: (threadId) => {
        for (const [ns, checkpoints] of Object.entries(inner.storage[threadId] ?? {})) {
          const ids = Object.keys(checkpoints).sort();
          const newest = ids.at(-1);
          for (const id of ids) if (id !== newest) delete checkpoints[id];
          const prefix = JSON.stringify([threadId, ns]).slice(0, -1);
          for (const key of Object.keys(inner.writes)) {
            if (!key.startsWith(prefix)) continue;
            const [, , id] = JSON.parse(key) as string[];
            if (id !== newest) delete inner.writes[key];
          }
        }
      },
      statements: () => 0,
      close: () => {},
    };
  }
  const dir = mkdtempSync(join(tmpdir(), "threadwise-saver-replay-"));
  let statements = 0;
  const db = new Database(join(dir, "checkpoints.db"), countStatements ? { verbose: () => (statements += 1) } : undefined);
  db.pragma("journal_mode = WAL");
  const inner = new SqliteSaver(db);
  const saver = threadwise ? new ThreadwiseSaver(inner, new SqliteThreadRegistry(db)) : inner;
  return {
    saver,
    prune: (threadId) => {
      const newest = db.prepare("SELECT max(checkpoint_id) AS id FROM checkpoints WHERE thread_id = ?").get(threadId) as { id: string };
      db.prepare("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id <> ?").run(threadId, newest.id);
      db.prepare("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id <> ?").run(threadId, newest.id);
    },
    statements: () => statements,
    close: () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `config` for this replay: its thread id, and fresh stand-ins for the run's `control` and `signal`. */
function replayConfig(config: RunnableConfig, threadId: string, runObjects: Map<object, object>): RunnableConfig {
  const fresh = (value: unknown) => {
    if (typeof value !== "object" || value === null) return value;
    let mapped = runObjects.get(value);
    if (!mapped) {
      mapped = value instanceof AbortSignal ? new AbortController().signal : {};
      runObjects.set(value, mapped);
    }
    return mapped;
  };
  const out: RunnableConfig & { control?: unknown } = {
    ...config,
    configurable: { ...config.configurable, thread_id: threadId },
  };
  if ("signal" in config) out.signal = fresh(config.signal) as AbortSignal;
  if ("control" in config) out.control = fresh((config as { control?: unknown }).control);
  return out;
}

function send(saver: BaseCheckpointSaver, call: Call, config: RunnableConfig): Promise<unknown> {
  if (call.op === "put") return saver.put(config, call.checkpoint, call.metadata, call.newVersions);
  if (call.op === "putWrites") return saver.putWrites(config, call.writes, call.taskId, call.taskPath);
  return saver.getTuple(config);
}

/** Sends one step's calls, each once the calls that had settled before it in the recording have; resolves when all settled. */
async function replayStep(saver: BaseCheckpointSaver, step: readonly Recorded[], threadId: string, runObjects: Map<object, object>) {
  const sent: Array<Promise<unknown>> = [];
  for (const { call, after } of step) {
    if (after.length > 0) await Promise.all(after.map((index) => sent[index]));
    sent.push(send(saver, call, replayConfig(call.config, threadId, runObjects)));
  }
  await Promise.all(sent);
}

/** One whole replay on a fresh lane: CPU ms per step (mean over the steps), and the counts when `count`. */
async function replay(kind: string, threadwise: boolean, steps: readonly Recorded[][], count: boolean, windows?: Array<[number, number]>) {
  const lane = openLane(kind, threadwise, count);
  const threadId = `replay-${randomUUID()}`;
  let promises = 0;
  const hook = count
    ? createHook({
        init: (_id, type) => {
          if (type === "PROMISE") promises += 1;
        },
      })
    : undefined;
  let cpu = 0;
  try {
    const storage = new AsyncLocalStorage<object>();
    await storage.run({}, async () => {
      for (const [i, step] of steps.entries()) {
        const runObjects = new Map<object, object>();
        hook?.enable();
        const h0 = windows ? profileClockUs() : 0;
        const t0 = cpuNow();
        await replayStep(lane.saver, step, threadId, runObjects);
        cpu += cpuNow() - t0;
        windows?.push([h0, profileClockUs()]);
        hook?.disable();
        if (i % PRUNE_EVERY === PRUNE_EVERY - 1) lane.prune(threadId);
      }
    });
  } finally {
    lane.close();
  }
  return {
    cpuMsPerStep: cpu / steps.length,
    promisesPerStep: promises / steps.length,
    statementsPerStep: lane.statements() / steps.length,
  };
}

const { sampleId, steps } = await record();
const callsPerStep = (op: Call["op"]) => steps.reduce((n, step) => n + step.filter((r) => r.call.op === op).length, 0) / steps.length;
const pairs = Math.max(1, Number(cli.values.pairs));
const load = () => Number((loadavg()[0] as number).toFixed(2));
const loadStart = load();
const rows = [];
for (const kind of String(cli.values.savers).split(",")) {
  // Warm-up: one replay of each lane, untimed.
  await replay(kind, false, steps, false);
  await replay(kind, true, steps, false);
  const plain: number[] = [];
  const wrapped: number[] = [];
  const windows = { plain: [] as Array<[number, number]>, threadwise: [] as Array<[number, number]> };
  const profiling = cli.values.profile ? await startProfile() : undefined;
  for (let p = 0; p < pairs; p += 1) {
    // Alternating, the order swapped every pair.
    const order = p % 2 === 0 ? [false, true] : [true, false];
    for (const threadwise of order) {
      const lane = threadwise ? "threadwise" : "plain";
      const { cpuMsPerStep } = await replay(kind, threadwise, steps, false, profiling ? windows[lane] : undefined);
      (threadwise ? wrapped : plain).push(cpuMsPerStep);
    }
  }
  if (profiling) {
    const { profile, path } = await profiling.stop(`saver-replay-${kind}`);
    console.error(`\nprofile on ${kind}: ${path}; ThreadwiseSaver (a) against the plain saver (b), self ms per step`);
    console.error(`${selfTimeDiffTable(profile, steps.length * pairs, windows.threadwise, windows.plain, 40)}\n`);
  }
  const countedPlain = await replay(kind, false, steps, true);
  const countedWrapped = await replay(kind, true, steps, true);
  const ratios = plain.map((ms, p) => (wrapped[p] as number) / ms);
  const row = {
    saver: kind,
    pairs,
    plainCpuMsPerStep: median(plain),
    threadwiseCpuMsPerStep: median(wrapped),
    overheadUsPerStep: median(plain.map((ms, p) => ((wrapped[p] as number) - ms) * 1000)),
    ratioMedian: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    plainRuns: plain,
    threadwiseRuns: wrapped,
    promisesPerStep: { plain: countedPlain.promisesPerStep, threadwise: countedWrapped.promisesPerStep },
    ...(kind === "sqlite"
      ? { sqlStatementsPerStep: { plain: countedPlain.statementsPerStep, threadwise: countedWrapped.statementsPerStep } }
      : {}),
  };
  rows.push(row);
  console.error(
    `${kind}: plain ${row.plainCpuMsPerStep.toFixed(3)} ms/step, ThreadwiseSaver ${row.threadwiseCpuMsPerStep.toFixed(3)} ms/step, +${row.overheadUsPerStep.toFixed(0)} us/step (ratio ${row.ratioMedian.toFixed(3)}, ${row.ratioRange.map((r) => r.toFixed(3)).join("-")}), promises/step ${countedPlain.promisesPerStep.toFixed(1)} / ${countedWrapped.promisesPerStep.toFixed(1)}${kind === "sqlite" ? `, statements/step ${countedPlain.statementsPerStep.toFixed(1)} / ${countedWrapped.statementsPerStep.toFixed(1)}` : ""}`,
  );
}
const figures = {
  machine: machineLine(),
  load: { start: loadStart, end: load() },
  data: cli.data,
  conversation: sampleId,
  steps: steps.length,
  callsPerStep: { put: callsPerStep("put"), putWrites: callsPerStep("putWrites"), getTuple: callsPerStep("getTuple") },
  rows,
};
if (cli.json) printJson(figures);
