/**
 * `@threadwise/persist-trim`: the one destructive middleware. After each run it deletes older
 * groups from the stored thread (by message id), never past what the summary covers (spec R5).
 *
 * A real LoCoMo conversation is replayed through `createAgent` with `summarize` (window 10,
 * threshold 20) and `persistTrim({ keepGroups: 16 })` on a SQLite checkpointer in a temp
 * directory. Every few turns the example prints how many messages the SQLite thread holds and how
 * many the summary covers: the stored thread stays bounded, and everything deleted had already
 * been summarized. IRREVERSIBLE in real use: deleted messages are gone from the thread.
 *
 * Offline by default (recorded answers, `extractiveSummarizer()` as the summarizer). With
 * `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers and summarizes.
 *
 *   pnpm tsx examples/persist-trim.ts
 */
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { messageText, readSummarySlot } from "@threadwise/core";
import { persistTrim } from "@threadwise/persist-trim";
import { extractiveSummarizer, summarize } from "@threadwise/summarize";
import { createAgent, HumanMessage } from "langchain";
import { exampleModel, preview } from "./support/live-model.js";
import { loadConversationSlice, replayConversation } from "./support/locomo-slice.js";
import { exampleTempDir } from "./support/temp-dir.js";

const slice = loadConversationSlice();
const { model, live } = await exampleModel(() => replayConversation(slice.exchanges, () => "(no recorded answer)"));
const sqlitePath = join(exampleTempDir("persist-trim"), "threads.sqlite");
const agent = createAgent({
  model,
  systemPrompt: `You are ${slice.assistant}, a close friend of ${slice.user}.`,
  checkpointer: SqliteSaver.fromConnString(sqlitePath),
  middleware: [
    summarize({ windowSize: 10, threshold: 20, model: live ? undefined : extractiveSummarizer(), logger: false }),
    persistTrim({ keepGroups: 16, logger: false }),
  ],
});

console.log(`summarize(10/20) + persistTrim({ keepGroups: 16 }) on SQLite ${sqlitePath} (${live ? "live model" : "offline replay"})\n`);
console.log("turn  messages written so far  stored in SQLite  covered by the summary  oldest stored message");
const config = { configurable: { thread_id: "locomo-conv-26-persist-trim" } };
let written = 0;
for (const [i, exchange] of slice.exchanges.slice(0, 40).entries()) {
  await agent.invoke({ messages: [new HumanMessage(exchange.user)] }, config);
  written += 2;
  if ((i + 1) % 5 !== 0) continue;
  const values = (await agent.graph.getState(config)).values as { messages: BaseMessage[] };
  const summary = readSummarySlot(values).summary;
  console.log(
    `${String(i + 1).padStart(4)}  ${String(written).padStart(23)}  ${String(values.messages.length).padStart(15)}  ${String(summary?.coveredCount ?? 0).padStart(22)}  ${preview(messageText(values.messages[0] as BaseMessage), 40)}`,
  );
}
const values = (await agent.graph.getState(config)).values;
const summary = readSummarySlot(values).summary;
console.log(`\nThe summary (it survives the trim; ${summary?.coveredCount} messages covered):\n${preview(summary?.text ?? "", 400)}`);
