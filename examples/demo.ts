/**
 * threadwise demo (`pnpm demo`): real airline support conversations from tau-bench, replayed
 * through `createAgent` with the recommended stack, `memoryStack()` on a SQLite file: a window
 * (`windowTrim`), a summary of what leaves it (`summarize`), recall, and a token cap (`tokenCap`),
 * the agent wrapped in `hideMemoryState`. When the cap must cut a long tool turn down to its
 * newest messages, the summary and recall still carry the earlier conversation.
 *
 * Offline by default: a replay model answers with the recorded assistant messages and tool calls,
 * and the tools return the recorded results. With `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) set, a
 * live `ChatOpenAI` (`OPENAI_MODEL`, default `gpt-4o-mini`) answers the same recorded user turns
 * and writes the summaries (offline, `extractiveSummarizer()` picks sentences instead).
 *
 * Every model call prints the multiturn line (spec R6); at the end a table per run compares the
 * stored thread with what the model received: messages, exact tokens (js-tiktoken, o200k_base,
 * system prompt and tool schemas included), and orphans (spec R4) in what was sent.
 *
 *   pnpm demo                   # the three committed runs
 *   pnpm demo -- --runs 0       # one run (index into the committed slice)
 *   pnpm demo -- --max-messages 12 --max-tokens 5000
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import type { BaseMessage } from "@langchain/core/messages";
import { createTokenCounter, findOrphans, type ThreadwiseLogger, type TokenCounter } from "@threadwise/core";
import { replayModel } from "@threadwise/core/testing";
import { hideMemoryState, memoryStack } from "@threadwise/memory";
import { extractiveSummarizer } from "@threadwise/summarize";
import { type AgentMiddleware, createAgent, createMiddleware, HumanMessage } from "langchain";
import { assistantSteps, loadAirlineRuns, type ReplayScript, replayScript, replayTools } from "./support/tau-replay.js";
import { exampleTempDir } from "./support/temp-dir.js";

/** Options of {@link main}. */
export interface DemoOptions {
  /** Indices into the committed slice. @default every run */
  runs?: number[];
  /** `windowTrim.maxMessages`, in messages. @default 20 */
  maxMessages?: number;
  /** `tokenCap.maxTokens`, in tokens (system prompt and tool schemas included). @default 8000 */
  maxTokens?: number;
  /** SQLite checkpointer file. @default a new file under the OS temp dir */
  sqlitePath?: string;
  /** Drive a live OpenAI model instead of the replay. @default `true` when OPENAI_API_KEY or OPENAI_BASE_URL is set */
  live?: boolean;
  /** Where lines go. @default console.log */
  print?: (line: string) => void;
}

/** What one replayed run measured. Token figures are sums over the run's model calls. */
export interface RunReport {
  threadId: string;
  userTurns: number;
  modelCalls: number;
  /** Messages in the stored thread at the end of the run. */
  storedMessages: number;
  /** Messages the model received on the last call (system prompt not counted). */
  sentMessagesLastCall: number;
  /** Most messages the model received on one call. */
  sentMessagesMax: number;
  /** Tokens the calls would have cost with the full stored history. */
  fullHistoryTokens: number;
  /** Tokens the calls actually sent. */
  sentTokens: number;
  /** Most tokens one call sent (compare with `tokenCap.maxTokens`). */
  sentTokensMaxCall: number;
  /** Orphans (R4) found in what the model received, over all calls. Must be 0. */
  orphansInViews: number;
  /** Tool calls that reuse an earlier tool_call_id of the run. */
  repeatedToolCallIds: number;
}

interface CallRecord {
  stored: number;
  sent: number;
  fullTokens: number;
  sentTokens: number;
  orphans: string[];
}

/**
 * Innermost middleware: measures each model call against the stored thread. What it sees is
 * exactly what the model receives (the agent prepends the system message when its text is not
 * empty).
 */
