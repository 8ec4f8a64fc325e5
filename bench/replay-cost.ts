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
 * (default 3), `--savers` (memory, sqlite, postgres; postgres only with a URL: `--postgres-url`
 * or THREADWISE_TEST_POSTGRES_URL), `--only` configuration keys (comma list), `--no-replay`.
 *
 * Configurations (each on its own thread; the model answers with the recorded assistant text):
 * - `none`: no middleware.
 * - `langchain`: LangChain's `summarizationMiddleware` (trigger 40 messages, keep 20), which deletes
 *   what it summarized.
 * - `threadwise`: `[windowTrim(20), summarize()]` on `ThreadwiseSaver` (keeps the whole thread).
 * - `archive`: the same plus `messageArchive` (keepGroups 40, batches aligned to the window's step).
 * Every summarizer is core's offline extractive summarizer (`extractiveSummarizer()`), the same for
 * LangChain and threadwise.
 *
 * Method: CPU is `process.cpuUsage()` (user + system) around each `invoke`, minus the bench's own
 * counting; bytes written are what the saver's serializer produced during the step (checkpoints,
 * metadata, channel blobs, pending writes, and archived records, which are encoded with the same
 * serializer). The whole replay sums every step of the conversation (one step = one exchange;
 * the configurations take turns, one exchange each, so the machine's load falls on all alike). A
 * sized thread is seeded with one `updateState` of `size` LoCoMo messages, the newest 120 and the
 * stepped ones the same texts at every size (and, for threadwise, a
 * summary record covering all but the newest 30, as a thread that was summarized all along), then
 * gets 2 untimed warm-up steps (LangChain summarizes the seed; 12 for the archive, which moves the
 * seed and then makes one more summary, see WARMUP_ARCHIVE) and `--steps`
 * timed ones; medians are reported. Between steps, outside the timing, each thread is pruned to its
 * newest checkpoint. A full GC runs before each timed step. A real PostgreSQL server's own CPU is
 * not counted.
 */
import { randomUUID } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { SUMMARY_SLOT_KEY } from "@threadwise/core";
import { MemoryThreadRegistry, messageArchive, SqliteThreadRegistry, ThreadwiseSaver } from "@threadwise/memory";
import { extractiveSummarizer, summarize } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent, summarizationMiddleware } from "langchain";
import { benchArgs, printJson } from "./support/cli.js";
import { cpuNow } from "./support/hook-calls.js";
import { LOCOMO_PATH, loadLocomo, locomoThread, replayExchanges } from "./support/locomo.js";
import { machineLine, median } from "./support/machine.js";
import { AnswerModel, memoryTarget, postgresTarget, sqliteTarget, type Target } from "./support/step-savers.js";

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

const cli = benchArgs(LOCOMO_PATH, {
  conversation: { type: "string" },
  sizes: { type: "string", default: "1000,10000,50000" },
  steps: { type: "string", default: "3" },
  savers: { type: "string", default: "memory,sqlite,postgres" },
  only: { type: "string" },
  "postgres-url": { type: "string" },
  "no-replay": { type: "boolean", default: false },
});
const WINDOW = 20;
const TRIGGER = 40;
const KEEP_GROUPS = 40;
const WARMUP = 2;
/**
 * Warm-up steps of the archive configuration: one summary period (20 messages, 10 steps) past the
 * first archiving. The seeded thread is summarized while every seeded message is still in the
 * checkpoint, so that summary record lists a digest per seeded message (8 bytes each, R37); the
 * next summary lists only the covered messages still stored. A thread archived all along never
 * holds the first state; the timed steps measure the second.
 */
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
const saverKinds = String(cli.values.savers)
  .split(",")
  .filter((kind) => kind !== "postgres" || postgresUrl !== undefined);

interface Config {
  key: "none" | "langchain" | "threadwise" | "archive";
  name: string;
  threadwiseSaver: boolean;
  make: (saver: BaseCheckpointSaver) => AgentMiddleware[];
}

