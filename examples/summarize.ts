/**
 * `@threadwise/summarize`: history that leaves the window is summarized incrementally, and the
 * summary goes into the prompt (spec R10-R14).
 *
 * Six sessions of a real LoCoMo conversation (about 50 exchanges between Caroline and her friend
 * Melanie) are replayed through `createAgent` with `summarize({ windowSize: 10, threshold: 20 })`
 * and a MemorySaver. The example prints each time a summary is made (how many messages it covers,
 * and that only the previous summary plus the newly evicted messages were sent to the summarizer),
 * the number of messages each call sent, and at the end the summary block the model received.
 *
 * Offline by default: the recorded answers are replayed, and the summarizer is
 * `extractiveSummarizer()` from the package (sentences picked from the conversation, labelled as
 * such; no model). With `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers and
 * writes the summaries.
 *
 *   pnpm tsx examples/summarize.ts
 */
import { MemorySaver } from "@langchain/langgraph";
import { readSummarySlot } from "@threadwise/core";
import { extractiveSummarizer, summarize } from "@threadwise/summarize";
import { createAgent, HumanMessage } from "langchain";
import { exampleModel, modelInputRecorder, systemTail } from "./support/live-model.js";
import { loadConversationSlice, replayConversation } from "./support/locomo-slice.js";

const slice = loadConversationSlice();
const SYSTEM_PROMPT = `You are ${slice.assistant}, a close friend of ${slice.user}. Answer warmly, in two or three sentences.`;
const { model, live } = await exampleModel(() => replayConversation(slice.exchanges, () => "(no recorded answer)"));
// The summarizer's own calls, to show what each one received.
const summarizerInputs: number[] = [];
const offlineSummarizer = extractiveSummarizer({ maxSentences: 8 });
const summarizer = live
  ? undefined // the agent's live model
  : {
      invoke: async (input: unknown, options?: unknown) => {
        summarizerInputs.push(JSON.stringify(input).length);
        return offlineSummarizer.invoke(input as never, options as never);
      },
    };
const recorder = modelInputRecorder();
const agent = createAgent({
  model,
  systemPrompt: SYSTEM_PROMPT,
  checkpointer: new MemorySaver(),
  middleware: [summarize({ windowSize: 10, threshold: 20, model: summarizer, logger: false }), recorder.middleware],
});

console.log(
  `summarize({ windowSize: 10, threshold: 20 }) on LoCoMo conv-26, ${live ? "live model" : "offline replay + extractive summarizer"}\n`,
);
const config = { configurable: { thread_id: "locomo-conv-26-summarize" } };
let covered = 0;
let summaries = 0;
for (const exchange of slice.exchanges) {
  await agent.invoke({ messages: [new HumanMessage(exchange.user)] }, config);
  const call = recorder.calls.at(-1);
  const slot = readSummarySlot((await agent.graph.getState(config)).values);
  const now = slot.summary?.coveredCount ?? 0;
  if (now > covered) {
    summaries += 1;
    console.log(
      `call ${String(recorder.calls.length).padStart(2)}: thread ${call?.stored} messages -> summary #${summaries} now covers ${now} ` +
        `(+${now - covered} newly evicted); the model got ${call?.messages.length} messages + the summary`,
    );
    covered = now;
  }
}
const last = recorder.calls.at(-1);
console.log(
  `\n${recorder.calls.length} model calls, ${summaries} summarizer calls (one per period of 10 evicted messages, none in between).`,
);
if (!live) console.log(`Summarizer input sizes (characters of JSON): ${summarizerInputs.join(", ")}: flat, not growing with the thread.`);
console.log(`Last call: ${last?.stored} stored messages, ${last?.messages.length} sent. End of its system prompt:\n`);
console.log(systemTail(last?.system ?? "", SYSTEM_PROMPT));
