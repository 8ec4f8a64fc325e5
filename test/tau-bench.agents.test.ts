/**
 * The tau-bench airline dev runs through `createAgent` with each documented stack (issue 12): the
 * root README's `[windowTrim(), summarize()]`, `memoryStack()`, and the stack each package README
 * shows, each also with tight options so that windows, summaries and caps really cut on these
 * ~26-message runs; and LangChain's toolCallLimitMiddleware, contextEditingMiddleware and
 * summarizationMiddleware in the same list as threadwise's. Every request the agent's model and
 * every side model (summarizer, condenser) receives is checked by the strict provider validator
 * of `@threadwise/core/testing` (OpenAI, Anthropic, Gemini, Bedrock rules): 0 rejections.
 *
 * TAU_AGENT_RUNS sets how many runs each stack replays (default 40 of 150; the slow suite's
 * `tau-bench.agents.slow.test.ts` replays all of them).
 */
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
  summarizationMiddleware,
  toolCallLimitMiddleware,
} from "langchain";
import { describe, expect, it } from "vitest";
import { TAU_AIRLINE_PATH } from "../data/paths.js";
import { loadAirlineRuns } from "../examples/support/tau-replay.js";
import { describeRejections, type SideModels, sweep } from "./support/tau-agents.js";

type Stack = (side: SideModels) => { middleware: readonly AgentMiddleware[]; checkpointer?: unknown };

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
  "history-seed [historySeed(50), windowTrim(20)]": () => ({ middleware: [historySeed({ maxMessages: 50 }), windowTrim({ maxMessages: 20 })] }),
  "persist-trim [summarize(), persistTrim(60)]": (s) => ({ middleware: [summarize({ model: s.summarizer }), persistTrim({ keepGroups: 60 })] }),
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
  "[summarize(6/8), windowTrim(6)]": (s) => ({
    middleware: [summarize({ model: s.summarizer, windowSize: 6, threshold: 8 }), windowTrim({ maxMessages: 6 })],
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
      summarize({ model: s.summarizer, windowSize: 6, threshold: 8 }),
      windowTrim({ maxMessages: 6 }),
      toolCallLimitMiddleware({ threadLimit: 12, exitBehavior: "continue" }),
      contextEditingMiddleware({ edits: [new ClearToolUsesEdit({ trigger: { tokens: 1500 }, keep: { messages: 1 } })] }),
      summarizationMiddleware({ model: s.summarizer as never, trigger: { messages: 12 }, keep: { messages: 4 } }),
    ],
  }),
};

const RUNS = Number(process.env.TAU_AGENT_RUNS ?? 40);
const runs = loadAirlineRuns(TAU_AIRLINE_PATH).slice(0, RUNS);

/** Replays the runs through each stack of `stacks`; prints and returns the totals. */
export async function sweepStacks(group: string, stacks: Record<string, Stack>, selected = runs) {
  const totals = { stacks: 0, turns: 0, requests: 0, rejections: 0 };
  const failures: string[] = [];
  for (const [name, stack] of Object.entries(stacks)) {
    const count = await sweep(selected, stack);
    totals.stacks += 1;
    totals.turns += count.turns;
    totals.requests += count.requests;
    totals.rejections += count.rejections.length;
    console.log(`[tau agents] ${group} ${name}: ${count.runs} runs, ${count.turns} turns, ${count.requests} requests checked, ${count.rejections.length} rejected`);
    if (count.rejections.length > 0) failures.push(`${name}:\n${describeRejections(count, 3)}`);
  }
  console.log(`[tau agents] ${group} total: ${JSON.stringify(totals)}`);
  return { totals, failures };
}

describe(`tau-bench airline through createAgent (${RUNS} runs per stack), strict provider validator`, () => {
  it("every documented stack: 0 rejected requests", async () => {
    const { totals, failures } = await sweepStacks("documented", DOCUMENTED_STACKS);
    expect(failures.join("\n\n")).toBe("");
    expect(totals.requests).toBeGreaterThan(RUNS * 12);
  }, 600_000);

  it("the same stacks with tight options: 0 rejected requests", async () => {
    const { totals, failures } = await sweepStacks("tight", TIGHT_STACKS);
    expect(failures.join("\n\n")).toBe("");
    expect(totals.rejections).toBe(0);
  }, 600_000);

  it("LangChain's toolCallLimit, contextEditing and summarization middlewares in the same list: 0 rejected requests", async () => {
    const { failures } = await sweepStacks("langchain", LANGCHAIN_STACKS);
    expect(failures.join("\n\n")).toBe("");
  }, 600_000);
});
