/**
 * Per-call time of tokenCap's wrapModelCall on long threads of real text, steady state, next to
 * an exact full recount (spec R3: a call must cost O(new messages), not O(thread)).
 *
 * Threads: the tau-bench airline runs (tool calls and results, OpenAI format) followed by LoCoMo
 * conversations (user/assistant exchanges), replayed again under new ids past their ~7,800
 * messages, cut at 1,000 and 10,000 messages. Each call sees the
 * same thread plus 2 new messages (the previous answer and a new question), as fresh message
 * objects with the same ids, the way a checkpointer hands the thread back on every turn.
 *
 *   pnpm tsx --expose-gc bench/token-cap.ts            # 1k and 10k messages
 *   pnpm tsx --expose-gc bench/token-cap.ts --calls 30 # more steady-state calls per median
 *   pnpm tsx --expose-gc bench/token-cap.ts --sizes 1000,10000,50000
 *   pnpm tsx --expose-gc bench/token-cap.ts --data <airline.json> --locomo <locomo.json> --json
 *                                                      # other data files; figures as JSON on stdout
 *
 * `--expose-gc` lets the bench collect the garbage of building each thread (the checkpointer's
 * work) before the timed region; without it the figures include those collections.
 */
import { cpus, loadavg } from "node:os";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { createTokenCounter, requestOverheadTokens, sentMessages } from "@threadwise/core";
import { capMessages, tokenCap } from "@threadwise/token-cap";
import { TAU_AIRLINE_PATH } from "../data/paths.js";
import { benchArgs, printJson } from "./support/cli.js";
import { BenchDataError } from "./support/data-file.js";
import { LOCOMO_PATH, locomoThread } from "./support/locomo.js";
import { loadTauRuns, TAU_RUNS_KIND } from "./support/tau-runs.js";

const cli = benchArgs(TAU_AIRLINE_PATH, {
  locomo: { type: "string", default: LOCOMO_PATH },
  calls: { type: "string", default: "15" },
  sizes: { type: "string", default: "1000,10000" },
});
const MAX_TOKENS = 8000;
const CALLS = Number(cli.values.calls);
const FULL_RUNS = 5;

interface Spec {
  type: "human" | "ai" | "tool";
  id: string;
  content: string;
  toolCalls?: Array<{ id: string; name: string; args: Record<string, unknown> }>;
  toolCallId?: string;
  name?: string;
}

/**
 * The messages of the two data files, once: every run's user, assistant and tool messages, then
 * the LoCoMo exchanges ({@link locomoThread}), plus the first run's first message (the airline
 * policy) as the system prompt. Read before the bench prints anything, so a file of the wrong kind,
 * or one that adds no message to the thread, ends the run with its one line (exit code 2).
 *
 * @throws BenchDataError when a file is not of its kind, when no run holds a user, assistant or
 *   tool message, or when no LoCoMo conversation holds an exchange
 */
function readCorpus(): { system: string; specs: Spec[] } {
  // The tau-bench loader: a file of another format (a LoCoMo file) is refused naming the file.
  const raw = loadTauRuns(cli.data) as unknown as Array<{ traj: Array<Record<string, unknown>> }>;
  const system = String(raw[0]?.traj[0]?.content ?? "");
  const specs: Spec[] = [];
  for (const [r, run] of raw.entries()) {
    for (const [i, m] of run.traj.entries()) {
      const id = `tau-${r}-${i}`;
      const content = String(m.content ?? "");
      if (m.role === "user") specs.push({ type: "human", id, content });
      else if (m.role === "tool") specs.push({ type: "tool", id, content, toolCallId: String(m.tool_call_id), name: String(m.name) });
      else if (m.role === "assistant") {
        const calls = (m.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }> | undefined) ?? [];
        specs.push({
          type: "ai",
          id,
          content,
          toolCalls: calls.map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments || "{}") })),
        });
      }
    }
  }
  // Was: a file of system messages only added nothing, and the bench measured the LoCoMo text alone.
  if (specs.length === 0)
    throw new BenchDataError(
      cli.data,
      TAU_RUNS_KIND,
      "(file)",
      "no user, assistant or tool message in any run: nothing of it in the thread",
    );
  try {
    specs.push(...locomoThread(1, String(cli.values.locomo)));
  } catch (error) {
    // The LoCoMo file is `--locomo`'s: the refusal names that option, not `--data` (the runs file).
    throw error instanceof BenchDataError ? error.forOption("--locomo") : error;
  }
  return { system, specs };
}

let read: { system: string; specs: Spec[] } | undefined;

/** Plain specs of a real-text thread of `size` messages, plus the airline policy as system prompt. */
function corpus(size: number): { system: string; specs: Spec[] } {
  read ??= readCorpus();
  const { system } = read;
  const specs = [...read.specs];
  // The two sets hold about 7,800 messages; longer threads replay them again under new ids.
  const need = size + 2 * (CALLS + FULL_RUNS + 2) + 50;
  const once = specs.length;
  for (let pass = 2; specs.length < need; pass += 1) {
    for (const spec of specs.slice(0, once)) specs.push({ ...spec, id: `${spec.id}#${pass}` });
  }
  // Cut on a user message so the thread ends where a model call would happen.
  let end = size;
  while (specs[end - 1]?.type !== "human") end += 1;
  return { system, specs: specs.slice(0, end + 2 * (CALLS + FULL_RUNS + 2)) };
}

