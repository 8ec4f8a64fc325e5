/**
 * `@threadwise/token-cap`: a token budget per model call, counted with js-tiktoken, system prompt
 * and tool schemas included.
 *
 * Part 1 replays a recorded tau-bench airline conversation (62 messages, large tool results)
 * through `createAgent` with `tokenCap({ maxTokens: 3500 })` and a MemorySaver, and prints for
 * every model call the tokens the full stored history would have cost next to the tokens sent.
 * Part 2 sets the cap below what the newest turn and its tool loop need: the oldest tool results
 * inside that turn are shortened in the view (never in the thread), with a marker.
 *
 * Offline by default (the recorded assistant turns and tool results are replayed). With
 * `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers the same user turns.
 *
 *   pnpm tsx examples/token-cap.ts
 */
import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createTokenCounter, messageText, messageType } from "@threadwise/core";
import { replayModel } from "@threadwise/core/testing";
import { tokenCap } from "@threadwise/token-cap";
import { createAgent, HumanMessage, SystemMessage } from "langchain";
import { exampleModel, type ModelInput, modelInputRecorder, preview } from "./support/live-model.js";
import { assistantSteps, loadAirlineRuns, type ReplayScript, replayScript, replayTools } from "./support/tau-replay.js";

const counter = createTokenCounter({ encoding: "o200k_base" });
const runs = loadAirlineRuns();

/** Tokens of one call as sent, and as it would have been with the whole stored thread. */
function tokens(call: ModelInput): { sent: number; full: number } {
  const fixed = counter.countMessages([new SystemMessage(call.system)]) + counter.countTools(call.tools);
  return { sent: fixed + counter.countMessages(call.messages), full: fixed + counter.countMessages(call.thread) };
}

async function replay(script: ReplayScript, maxTokens: number) {
  const { model, live } = await exampleModel(() => replayModel(assistantSteps(script)));
  const recorder = modelInputRecorder();
  const warnings: string[] = [];
  const agent = createAgent({
    model,
    tools: replayTools(script),
    systemPrompt: script.systemPrompt,
    checkpointer: new MemorySaver(),
    middleware: [
      tokenCap({ maxTokens, model: "gpt-4o", logger: { info: () => {}, warn: (line) => warnings.push(line) } }),
      recorder.middleware,
    ],
  });
  const config = { configurable: { thread_id: `${script.threadId}-cap${maxTokens}` }, recursionLimit: 60 };
  for (const turn of script.turns) await agent.invoke({ messages: [new HumanMessage(turn.user)] }, config);
  const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
  return { calls: recorder.calls, stored, warnings, live };
}

// Part 1: a cap that keeps the recent conversation.
const long = replayScript(runs[1] as Parameters<typeof replayScript>[0]);
const part1 = await replay(long, 3500);
console.log(`Part 1: tokenCap({ maxTokens: 3500 }) on ${long.threadId} (${part1.live ? "live model" : "offline replay"})`);
console.log("o200k_base tokens per call, system prompt (the airline policy) and tool schemas included\n");
console.log("call  stored msgs  sent msgs  tokens full history  tokens sent");
let fullSum = 0;
let sentSum = 0;
for (const [i, call] of part1.calls.entries()) {
  const t = tokens(call);
  fullSum += t.full;
  sentSum += t.sent;
  console.log(
    `${String(i + 1).padStart(4)}  ${String(call.stored).padStart(11)}  ${String(call.messages.length).padStart(9)}  ${String(t.full).padStart(19)}  ${String(t.sent).padStart(11)}`,
  );
}
console.log(
  `\n${part1.calls.length} calls: ${fullSum.toLocaleString("en-US")} tokens with the full history, ` +
    `${sentSum.toLocaleString("en-US")} sent (${Math.round((100 * (fullSum - sentSum)) / fullSum)}% less). ` +
    `The stored thread still holds all ${part1.stored.length} messages.`,
);

// Part 2: a cap below the newest turn's own tool loop: old tool results in that loop are shortened in the view.
const short = replayScript(runs[0] as Parameters<typeof replayScript>[0]);
const part2 = await replay(short, 2200);
const marked = part2.calls.flatMap((call) =>
  call.messages.filter((m) => messageType(m) === "tool" && messageText(m).includes("[threadwise: truncated")),
);
console.log(
  `\nPart 2: tokenCap({ maxTokens: 2200 }) on ${short.threadId}: the airline policy alone is ${counter.countText(short.systemPrompt)} tokens`,
);
console.log(`tool results shortened in views: ${marked.length}; e.g.`);
for (const m of marked.slice(0, 2)) console.log(`  ${preview(messageText(m), 60)} ... ${preview(messageText(m).slice(-40), 40)}`);
const intact = part2.stored.filter((m) => messageType(m) === "tool" && messageText(m).includes("[threadwise: truncated")).length;
console.log(`stored tool results with a marker: ${intact} (the stored thread is never changed)`);
if (part2.warnings[0]) console.log(`warning logged: ${part2.warnings[0]}`);
