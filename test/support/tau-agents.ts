/**
 * The tau-bench airline runs replayed through `createAgent` under a middleware stack, with strict
 * fake models (`@threadwise/core/testing`) that record every request a provider would refuse: the
 * agent's replay model and every model a middleware calls (summarizers, condensers). Used by the
 * sweeps of documented stacks (issue 12).
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { type ProviderRejection, replayModel, type StrictFakeModel, scriptedModel } from "@threadwise/core/testing";
import { type AgentMiddleware, createAgent } from "langchain";
import { assistantSteps, type RecordedRun, replayScript, replayTools } from "../../examples/support/tau-replay.js";

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
      (messages) => `Summary: ${messageText(messages[messages.length - 1] as never).slice(-60).replace(/\s+/g, " ")}`,
      { onViolation: "record" },
    ),
    condenser: scriptedModel((messages) => `Note: ${messageText(messages[messages.length - 1] as never).slice(0, 40)}`, {
      onViolation: "record",
    }),
  };
}

/** What one sweep counted. */
export interface SweepCount {
  runs: number;
  turns: number;
  /** Requests checked: the agent's model calls plus every side-model call. */
  requests: number;
  /** Refused requests, with where they happened. */
  rejections: Array<ProviderRejection & { run: number; model: string }>;
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
  const count: SweepCount = { runs: 0, turns: 0, requests: 0, rejections: [] };
  for (const [r, run] of runs.entries()) {
    const script = replayScript(answeredPart(run));
    if (script.turns.length === 0) continue;
    const side = sideModels();
    const model = replayModel(assistantSteps(script), { onViolation: "record" });
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
      for (const rejection of m.providerLog.rejected) count.rejections.push({ ...rejection, run: r, model: name });
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
