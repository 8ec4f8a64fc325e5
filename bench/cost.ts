/**
 * Prompt cost per call under the providers' cache rules (issue 17), on two replays:
 *
 *   pnpm tsx bench/cost.ts                      # LoCoMo conv-26 + tau-bench airline dev, writes bench/results/cost.{md,json,svg}
 *   pnpm tsx bench/cost.ts --json               # the same figures as JSON on stdout (results files left alone)
 *   pnpm tsx bench/cost.ts --data <file>        # one file, LoCoMo or tau-bench format (detected)
 *   pnpm tsx bench/cost.ts --only langchain,tw- # configurations whose id contains one of the texts
 *   pnpm tsx bench/cost.ts --runs 30            # the first 30 tau-bench runs (default: all)
 *   pnpm tsx bench/cost.ts --summarizer-ms 1000 # how long a summarizer call takes (default 1000)
 *   pnpm tsx bench/cost.ts --render a.json,b.json  # results files from earlier --json runs (e.g. one per replay, run side by side)
 *
 * Each configuration replays through `createAgent` (MemorySaver) twice: once with a `ChatOpenAI`
 * (gpt-4o) and once with a `ChatAnthropic` (claude-sonnet-4-5) as the agent's model and as the
 * summarizer, both with a `fetch` that records the request body and answers from the recording
 * (bench/support/wire-capture.ts). The recorded requests, internal summarizer calls included, go
 * through the cache simulator (bench/support/cache-sim.ts) under OpenAI's rules (gpt-4o, cached
 * tokens at 0.5x) and Gemini 2.5's (applied to the same chat-completions requests), and, for the
 * Anthropic run, under Anthropic's (Sonnet, 1,024-token minimum). Every Anthropic run uses
 * LangChain's `anthropicPromptCachingMiddleware` (automatic caching, one breakpoint on the last
 * block) unless the configuration places its own breakpoints.
 *
 * - LoCoMo conv-26: the first speaker's merged turns are the user's, the second speaker's the
 *   recorded answers; the system prompt is a realistic ~1,500-token persona prompt
 *   (bench/support/persona-prompt.ts). User turns are 30 s apart on the simulator's clock.
 * - tau-bench airline: each run is its own thread, with its own policy prompt (the recorded
 *   system message) and the 14 airline tool schemas of tau-bench (bench/support/tau-airline-tools.json);
 *   recorded tool results are returned in order. Runs of another domain (`--data` with retail runs)
 *   get a schema for each tool they call, inferred from its recorded arguments.
 *
 * Time to the first answer token: wall time from the user's message to the agent's main model
 * request of that turn (the provider's own time to first token comes on top, equal for every
 * configuration), with every summarizer call taking `--summarizer-ms`. When background work is
 * still running after a turn, the next user message waits for it (a user reading the answer for
 * a second); that wait is not counted in any turn.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { type PromptContextMode, STABLE_TAIL_HEADER } from "@threadwise/core";
import { factRecall } from "@threadwise/fact-recall";
import { cacheBreakpoints, memoryMiddleware, resolveMemoryConfig } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, anthropicPromptCachingMiddleware, createAgent, summarizationMiddleware, tool } from "langchain";
import { z } from "zod/v4";
import { LOCOMO_PATH, TAU_AIRLINE_PATH } from "../data/paths.js";
import { inferredToolSchema } from "../examples/support/tau-replay.js";
import { type CachedRequest, type CacheProvider, simulate, summarizeCost } from "./support/cache-sim.js";
import { writeChart } from "./support/chart.js";
import { benchArgs, printJson } from "./support/cli.js";
import { BenchDataError, readDataFile } from "./support/data-file.js";
import { loadLocomo, pickConversation, replayExchanges } from "./support/locomo.js";
import { machineLine } from "./support/machine.js";
import { countO200k } from "./support/openai-wire.js";
import { personaPrompt } from "./support/persona-prompt.js";
import { loadTauRuns, TAU_RUNS_KIND } from "./support/tau-runs.js";
import { captureModel, lastMessageText, type ScriptedAnswer, WireLog, type WireProvider } from "./support/wire-capture.js";

const here = dirname(fileURLToPath(import.meta.url));
const RESULTS_MD = resolve(here, "results/cost.md");
const RESULTS_JSON = resolve(here, "results/cost.json");
const RESULTS_SVG = resolve(here, "results/cost-per-call.svg");
const TAU_TOOLS_PATH = resolve(here, "support/tau-airline-tools.json");

const parseCli = () =>
  benchArgs(LOCOMO_PATH, {
    only: { type: "string" },
    runs: { type: "string" },
    conversation: { type: "string" },
    "summarizer-ms": { type: "string", default: "1000" },
    render: { type: "string" },
  });
let cli: ReturnType<typeof parseCli>;
/** How long one summarizer call takes, ms (`--summarizer-ms`). */
let SUMMARIZER_MS = 1000;
/** Time between user turns on the simulator's clock (cache lifetimes), ms. */
const TURN_GAP_MS = 30_000;
/** LangChain's summary message starts with this (summarizationMiddleware's default prefix). */
const LANGCHAIN_SUMMARY_PREFIX = "Here is a summary of the conversation to date:";