/** Fresh message objects, as a checkpointer deserializes them on every turn. */
function materialize(specs: readonly Spec[]): BaseMessage[] {
  return specs.map((s) => {
    if (s.type === "human") return new HumanMessage({ id: s.id, content: s.content });
    if (s.type === "tool") return new ToolMessage({ id: s.id, content: s.content, tool_call_id: s.toolCallId ?? "", name: s.name });
    return new AIMessage({
      id: s.id,
      content: s.content,
      tool_calls: (s.toolCalls ?? []).map((c) => ({ ...c, type: "tool_call" as const })),
    });
  });
}

/** Process CPU time (user + system) since `start`, in ms: less disturbed than wall time on a busy machine. */
const cpuMsSince = (start: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(start);
  return (d.user + d.system) / 1000;
};

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

async function bench(size: number, eviction: "sliding" | "chunked") {
  const { system, specs } = corpus(size);
  const systemMessage = new SystemMessage(system);
  const middleware = tokenCap({ maxTokens: MAX_TOKENS, eviction, logger: false });
  const wrap = middleware.wrapModelCall as unknown as (
    request: unknown,
    handler: (r: { messages: BaseMessage[] }) => Promise<AIMessage>,
  ) => Promise<unknown>;
  let sent = 0;
  const handler = async (r: { messages: BaseMessage[] }) => {
    sent = r.messages.length;
    return new AIMessage("ok");
  };
  const call = async (length: number) => {
    // Building the objects is the checkpointer's work, outside the timed region.
    const messages = materialize(specs.slice(0, length));
    const request = { messages, systemMessage, state: { messages }, tools: [], model: { model: "gpt-4o" } };
    // With --expose-gc, collect the checkpointer's garbage before the timed region.
    (globalThis as { gc?: () => void }).gc?.();
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    await wrap(request, handler);
    return { ms: performance.now() - t0, cpuMs: cpuMsSince(c0), messages };
  };
  let length = specs.findIndex((_, i) => i >= size - 1 && specs[i]?.type === "human") + 1;
  const cold = await call(length);
  const steady: number[] = [];
  const steadyCpu: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    length += 2;
    const run = await call(length);
    steady.push(run.ms);
    steadyCpu.push(run.cpuMs);
  }
  // Exact full recount: a fresh js-tiktoken counter tokenizes the whole thread every call.
  const full: number[] = [];
  const fullCpu: number[] = [];
  const fullSelect: number[] = [];
  let check = { cached: 0, fresh: 0 };
  for (let i = 0; i < FULL_RUNS; i += 1) {
    length += 2;
    const messages = materialize(specs.slice(0, length));
    (globalThis as { gc?: () => void }).gc?.();
    // What a cap without a cache pays: every message and the system prompt tokenized, then the selection.
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const freshCounter = createTokenCounter({ encoding: "o200k_base" });
    const fixedTokens = freshCounter.countMessage(systemMessage);
    freshCounter.countMessages(messages);
    full.push(performance.now() - t0);
    fullCpu.push(cpuMsSince(c0));
    // tokenCap's defaults: the stack's start rule ("human") and the request overhead (no tools).
    const fresh = capMessages(messages, {
      maxTokens: MAX_TOKENS,
      counter: freshCounter,
      eviction,
      fixedTokens: fixedTokens + requestOverheadTokens({ system: true, tools: false }),
      startOn: "human",
    });
    fullSelect.push(performance.now() - t0);
    const cachedRun = await call(length);
    // Messages sent either way: the cached view as the model received it, the fresh one as core sends it.
    check = { cached: sent, fresh: sentMessages(fresh.messages).length };
    steady.push(cachedRun.ms);
    steadyCpu.push(cachedRun.cpuMs);
  }
  return {
    size: length,
    eviction,
    cold: cold.ms,
    steady: median(steady),
    steadyCpu: median(steadyCpu),
    full: median(full),
    fullCpu: median(fullCpu),
    fullSelect: median(fullSelect),
    sent,
    check,
  };
}

async function main() {
  read = readCorpus();
  console.log(
    `machine: ${cpus()[0]?.model ?? "unknown cpu"} x${cpus().length}, node ${process.version}, ${process.platform}/${process.arch}, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    `tokenCap({ maxTokens: ${MAX_TOKENS} }), o200k_base; steady = median of ${CALLS + FULL_RUNS} calls, full recount = median of ${FULL_RUNS}\n`,
  );
  const rows: string[][] = [
    [
      "thread msgs",
      "eviction",
      "first call ms",
      "steady call ms",
      "steady cpu ms",
      "full recount ms",
      "recount cpu ms",
      "recount+select ms",
      "recount+select / steady",
      "sent",
      "view match",
    ],
  ];
  const sizes = String(cli.values.sizes).split(",").map(Number);
  const figures: Array<Awaited<ReturnType<typeof bench>>> = [];
  for (const size of sizes) {
    for (const eviction of ["sliding", "chunked"] as const) {
      const r = await bench(size, eviction);
      figures.push(r);
      rows.push([
        String(r.size),
        r.eviction,
        r.cold.toFixed(1),
        r.steady.toFixed(2),
        r.steadyCpu.toFixed(2),
        r.full.toFixed(1),
        r.fullCpu.toFixed(1),
        r.fullSelect.toFixed(1),
        `${(r.fullSelect / r.steady).toFixed(0)}x`,
        String(r.sent),
        r.check.cached === r.check.fresh ? "yes" : `no (${r.check.cached} vs ${r.check.fresh})`,
      ]);
    }
  }
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((row) => (row[c] ?? "").length))) ?? [];
  for (const row of rows) console.log(row.map((cell, c) => cell.padStart(widths[c] ?? 0)).join("  "));
  if (cli.json)
    printJson({ bench: "token-cap", data: cli.data, locomo: cli.values.locomo, maxTokens: MAX_TOKENS, calls: CALLS, results: figures });
}

await main();
