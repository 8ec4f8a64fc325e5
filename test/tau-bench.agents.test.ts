/**
 * The tau-bench airline dev runs through `createAgent` with each documented stack (issue 12): the
 * root README's `[windowTrim(), summarize()]`, `memoryStack()`, and the stack each package README
 * shows, each also with tight options so that windows, summaries and caps really cut on these
 * ~26-message runs; and LangChain's toolCallLimitMiddleware, contextEditingMiddleware and
 * summarizationMiddleware in the same list as threadwise's. Every request the agent's model and
 * every side model (summarizer, condenser) receives is checked by the strict provider validator
 * of `@threadwise/core/testing` (OpenAI, Anthropic, Gemini, Bedrock rules): 0 rejections.
 *
 * TAU_AGENT_RUNS sets how many runs each stack replays (default 3 of 150, to stay a fast test;
 * the slow suite's `tau-bench.agents.slow.test.ts` replays all of them).
 */
import { describe, expect, it } from "vitest";
import { TAU_AIRLINE_PATH } from "../data/paths.js";
import { loadAirlineRuns } from "../examples/support/tau-replay.js";
import { DOCUMENTED_STACKS, LANGCHAIN_STACKS, sweepStacks, TIGHT_STACKS } from "./support/tau-agents.js";

const RUNS = Number(process.env.TAU_AGENT_RUNS ?? 3);
const runs = loadAirlineRuns(TAU_AIRLINE_PATH).slice(0, RUNS);

describe(`tau-bench airline through createAgent (${RUNS} runs per stack), strict provider validator`, () => {
  it("every documented stack: 0 rejected requests, except the KNOWN FAILURES of test/support/known-view-failures.ts", async () => {
    const { totals, failures } = await sweepStacks("documented", DOCUMENTED_STACKS, runs);
    expect(failures.join("\n\n")).toBe("");
    expect(totals.rejections).toBe(0);
    expect(totals.requests).toBeGreaterThan(RUNS * 10);
  }, 600_000);

  it("the same stacks with tight options: 0 rejected requests, except the KNOWN FAILURES", async () => {
    const { totals, failures } = await sweepStacks("tight", TIGHT_STACKS, runs);
    expect(failures.join("\n\n")).toBe("");
    expect(totals.rejections).toBe(0);
  }, 600_000);

  it("LangChain's toolCallLimit, contextEditing and summarization middlewares in the same list: 0 rejected requests, except the KNOWN FAILURES", async () => {
    const { totals, failures } = await sweepStacks("langchain", LANGCHAIN_STACKS, runs);
    expect(failures.join("\n\n")).toBe("");
    expect(totals.rejections).toBe(0);
  }, 600_000);
});
