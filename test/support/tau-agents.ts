/**
 * The tau-bench airline runs replayed through `createAgent` under a middleware stack, with strict
 * fake models (`@threadwise/core/testing`) that record every request a provider would refuse: the
 * agent's replay model and every model a middleware calls (summarizers, condensers). Used by the
 * sweeps of documented stacks (issue 12).
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, type ProviderRejection, replayModel, type StrictFakeModel, scriptedModel } from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { historyAware } from "@threadwise/history-aware";
import { historySeed } from "@threadwise/history-seed";
import { memoryStack } from "@threadwise/memory";
import { persistTrim } from "@threadwise/persist-trim";
import { recall } from "@threadwise/recall";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import {
  type AgentMiddleware,
  ClearToolUsesEdit,
  contextEditingMiddleware,
  createAgent,
  summarizationMiddleware,
  toolCallLimitMiddleware,
} from "langchain";
import { assistantSteps, type RecordedRun, replayScript, replayTools } from "../../examples/support/tau-replay.js";
import { emptyKnownCounts, type KnownCounts, type KnownViewFailure, knownRefusal } from "./known-view-failures.js";

/** A run cut after its last final answer (some runs end on a tool call, which a replay cannot answer). */
export function answeredPart(run: RecordedRun): RecordedRun {
  let last = -1;
  run.traj.forEach((m, i) => {
    if (m.role === "assistant" && (m.tool_calls ?? []).length === 0) last = i;
  });
  return { ...run, traj: run.traj.slice(0, last + 1) };
}

/** Strict side models a stack may need; every one records its own refused requests. */
export interface SideModels {
  /** For summarize, persist-trim and LangChain's summarizationMiddleware. */
  summarizer: StrictFakeModel;
  /** For workMemory. */
  condenser: StrictFakeModel;
}

/** Fresh side models: answers depend only on the input, so runs are deterministic. */
export function sideModels(): SideModels {
  return {
    summarizer: scriptedModel(
      (messages) =>
        `Summary: ${messageText(messages[messages.length - 1] as never)
          .slice(-60)
          .replace(/\s+/g, " ")}`,
      { onViolation: "record", providers: PROVIDERS },
    ),
    condenser: scriptedModel((messages) => `Note: ${messageText(messages[messages.length - 1] as never).slice(0, 40)}`, {
      onViolation: "record",
      providers: PROVIDERS,
    }),
  };
}

/** What one sweep counted. */
export interface SweepCount {
  runs: number;
  turns: number;
  /** Requests checked: the agent's model calls plus every side-model call. */
  requests: number;
  /** Refused requests of a kind not listed in `known-view-failures.ts`, with where they happened. */
  rejections: Array<ProviderRejection & { run: number; model: string }>;
  /** Refused requests of a known, reported kind (`test/support/known-view-failures.ts`). */
  known: KnownCounts;
}

/**
 * Replays `runs` through `createAgent` with the middleware `stack(side)` builds, one thread per
 * run on a MemorySaver (or the stack's own checkpointer), turn by turn. Nothing throws on a
 * refused request; every refusal is counted.
 */
