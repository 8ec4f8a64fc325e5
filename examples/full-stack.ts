/**
 * The whole threadwise stack through `memoryStack`, every feature on: an encrypted SQLite thread
 * (keyring created in a temp directory), history seeding, summaries, facts, work memory,
 * history-aware note, persist trim, window, token cap, and cache-friendly `stable_tail` placement.
 *
 * A gateway starts a new thread with the first exchanges of a real LoCoMo conversation as A2A
 * history; the rest of six sessions is replayed turn by turn; then the user asks about something
 * said long ago. For every few calls the example prints what was stored, what the model received
 * (messages, o200k_base tokens) and which memory blocks were placed; at the end it prints the last
 * memory context the model received, whether the system prompt stayed byte-identical, how many
 * messages persistTrim deleted, and that the SQLite file holds none of the conversation in plaintext.
 *
 * Offline by default: recorded answers, and `extractiveSummarizer()` for the summaries and the work
 * memory condensation (sentences picked from the text, labelled as such; no model). With
 * `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers, summarizes and condenses.
 *
 *   pnpm tsx examples/full-stack.ts
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { createTokenCounter, messageText, readSummarySlot, STABLE_TAIL_HEADER, tailContextOf } from "@threadwise/core";
import { createKeyring } from "@threadwise/encryption";
import { FACTS_STATE_KEY, type Fact } from "@threadwise/fact-recall";
import { memoryStack } from "@threadwise/memory";
import { extractiveSummarizer } from "@threadwise/summarize";
import { type AgentMiddleware, createAgent, HumanMessage, SystemMessage } from "langchain";
import { exampleModel, type ModelInput, modelInputRecorder, ONESHOT, preview } from "./support/live-model.js";
import { loadConversationSlice, replayConversation } from "./support/locomo-slice.js";
import { exampleTempDir } from "./support/temp-dir.js";

const slice = loadConversationSlice();
const SYSTEM_PROMPT = `You are ${slice.assistant}, a close friend of ${slice.user}. Answer warmly, in two or three sentences.`;
const dir = exampleTempDir("full-stack");
const keyring = createKeyring(join(dir, "keyring.json"));
const sqlitePath = join(dir, "companion_memory.sqlite");

const { model, live } = await exampleModel(() =>
  replayConversation(slice.exchanges, () => "(offline replay: no recorded answer; a live model would answer from the memory above)"),
);
const offline = live
  ? {}
  : { summarize: extractiveSummarizer(), workMemory: extractiveSummarizer({ maxSentences: 2, maxCharacters: 300 }) };
const log: string[] = [];
const stack = memoryStack({
  env: {}, // everything in code here; see examples/memory.ts for the env route
  backend: "sqlite",
  sqlitePath,
  keyringPath: keyring.path,
  encryption: { agentId: "companion" },
  windowSize: 12,
  maxHistoryTokens: 3000,
  summarize: true,
  summarizeThreshold: 24,
  factsMode: "heuristic",
  factRecallMaxItems: 3,
  workMemory: true,
  historyAware: true,
  persistTrimKeepGroups: 40,
  historySeedMaxMessages: 20,
  promptContextMode: "stable_tail",
  models: offline,
  logger: { info: (line) => log.push(line), warn: (line) => log.push(`warn: ${line}`) },
});
const recorder = modelInputRecorder();
if (!stack.checkpointer) throw new Error("memoryStack returned no checkpointer for the sqlite backend");
const agent = createAgent({
  model,
  systemPrompt: SYSTEM_PROMPT,
  checkpointer: stack.checkpointer,
  middleware: [...stack.middleware, recorder.middleware] as AgentMiddleware[],
});

console.log(`memoryStack, all features; ${live ? "live model" : "offline replay"}; encrypted SQLite ${sqlitePath}`);
console.log(`  ${stack.middleware.map((m) => m.name.replace("threadwise/", "")).join(" -> ")}\n`);

const counter = createTokenCounter({ encoding: "o200k_base" });
const LABELS = { summary: "[Previous conversation summary]", facts: "[Known facts about the user]", work: "[Work memory]" };
/** The stable_tail memory context the call received (on the newest user message, or a context message). */
function contextOf(call: ModelInput): string {
  return call.messages
    .map(tailContextOf)
    .filter((text) => text !== undefined)
    .join("\n");
}
function blocksOf(call: ModelInput): string {
  const context = contextOf(call);
  const found = Object.entries(LABELS)
    .filter(([, label]) => context.includes(label) || call.system.includes(label))
    .map(([name]) => name);
  return found.length > 0 ? found.join("+") : "-";
}

