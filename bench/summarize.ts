/**
 * Cost of keeping a summary of what left the window (issue 4), measured on LoCoMo conv-26.
 *
 *   pnpm tsx bench/summarize.ts            # writes bench/results/summarize.md
 *   pnpm tsx bench/summarize.ts --data <locomo.json> --json   # its conv-26 (or first conversation; --conversation <id>); JSON on stdout
 *
 * The conversation is replayed through `createAgent` (MemorySaver): the first speaker's merged
 * turns are the user messages, a scripted model answers with the second speaker's merged turns.
 * Two stacks see the same replay, with the same window (20 messages) and trigger (40 messages):
 *
 * - threadwise `summarize({ windowSize: 20, threshold: 40 })`;
 * - LangChain's own `summarizationMiddleware({ trigger: { messages: 40 }, keep: { messages: 20 } })`.
 *
 * Both get the same fake summarizer: it records every input and answers with a fixed-size text
 * (see {@link recordingSummarizer}), so the previous summary costs both stacks the same. Figures:
 * summarizer calls; summarizer input tokens (o200k_base, every message sent, instructions included);
 * evicted tokens (tokens of the conversation messages the summaries cover, each counted once);
 * their ratio; the messages left in the stored thread; the agent model's mean input per call.
 *
 * Imported threads (issue 23, spec R39): a thread that arrives with `--imported` messages at once
 * (default 2,000 and 20,000: the conversation's exchanges repeated under new ids), then one new
 * exchange per turn. summarize's hook runs alone (no checkpointer: the figure is the summarizer's
 * work, not the saver's) until the summary covers everything that left the window. Figures:
 * messages that left the window, messages covered, messages never in a summarizer input whole
 * (must be 0), passes and their input sizes (tokens, every one within `maxInputTokens`), model calls
 * to catch up (`maxPassesPerCall` passes each), input / evicted tokens, wall time with a stub.
 *
 *   pnpm tsx bench/summarize.ts --imported 2000,20000 --max-input-tokens 8000 --json
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import {
  createTokenCounter,
  DEFAULT_START_ON,
  MESSAGE_OVERHEAD_TOKENS,
  messageType,
  readSummarySlot,
  SUMMARY_SLOT_KEY,
  type SummaryRecord,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { planSummary, summarize, transcriptLine } from "@threadwise/summarize";
import { type AgentMiddleware, createAgent, summarizationMiddleware } from "langchain";
import { benchArgs, printJson } from "./support/cli.js";
import { LOCOMO_PATH, loadLocomo, pickConversation, type ReplayExchange, replayExchanges } from "./support/locomo.js";

const RESULTS_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "results/summarize.md");
/** Reference figures of LangChain's middleware on conv-26, from issue 4. */
const REFERENCE = { calls: 19, ratio: 1.73 };
/** Target of issue 4: summarizer input at most this many times the evicted tokens. */
const TARGET_RATIO = 1.3;
const SHAPES: SummaryShape[] = ["extractive", 100, 200, 400];
const counter = createTokenCounter();

/** The first `words` words of a text. */
function firstWords(text: string, words: number): string {
  return text.split(/\s+/).filter(Boolean).slice(0, words).join(" ");
}

/**
 * The fake summaries. `extractive` is the placement bench's rule (issue 3): "Earlier: " and the first
 * 12 words of each user line of the input (`Human: ` in LangChain's dump, `User: ` in ours), at most
 * 1,200 characters; the previous summary is not a user line in either format. A number: a fixed
 * answer of that many tokens, for the sensitivity table.
 */
type SummaryShape = "extractive" | number;