export async function sweep(
  runs: readonly RecordedRun[],
  stack: (side: SideModels) => { middleware: readonly AgentMiddleware[]; checkpointer?: unknown },
): Promise<SweepCount> {
  const count: SweepCount = { runs: 0, turns: 0, requests: 0, rejections: [], known: emptyKnownCounts() };
  for (const [r, run] of runs.entries()) {
    const script = replayScript(answeredPart(run));
    if (script.turns.length === 0) continue;
    const side = sideModels();
    const model = replayModel(assistantSteps(script), { onViolation: "record", providers: PROVIDERS });
    const built = stack(side);
    const agent = createAgent({
      model,
      tools: replayTools(script),
      systemPrompt: script.systemPrompt,
      checkpointer: (built.checkpointer as MemorySaver | undefined) ?? new MemorySaver(),
      middleware: [...built.middleware] as AgentMiddleware[],
    });
    const config = { configurable: { thread_id: script.threadId }, recursionLimit: 200 };
    for (const turn of script.turns) {
      await agent.invoke({ messages: [new HumanMessage(turn.user)] }, config);
      count.turns += 1;
    }
    count.runs += 1;
    for (const [name, m] of [
      ["agent", model],
      ["summarizer", side.summarizer],
      ["condenser", side.condenser],
    ] as const) {
      count.requests += m.providerLog.requests;
      const inRun = new Set<KnownViewFailure>();
      for (const rejection of m.providerLog.rejected) {
        const sent = (m.calls[rejection.request]?.messages ?? []) as BaseMessage[];
        const classes = rejection.violations.map((v) => knownRefusal(v, sent));
        if (classes.every((k) => k !== undefined)) {
          for (const k of new Set(classes)) {
            count.known[k as KnownViewFailure].occurrences += 1;
            inRun.add(k as KnownViewFailure);
          }
        } else count.rejections.push({ ...rejection, run: r, model: name });
      }
      for (const k of inRun) count.known[k].cases += 1;
    }
  }
  return count;
}

/** One line per refused request (first violation), for a failure message. */
export function describeRejections(count: SweepCount, max = 10): string {
  return count.rejections
    .slice(0, max)
    .map((r) => {
      const v = r.violations[0];
      return `run ${r.run} ${r.model} request ${r.request}: ${v?.provider} ${v?.rule} at ${v?.index}: ${v?.message}`;
    })
    .join("\n");
}

/** A middleware stack built around fresh side models. */
export type Stack = (side: SideModels) => { middleware: readonly AgentMiddleware[]; checkpointer?: unknown };

/** The documented stacks, as each README writes them (side models passed where the README lets the agent's model summarize). */
export const DOCUMENTED_STACKS: Record<string, Stack> = {
  // README.md quick start.
  "README [windowTrim(), summarize()]": (s) => ({ middleware: [windowTrim(), summarize({ model: s.summarizer })] }),
  // packages/memory/README.md: memoryStack() from env, and with every part on.
  "memoryStack()": (s) => memoryStack({ env: {}, backend: "in_memory", models: { summarize: s.summarizer as never }, logger: false }),
  "memoryStack(all parts)": (s) =>
    memoryStack({
      env: {},
      backend: "in_memory",
      summarize: true,
      factsMode: "heuristic",
      workMemory: true,
      maxHistoryTokens: 8000,
      models: { summarize: s.summarizer as never, workMemory: s.condenser as never },
      logger: false,
    }),
  // packages/*/README.md.
  "fact-recall [factRecall({ maxItems: 3 })]": () => ({ middleware: [factRecall({ maxItems: 3 })] }),
  "history-aware [historyAware(), windowTrim(20)]": () => ({ middleware: [historyAware(), windowTrim({ maxMessages: 20 })] }),
  "history-seed [historySeed(50), windowTrim(20)]": () => ({
    middleware: [historySeed({ maxMessages: 50 }), windowTrim({ maxMessages: 20 })],
  }),
  "persist-trim [summarize(), persistTrim(60)]": (s) => ({
    middleware: [summarize({ model: s.summarizer }), persistTrim({ keepGroups: 60 })],
  }),
  "recall [factRecall(), windowTrim(20), recall(300)]": () => ({
    middleware: [factRecall(), windowTrim({ maxMessages: 20 }), recall({ maxTokens: 300 })],
  }),
  "summarize [summarize()]": (s) => ({ middleware: [summarize({ model: s.summarizer })] }),
  "token-cap [windowTrim(40), tokenCap(8000)]": () => ({ middleware: [windowTrim({ maxMessages: 40 }), tokenCap({ maxTokens: 8000 })] }),
  "window-trim [windowTrim(20)]": () => ({ middleware: [windowTrim({ maxMessages: 20 })] }),
  "work-memory [workMemory(3, 2000), windowTrim(20)]": (s) => ({
    middleware: [workMemory({ maxItems: 3, maxCharacters: 2000, model: s.condenser }), windowTrim({ maxMessages: 20 })],
  }),
};