function callRecorder(counter: TokenCounter, records: CallRecord[]) {
  return createMiddleware({
    name: "demo/call-recorder",
    wrapModelCall: (request, handler) => {
      const system = request.systemMessage.text === "" ? [] : [request.systemMessage];
      const stored = (request.state.messages ?? []) as BaseMessage[];
      const fixed = counter.countMessages(system) + counter.countTools(request.tools ?? []);
      const sent = [...system, ...request.messages];
      records.push({
        stored: stored.length,
        sent: request.messages.length,
        fullTokens: fixed + counter.countMessages(stored),
        sentTokens: fixed + counter.countMessages(request.messages),
        orphans: findOrphans(sent),
      });
      return handler(request);
    },
  });
}

async function liveModel() {
  const { ChatOpenAI } = await import("@langchain/openai");
  const baseURL = process.env.OPENAI_BASE_URL;
  return new ChatOpenAI({
    model: process.env.OPENAI_MODEL ?? "gpt-4o-mini",
    temperature: 0,
    // An OpenAI-compatible server (OPENAI_BASE_URL) may need no key; the client still wants one.
    apiKey: process.env.OPENAI_API_KEY ?? "no-key",
    ...(baseURL ? { configuration: { baseURL } } : {}),
  });
}

async function replayRun(
  script: ReplayScript,
  settings: Required<Pick<DemoOptions, "maxMessages" | "maxTokens" | "sqlitePath" | "live">>,
  print: (line: string) => void,
): Promise<RunReport> {
  const counter = createTokenCounter({ encoding: "o200k_base" });
  const records: CallRecord[] = [];
  const logger: ThreadwiseLogger = { info: (line) => print(`  ${line}`), warn: (line) => print(`  warn: ${line}`) };
  const replay = settings.live ? undefined : replayModel(assistantSteps(script));
  const model = replay ?? (await liveModel());
  // The recommended stack; env is not read, so the flags alone decide the sizes.
  const stack = memoryStack({
    backend: "sqlite",
    sqlitePath: settings.sqlitePath,
    windowSize: settings.maxMessages,
    maxHistoryTokens: settings.maxTokens,
    logger,
    env: {},
    // The replay model answers only the recorded turns: offline summaries are extractive.
    ...(replay ? { models: { summarize: extractiveSummarizer() } } : {}),
  });
  const middleware: AgentMiddleware[] = [...stack.middleware, callRecorder(counter, records)];
  const agent = hideMemoryState(
    createAgent({ model, tools: replayTools(script), systemPrompt: script.systemPrompt, ...stack, middleware }),
  );
  const config = { configurable: { thread_id: script.threadId }, recursionLimit: 50 };
  print(`\n${script.threadId}: ${script.turns.length} user turns, ${script.repeatedToolCallIds} repeated tool_call_id(s)`);
  for (const turn of script.turns) {
    const result = await agent.invoke({ messages: [new HumanMessage(turn.user)] }, config);
    if (settings.live) print(`  assistant: ${String(result.messages.at(-1)?.content ?? "").slice(0, 160)}`);
  }
  // What the model itself recorded, when it can: the replay model's `.calls`.
  const received = replay ? replay.calls.map((call) => call.messages) : undefined;
  const orphans = received ? received.flatMap((messages) => findOrphans(messages)) : records.flatMap((r) => r.orphans);
  const state = await agent.graph.getState(config);
  const stored = (state.values as { messages: BaseMessage[] }).messages;
  return {
    threadId: script.threadId,
    userTurns: script.turns.length,
    modelCalls: records.length,
    storedMessages: stored.length,
    sentMessagesLastCall: records.at(-1)?.sent ?? 0,
    sentMessagesMax: Math.max(0, ...records.map((r) => r.sent)),
    fullHistoryTokens: records.reduce((sum, r) => sum + r.fullTokens, 0),
    sentTokens: records.reduce((sum, r) => sum + r.sentTokens, 0),
    sentTokensMaxCall: Math.max(0, ...records.map((r) => r.sentTokens)),
    orphansInViews: orphans.length,
    repeatedToolCallIds: script.repeatedToolCallIds,
  };
}

