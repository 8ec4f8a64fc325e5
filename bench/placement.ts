/**
 * Prompt-cache friendliness of placement and eviction (issue 3), measured on LoCoMo.
 *
 *   pnpm tsx bench/placement.ts            # conv-26, writes bench/results/placement.md
 *   pnpm tsx bench/placement.ts --all      # every conversation of data/locomo/locomo-dev.json
 *   pnpm tsx bench/placement.ts --data <locomo.json> --json   # another LoCoMo file (--conversation <id>; default conv-26, else its first); JSON on stdout
 *
 * A conversation is replayed through `createAgent` (MemorySaver): the first speaker's merged turns
 * are the user messages, a scripted model answers with the second speaker's merged turns. Every
 * model call's input is serialized as the OpenAI chat-completions provider sends it (system +
 * messages, `@langchain/openai`'s own converter) and compared with the previous call's:
 *
 * - strict reuse: share of calls 2..N whose serialized input starts with the whole previous
 *   input (the previous request is an unchanged prefix, so a provider cache can serve all of it);
 * - reuse without tail context: the same, with the stable_tail context message removed from both
 *   inputs. In stable_tail the previous call's context message sits where the next call has the
 *   previous answer, so strict reuse is ~0 by design; this figure shows whether everything
 *   before the tail survived. It is NOT what a provider cache sees, and is labelled as such;
 * - tokens sent per call: o200k_base tokens of the serialized input (JSON text), mean over calls;
 * - cacheable tokens per call: tokens of the longest common prefix of the serialized input with
 *   the previous call's, mean over calls (call 1 counts 0).
 *
 * Every threadwise configuration adds a `facts` context block that changes on every turn (the
 * turn number), placed in the configuration's mode. The anchor is LangChain's own
 * `summarizationMiddleware` (trigger 40 messages, keep 20) with a deterministic extractive fake
 * summarizer, no context block.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { basename, dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { addContextBlocks, isContextMessage, type PromptContextMode, viewMessages, withoutTailContext } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { historyAware } from "@threadwise/history-aware";
import { extractiveSummarizer, summarize } from "@threadwise/summarize";
import { selectWindow, windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent, createMiddleware, summarizationMiddleware } from "langchain";
import { benchArgs, printJson } from "./support/cli.js";
import {
  LOCOMO_PATH,
  type LocomoConversation,
  loadLocomo,
  pickConversation,
  type ReplayExchange,
  replayExchanges,
} from "./support/locomo.js";
import { serializeInput, serializeMessages, startsWithPrevious, WireTokenizer } from "./support/openai-wire.js";

const RESULTS_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "results/placement.md");

/** Reference figures of the anchor on conv-26, from issue 3. */
const ANCHOR_REFERENCE = { reuse: 0.907, tokensPerCall: 1202, slidingReuse: 0.044 };

interface Eviction {
  maxMessages: number;
  eviction: "sliding" | "chunked";
  lowWatermark?: number;
}

/** One configuration of the bench. */
export interface BenchConfig {
  name: string;
  /** `undefined`: no context block at all (the anchor). */
  mode?: PromptContextMode;
  window?: Eviction;
  /** LangChain's summarizationMiddleware with trigger/keep in messages. */
  langchainSummary?: { trigger: number; keep: number };
  /** Extractive summary stand-in block over the messages outside the window (until `summarize` lands). */
  summaryStandIn?: boolean;
  historyAware?: boolean;
  /**
   * The real threadwise stack instead of a window and the fake facts block: `summarize` (its own
   * 20-message window, threshold 40, the offline extractive summarizer) + `factRecall`
   * (heuristic) + `historyAware`, all placed in `mode`.
   */
  realStack?: { windowSize: number; threshold: number };
}

/** Figures of one configuration on one conversation. */
export interface BenchResult {
  config: string;
  mode: string;
  conversation: string;
  calls: number;
  strictReuse: number;
  reuseWithoutTail: number;
  tokensPerCall: number;
  cacheablePerCall: number;
}

const SYSTEM_PROMPT = (c: LocomoConversation) =>
  `You are ${c.speakerB}, chatting with your friend ${c.speakerA}. Answer as ${c.speakerB} would, in a friendly, natural voice.`;

/** Exchanges with a user side: a conversation that opens with the second speaker loses that line. */
function usableExchanges(conversation: LocomoConversation): ReplayExchange[] {
  return replayExchanges(conversation).filter((e) => e.user.trim() !== "");
}