// ---------------------------------------------------------------------------------------------
// Replays

/** One user turn of a replay: the user's text and the recorded assistant steps answering it. */
interface ReplayTurn {
  user: string;
  steps: ScriptedAnswer[];
}

/** One thread of a replay. */
interface ReplayThread {
  id: string;
  systemPrompt: string;
  turns: ReplayTurn[];
  /** Recorded tool results by tool name, in call order (tau-bench). */
  toolResults?: Map<string, string[]>;
}

export interface Replay {
  name: string;
  description: string;
  threads: ReplayThread[];
  tools: Array<{ type: "function"; function: { name: string; description: string; parameters: Record<string, unknown> } }>;
}

function locomoReplay(path: string, sampleId: string | undefined): Replay {
  const conversation = pickConversation(loadLocomo(path), sampleId, path);
  const turns = replayExchanges(conversation)
    .filter((e) => e.user.trim() !== "" && e.assistant.trim() !== "")
    .map((e) => ({ user: e.user, steps: [{ text: e.assistant }] }));
  return {
    name: `LoCoMo ${conversation.sampleId}`,
    description: `${turns.length} user turns, persona system prompt (~1,500 tokens), no tools`,
    threads: [{ id: conversation.sampleId, systemPrompt: personaPrompt(conversation.speakerB, conversation.speakerA), turns }],
    tools: [],
  };
}

interface TauMessage {
  role: string;
  content: string | null;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
  name?: string;
}

export function tauReplay(path: string, runs?: number): Replay {
  const raw = loadTauRuns(path) as unknown as Array<{ task_id: number; trial: number; traj: TauMessage[] }>;
  const airline = JSON.parse(readFileSync(TAU_TOOLS_PATH, "utf8")) as Replay["tools"];
  // Recorded arguments per tool name, for tools the airline schemas lack (another domain's runs).
  const recordedArgs = new Map<string, Array<Record<string, unknown>>>();
  const threads: ReplayThread[] = [];
  for (const run of raw.slice(0, runs ?? raw.length)) {
    const turns: ReplayTurn[] = [];
    const toolResults = new Map<string, string[]>();
    const names = new Map<string, string>();
    let systemPrompt = "";
    for (const m of run.traj) {
      if (m.role === "system") systemPrompt = m.content ?? "";
      else if (m.role === "user") turns.push({ user: m.content ?? "", steps: [] });
      else if (m.role === "assistant") {
        const calls = (m.tool_calls ?? []).map((c) => {
          names.set(c.id, c.function.name);
          const args = JSON.parse(c.function.arguments || "{}") as Record<string, unknown>;
          recordedArgs.set(c.function.name, [...(recordedArgs.get(c.function.name) ?? []), args]);
          return { id: c.id, name: c.function.name, args };
        });
        turns.at(-1)?.steps.push({ text: m.content ?? "", ...(calls.length > 0 ? { toolCalls: calls } : {}) });
      } else if (m.role === "tool") {
        const name = m.name ?? names.get(m.tool_call_id ?? "") ?? "unknown";
        toolResults.set(name, [...(toolResults.get(name) ?? []), m.content ?? ""]);
      }
    }
    // A user turn with no recorded answer (the simulated user's closing ###STOP###) is left out;
    // so is a turn that ends on a tool call (the replay needs a final answer).
    const answered = turns.filter((t) => t.steps.length > 0 && (t.steps.at(-1)?.toolCalls?.length ?? 0) === 0);
    threads.push({ id: `tau-task${run.task_id}-trial${run.trial}`, systemPrompt, turns: answered, toolResults });
  }
  const turns = threads.reduce((n, t) => n + t.turns.length, 0);
  if (turns === 0)
    throw new BenchDataError(path, TAU_RUNS_KIND, "(file)", "no user turn answered by an assistant message in any run: nothing to replay");
  // Runs that call only airline tools are airline runs: they get tau-bench's 14 airline schemas
  // (the agent had them all). Runs of another domain (retail) call tools the airline schemas lack
  // and share some names with them (`get_user_details`, `calculate`, `think`), so every tool they
  // call gets a schema inferred from its recorded arguments, and no airline schema is sent. Runs
  // that call no tool show no domain: no schema is sent.
  const known = new Set(airline.map((schema) => schema.function.name));
  const isAirline = recordedArgs.size > 0 && [...recordedArgs.keys()].every((name) => known.has(name));
  const inferred: Replay["tools"] = [...recordedArgs.entries()]
    .filter(() => !isAirline)
    .map(([name, calls]) => ({
      type: "function",
      function: {
        name,
        description: `Tool \`${name}\`, replayed: returns the results recorded in the run, in order.`,
        parameters: z.toJSONSchema(inferredToolSchema(calls)) as Record<string, unknown>,
      },
    }));
  const tools = isAirline ? airline : inferred;
  return {
    name: isAirline ? "tau-bench airline" : "tau-bench",
    description: `${threads.length} runs, ${turns} user turns, the recorded policy prompt and ${tools.length} tool schemas${inferred.length > 0 ? ` (${inferred.length} inferred from the recorded calls)` : ""}`,
    threads,
    tools,
  };
}