const config = { configurable: { thread_id: "a2a-ctx-conv-26" } };
const seeded = slice.exchanges.slice(0, 4);
const seedHistory = seeded.flatMap((e) => [
  { role: "user", parts: [{ kind: "text", text: e.user }] },
  { role: "agent", parts: [{ kind: "text", text: e.assistant }] },
]);
const replayed = slice.exchanges.slice(4, ONESHOT ? 26 : undefined);
console.log("call  stored  sent msgs  tokens sent  memory placed");
for (const [i, exchange] of replayed.entries()) {
  await agent.invoke({ messages: [new HumanMessage(exchange.user)] }, i === 0 ? { ...config, context: { seedHistory } } : config);
  const call = recorder.calls.at(-1) as ModelInput;
  if (i < 2 || i % 5 === 4) {
    const tokens = counter.countMessages([new SystemMessage(call.system), ...call.messages]);
    console.log(
      `${String(recorder.calls.length).padStart(4)}  ${String(call.stored).padStart(6)}  ${String(call.messages.length).padStart(9)}  ${String(tokens).padStart(11)}  ${blocksOf(call)}`,
    );
  }
}
const question = "Remind me, why did I choose that adoption agency?";
const answer = await agent.invoke({ messages: [new HumanMessage(question)] }, config);
const last = recorder.calls.at(-1) as ModelInput;

console.log(`\nuser: ${question}`);
console.log(`assistant: ${preview(String(answer.messages.at(-1)?.content ?? ""), 140)}`);
console.log(`memory context of that call (stable_tail: after the newest user message, never stored):`);
const context = contextOf(last);
for (const line of context.replace(STABLE_TAIL_HEADER, "").trim().split("\n")) console.log(`  ${preview(line, 130)}`);

const values = (await agent.graph.getState(config)).values as Record<string, unknown> & { messages: BaseMessage[] };
const slot = readSummarySlot(values);
const facts = (values[FACTS_STATE_KEY] as { facts: Fact[] } | undefined)?.facts ?? [];
const systems = recorder.calls.slice(1).map((c) => c.system);
const written = 2 * (seeded.length + replayed.length + 1);
console.log(`\nseeded: ${log.find((l) => l.startsWith("history_seed")) ?? "-"}`);
console.log(
  `stored: ${values.messages.length} of ${written} messages written (persistTrim deleted the summarized rest); summary covers ${slot.summary?.coveredCount ?? 0}`,
);
console.log(
  `facts: ${facts.length}; work-memory entries: ${slot.workMemory?.entries.length ?? 0}; work_memory log: ${log.filter((l) => l.startsWith("work_memory: stored")).length} stored, ${log.filter((l) => l.startsWith("work_memory: skipped")).length} skipped`,
);
console.log(`system prompt byte-identical from call 2 on: ${systems.every((s) => s === systems[0])}`);
const bytes = [sqlitePath, `${sqlitePath}-wal`].filter(existsSync).map((p) => readFileSync(p).toString("latin1"));
const probes = ["LGBTQ support group", "transgender conference", slice.exchanges[10]?.user.slice(0, 30) ?? ""];
console.log(
  `plaintext of the conversation in the SQLite files: ${probes.filter((p) => bytes.some((b) => b.includes(p))).length} of ${probes.length} probes found`,
);

// The claims above, checked: a failed check exits non-zero.
const fallbacks = values.messages.filter((m) => m.getType() === "ai" && messageText(m).startsWith("(offline replay: no recorded answer"));
if (!live) assert.ok(fallbacks.length <= 1, `every replayed turn was answered from the recording (${fallbacks.length} were not)`);
assert.ok(
  context.includes(LABELS.summary) && context.includes(LABELS.facts),
  "the last call received the summary and the facts after the user's message",
);
assert.ok(
  systems.every((s) => s === systems[0]),
  "the system prompt stayed byte-identical",
);
console.log("\nfull stack: ok");