/** The first `words` words of a text. */
function firstWords(text: string, words: number): string {
  return text.split(/\s+/).filter(Boolean).slice(0, words).join(" ");
}

/** Deterministic extractive "summary": the first 12 words of each user line, at most 1,200 characters. */
function extractiveSummary(lines: string[]): string {
  const text = lines.map((line) => firstWords(line, 12)).join("; ");
  return text.length > 1200 ? `${text.slice(0, 1200)}...` : text;
}

/** A fake summarizer for LangChain's summarizationMiddleware: extracts from the `Human:` lines of its prompt. */
function fakeSummarizer() {
  return scriptedModel((messages) => {
    const prompt = String(messages.at(-1)?.content ?? "");
    const lines = prompt
      .split("\n")
      .filter((line) => line.startsWith("Human: "))
      .map((line) => line.slice(7));
    return `Earlier: ${extractiveSummary(lines)}`;
  });
}

/** A `facts` block that changes on every turn, as recalled facts would. */
function changingFacts(mode: PromptContextMode) {
  return createMiddleware({
    name: "bench/facts",
    wrapModelCall: (request, handler) => {
      const turn = viewMessages(request).filter((m) => m instanceof HumanMessage && !isContextMessage(m)).length;
      const text = `- Turn ${turn} of this conversation.\n- The user mentioned ${turn % 7} new things today.`;
      return handler(
        addContextBlocks(request, [{ kind: "facts", producer: "bench/facts", label: "Facts about the user", text }], { mode }),
      );
    },
  });
}

/** A summary block over the messages the window leaves out, placed by mode (a stand-in for `summarize`). */
function summaryStandIn(mode: PromptContextMode, window: Eviction) {
  const settings = { startOn: "any" as const, lowWatermark: window.lowWatermark ?? Math.floor(window.maxMessages / 2), ...window };
  return createMiddleware({
    name: "bench/summary",
    wrapModelCall: (request, handler) => {
      const messages = viewMessages(request).filter((m) => !isContextMessage(m));
      const kept = selectWindow(messages, settings).messages.length;
      const evicted = messages.slice(0, messages.length - kept).filter((m) => m instanceof HumanMessage);
      if (evicted.length === 0) return handler(request);
      const text = extractiveSummary(evicted.map((m) => String(m.content)));
      return handler(
        addContextBlocks(request, [{ kind: "summary", producer: "bench/summary", label: "Previous conversation summary", text }], { mode }),
      );
    },
  });
}

function middlewareFor(config: BenchConfig): AgentMiddleware[] {
  const out: AgentMiddleware[] = [];
  if (config.realStack && config.mode) {
    const promptContextMode = config.mode;
    return [
      historyAware({ logger: false }),
      summarize({ model: extractiveSummarizer(), ...config.realStack, promptContextMode, logger: false }),
      factRecall({ mode: "heuristic", promptContextMode }),
    ] as unknown as AgentMiddleware[];
  }
  if (config.langchainSummary) {
    out.push(
      summarizationMiddleware({
        model: fakeSummarizer(),
        trigger: { messages: config.langchainSummary.trigger },
        keep: { messages: config.langchainSummary.keep },
      }) as unknown as AgentMiddleware,
    );
  }
  if (config.historyAware) out.push(historyAware({ logger: false }) as unknown as AgentMiddleware);
  if (config.mode && config.summaryStandIn && config.window)
    out.push(summaryStandIn(config.mode, config.window) as unknown as AgentMiddleware);
  if (config.mode) out.push(changingFacts(config.mode) as unknown as AgentMiddleware);
  if (config.window) out.push(windowTrim({ ...config.window, logger: false }) as unknown as AgentMiddleware);
  return out;
}

/** Replays one conversation under one configuration and returns every model call's input. */
export async function recordInputs(conversation: LocomoConversation, config: BenchConfig): Promise<BaseMessage[][]> {
  const exchanges = usableExchanges(conversation);
  const model = scriptedModel((_messages, call) => new AIMessage(exchanges[call]?.assistant ?? ""));
  const agent = createAgent({
    model,
    systemPrompt: SYSTEM_PROMPT(conversation),
    checkpointer: new MemorySaver(),
    middleware: middlewareFor(config),
  });
  const thread = { configurable: { thread_id: `${conversation.sampleId}-${config.name}-${config.mode ?? "none"}` } };
  for (const exchange of exchanges) await agent.invoke({ messages: [new HumanMessage(exchange.user)] }, thread);
  return model.calls.map((call) => call.messages);
}