/** A summarizer that records the tokens of every input and answers with a summary of `shape`. */
function recordingSummarizer(shape: SummaryShape) {
  const inputs: number[] = [];
  let calls = 0;
  return {
    inputs,
    invoke: async (input: unknown) => {
      calls += 1;
      // LangChain sends one prompt string (one user message); summarize sends a message list.
      const text = typeof input === "string" ? input : (input as BaseMessage[]).map((m) => String(m.content)).join("\n");
      inputs.push(
        typeof input === "string" ? counter.countText(input) + MESSAGE_OVERHEAD_TOKENS : counter.countMessages(input as BaseMessage[]),
      );
      // " alpha" is one o200k_base token, so a fixed answer of `shape` words is `shape` tokens.
      if (shape !== "extractive")
        return new AIMessage(Array.from({ length: shape }, (_, i) => (i === 0 ? `alpha${calls}` : "alpha")).join(" "));
      const lines = text
        .split("\n")
        .filter((line) => line.startsWith("Human: ") || line.startsWith("User: "))
        .map((line) => firstWords(line.slice(line.indexOf(":") + 2), 12));
      const summary = lines.join("; ");
      return new AIMessage(`Earlier: ${summary.length > 1200 ? `${summary.slice(0, 1200)}...` : summary}`);
    },
  };
}

export interface RunResult {
  stack: string;
  summary: SummaryShape;
  calls: number;
  inputTokens: number;
  evictedTokens: number;
  storedMessages: number;
  totalMessages: number;
  modelTokensPerCall: number;
}

async function replay(
  stack: "threadwise" | "langchain",
  exchanges: ReplayExchange[],
  system: string,
  summary: SummaryShape,
): Promise<RunResult> {
  let turn = 0;
  const model = scriptedModel(() => (exchanges[turn] as ReplayExchange).assistant || "(no answer)");
  const summarizer = recordingSummarizer(summary);
  const middleware =
    stack === "threadwise"
      ? summarize({ model: summarizer, windowSize: 20, threshold: 40, logger: false })
      : summarizationMiddleware({ model: summarizer as never, trigger: { messages: 40 }, keep: { messages: 20 } });
  const agent = createAgent({ model, systemPrompt: system, checkpointer: new MemorySaver(), middleware: [middleware as AgentMiddleware] });
  const config = { configurable: { thread_id: `bench-${stack}` } };
  const produced: BaseMessage[] = [];
  for (turn = 0; turn < exchanges.length; turn += 1) {
    const exchange = exchanges[turn] as ReplayExchange;
    const user = new HumanMessage({ id: `u${turn}`, content: exchange.user });
    produced.push(user, new AIMessage(exchange.assistant || "(no answer)"));
    await agent.invoke({ messages: [user] }, config);
  }
  const state = await agent.graph.getState(config);
  const stored = state.values.messages as BaseMessage[];
  const tokens = (messages: readonly BaseMessage[]) => counter.countMessages(messages);
  let evictedTokens: number;
  if (stack === "threadwise") {
    // What the summary covers: the first coveredCount conversation messages, each once.
    const covered = readSummarySlot(state.values).summary?.coveredCount ?? 0;
    evictedTokens = tokens(produced.slice(0, covered));
  } else {
    // LangChain deletes what it summarized: everything produced that is no longer stored.
    const remaining = stored.filter((m) => (m.additional_kwargs as { lc_source?: string })?.lc_source !== "summarization").length;
    evictedTokens = tokens(produced.slice(0, produced.length - remaining));
  }
  const modelTokens = model.calls.reduce((sum, call) => sum + tokens(call.messages as BaseMessage[]), 0);
  return {
    stack,
    summary,
    calls: summarizer.inputs.length,
    inputTokens: summarizer.inputs.reduce((a, b) => a + b, 0),
    evictedTokens,
    storedMessages: stored.filter((m) => messageType(m) !== "system").length,
    totalMessages: produced.length,
    modelTokensPerCall: Math.round(modelTokens / model.calls.length),
  };
}

