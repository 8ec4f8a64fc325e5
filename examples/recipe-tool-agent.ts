/**
 * Recipe "a tool-heavy agent" (root README, Choose your stack): many tool calls with large
 * results, where a message count says little about the size of a call.
 *
 *   memoryStack({ maxHistoryTokens: 3500, windowSize: 6, summarizeThreshold: 8 }) inside hideMemoryState(createAgent({ model, tools, ... }))
 *
 * The preset's window, summary and recall, plus `tokenCap` innermost: its budget counts the system
 * prompt, the tool schemas, the tool-call arguments and the results exactly as sent, and a tool
 * call always travels with its results (no orphan). Replays a recorded tau-bench airline run (a
 * replay model answers with the recorded assistant turns, the tools return the recorded results)
 * and checks: every call within the cap, no orphan in any view, the stored thread untouched, and
 * every message in the view or in the summary (the window and the threshold are sized so that
 * the summary keeps up with the cap without extra summarizer calls).
 *
 * Offline by default. With `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers the
 * same user turns.
 *
 *   pnpm tsx examples/recipe-tool-agent.ts
 */
import assert from "node:assert/strict";
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { createTokenCounter, findOrphans } from "@threadwise/core";
import { replayModel } from "@threadwise/core/testing";
import { hideMemoryState, memoryStack } from "@threadwise/memory";
import { extractiveSummarizer } from "@threadwise/summarize";
import { type AgentMiddleware, createAgent } from "langchain";
import { exampleModel, modelInputRecorder } from "./support/live-model.js";
import { assistantSteps, loadAirlineRuns, replayScript, replayTools } from "./support/tau-replay.js";

const MAX_TOKENS = 3500;
const script = replayScript(loadAirlineRuns()[0] as Parameters<typeof replayScript>[0]);
const { model, live } = await exampleModel(() => replayModel(assistantSteps(script)));
const recorder = modelInputRecorder();
// The multiturn line of every call (R6), to check that the cap never drops what no summary covers.
const lines: string[] = [];
const warnings: string[] = [];
const stack = memoryStack({
  maxHistoryTokens: MAX_TOKENS,
  // A window the cap can hold, and a summary due early: what leaves the window is summarized on
  // the summary's own schedule. With the default window (20 messages) and threshold (40) the cap
  // cuts inside the window, and has the summary cover what it cuts first (extra summarizer calls;
  // nothing is lost unless one fails, and tokenCap then warns).
  windowSize: 6,
  summarizeThreshold: 8,
  logger: { info: (line) => lines.push(line), warn: (message) => warnings.push(message) },
  // Offline, the replay model answers only the recorded turns: summaries come from elsewhere.
  ...(live ? {} : { models: { summarize: extractiveSummarizer() } }),
});
const middleware: AgentMiddleware[] = [...stack.middleware, recorder.middleware];
const agent = hideMemoryState(
  createAgent({
    model,
    tools: replayTools(script),
    systemPrompt: script.systemPrompt,
    ...stack,
    middleware,
  }),
);

const config = { configurable: { thread_id: script.threadId }, recursionLimit: 60 };
for (const turn of script.turns) await agent.invoke({ messages: [new HumanMessage(turn.user)] }, config);

// Counted as tokenCap counts (o200k_base): system prompt, tool schemas, messages with tool calls.
const counter = createTokenCounter({ encoding: "o200k_base" });
const sizes = recorder.calls.map(
  (call) => counter.countMessages([new SystemMessage(call.system)]) + counter.countTools(call.tools) + counter.countMessages(call.messages),
);
const orphans = recorder.calls.reduce((n, call) => n + findOrphans(call.messages).length, 0);
const stored = ((await stack.checkpointer?.getTuple(config))?.checkpoint.channel_values.messages ?? []) as BaseMessage[];
const toolResults = stored.filter((m) => m.getType() === "tool").length;
console.log(`middleware: ${stack.middleware.map((m) => m.name).join(" -> ")}`);
console.log(`${script.turns.length} user turns, ${recorder.calls.length} model calls, ${toolResults} tool results stored`);
console.log(
  `largest call: ${Math.max(...sizes)} tokens (cap ${MAX_TOKENS}); orphans in views: ${orphans}; stored messages: ${stored.length}`,
);

assert.ok(toolResults > 5, "a tool-heavy run");
assert.ok(Math.max(...sizes) <= MAX_TOKENS, "every call within the cap");
assert.equal(orphans, 0, "a tool call always travels with its results");
const unsummarizedDrops = lines.map((line) => Number(/unsummarized_dropped=(\d+)/.exec(line)?.[1] ?? 0));
console.log(`messages dropped by the cap that no summary covered: ${Math.max(...unsummarizedDrops)} at most per call`);
assert.ok(
  lines.some((line) => line.includes("summary_covers=")),
  "what left the window was summarized",
);
assert.ok(
  unsummarizedDrops.every((n) => n === 0),
  "every message is in the view or in the summary",
);
assert.deepEqual(warnings, [], "no warning");
assert.ok(stored.length > recorder.calls.at(-1)!.messages.length, "the view is cut; the stored thread is not");
console.log("recipe tool-heavy agent: ok");
