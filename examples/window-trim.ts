/**
 * `@threadwise/window-trim`: only the newest messages go to the model, cut on whole groups.
 *
 * A recorded tau-bench airline support conversation (a customer changing a reservation, with many
 * tool calls) is replayed through `createAgent` with `windowTrim({ maxMessages: 8 })` and a
 * MemorySaver. For every model call it prints how many messages the thread holds and how many the
 * model received, and at the end the last view: it starts on a whole group (a tool call always
 * comes with its results) and the stored thread still holds everything.
 *
 * Offline by default (the recorded assistant turns and tool results are replayed). With
 * `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers the same user turns.
 *
 *   pnpm tsx examples/window-trim.ts
 */
import type { BaseMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { findOrphans } from "@threadwise/core";
import { replayModel } from "@threadwise/core/testing";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent, HumanMessage } from "langchain";
import { exampleModel, formatMessages, modelInputRecorder } from "./support/live-model.js";
import { assistantSteps, loadAirlineRuns, replayScript, replayTools } from "./support/tau-replay.js";

const script = replayScript(loadAirlineRuns()[0] as Parameters<typeof replayScript>[0]);
const { model, live } = await exampleModel(() => replayModel(assistantSteps(script)));
const recorder = modelInputRecorder();
const agent = createAgent({
  model,
  tools: replayTools(script),
  systemPrompt: script.systemPrompt,
  checkpointer: new MemorySaver(),
  middleware: [windowTrim({ maxMessages: 8, logger: false }), recorder.middleware],
});

console.log(`windowTrim({ maxMessages: 8 }) on ${script.threadId} (${live ? "live model" : "offline replay"})\n`);
console.log("call  stored  sent  first message of the view");
const config = { configurable: { thread_id: script.threadId }, recursionLimit: 50 };
for (const turn of script.turns) {
  const before = recorder.calls.length;
  await agent.invoke({ messages: [new HumanMessage(turn.user)] }, config);
  for (const [i, call] of recorder.calls.slice(before).entries()) {
    const first = call.messages[0];
    console.log(
      `${String(before + i + 1).padStart(4)}  ${String(call.stored).padStart(6)}  ${String(call.messages.length).padStart(4)}  ${first ? formatMessages([first], 60)[0]?.trim() : ""}`,
    );
  }
}

const last = recorder.calls.at(-1);
const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
console.log(`\nThe last call's view (${last?.messages.length} of ${last?.stored} stored messages):`);
for (const line of formatMessages(last?.messages ?? [])) console.log(line);
console.log(
  `\nStored thread after the run: ${stored.length} messages (nothing deleted). ` +
    `Orphans in any view: ${recorder.calls.reduce((n, c) => n + findOrphans(c.messages).length, 0)}.`,
);