/**
 * LoCoMo or tau-bench, from the shape of the file: its first entry holds `traj` (tau-bench runs)
 * or not (read as LoCoMo; each loader names the first field that does not fit its format).
 *
 * @throws BenchDataError when the file is not JSON or does not fit the format its first entry picks
 */
function replayOf(path: string): Replay {
  const raw = readDataFile(z.unknown(), path, "LoCoMo-format or tau-bench runs file");
  const first: unknown = Array.isArray(raw) ? raw[0] : undefined;
  if (first !== null && typeof first === "object" && "traj" in first)
    return tauReplay(path, cli.values.runs ? Number(cli.values.runs) : undefined);
  return locomoReplay(path, cli.values.conversation);
}

// ---------------------------------------------------------------------------------------------
// Fake summarizer: extractive, the same for LangChain and threadwise

/** First `n` words of a line. */
const firstWords = (text: string, n: number) => text.split(/\s+/).filter(Boolean).slice(0, n).join(" ");

/**
 * The summary a fake summarizer writes from its request: the previous summary (if the prompt
 * carries one) and the first 12 words of every user line (`Human:` in LangChain's transcript,
 * `User:` in threadwise's), newest kept, at most 1,200 characters. Same size for both.
 */
export function extractiveSummary(prompt: string): string {
  const previous = /<previous_summary>\n([\s\S]*?)\n<\/previous_summary>/.exec(prompt)?.[1] ?? "";
  const earlier = prompt.includes(LANGCHAIN_SUMMARY_PREFIX)
    ? (new RegExp(`${LANGCHAIN_SUMMARY_PREFIX}\\s*([^\\n]*)`).exec(prompt)?.[1] ?? "")
    : previous;
  const lines = prompt
    .split("\n")
    .filter((line) => /^(Human|User): /.test(line))
    .map((line) => firstWords(line.replace(/^(Human|User): /, ""), 12));
  const text = [earlier, ...lines].filter(Boolean).join("; ");
  return text.length > 1200 ? text.slice(text.length - 1200) : text;
}

// ---------------------------------------------------------------------------------------------
// Configurations

interface BuildContext {
  provider: WireProvider;
  summarizer: BaseChatModel;
}

interface CostConfig {
  id: string;
  label: string;
  mode?: PromptContextMode;
  /** Anthropic runs add threadwise's `cacheBreakpoints()` (innermost; it takes over LangChain's automatic breakpoint). */
  breakpoints?: boolean;
  build(ctx: BuildContext): AgentMiddleware[];
}

const asMiddleware = (m: unknown) => m as AgentMiddleware;