/** What catching up on one imported thread took. */
interface ImportedResult {
  importedMessages: number;
  maxInputTokens: number;
  maxPassesPerCall: number;
  /**
   * Messages before summarize's window over the thread as it stands at the end: the import's and
   * those of the exchanges added while it caught up (each model call adds one, and its window
   * moves on by two messages).
   */
  evictedMessages: number;
  /** Messages the summary covers at the end (at least the import's that left the window). */
  coveredMessages: number;
  /** Covered messages whose transcript line never reached a summarizer input whole (must be 0). */
  uncoveredMessages: number;
  passes: number;
  passInputTokensMax: number;
  passInputTokensMean: number;
  modelCallsToCatchUp: number;
  inputTokens: number;
  evictedTokens: number;
  wallMs: number;
}

/**
 * One imported thread of `size` messages (the exchanges repeated under new ids), then one new
 * exchange per model call, through summarize's hook alone, until the summary covers the import.
 */
async function importedBacklog(
  exchanges: ReplayExchange[],
  size: number,
  maxInputTokens: number,
  maxPassesPerCall: number,
): Promise<ImportedResult> {
  const stored: BaseMessage[] = [];
  for (let k = 0; stored.length < size; k += 1) {
    const exchange = exchanges[k % exchanges.length] as ReplayExchange;
    stored.push(
      new HumanMessage({ id: `u${k}`, content: exchange.user }),
      new AIMessage({ id: `a${k}`, content: exchange.assistant || "(no answer)" }),
    );
  }
  stored.length = size;
  const windowSize = 20;
  const threshold = 40;
  const inputs: number[] = [];
  const bodies: string[] = [];
  const summarizer = {
    async invoke(input: BaseMessage[]) {
      inputs.push(counter.countMessages(input));
      const text = String(input[1]?.content ?? "");
      const body = text.slice(text.indexOf("<new_messages>\n") + "<new_messages>\n".length, text.lastIndexOf("\n</new_messages>"));
      bodies.push(body);
      return new AIMessage(`Earlier: ${firstWords(body, 150)}`);
    },
  };
  const middleware = summarize({ model: summarizer, windowSize, threshold, maxInputTokens, maxPassesPerCall, logger: false });
  let summary: SummaryRecord | undefined;
  const coveredAt = () => (summary ? stored.findIndex((m) => m.id === summary?.coveredThroughId) + 1 : 0);
  const started = Date.now();
  let calls = 0;
  for (; coveredAt() < size - windowSize && calls < 10_000; calls += 1) {
    if (calls > 0)
      stored.push(new AIMessage({ id: `next-a${calls}`, content: "ok" }), new HumanMessage({ id: `next-u${calls}`, content: "and then?" }));
    const request = {
      messages: stored,
      systemMessage: new SystemMessage("You are a friend."),
      state: { messages: stored, [SUMMARY_SLOT_KEY]: summary ? { summary } : {} },
      tools: [],
      model: summarizer,
      runtime: { configurable: { thread_id: `imported-${size}` } },
    };
    // biome-ignore lint/suspicious/noExplicitAny: the hook alone, without an agent runtime
    const result = await (middleware.wrapModelCall as any)(request, async () => new AIMessage("ok"));
    const update =
      result instanceof Command ? (result.update as Record<string, { summary?: SummaryRecord }>)[SUMMARY_SLOT_KEY]?.summary : undefined;
    if (update && update.text !== "") summary = update;
  }
  const wallMs = Date.now() - started;
  const covered = coveredAt();
  // Was `size - windowSize`, what left the window when the import arrived: set beside the coverage
  // at the end, which also holds what left it since, it read 182 covered of 180 evicted.
  // summarize's own window as it plans it: the stack's start rule (a window starting on a user message).
  const evicted = planSummary(stored, summary, { windowSize, threshold, startOn: DEFAULT_START_ON }).windowStart;
  // Each covered message's transcript line, found whole and in order in the inputs sent.
  const sent = bodies.join("\n");
  let uncovered = 0;
  let at = 0;
  for (const message of stored.slice(0, covered)) {
    const line = transcriptLine(message);
    const found = sent.indexOf(line, at);
    if (found === -1) uncovered += 1;
    else at = found + line.length;
  }
  return {
    importedMessages: size,
    maxInputTokens,
    maxPassesPerCall,
    evictedMessages: evicted,
    coveredMessages: covered,
    uncoveredMessages: uncovered,
    passes: inputs.length,
    passInputTokensMax: Math.max(0, ...inputs),
    passInputTokensMean: inputs.length === 0 ? 0 : Math.round(inputs.reduce((a, b) => a + b, 0) / inputs.length),
    modelCallsToCatchUp: calls,
    inputTokens: inputs.reduce((a, b) => a + b, 0),
    evictedTokens: counter.countMessages(stored.slice(0, covered)),
    wallMs,
  };
}