/**
 * The `saved` cell: `1 - tokens sent / tokens full history`, in percent with one decimal and its
 * sign. Negative when what memory adds (historyAware's note, a recall block) outweighs what the
 * window removes, as on a thread too short to trim: rounded to a whole percent it printed `0%`.
 */
export function savedShare(report: Pick<RunReport, "fullHistoryTokens" | "sentTokens">): string {
  const share = (100 * (report.fullHistoryTokens - report.sentTokens)) / Math.max(1, report.fullHistoryTokens);
  const text = share.toFixed(1);
  return `${text === "-0.0" ? "0.0" : text}%`;
}

/** Formats the reports as a markdown table. */
export function formatReportTable(reports: readonly RunReport[]): string {
  const n = (value: number) => value.toLocaleString("en-US");
  const rows = reports.map((r) =>
    [
      r.threadId,
      r.userTurns,
      r.modelCalls,
      r.storedMessages,
      `${r.sentMessagesLastCall} / ${r.sentMessagesMax}`,
      n(r.fullHistoryTokens),
      n(r.sentTokens),
      n(r.sentTokensMaxCall),
      savedShare(r),
      r.orphansInViews,
    ].join(" | "),
  );
  return [
    "| run | user turns | model calls | messages stored | sent (last / max call) | tokens full history | tokens sent | most tokens in one call | saved | orphans in views |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...rows.map((row) => `| ${row} |`),
  ].join("\n");
}

/**
 * Replays the chosen runs and returns one report per run; prints the multiturn lines and the
 * table through `options.print`.
 */
export async function main(options: DemoOptions = {}): Promise<RunReport[]> {
  const print = options.print ?? ((line: string) => console.log(line));
  const all = loadAirlineRuns();
  const indices = options.runs ?? all.map((_, i) => i);
  const live = options.live ?? Boolean(process.env.OPENAI_API_KEY || process.env.OPENAI_BASE_URL);
  const settings = {
    maxMessages: options.maxMessages ?? 20,
    maxTokens: options.maxTokens ?? 8000,
    sqlitePath: options.sqlitePath ?? join(exampleTempDir("demo"), "threads.sqlite"),
    live,
  };
  print(
    `threadwise demo: ${indices.length} tau-bench airline run(s), ${live ? "LIVE model" : "offline replay"}, ` +
      `memoryStack({ windowSize: ${settings.maxMessages}, maxHistoryTokens: ${settings.maxTokens} }): window, summary, recall, token cap; SQLite ${settings.sqlitePath}`,
  );
  const reports: RunReport[] = [];
  for (const index of indices) {
    const run = all[index];
    if (!run) throw new Error(`no run ${index} in the slice (0..${all.length - 1})`);
    reports.push(await replayRun(replayScript(run), settings, print));
  }
  print(`\n${formatReportTable(reports)}`);
  print(
    "\nTokens: o200k_base (core's counter), summed over each run's model calls, system prompt and tool schemas included;" +
      ' "full history" is what each call would have sent with the whole stored thread and no memory.',
  );
  return reports;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `pnpm demo -- --runs 0` passes the `--` on; drop it so the options after it are read.
  const argv = process.argv.slice(2);
  const { values } = parseArgs({
    args: argv[0] === "--" ? argv.slice(1) : argv,
    options: { runs: { type: "string" }, "max-messages": { type: "string" }, "max-tokens": { type: "string" } },
    allowPositionals: true,
  });
  const reports = await main({
    runs: values.runs?.split(",").map(Number),
    maxMessages: values["max-messages"] ? Number(values["max-messages"]) : undefined,
    maxTokens: values["max-tokens"] ? Number(values["max-tokens"]) : undefined,
  });
  if (reports.some((r) => r.orphansInViews > 0)) process.exitCode = 1;
}