/** Computes the figures of one configuration from its recorded inputs. */
export function measure(inputs: BaseMessage[][]): Omit<BenchResult, "config" | "mode" | "conversation"> {
  const tokenizer = new WireTokenizer();
  const perMessage = inputs.map((messages) => serializeMessages(messages));
  const full = inputs.map((messages) => serializeInput(messages));
  const withoutTail = inputs.map((messages) => serializeInput(messages.filter((m) => !isContextMessage(m)).map(withoutTailContext)));
  let strict = 0;
  let loose = 0;
  let cacheable = 0;
  let tokens = 0;
  for (let i = 0; i < full.length; i += 1) {
    tokens += tokenizer.inputTokens(perMessage[i] as string[]);
    if (i === 0) continue;
    if (startsWithPrevious(full[i - 1] as string, full[i] as string)) strict += 1;
    if (startsWithPrevious(withoutTail[i - 1] as string, withoutTail[i] as string)) loose += 1;
    cacheable += tokenizer.cacheableTokens(perMessage[i - 1] as string[], perMessage[i] as string[]);
  }
  const pairs = Math.max(1, full.length - 1);
  return {
    calls: full.length,
    strictReuse: strict / pairs,
    reuseWithoutTail: loose / pairs,
    tokensPerCall: tokens / Math.max(1, full.length),
    cacheablePerCall: cacheable / Math.max(1, full.length),
  };
}