function configurations(): CostConfig[] {
  const out: CostConfig[] = [
    { id: "full", label: "full history (reference)", build: () => [] },
    {
      id: "sliding",
      label: "sliding window 40",
      build: () => [asMiddleware(windowTrim({ maxMessages: 40, eviction: "sliding", logger: false }))],
    },
    {
      id: "chunked",
      label: "windowTrim 40 (chunked, low watermark 20)",
      build: () => [asMiddleware(windowTrim({ maxMessages: 40, logger: false }))],
    },
    {
      id: "langchain",
      label: "LangChain summarizationMiddleware (trigger 40, keep 20)",
      build: (ctx) => [asMiddleware(summarizationMiddleware({ model: ctx.summarizer, trigger: { messages: 40 }, keep: { messages: 20 } }))],
    },
  ];
  const variants: Array<{ mode: PromptContextMode; tuned: boolean }> = [
    { mode: "legacy_system", tuned: false },
    { mode: "stable_tail", tuned: false },
    // Issue 17's changes: summary at the head, facts in the tail, Anthropic breakpoints, summary prepared after the answer.
    { mode: "cache_aware", tuned: true },
  ];
  for (const { mode, tuned } of variants) {
    const suffix = tuned ? " + cacheBreakpoints, background summary" : "";
    const summary = (ctx: BuildContext) =>
      asMiddleware(
        summarize({ model: ctx.summarizer, windowSize: 20, threshold: 40, promptContextMode: mode, background: tuned, logger: false }),
      );
    out.push({
      id: `tw-summary:${mode}`,
      label: `threadwise summarize (window 20, threshold 40)${suffix}`,
      mode,
      breakpoints: tuned,
      build: (ctx) => [summary(ctx)],
    });
    out.push({
      id: `tw-summary-facts:${mode}`,
      label: `threadwise summarize + factRecall (heuristic)${suffix}`,
      mode,
      breakpoints: tuned,
      build: (ctx) => [summary(ctx), asMiddleware(factRecall({ mode: "heuristic", promptContextMode: mode, logger: false }))],
    });
  }
  out.push({
    id: "memory-stack",
    label: "memoryStack defaults (windowTrim 20, historyAware)",
    build: () => memoryMiddleware(resolveMemoryConfig({ backend: "in_memory" }, {}), { logger: false }),
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Running one configuration on one replay with one provider

interface TurnTiming {
  thread: string;
  turn: number;
  /** Wall ms from the user's message to the first main request of the turn. */
  waitMs: number;
  /** Internal calls sent before the main request (the user waited for them). */
  internalBefore: number;
  /** Internal calls sent during the turn, before or after the answer. */
  internalInTurn: number;
}

interface RunRecord {
  log: WireLog;
  timings: TurnTiming[];
}

function toolsFor(replay: Replay, thread: ReplayThread) {
  const cursor = new Map<string, number>();
  return replay.tools.map((schema) =>
    tool(
      async () => {
        const results = thread.toolResults?.get(schema.function.name) ?? [];
        const next = cursor.get(schema.function.name) ?? 0;
        cursor.set(schema.function.name, next + 1);
        return results[next] ?? "";
      },
      { name: schema.function.name, description: schema.function.description, schema: schema.function.parameters as never },
    ),
  );
}

async function runReplay(replay: Replay, config: CostConfig, provider: WireProvider): Promise<RunRecord> {
  const log = new WireLog();
  const timings: TurnTiming[] = [];
  const script: ScriptedAnswer[] = [];
  const main = captureModel(provider, log, { kind: "main", answer: () => script.shift() ?? { text: "" } });
  const summarizer = captureModel(provider, log, {
    kind: "internal",
    delayMs: SUMMARIZER_MS,
    answer: (body) => ({ text: extractiveSummary(lastMessageText(body)) }),
  });
  let turnIndex = 0;
  for (const thread of replay.threads) {
    const middleware = config.build({ provider, summarizer });
    if (provider === "anthropic") {
      // LangChain's caching middleware on every Anthropic run, outermost; threadwise's breakpoints,
      // where a row uses them, innermost, where they take its top-level cache_control over.
      middleware.unshift(asMiddleware(anthropicPromptCachingMiddleware({ unsupportedModelBehavior: "ignore" })));
      if (config.breakpoints) middleware.push(asMiddleware(cacheBreakpoints()));
    }
    const agent = createAgent({
      model: main,
      tools: toolsFor(replay, thread),
      systemPrompt: thread.systemPrompt,
      checkpointer: new MemorySaver(),
      middleware,
    });
    log.thread = thread.id;
    for (const turn of thread.turns) {
      script.push(...turn.steps);
      log.turn = turnIndex;
      log.virtualNow += TURN_GAP_MS;
      const before = log.requests.length;
      const started = performance.now();
      await agent.invoke(
        { messages: [new HumanMessage(turn.user)] },
        { configurable: { thread_id: `${thread.id}-${config.id}` }, recursionLimit: 500 },
      );
      const inTurn = log.requests.slice(before);
      const firstMain = inTurn.findIndex((r) => r.kind === "main");
      timings.push({
        thread: thread.id,
        turn: turnIndex,
        waitMs: firstMain === -1 ? Number.NaN : (inTurn[firstMain]?.wallMs ?? started) - started,
        internalBefore: inTurn.slice(0, Math.max(0, firstMain)).filter((r) => r.kind === "internal").length,
        internalInTurn: inTurn.filter((r) => r.kind === "internal").length,
      });
      script.length = 0;
      // Background work (a summary prepared after the answer) finishes before the next message.
      await log.idle();
      turnIndex += 1;
    }
  }
  return { log, timings };
}

// ---------------------------------------------------------------------------------------------
// Measures

type WireMessage = { role?: string; content?: unknown };

const textOf = (content: unknown) =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((p) => (p as { text?: string }).text ?? "").join("") : "";

/**
 * The stable_tail context a message carries: a whole context message (its text), or the trailing
 * text block core puts on the newest user message; `undefined` when none.
 */
function tailContextIn(message: WireMessage): string | undefined {
  if (typeof message.content === "string") return message.content.startsWith(STABLE_TAIL_HEADER) ? message.content : undefined;
  if (!Array.isArray(message.content)) return undefined;
  const last = message.content.at(-1) as { text?: string } | undefined;
  const text = String(last?.text ?? "");
  return text.trimStart().startsWith(STABLE_TAIL_HEADER) ? text : undefined;
}

/** The message without its stable_tail context (as stored); `undefined` for a whole context message. */
function withoutTail(message: WireMessage): WireMessage | undefined {
  const tail = tailContextIn(message);
  if (tail === undefined) return message;
  if (!Array.isArray(message.content) || message.content.length < 2) return undefined;
  const rest = message.content.slice(0, -1) as Array<Record<string, unknown>>;
  const only = rest.length === 1 ? rest[0] : undefined;
  const plain = only?.type === "text" && Object.keys(only).length === 2 ? String(only.text ?? "") : undefined;
  return { ...message, content: plain ?? rest };
}

/** `true` for a summary message (LangChain's, stored) or a whole context message: not a conversation message. */
function isMemoryMessage(message: WireMessage): boolean {
  const text = textOf(message.content);
  return text.startsWith(STABLE_TAIL_HEADER) || text.startsWith(LANGCHAIN_SUMMARY_PREFIX);
}

interface ViewFigures {
  /** Most conversation messages in one main call's view (system, summary and context excluded). */
  maxMessages: number;
  meanMessages: number;
  /** Share of main calls 2..N of a thread whose input without the tail context starts with the previous one's. */
  reuseWithoutTail: number;
  /** Mean o200k_base tokens of the stable_tail context message per main call (0 without one). */
  tailTokens: number;
}

/** View sizes and prefix reuse from the chat-completions requests of a run. */
function viewFigures(log: WireLog): ViewFigures {
  const main = log.requests.filter((r) => r.kind === "main");
  let max = 0;
  let sum = 0;
  let reused = 0;
  let pairs = 0;
  let previous: { thread: string; text: string } | undefined;
  let tail = 0;
  for (const request of main) {
    const messages = (request.body.messages as Array<{ role: string; content: unknown }>) ?? [];
    const conversation = messages.filter((m) => m.role !== "system" && m.role !== "developer" && !isMemoryMessage(m)).length;
    max = Math.max(max, conversation);
    sum += conversation;
    const stored: WireMessage[] = [];
    for (const m of messages) {
      const context = tailContextIn(m);
      if (context !== undefined) tail += countO200k(context);
      const kept = withoutTail(m);
      if (kept) stored.push(kept);
    }
    const text = JSON.stringify([request.body.tools ?? [], ...stored]);
    if (previous && previous.thread === request.thread) {
      pairs += 1;
      if (text.startsWith(previous.text.slice(0, -1))) reused += 1;
    }
    previous = { thread: request.thread, text };
  }
  const calls = Math.max(1, main.length);
  return { maxMessages: max, meanMessages: sum / calls, reuseWithoutTail: reused / Math.max(1, pairs), tailTokens: tail / calls };
}

/** The `p`th percentile of `values`; null when there is none (no turn of that kind, not a NaN). */
const percentile = (values: number[], p: number): number | null => {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

interface ProviderFigures {
  rules: CacheProvider;
  tokensPerCall: number;
  cachedPerCall: number;
  costPerCall: number;
  internalCalls: number;
  /** Cost of the internal calls alone, per main call. */
  internalCostPerCall: number;
  /** Cost of each main call with the internal calls since the previous one, in order. */
  series: number[];
}

function providerFigures(rules: CacheProvider, log: WireLog): ProviderFigures {
  const results = simulate(rules, log.requests);
  const summary = summarizeCost(results);
  const series: number[] = [];
  let pending = 0;
  for (const r of results as CachedRequest[]) {
    pending += r.cost;
    if (r.kind === "main") {
      series.push(pending);
      pending = 0;
    }
  }
  if (series.length > 0) series[series.length - 1] = (series.at(-1) as number) + pending;
  return {
    rules,
    tokensPerCall: summary.tokensPerCall,
    cachedPerCall: summary.cachedPerCall,
    costPerCall: summary.costPerCall,
    internalCalls: summary.internalCalls,
    internalCostPerCall: results.filter((r) => r.kind === "internal").reduce((sum, r) => sum + r.cost, 0) / Math.max(1, summary.mainCalls),
    series,
  };
}

interface ConfigResult {
  id: string;
  label: string;
  mode: string;
  mainCalls: number;
  view: ViewFigures;
  openai: ProviderFigures;
  gemini: ProviderFigures;
  anthropic: ProviderFigures;
  /** Wait before the main request, ms: all turns, and turns on which a summarizer call was made. */
  /** Wait percentiles in ms; null when no turn is of that kind (`dueP50` with `dueTurns` 0). */
  wait: { p50: number | null; p95: number | null; otherP50: number | null; dueTurns: number; dueP50: number | null; dueP95: number | null };
}

async function measureConfig(replay: Replay, config: CostConfig): Promise<ConfigResult> {
  // The two providers' replays run side by side: the summarizer's waits overlap.
  const [openaiRun, anthropicRun] = await Promise.all([runReplay(replay, config, "openai"), runReplay(replay, config, "anthropic")]);
  const waits = openaiRun.timings.map((t) => t.waitMs);
  const due = openaiRun.timings.filter((t) => t.internalInTurn > 0).map((t) => t.waitMs);
  const other = openaiRun.timings.filter((t) => t.internalInTurn === 0).map((t) => t.waitMs);
  return {
    id: config.id,
    label: config.label,
    mode: config.mode ?? "—",
    mainCalls: openaiRun.log.requests.filter((r) => r.kind === "main").length,
    view: viewFigures(openaiRun.log),
    openai: providerFigures("openai", openaiRun.log),
    gemini: providerFigures("gemini", openaiRun.log),
    anthropic: providerFigures("anthropic", anthropicRun.log),
    wait: {
      p50: percentile(waits, 50),
      p95: percentile(waits, 95),
      otherP50: percentile(other, 50),
      dueTurns: due.length,
      dueP50: percentile(due, 50),
      dueP95: percentile(due, 95),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// Output

const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString("en-US") : "—");
const ms = (x: number | null) => (x === null ? "—" : `${x.toFixed(0)}`);
const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The issue's targets, as measured figures next to their thresholds (no verdict words). */
function targets(results: readonly ConfigResult[]): string[] {
  const find = (id: string) => results.find((r) => r.id === id);
  const anchor = find("langchain");
  const lines: string[] = [];
  for (const mode of ["legacy_system", "stable_tail", "cache_aware"]) {
    const summary = find(`tw-summary:${mode}`);
    const facts = find(`tw-summary-facts:${mode}`);
    if (!anchor || !summary) continue;
    const ratio = (p: "openai" | "anthropic" | "gemini") => (summary[p].costPerCall / anchor[p].costPerCall).toFixed(2);
    const parts = [
      `summary + window / LangChain cost per call: OpenAI ${ratio("openai")}x, Anthropic ${ratio("anthropic")}x, Gemini ${ratio("gemini")}x (target <= 0.80x; messages in view max ${summary.view.maxMessages} vs ${anchor.view.maxMessages})`,
      `prefix reuse without tail ${pct(summary.view.reuseWithoutTail)} (target >= 95%)`,
      `wait on turns with a summarizer call p50 ${ms(summary.wait.dueP50)} ms vs ${ms(summary.wait.otherP50)} ms on other turns (LangChain ${ms(anchor.wait.dueP50)} vs ${ms(anchor.wait.otherP50)}; target +0 ms)`,
    ];
    if (facts) {
      const added = (p: "openai" | "anthropic") => facts[p].costPerCall - summary[p].costPerCall;
      parts.push(
        `facts add ${int(added("openai"))} (OpenAI) / ${int(added("anthropic"))} (Anthropic) cost per call for a tail context of ${int(facts.view.tailTokens - summary.view.tailTokens)} tokens per call (target <= ${int(1.1 * (facts.view.tailTokens - summary.view.tailTokens))})`,
      );
    }
    lines.push(`- \`${mode}\`: ${parts.join("; ")}.`);
  }
  return lines;
}

function table(results: readonly ConfigResult[]): string {
  const anchor = results.find((r) => r.id === "langchain");
  const ratio = (r: ConfigResult, p: "openai" | "anthropic" | "gemini") =>
    anchor ? `${(r[p].costPerCall / anchor[p].costPerCall).toFixed(2)}x` : "—";
  const rows = results.map((r) =>
    [
      r.label,
      r.mode,
      r.mainCalls,
      `${int(r.view.meanMessages)} / ${r.view.maxMessages}`,
      pct(r.view.reuseWithoutTail),
      int(r.view.tailTokens),
      int(r.openai.tokensPerCall),
      int(r.openai.cachedPerCall),
      `${int(r.openai.costPerCall)} (${int(r.openai.internalCostPerCall)})`,
      ratio(r, "openai"),
      int(r.anthropic.tokensPerCall),
      int(r.anthropic.cachedPerCall),
      `${int(r.anthropic.costPerCall)} (${int(r.anthropic.internalCostPerCall)})`,
      ratio(r, "anthropic"),
      int(r.gemini.costPerCall),
      `${ms(r.wait.p50)} / ${ms(r.wait.p95)}`,
      `${r.wait.dueTurns}: ${ms(r.wait.dueP50)} / ${ms(r.wait.dueP95)} (others ${ms(r.wait.otherP50)})`,
    ].join(" | "),
  );
  return [
    "| configuration | placement | main calls | messages in view, mean / max | prefix reuse without tail | tail context tokens / call | OpenAI: tokens / call | OpenAI: cached / call | OpenAI: cost / call (internal calls) | vs LangChain | Anthropic: tokens / call | Anthropic: cached / call | Anthropic: cost / call (internal calls) | vs LangChain | Gemini: cost / call | wait before answer, p50 / p95 ms | turns with a summarizer call: count: p50 / p95 ms (other turns' p50) |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((row) => `| ${row} |`),
  ].join("\n");
}

async function chart(all: Array<{ replay: string; results: ConfigResult[] }>): Promise<void> {
  const values: Array<Record<string, unknown>> = [];
  for (const { replay, results } of all) {
    if (!replay.startsWith("LoCoMo")) continue;
    for (const r of results) {
      if (r.id === "full") continue;
      for (const provider of ["openai", "anthropic"] as const) {
        const series = r[provider].series;
        // Mean over 10 calls, so a period's one expensive call and its cheap ones read as a level.
        for (let i = 0; i + 10 <= series.length; i += 10) {
          const mean = series.slice(i, i + 10).reduce((a, b) => a + b, 0) / 10;
          values.push({ call: i + 10, cost: mean, configuration: `${r.label}${r.mode === "—" ? "" : ` [${r.mode}]`}`, rules: provider });
        }
      }
    }
  }
  await writeChart(RESULTS_SVG, {
    $schema: "https://vega.github.io/schema/vega-lite/v5.json",
    title: `Prompt cost per call over the ${all.find((r) => r.replay.startsWith("LoCoMo"))?.replay ?? "LoCoMo"} replay (mean of 10 calls, input-token units)`,
    data: { values },
    facet: { column: { field: "rules", type: "nominal", title: "cache rules" } },
    spec: {
      width: 420,
      height: 300,
      mark: { type: "line", point: false },
      encoding: {
        x: { field: "call", type: "quantitative", title: "model call" },
        y: { field: "cost", type: "quantitative", title: "cost per call (uncached-token units)" },
        color: { field: "configuration", type: "nominal", legend: { orient: "bottom", columns: 2, labelLimit: 400 } },
      },
    },
    config: { font: "Helvetica, Arial, sans-serif" },
  } as never);
}

interface CostFigures {
  machine: string;
  summarizerMs: number;
  /** `data`: the file the replay was read from (absent in documents assembled by `--render` from older runs). */
  replays: Array<{ replay: string; data?: string; description: string; results: ConfigResult[] }>;
}

async function main(): Promise<void> {
  cli = parseCli();
  SUMMARIZER_MS = Number(cli.values["summarizer-ms"]);
  if (cli.values.render) {
    // Figures of earlier `--json` runs (e.g. one per replay, run side by side), drawn as results files.
    const parts = String(cli.values.render)
      .split(",")
      .map((file) => JSON.parse(readFileSync(file, "utf8")) as CostFigures);
    const first = parts[0] as CostFigures;
    // Runs of one replay (different configurations) become one table, in configuration order.
    const order = configurations().map((c) => c.id);
    const replays: CostFigures["replays"] = [];
    for (const part of parts.flatMap((p) => p.replays)) {
      const same = replays.find((r) => r.replay === part.replay);
      if (same) same.results.push(...part.results);
      else replays.push({ ...part, results: [...part.results] });
    }
    for (const r of replays) r.results.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    const figures: CostFigures = { machine: first.machine, summarizerMs: first.summarizerMs, replays };
    await writeResults(figures, `assembled with \`--render\` from ${parts.length} \`--json\` runs`);
    return;
  }
  const replays: Array<{ data: string; replay: Replay }> = cli.values.data
    ? [{ data: cli.data, replay: replayOf(cli.data) }]
    : [
        { data: LOCOMO_PATH, replay: locomoReplay(LOCOMO_PATH, cli.values.conversation) },
        { data: TAU_AIRLINE_PATH, replay: tauReplay(TAU_AIRLINE_PATH, cli.values.runs ? Number(cli.values.runs) : undefined) },
      ];
  // `--only a,b`: configurations whose id contains one of the texts.
  const only = cli.values.only ? String(cli.values.only).split(",") : undefined;
  const configs = configurations().filter((c) => !only || only.some((text) => c.id.includes(text)));
  const started = Date.now();
  const all: CostFigures["replays"] = [];
  for (const { data, replay } of replays) {
    const results: ConfigResult[] = [];
    for (const config of configs) {
      results.push(await measureConfig(replay, config));
      console.error(`${replay.name}: ${config.id} done (${((Date.now() - started) / 1000).toFixed(0)} s)`);
    }
    all.push({ replay: replay.name, data, description: replay.description, results });
  }
  const figures: CostFigures = { machine: machineLine(), summarizerMs: SUMMARIZER_MS, replays: all };
  if (cli.json) {
    printJson(figures);
    return;
  }
  if (!cli.writesResults || cli.values.only) {
    console.log(documentOf(figures, `${((Date.now() - started) / 1000).toFixed(0)} s`));
    console.error("\npartial run or other data: bench/results/cost.* left as they were");
    return;
  }
  await writeResults(figures, `${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/** Writes bench/results/cost.{md,json} and the chart. */
async function writeResults(figures: CostFigures, how: string): Promise<void> {
  const doc = documentOf(figures, how);
  console.log(doc);
  writeFileSync(RESULTS_MD, `${doc}\n`);
  const compact = {
    ...figures,
    replays: figures.replays.map((r) => ({
      ...r,
      results: r.results.map(({ openai, anthropic, gemini, ...rest }) => ({
        ...rest,
        openai: { ...openai, series: undefined },
        anthropic: { ...anthropic, series: undefined },
        gemini: { ...gemini, series: undefined },
      })),
    })),
  };
  writeFileSync(RESULTS_JSON, `${JSON.stringify(compact, null, 2)}\n`);
  await chart(figures.replays);
  console.error(`wrote ${RESULTS_MD}, ${RESULTS_JSON}, ${RESULTS_SVG}`);
}

/** The results document. */
function documentOf(figures: CostFigures, how: string): string {
  const all = figures.replays;
  const SUMMARIZER = figures.summarizerMs;
  return [
    "# Prompt cost per call under the providers' cache rules",
    "",
    `Command: \`pnpm tsx bench/cost.ts\` (offline, deterministic figures except the wait columns; ${how} on ${figures.machine}). Summarizer calls take ${SUMMARIZER} ms.`,
    "",
    ...all.flatMap(({ replay, description, results }) => [
      `## ${replay} (${description})`,
      "",
      table(results),
      "",
      "Targets of issue 17 (measured):",
      ...targets(results),
      "",
    ]),
    "How to read it:",
    "- *cost / call*: simulated input cost of the main calls plus every internal call (summarizer), per main call, in units of one uncached input token: OpenAI (gpt-4o) uncached + 0.5 x cached; Anthropic (Sonnet) uncached + 0.1 x cache reads + 1.25 x cache writes; Gemini 2.5 uncached + 0.1 x cached. Rules and sources: bench/README.md. Tokens are o200k_base for every provider.",
    "- *tokens / call*, *cached / call*: input tokens and cache-served tokens per main call, internal calls included.",
    "- *prefix reuse without tail*: share of main calls (2..N of a thread) whose chat-completions input, stable_tail context message removed, starts with the whole previous input (bench/placement.ts's measure).",
    "- *messages in view*: conversation messages of a main call (system prompt, summaries and context messages not counted).",
    "- *wait before answer*: wall time from the user's message to the main model request of the turn; the provider's own time to first token comes on top. Turns with a summarizer call: the turns on which the summarizer was called, before or after the answer.",
    "- Every Anthropic run carries LangChain's anthropicPromptCachingMiddleware (one automatic breakpoint on the last block); rows with *cacheBreakpoints* add threadwise's `cacheBreakpoints()` innermost, which takes that breakpoint over and places its own (system prompt, summary, newest user message, newest tool result of a loop).",
    "- *background summary*: `summarize({ background: true })`: the summarizer runs after the answer of a due call, the next call adopts it.",
  ].join("\n");
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) await main();