const ALL_CONFIGS: Config[] = [
  { key: "none", name: "no middleware", threadwiseSaver: false, make: () => [] },
  {
    key: "langchain",
    name: `LangChain summarizationMiddleware (trigger ${TRIGGER}, keep ${WINDOW})`,
    threadwiseSaver: false,
    make: () => [
      summarizationMiddleware({
        model: extractiveSummarizer(),
        trigger: { messages: TRIGGER },
        keep: { messages: WINDOW },
      }) as unknown as AgentMiddleware,
    ],
  },
  {
    key: "threadwise",
    name: `threadwise [windowTrim(${WINDOW}), summarize()], no archive`,
    threadwiseSaver: true,
    make: () => [windowTrim({ maxMessages: WINDOW, logger: false }), summarize({ model: extractiveSummarizer(), logger: false })],
  },
  {
    key: "archive",
    name: `threadwise [windowTrim(${WINDOW}), summarize(), messageArchive(keepGroups ${KEEP_GROUPS})]`,
    threadwiseSaver: true,
    make: (saver) => [
      windowTrim({ maxMessages: WINDOW, logger: false }),
      summarize({
        model: extractiveSummarizer(),
        archived: (threadId) => (saver as ThreadwiseSaver).archivedMessages(threadId),
        logger: false,
      }),
      messageArchive(saver as ThreadwiseSaver, { keepGroups: KEEP_GROUPS, alignMessages: WINDOW - WINDOW / 2, logger: false }),
    ],
  },
];
const CONFIGS = ALL_CONFIGS.filter((config) => !only || only.has(config.key));

/** The next recorded assistant text (or "ok"), set before each step. */
let nextAnswer = "ok";
/** Answers with {@link nextAnswer} at once. */
class RecordedModel extends AnswerModel {
  override async _generate(): Promise<ChatResult> {
    const message = new AIMessage({ id: `ai-${randomUUID()}`, content: nextAnswer });
    return { generations: [{ text: nextAnswer, message }] };
  }
}

async function openTarget(kind: string): Promise<Target> {
  if (kind === "memory") return memoryTarget();
  if (kind === "sqlite") return sqliteTarget();
  return postgresTarget(postgresUrl);
}

/** The checkpointer a configuration runs on: the target's saver, wrapped in ThreadwiseSaver for threadwise's. */
function checkpointerOf(target: Target, config: Config): BaseCheckpointSaver {
  if (!config.threadwiseSaver) return target.saver;
  if (target.kind === "memory") return new ThreadwiseSaver(target.saver, new MemoryThreadRegistry(target.saver as never));
  if (target.kind === "sqlite")
    return new ThreadwiseSaver(target.saver, new SqliteThreadRegistry((target.saver as unknown as { db: never }).db));
  throw new Error("threadwise configurations on PostgreSQL need the migrated schema: not measured by this bench yet (see configsFor)");
}

function laneOf(target: Target, config: Config) {
  const checkpointer = checkpointerOf(target, config);
  const agent = createAgent({ model: new RecordedModel({}), checkpointer, middleware: config.make(checkpointer) });
  const threadId = `${config.key}-${randomUUID()}`;
  return {
    config,
    threadId,
    agent,
    invoke: async (text: string) => {
      await agent.invoke(
        { messages: [new HumanMessage({ id: `u-${randomUUID()}`, content: text })] },
        { configurable: { thread_id: threadId } },
      );
    },
  };
}
type Lane = ReturnType<typeof laneOf>;

/** One timed step: CPU ms (counting overhead taken out) and bytes the serializer produced. */
async function timedStep(target: Target, lane: Lane, text: string, answer: string): Promise<{ cpuMs: number; bytes: number }> {
  nextAnswer = answer;
  const bytes0 = target.counters.bytes;
  const overhead0 = target.counters.overheadMs;
  const t0 = cpuNow();
  await lane.invoke(text);
  const cpuMs = cpuNow() - t0 - (target.counters.overheadMs - overhead0);
  return { cpuMs, bytes: target.counters.bytes - bytes0 };
}