function formatImported(results: ImportedResult[]): string {
  const rows = [
    "| imported messages | maxInputTokens | left the window | covered | never in an input (target 0) | passes | pass input tokens, max / mean | model calls to catch up | input / evicted tokens | wall time (stub) |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results)
    rows.push(
      `| ${int(r.importedMessages)} | ${int(r.maxInputTokens)} | ${int(r.evictedMessages)} | ${int(r.coveredMessages)} | ${r.uncoveredMessages} | ${r.passes} | ${int(r.passInputTokensMax)} / ${int(r.passInputTokensMean)} | ${r.modelCallsToCatchUp} | ${(r.inputTokens / Math.max(1, r.evictedTokens)).toFixed(2)}x | ${(r.wallMs / 1000).toFixed(1)} s |`,
    );
  return rows.join("\n");
}

const int = (n: number) => n.toLocaleString("en-US");
const ratio = (r: RunResult) => r.inputTokens / r.evictedTokens;
/** The ratio as text: `n/a` when nothing was summarized (a conversation too short to reach the trigger). */
const ratioText = (r: RunResult) => (r.evictedTokens === 0 ? "n/a" : `${ratio(r).toFixed(2)}x`);

/**
 * The figures under the table, from the replay's results (extractive summary): issue 4's figures
 * for LangChain were measured on conv-26, so they stand beside the measured ones on conv-26 only.
 */
export function figureLines(sampleId: string, results: readonly RunResult[]): string[] {
  const ours = results.filter((r) => r.stack === "threadwise");
  const theirs = results.filter((r) => r.stack === "langchain");
  const quotes = sampleId === "conv-26";
  return [
    `- threadwise: input / evicted ${ours.map((r) => ratioText(r)).join(" / ")} (issue 4's target ${TARGET_RATIO}x), ${ours[0]?.calls} summarizer calls, ${ours[0]?.storedMessages} of ${ours[0]?.totalMessages} messages stored.`,
    `- LangChain: input / evicted ${theirs.map((r) => ratioText(r)).join(" / ")}${quotes ? ` (issue 4 quotes ${REFERENCE.ratio}x)` : ""}, ${theirs[0]?.calls} summarizer calls${quotes ? ` (issue 4 quotes ${REFERENCE.calls})` : ""}, ${theirs[0]?.storedMessages} of ${theirs[0]?.totalMessages} messages stored.`,
  ];
}

function formatTable(results: RunResult[]): string {
  const rows = [
    "| stack | fake summary | summarizer calls | summarizer input tokens | evicted tokens | input / evicted | history kept (stored / produced messages) | agent model input tokens / call |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const r of results) {
    rows.push(
      `| ${r.stack === "threadwise" ? "threadwise `summarize`" : "LangChain `summarizationMiddleware`"} | ${r.summary === "extractive" ? "extractive (issue 3 rule)" : `fixed, ${r.summary} tokens`} | ${r.calls} | ${int(r.inputTokens)} | ${int(r.evictedTokens)} | ${ratioText(r)} | ${r.storedMessages} / ${r.totalMessages} | ${int(r.modelTokensPerCall)} |`,
    );
  }
  return rows.join("\n");
}

async function main() {
  const started = Date.now();
  const cli = benchArgs(LOCOMO_PATH, {
    imported: { type: "string", default: "2000,20000" },
    "max-input-tokens": { type: "string", default: "8000" },
    "max-passes": { type: "string", default: "3" },
    conversation: { type: "string" },
  });
  const conversation = pickConversation(loadLocomo(cli.data), cli.values.conversation, cli.data);
  const exchanges = replayExchanges(conversation).filter((e) => e.user !== "");
  const system = `You are ${conversation.speakerB}, chatting with your friend ${conversation.speakerA}. Answer as ${conversation.speakerB} would.`;
  const results: RunResult[] = [];
  for (const shape of SHAPES) {
    for (const stack of ["threadwise", "langchain"] as const) {
      const result = await replay(stack, exchanges, system, shape);
      results.push(result);
      console.error(`${stack} summary=${shape}: ${result.calls} calls, ratio ${ratioText(result)}`);
    }
  }
  const imported: ImportedResult[] = [];
  for (const size of String(cli.values.imported).split(",").filter(Boolean).map(Number)) {
    const result = await importedBacklog(exchanges, size, Number(cli.values["max-input-tokens"]), Number(cli.values["max-passes"]));
    imported.push(result);
    console.error(
      `imported ${size}: ${result.passes} passes, ${result.uncoveredMessages} never in an input, ${result.modelCallsToCatchUp} calls`,
    );
  }
  const main = results.filter((r) => r.summary === "extractive");
  const table = formatTable(main);
  const sensitivity = formatTable(results.filter((r) => r.summary !== "extractive"));
  const doc = [
    `# Summarizer cost on LoCoMo ${conversation.sampleId}: threadwise \`summarize\` vs LangChain \`summarizationMiddleware\``,
    "",
    `Command: \`pnpm tsx bench/summarize.ts\` (offline, deterministic; ${((Date.now() - started) / 1000).toFixed(0)} s on the machine that wrote this file).`,
    `Replay: ${exchanges.length} exchanges (${exchanges.length * 2} messages) of ${conversation.sampleId}; window 20 messages, first summary at 40.`,
    "",
    table,
    "",
    "Figures (extractive fake summary):",
    ...figureLines(conversation.sampleId, main),
    "",
    "Sensitivity to the summary's size (fixed-size fake answers; the previous summary is part of every re-summary):",
    "",
    sensitivity,
    "",
    `Imported threads (issue 23): a thread that arrives whole, then one new exchange per turn, through summarize's hook alone (\`--imported\`, \`--max-input-tokens\`, \`--max-passes\`); the summarizer stub answers the first 150 words of its input.`,
    "",
    formatImported(imported),
    "",
    "How to read it:",
    "- *summarizer input tokens*: o200k_base tokens of everything sent to the summarizer over the replay, framing included (LangChain sends one prompt string, counted as one user message).",
    "- *evicted tokens*: tokens of the conversation messages the summaries cover, each counted once (threadwise: the first `coveredCount` messages; LangChain: the messages it removed from the thread).",
    "- *fake summary*: what the recording fake answers, the same rule for both stacks. `extractive` is the placement bench's rule (issue 3): `Earlier: ` and the first 12 words of each user line of the input, at most 1,200 characters, so the summary does not grow with the thread.",
    "- *agent model input tokens / call*: the agent model's mean input (system prompt, summary, view).",
  ].join("\n");
  if (cli.json)
    printJson({ bench: "summarize", data: cli.data, conversation: conversation.sampleId, exchanges: exchanges.length, results, imported });
  else console.log(`${table}\n\n${formatImported(imported)}`);
  if (!cli.writesResults) {
    console.error("\n--data or --json given: bench/results/summarize.md left as it was");
    return;
  }
  mkdirSync(dirname(RESULTS_PATH), { recursive: true });
  writeFileSync(RESULTS_PATH, `${doc}\n`);
  console.error(`\nwrote ${RESULTS_PATH}`);
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) await main();
