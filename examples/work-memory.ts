/**
 * `@threadwise/work-memory`: after a run ends with a complete answer, the answer is condensed into
 * a short note and kept in a bounded envelope that later model calls see (spec R18).
 *
 * A recorded tau-bench airline conversation (a customer cancels a reservation, with tool calls) is
 * replayed through `createAgent` with `workMemory({ maxItems: 3 })` first in `middleware` (before
 * any output check) and a short `windowTrim({ maxMessages: 6 })`, on a MemorySaver. After each user turn the example prints
 * whether the answer was stored (answers that ask the user something are not) and the envelope;
 * at the end, the `[Work memory]` block the model received although the turns it came from had
 * left the window.
 *
 * Offline by default: the recorded assistant turns are replayed, and the condensation call is
 * `extractiveSummarizer()` from `@threadwise/summarize` (sentences picked from the answer, labelled as
 * such; no model). With `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers and condenses.
 *
 *   pnpm tsx examples/work-memory.ts
 */
import { MemorySaver } from "@langchain/langgraph";
import { readSummarySlot } from "@threadwise/core";
import { replayModel } from "@threadwise/core/testing";
import { extractiveSummarizer } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { createAgent, HumanMessage } from "langchain";
import { exampleModel, modelInputRecorder, preview, systemTail } from "./support/live-model.js";
import { assistantSteps, loadAirlineRuns, replayScript, replayTools } from "./support/tau-replay.js";

const script = replayScript(loadAirlineRuns()[2] as Parameters<typeof replayScript>[0]);
const { model, live } = await exampleModel(() => replayModel(assistantSteps(script)));
const recorder = modelInputRecorder();
const log: string[] = [];
const agent = createAgent({
  model,
  tools: replayTools(script),
  systemPrompt: script.systemPrompt,
  checkpointer: new MemorySaver(),
  middleware: [
    // Before any output check, so its afterAgent runs after theirs (first is simplest).
    workMemory({
      maxItems: 3,
      maxCharacters: 1200,
      model: live ? undefined : extractiveSummarizer({ maxSentences: 3, maxCharacters: 300 }),
      logger: { info: (line) => log.push(line), warn: (line) => log.push(`warn: ${line}`) },
    }),
    windowTrim({ maxMessages: 6, logger: false }),
    recorder.middleware,
  ],
});

console.log(
  `workMemory({ maxItems: 3 }) + windowTrim({ maxMessages: 6 }) on ${script.threadId} (${live ? "live model" : "offline replay"})\n`,
);
const config = { configurable: { thread_id: script.threadId }, recursionLimit: 50 };
for (const [i, turn] of script.turns.entries()) {
  const before = log.length;
  const result = await agent.invoke({ messages: [new HumanMessage(turn.user)] }, config);
  const entries = readSummarySlot((await agent.graph.getState(config)).values).workMemory?.entries ?? [];
  console.log(`turn ${i + 1}: user: ${preview(turn.user, 90)}`);
  console.log(`  answer: ${preview(String(result.messages.at(-1)?.content ?? ""), 90)}`);
  console.log(
    `  ${log.slice(before).join("; ") || "(no work-memory log line)"}; envelope: ${entries.length} entr${entries.length === 1 ? "y" : "ies"}`,
  );
}

const last = recorder.calls.at(-1);
console.log(`\nLast model call: ${last?.messages.length} of ${last?.stored} stored messages in view. The memory it received:\n`);
console.log(systemTail(last?.system ?? "", script.systemPrompt));