/** The configurations run on a saver: on PostgreSQL only `none` and `langchain` (threadwise's saver needs `threadwise migrate`'s schema; not set up here yet). */
function configsFor(kind: string): Config[] {
  return kind === "postgres" ? CONFIGS.filter((config) => !config.threadwiseSaver) : CONFIGS;
}

interface ReplayRow {
  saver: string;
  config: string;
  steps: number;
  cpuSeconds: number;
  cpuMsPerStep: number;
  bytesPerStep: number;
  hotMessages: number;
}

async function wholeReplay(kind: string): Promise<ReplayRow[]> {
  const conversations = loadLocomo(cli.data);
  const conversation = cli.values.conversation
    ? conversations.find((c) => c.sampleId === cli.values.conversation)
    : [...conversations].sort((a, b) => replayExchanges(b).length - replayExchanges(a).length)[0];
  if (!conversation) throw new Error(`no conversation ${String(cli.values.conversation)} in ${cli.data}`);
  const exchanges = replayExchanges(conversation).filter((e) => e.user !== "" && e.assistant !== "");
  // Interleaved: one exchange of each configuration in turn (the order rotated every exchange), so
  // the machine's load falls on every configuration alike. Each has its own saver.
  const lanes = [];
  for (const config of configsFor(kind)) {
    const target = await openTarget(kind);
    lanes.push({ config, target, lane: laneOf(target, config), cpu: 0, bytes: 0 });
  }
  const rows: ReplayRow[] = [];
  try {
    for (const [i, exchange] of exchanges.entries()) {
      for (let j = 0; j < lanes.length; j += 1) {
        const entry = lanes[(i + j) % lanes.length] as (typeof lanes)[number];
        const step = await timedStep(entry.target, entry.lane, exchange.user, exchange.assistant);
        entry.cpu += step.cpuMs;
        entry.bytes += step.bytes;
        if (i % 50 === 49) await entry.target.prune(entry.lane.threadId);
      }
    }
    for (const { config, target, lane, cpu, bytes } of lanes) {
      const state = await lane.agent.graph.getState({ configurable: { thread_id: lane.threadId } });
      rows.push({
        saver: target.label,
        config: config.key,
        steps: exchanges.length,
        cpuSeconds: cpu / 1000,
        cpuMsPerStep: cpu / exchanges.length,
        bytesPerStep: bytes / exchanges.length,
        hotMessages: (state.values.messages as BaseMessage[]).length,
      });
      console.error(
        `replay ${conversation.sampleId} ${kind} ${config.key}: ${(cpu / 1000).toFixed(2)} s CPU, ${(bytes / exchanges.length / 1024).toFixed(1)} KiB/step`,
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
  cpuMsPerStep: number;
  bytesPerStep: number;
  hotMessages: number;
}

async function sized(kind: string, size: number): Promise<SizedRow[]> {
  // The newest TAIL seeded messages and every stepped message are the same texts at every size,
  // so sizes differ only by what lies before them (LoCoMo's texts differ in length by conversation).
  const all = locomoThread(size + TAIL + WARMUP_ARCHIVE * 2 + steps * 2 + 2, cli.data);
  const fixed = all.slice(0, TAIL + WARMUP_ARCHIVE * 2 + steps * 2 + 2);
  const filler = all.slice(fixed.length, fixed.length + Math.max(0, size - TAIL));
  const specs = [...filler, ...fixed];
  const rows: SizedRow[] = [];
  for (const config of configsFor(kind)) {
    const target = await openTarget(kind);
    try {
      const lane = laneOf(target, config);
      const seed = specs
        .slice(0, size)
        .map((s) =>
          s.type === "human"
            ? new HumanMessage({ id: `${lane.threadId}-${s.id}`, content: s.content })
            : new AIMessage({ id: `${lane.threadId}-${s.id}`, content: s.content }),
        );
      const covered = seed[Math.max(0, size - 31)] as BaseMessage;
      await lane.agent.graph.updateState(
        { configurable: { thread_id: lane.threadId, checkpoint_ns: "" } },
        {
          messages: seed,
          ...(config.threadwiseSaver
            ? {
                [SUMMARY_SLOT_KEY]: {
                  summary: {
                    text: "Earlier: the two friends talked about their weeks.",
                    coveredThroughId: covered.id ?? null,
                    coveredCount: size - 30,
                    updatedAt: new Date(0).toISOString(),
                  },
                },
              }
            : {}),
        },
        "model_request",
      );
      await target.prune(lane.threadId);
      const cpu: number[] = [];
      const bytes: number[] = [];
      let next = size;
      const warmup = config.key === "archive" ? WARMUP_ARCHIVE : WARMUP;
      for (let i = 0; i < warmup + steps; i += 1) {
        const user = specs[next]?.content ?? "hello";
        const answer = specs[next + 1]?.content ?? "ok";
        next += 2;
        if (i >= warmup) collectGarbage();
        const step = await timedStep(target, lane, user, answer);
        await target.prune(lane.threadId);
        if (i < warmup) continue;
        cpu.push(step.cpuMs);
        bytes.push(step.bytes);
      }
      const state = await lane.agent.graph.getState({ configurable: { thread_id: lane.threadId } });
      rows.push({
        saver: target.label,
        config: config.key,
        size,
        cpuMsPerStep: median(cpu),
        bytesPerStep: median(bytes),
        hotMessages: (state.values.messages as BaseMessage[]).length,
      });
      console.error(
        `size ${size} ${kind} ${config.key}: ${median(cpu).toFixed(1)} ms CPU/step, ${(median(bytes) / 1024).toFixed(1)} KiB/step`,
      );
    } finally {
      await target.close();
    }
  }
  return rows;
}

const replayRows: ReplayRow[] = [];
const sizedRows: SizedRow[] = [];
for (const kind of saverKinds) {
  if (!cli.values["no-replay"]) replayRows.push(...(await wholeReplay(kind)));
  for (const size of sizes) sizedRows.push(...(await sized(kind, size)));
}

const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? a / b : undefined);
const summary = saverKinds.map((kind) => {
  const label = replayRows.find((r) => r.saver.toLowerCase().includes(kind === "memory" ? "memorysaver" : kind))?.saver ?? kind;
  const of = (config: string) => replayRows.find((r) => r.saver === label && r.config === config);
  const at = (config: string, size: number) =>
    sizedRows.find(
      (r) => r.saver.toLowerCase().includes(kind === "memory" ? "memorysaver" : kind) && r.config === config && r.size === size,
    );
  const small = sizes[0];
  const large = sizes.at(-1);
  return {
    saver: kind,
    replayArchiveOverLangchainCpu: ratio(of("archive")?.cpuSeconds, of("langchain")?.cpuSeconds),
    replayThreadwiseOverLangchainCpu: ratio(of("threadwise")?.cpuSeconds, of("langchain")?.cpuSeconds),
    archiveLargeOverSmallCpu: small && large ? ratio(at("archive", large)?.cpuMsPerStep, at("archive", small)?.cpuMsPerStep) : undefined,
    archiveLargeOverSmallBytes: small && large ? ratio(at("archive", large)?.bytesPerStep, at("archive", small)?.bytesPerStep) : undefined,
  };
});

const figures = {
  machine: machineLine(),
  cpus: cpus().length,
  loadavg: loadavg(),
  data: cli.data,
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
      .join(" ")}`,
  );
  console.log("\nWhole replay (sum over every exchange):");
  console.table(replayRows.map((r) => ({ ...r, cpuMsPerStep: r.cpuMsPerStep.toFixed(1), bytesPerStep: Math.round(r.bytesPerStep) })));
  console.log("\nPer step at a stored size (median):");
  console.table(sizedRows.map((r) => ({ ...r, cpuMsPerStep: r.cpuMsPerStep.toFixed(1), bytesPerStep: Math.round(r.bytesPerStep) })));
  console.log("\nTargets (issue 27): replay archive/langchain CPU <= 1.0; archive largest/smallest size <= 1.2 (CPU and bytes)");
  console.table(summary);
}