/** The configurations, in table order. */
export function configurations(): BenchConfig[] {
  const modes: PromptContextMode[] = ["legacy_system", "stable_tail"];
  const sliding20: Eviction = { maxMessages: 20, eviction: "sliding" };
  const chunked = (maxMessages: number, lowWatermark: number): Eviction => ({ maxMessages, eviction: "chunked", lowWatermark });
  const windows: Array<{ name: string; window?: Eviction }> = [
    { name: "full history" },
    { name: "sliding window 20", window: sliding20 },
    { name: "chunked 20, low watermark 10", window: chunked(20, 10) },
    { name: "chunked 20, low watermark 4", window: chunked(20, 4) },
    { name: "chunked 40, low watermark 20", window: chunked(40, 20) },
    { name: "chunked 60, low watermark 4", window: chunked(60, 4) },
  ];
  const out: BenchConfig[] = [
    {
      name: "anchor: LangChain summarizationMiddleware (trigger 40, keep 20), no context block",
      langchainSummary: { trigger: 40, keep: 20 },
    },
    { name: "plain sliding window 20, no context block", window: sliding20 },
    { name: "plain chunked 20, low watermark 10, no context block", window: chunked(20, 10) },
  ];
  for (const w of windows) for (const mode of modes) out.push({ name: w.name, mode, window: w.window });
  const stack = (label: string, window: Eviction, mode: PromptContextMode): BenchConfig => ({
    name: `stack: ${label} + summary stand-in + facts + historyAware`,
    mode,
    window,
    summaryStandIn: true,
    historyAware: true,
  });
  out.push(stack("sliding window 20", sliding20, "legacy_system"), stack("sliding window 20", sliding20, "stable_tail"));
  out.push(stack("chunked 20/10", chunked(20, 10), "legacy_system"), stack("chunked 20/10", chunked(20, 10), "stable_tail"));
  out.push(stack("chunked 20/4", chunked(20, 4), "stable_tail"), stack("chunked 40/20", chunked(40, 20), "stable_tail"));
  for (const mode of modes) {
    out.push({
      name: "threadwise stack: summarize(window 20, threshold 40) + factRecall(heuristic) + historyAware",
      mode,
      realStack: { windowSize: 20, threshold: 40 },
    });
  }
  out.push({
    name: "threadwise stack: summarize(window 20, threshold 87) + factRecall(heuristic) + historyAware",
    mode: "stable_tail",
    realStack: { windowSize: 20, threshold: 87 },
  });
  return out;
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const int = (x: number) => Math.round(x).toLocaleString("en-US");
/** `a` against `b` in words: `more`, `less` (or the word given), `equal`. */
const compared = (a: number, b: number, more: string, less: string) => (a > b ? more : a < b ? less : "equal");

/** Markdown table of results (one row per configuration and conversation set). */
export function formatTable(results: readonly BenchResult[]): string {
  const rows = results.map((r) =>
    [
      r.config,
      r.mode,
      r.conversation,
      r.calls,
      pct(r.strictReuse),
      r.mode === "stable_tail" ? pct(r.reuseWithoutTail) : "n/a (same as strict)",
      int(r.tokensPerCall),
      int(r.cacheablePerCall),
      int(r.tokensPerCall - r.cacheablePerCall),
    ].join(" | "),
  );
  return [
    "| configuration | placement | conversation | calls | prefix reuse, strict | reuse without tail context (stable_tail only; not a cache figure) | tokens sent / call | cacheable tokens / call | uncached tokens / call |",
    "|---|---|---|---:|---:|---:|---:|---:|---:|",
    ...rows.map((row) => `| ${row} |`),
  ].join("\n");
}

/** Findings worded from the figures, so the text never drifts from the table. */
export function findings(results: readonly BenchResult[]): string[] {
  const row = (config: string, mode: string) => results.find((r) => r.config === config && r.mode === mode);
  const anchor = results.find((r) => r.config.startsWith("anchor"));
  const plainSliding = row("plain sliding window 20, no context block", "—");
  const plainChunked = row("plain chunked 20, low watermark 10, no context block", "—");
  const legacy = results.filter((r) => r.mode === "legacy_system");
  const tail = (name: string) => row(name, "stable_tail");
  const c10 = tail("chunked 20, low watermark 10");
  const c4 = tail("chunked 20, low watermark 4");
  const c60 = tail("chunked 60, low watermark 4");
  const sliding = tail("sliding window 20");
  const stack4 = tail("stack: chunked 20/4 + summary stand-in + facts + historyAware");
  const real = tail("threadwise stack: summarize(window 20, threshold 40) + factRecall(heuristic) + historyAware");
  const out: string[] = [];
  if (anchor && plainSliding)
    out.push(
      anchor.conversation === "conv-26"
        ? `- Anchor against issue 3 (measured on conv-26): LangChain's summarizationMiddleware reuses the previous input on ${pct(anchor.strictReuse)} of calls (issue: ${pct(ANCHOR_REFERENCE.reuse)}), a plain sliding 20-message window on ${pct(plainSliding.strictReuse)} (issue: ${pct(ANCHOR_REFERENCE.slidingReuse)}). Tokens per call differ (${int(anchor.tokensPerCall)} here vs ${int(ANCHOR_REFERENCE.tokensPerCall)}): our fake summarizer and token accounting are not theirs.`
        : `- Anchor on ${anchor.conversation}: LangChain's summarizationMiddleware reuses the previous input on ${pct(anchor.strictReuse)} of calls, a plain sliding 20-message window on ${pct(plainSliding.strictReuse)} (issue 3's reference figures are of conv-26 and are not compared here).`,
    );
  if (legacy.length > 0)
    out.push(
      `- \`legacy_system\` with memory that changes every turn in the system prompt: strict reuse ${pct(Math.max(...legacy.map((r) => r.strictReuse)))} at best, whatever the eviction; ${int(Math.min(...legacy.map((r) => r.cacheablePerCall)))} to ${int(Math.max(...legacy.map((r) => r.cacheablePerCall)))} tokens per call are cacheable (the system prompt up to the first changed byte). Per-turn memory in the system prompt defeats the cache.`,
    );
  if (c10 && c4 && c60 && sliding)
    out.push(
      `- \`stable_tail\`: strict reuse is 0.0% by construction (the previous call's context message stands where the next call has the previous answer). Everything before the tail survives as often as the window lets it: sliding 20 ${pct(sliding.reuseWithoutTail)}, chunked 20/10 ${pct(c10.reuseWithoutTail)}, chunked 20/4 ${pct(c4.reuseWithoutTail)}, chunked 60/4 ${pct(c60.reuseWithoutTail)}. What a provider prefix cache can serve is the *cacheable tokens* column: ${int(c10.cacheablePerCall)} of ${int(c10.tokensPerCall)} tokens per call for chunked 20/10, against ${int(sliding.cacheablePerCall)} of ${int(sliding.tokensPerCall)} for sliding 20.`,
    );
  if (plainChunked && plainSliding && c10 && sliding) {
    const reuse = compared(plainChunked.strictReuse, plainSliding.strictReuse, "more", "less");
    const tokens = compared(plainChunked.tokensPerCall, plainSliding.tokensPerCall, "more", "fewer");
    out.push(
      `- Eviction default, plain \`chunked\` 20/10 against plain \`sliding\` 20 here: reuse ${pct(plainChunked.strictReuse)} vs ${pct(plainSliding.strictReuse)} without blocks (${reuse}), tokens per call ${int(plainChunked.tokensPerCall)} vs ${int(plainSliding.tokensPerCall)} (${tokens}). The chunked view oscillates between the low watermark and the limit instead of sitting at the limit; the price is less recent history right after a cut (as few as \`lowWatermark\` messages), which this bench does not measure. A 20-message window moves its start at least once every 10 turns, so no 20-message window can pass ~90% reuse; the share grows with \`maxMessages - lowWatermark\`.`,
    );
  }
  if (real && anchor)
    out.push(
      `- Target (window 20 + summary + facts + stable_tail: >= 97% reuse and <= anchor tokens/call). The real stack (summarize window 20 / threshold 40 + factRecall + historyAware, stable_tail) sends ${int(real.tokensPerCall)} tokens per call (anchor ${int(anchor.tokensPerCall)}; ${real.tokensPerCall <= anchor.tokensPerCall ? "met" : "not met"}), with ${pct(real.strictReuse)} strict reuse and ${pct(real.reuseWithoutTail)} without the tail context (${real.strictReuse >= 0.97 ? "met" : "not met"} on the strict figure; ${real.reuseWithoutTail >= 0.97 ? "met" : "not met"} on the without-tail figure), and ${int(real.tokensPerCall - real.cacheablePerCall)} uncached tokens per call (anchor ${int(anchor.tokensPerCall - anchor.cacheablePerCall)}).`,
    );
  const wide = tail("threadwise stack: summarize(window 20, threshold 87) + factRecall(heuristic) + historyAware");
  if (real && anchor && wide) {
    // With a 20-message window the view's start moves at least once per (period / 2) turns.
    const above = wide.tokensPerCall > anchor.tokensPerCall;
    out.push(
      `- Why >= 97% is out of reach for a 20-message window on the strict or the without-tail figure: the view's start may move at most once per 34 calls, i.e. a period of at least 67 messages (\`summarize({ windowSize: 20, threshold: 87 })\`): the last row sends ${int(wide.tokensPerCall)} tokens per call, ${above ? "above" : "at or below"} the anchor's ${int(anchor.tokensPerCall)}, with ${pct(wide.reuseWithoutTail)} reuse without the tail context${above ? ": the two targets conflict on this data" : ""}.`,
    );
  }
  if (stack4 && anchor)
    out.push(
      `- Stand-in stack with chunked 20/4 eviction (stable_tail): ${int(stack4.tokensPerCall)} tokens per call, ${pct(stack4.reuseWithoutTail)} reuse without the tail context, ${int(stack4.tokensPerCall - stack4.cacheablePerCall)} uncached tokens per call.`,
    );
  return out;
}

async function main(): Promise<void> {
  const cli = benchArgs(LOCOMO_PATH, {
    all: { type: "boolean", default: false },
    only: { type: "string" },
    concurrency: { type: "string" },
    conversation: { type: "string" },
  });
  const values = cli.values;
  const all = loadLocomo(cli.data);
  const conversations = values.all ? all : [pickConversation(all, values.conversation, cli.data)];
  const configs = configurations().filter((c) => !values.only || c.name.includes(values.only));
  const results: BenchResult[] = [];
  const started = Date.now();
  // Configurations run concurrently: a replay spends most of its time waiting on the graph's
  // scheduler, so interleaving a few of them shortens the run without changing any figure.
  const concurrency = Number(values.concurrency ?? 2);
  const perConfig: BenchResult[][] = new Array(configs.length);
  let next = 0;
  const worker = async () => {
    while (next < configs.length) {
      const index = next;
      next += 1;
      const config = configs[index] as BenchConfig;
      const rows: BenchResult[] = [];
      for (const conversation of conversations) {
        const figures = measure(await recordInputs(conversation, config));
        rows.push({ config: config.name, mode: config.mode ?? "—", conversation: conversation.sampleId, ...figures });
      }
      perConfig[index] = rows;
      console.error(`${config.name} [${config.mode ?? "—"}] done`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  for (const perConversation of perConfig) {
    if (perConversation.length === 1) results.push(perConversation[0] as BenchResult);
    else {
      // Pooled over conversations: shares over all consecutive pairs, means over all calls.
      const calls = perConversation.reduce((s, r) => s + r.calls, 0);
      const pairs = perConversation.reduce((s, r) => s + r.calls - 1, 0);
      const first = perConversation[0] as BenchResult;
      results.push({
        config: first.config,
        mode: first.mode,
        conversation: `all ${perConversation.length}`,
        calls,
        strictReuse: perConversation.reduce((s, r) => s + r.strictReuse * (r.calls - 1), 0) / pairs,
        reuseWithoutTail: perConversation.reduce((s, r) => s + r.reuseWithoutTail * (r.calls - 1), 0) / pairs,
        tokensPerCall: perConversation.reduce((s, r) => s + r.tokensPerCall * r.calls, 0) / calls,
        cacheablePerCall: perConversation.reduce((s, r) => s + r.cacheablePerCall * r.calls, 0) / calls,
      });
    }
  }
  const scope = values.all
    ? `all ${conversations.length} LoCoMo conversations of ${basename(cli.data)}`
    : `LoCoMo ${(conversations[0] as (typeof conversations)[number]).sampleId}`;
  const table = formatTable(results);
  const doc = [
    `# Placement and eviction: prompt-prefix reuse on ${scope}`,
    "",
    `Command: \`pnpm tsx bench/placement.ts${values.all ? " --all" : ""}\` (offline, deterministic; ${((Date.now() - started) / 1000).toFixed(0)} s on the machine that wrote this file).`,
    "",
    table,
    "",
    "Findings:",
    ...findings(results),
    "",
    "How to read it:",
    "- *prefix reuse, strict*: share of model calls 2..N whose input, serialized as the OpenAI chat-completions provider sends it (system + messages, via `@langchain/openai`'s converter), starts with the whole previous input. This is the figure a provider prompt cache sees.",
    "- *reuse without tail context*: the same share after removing the stable_tail context message from both inputs. In stable_tail the previous call's context message sits where the next call has the previous answer, so strict reuse is near 0 by design while everything before the tail survives; this column shows that part. It is not a cache-hit figure.",
    "- *tokens sent / call*: mean o200k_base tokens of the serialized input, summed per message (each message's JSON text; the brackets and commas between messages are not counted). *cacheable tokens / call*: mean tokens of the longest common prefix with the previous call's input (whole shared messages, plus the shared start of the first message that differs; call 1 counts 0). This is what a provider prefix cache can serve, whatever the strict figure; *uncached tokens / call* is the difference, the part paid at full price.",
    `- The rows named by a window alone (full history, sliding, chunked) and the stand-in stacks add a \`facts\` block that changes every turn (the turn number), placed by the row's mode; the *plain* rows and the anchor have no context block; the *threadwise stack* rows carry what \`summarize\` and \`factRecall\` place. The anchor row is LangChain's \`summarizationMiddleware\` (trigger 40 messages, keep 20) with a deterministic extractive fake summarizer (first 12 words of each summarized user line, at most 1,200 characters); issue 3 quotes ${pct(ANCHOR_REFERENCE.reuse)} reuse and ${int(ANCHOR_REFERENCE.tokensPerCall)} tokens/call for it on conv-26 (and ${pct(ANCHOR_REFERENCE.slidingReuse)} for a plain 20-message window), measured with a real summarizer and its own token count, so our token figures are comparable in size, not equal.`,
    "- *summary stand-in*: a block with an extractive summary of the messages outside a `windowTrim` window (same placement path), to combine summaries with any eviction; its text changes whenever the window moves. The *threadwise stack* rows use the real `summarize` (which does its own windowing: the view is the messages its summary does not cover, 20 to 40 of them) with its offline `extractiveSummarizer`, and the real `factRecall` in heuristic mode.",
  ].join("\n");
  if (cli.json) printJson({ bench: "placement", data: cli.data, scope, results });
  else console.log(table);
  if (values.only || !cli.writesResults) {
    console.error("\n--only, --data or --json given: bench/results/placement.md left as it was");
    return;
  }
  mkdirSync(dirname(RESULTS_PATH), { recursive: true });
  writeFileSync(RESULTS_PATH, `${doc}\n`);
  console.error(`\nwrote ${RESULTS_PATH}`);
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) await main();
