/**
 * `@threadwise/history-aware`: from the second turn on, a short note at the end of the system
 * prompt tells the model the conversation has history (spec R7).
 *
 * The first exchanges of a real LoCoMo conversation (Caroline talks with a friend about a support
 * group, painting, family) are replayed through `createAgent` with `historyAware()` + `windowTrim`
 * and a MemorySaver. For each model call the example prints the end of the system prompt the model
 * received: no note on turn 1, the note from turn 2 on, byte-identical on every later turn (so a
 * provider's prompt cache keeps hitting).
 *
 * Offline by default (the recorded answers are replayed). With `OPENAI_API_KEY` (or
 * `OPENAI_BASE_URL`) a live `ChatOpenAI` answers the same user turns.
 *
 *   pnpm tsx examples/history-aware.ts
 */
import { MemorySaver } from "@langchain/langgraph";
import { historyAware } from "@threadwise/history-aware";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent, HumanMessage } from "langchain";
import { exampleModel, modelInputRecorder, preview, systemTail } from "./support/live-model.js";
import { loadConversationSlice, replayConversation } from "./support/locomo-slice.js";

const slice = loadConversationSlice();
const SYSTEM_PROMPT = `You are ${slice.assistant}, a close friend of ${slice.user}. Answer warmly, in two or three sentences.`;
const { model, live } = await exampleModel(() => replayConversation(slice.exchanges, () => "(no recorded answer)"));
const recorder = modelInputRecorder();
const agent = createAgent({
  model,
  systemPrompt: SYSTEM_PROMPT,
  checkpointer: new MemorySaver(),
  middleware: [historyAware({ logger: false }), windowTrim({ maxMessages: 20, logger: false }), recorder.middleware],
});

console.log(`historyAware() on LoCoMo conv-26, ${live ? "live model" : "offline replay"}\n`);
const config = { configurable: { thread_id: "locomo-conv-26-history-aware" } };
for (const exchange of slice.exchanges.slice(0, 4)) {
  const result = await agent.invoke({ messages: [new HumanMessage(exchange.user)] }, config);
  const call = recorder.calls.at(-1);
  const tail = call ? systemTail(call.system, SYSTEM_PROMPT) : "";
  console.log(`turn ${recorder.calls.length}: user: ${preview(exchange.user, 80)}`);
  console.log(`  assistant: ${preview(String(result.messages.at(-1)?.content ?? ""), 80)}`);
  console.log(`  system prompt ends with: ${tail === "" ? "(the operator's prompt only: no earlier answer yet)" : JSON.stringify(tail)}`);
}
const systems = recorder.calls.slice(1).map((c) => c.system);
console.log(`\nSystem prompt identical on every call from turn 2 on: ${systems.every((s) => s === systems[0])}`);
