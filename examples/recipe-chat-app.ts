/**
 * Recipe "a chat app" (root README, Choose your stack): long conversations with one user per
 * thread, kept on disk.
 *
 *   memoryStack({ backend: "sqlite", factsMode: "heuristic" }) inside hideMemoryState(createAgent(...))
 *
 * The preset's window (20 messages), summary of what leaves it and recall, plus facts about the
 * user; `hideMemoryState` so a server forwarding the stream to a browser sends messages only.
 * Replays 30 exchanges of a real LoCoMo conversation, restarts (a new stack on the same SQLite
 * file) and checks: a summary was made and is placed, a fact was kept, the stream carries no
 * memory state, nothing stored was lost.
 *
 * Offline by default (recorded answers; summaries by `extractiveSummarizer()`). With
 * `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers and summarizes.
 *
 *   pnpm tsx examples/recipe-chat-app.ts
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { readSummarySlot } from "@threadwise/core";
import { hideMemoryState, memoryStack } from "@threadwise/memory";
import { extractiveSummarizer } from "@threadwise/summarize";
import { type AgentMiddleware, createAgent } from "langchain";
import { exampleModel, modelInputRecorder, preview } from "./support/live-model.js";
import { loadConversationSlice, replayConversation } from "./support/locomo-slice.js";
import { exampleTempDir } from "./support/temp-dir.js";

const slice = loadConversationSlice();
const sqlitePath = join(exampleTempDir("recipe-chat"), "chat.sqlite");
const { model, live } = await exampleModel(() => replayConversation(slice.exchanges, () => "Sounds good!"));
const recorder = modelInputRecorder();

/** One app process: the stack from code (env may override), the agent wrapped once. */
function app() {
  const stack = memoryStack({
    backend: "sqlite",
    sqlitePath,
    factsMode: "heuristic",
    logger: false,
    ...(live ? {} : { models: { summarize: extractiveSummarizer() } }),
  });
  const middleware: AgentMiddleware[] = [...stack.middleware, recorder.middleware];
  const agent = hideMemoryState(
    createAgent({
      model,
      systemPrompt: `You are ${slice.assistant}, a friend of ${slice.user}.`,
      ...stack,
      middleware,
    }),
  );
  return { agent, stack };
}

const config = { configurable: { thread_id: "chat-user-42" } };
const first = app();
const exchanges = slice.exchanges.slice(0, 30);
for (const exchange of exchanges) await first.agent.invoke({ messages: [new HumanMessage(exchange.user)] }, config);
console.log(`middleware: ${first.stack.middleware.map((m) => m.name).join(" -> ")}`);

// A restart: a new process builds the same stack on the same file.
const second = app();
const keys = new Set<string>();
const question = "Do you remember what I told you about my plans?";
for await (const chunk of await second.agent.stream({ messages: [new HumanMessage(question)] }, { ...config, streamMode: "values" })) {
  for (const key of Object.keys(chunk)) keys.add(key);
}
const stored = (await second.stack.checkpointer?.getTuple(config))?.checkpoint.channel_values ?? {};
const summary = readSummarySlot(stored).summary;
const last = recorder.calls.at(-1);
assert.ok(last, "the model was called");
console.log(`stored messages: ${(stored.messages as unknown[]).length}; sent on the last call: ${last.messages.length}`);
console.log(`summary covers ${summary?.coveredCount} messages: ${preview(summary?.text ?? "", 120)}`);
console.log(`stream chunk keys: ${[...keys].join(", ")}`);

assert.equal((stored.messages as unknown[]).length, exchanges.length * 2 + 2, "nothing stored was lost");
assert.ok(summary && summary.coveredCount > 0, "what left the window was summarized");
assert.ok(last.system.includes(summary.text.slice(0, 40)), "the summary is placed after the restart");
assert.ok(last.messages.length <= 21, "the window bounds what is sent");
assert.ok(JSON.stringify(stored._threadwise_facts ?? {}).length > 20, "facts about the user are kept");
assert.deepEqual([...keys], ["messages"], "the stream carries messages only");
console.log("recipe chat app: ok");
await second.stack.checkpointer?.close();
await first.stack.checkpointer?.close();