/** The same stacks with options that cut on these runs (windows of 6, summaries every few messages, caps below the thread). */
export const TIGHT_STACKS: Record<string, Stack> = {
  "[windowTrim(6), summarize(6/8)]": (s) => ({
    middleware: [windowTrim({ maxMessages: 6 }), summarize({ model: s.summarizer, windowSize: 6, threshold: 8 })],
  }),
  "summarize(4/6) alone": (s) => ({ middleware: [summarize({ model: s.summarizer, windowSize: 4, threshold: 6 })] }),
  "memoryStack(window 6, 2500 tokens, all parts)": (s) =>
    memoryStack({
      env: {},
      backend: "in_memory",
      windowSize: 6,
      maxHistoryTokens: 2500,
      summarize: true,
      summarizeThreshold: 8,
      factsMode: "heuristic",
      workMemory: true,
      models: { summarize: s.summarizer as never, workMemory: s.condenser as never },
      logger: false,
    }),
  "[windowTrim(8, startOn human), tokenCap(2500)]": () => ({
    middleware: [windowTrim({ maxMessages: 8, startOn: "human" }), tokenCap({ maxTokens: 2500 })],
  }),
  "[historyAware(), windowTrim(4)]": () => ({ middleware: [historyAware(), windowTrim({ maxMessages: 4 })] }),
  "[summarize(4/6), persistTrim(4)]": (s) => ({
    middleware: [summarize({ model: s.summarizer, windowSize: 4, threshold: 6 }), persistTrim({ keepGroups: 4 })],
  }),
  "[workMemory, factRecall, windowTrim(6), recall(300)]": (s) => ({
    middleware: [
      workMemory({ maxItems: 3, maxCharacters: 2000, model: s.condenser }),
      factRecall({ mode: "heuristic" }),
      windowTrim({ maxMessages: 6 }),
      recall({ maxTokens: 300 }),
    ],
  }),
};

/** LangChain's own middlewares in the same list as threadwise's (humanInTheLoop is covered by the view tests). */
export const LANGCHAIN_STACKS: Record<string, Stack> = {
  "toolCallLimit + contextEditing + summarization + threadwise": (s) => ({
    middleware: [
      toolCallLimitMiddleware({ runLimit: 3 }),
      contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 2000 }, keep: { messages: 2 } })] }),
      summarizationMiddleware({ model: s.summarizer as never, trigger: { tokens: 3000 }, keep: { messages: 6 } }),
      windowTrim({ maxMessages: 10 }),
      summarize({ model: s.summarizer, windowSize: 8, threshold: 10 }),
      tokenCap({ maxTokens: 4000 }),
    ],
  }),
  "threadwise first, then toolCallLimit + contextEditing + summarization": (s) => ({
    middleware: [
      windowTrim({ maxMessages: 6 }),
      summarize({ model: s.summarizer, windowSize: 6, threshold: 8 }),
      toolCallLimitMiddleware({ threadLimit: 12, exitBehavior: "continue" }),
      contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 1500 }, keep: { messages: 1 } })] }),
      summarizationMiddleware({ model: s.summarizer as never, trigger: { messages: 12 }, keep: { messages: 4 } }),
    ],
  }),
};

/** Replays the runs through each stack of `stacks`; prints and returns the totals. */
export async function sweepStacks(group: string, stacks: Record<string, Stack>, selected: readonly RecordedRun[]) {
  const totals = { stacks: 0, turns: 0, requests: 0, rejections: 0, knownRejections: 0 };
  const failures: string[] = [];
  for (const [name, stack] of Object.entries(stacks)) {
    const count = await sweep(selected, stack);
    totals.stacks += 1;
    totals.turns += count.turns;
    totals.requests += count.requests;
    totals.rejections += count.rejections.length;
    console.log(
      `[tau agents] ${group} ${name}: ${count.runs} runs, ${count.turns} turns, ${count.requests} requests checked, ${count.rejections.length} rejected`,
    );
    if (count.rejections.length > 0) failures.push(`${name}:\n${describeRejections(count, 3)}`);
  }
  console.log(`[tau agents] ${group} total: ${JSON.stringify(totals)}`);
  return { totals, failures };
}
