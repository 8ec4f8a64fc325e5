/**
 * `@threadwise/memory`: the whole stack and its checkpointer from one call, configured by env
 * (spec R20, R31): `createAgent({ model, ...memoryStack() })`.
 *
 * The example writes an env (as a `.env` file would set it: SQLite backend in a temp directory,
 * window 12, token cap 3000, heuristic facts, summaries) and builds the stack from it with no other
 * code. It prints the middleware order the preset chose, replays a real LoCoMo conversation with
 * the per-call multiturn log line (R6), reopens the SQLite file with a second stack to show the
 * thread survives a restart, and shows the validation error a wrong value produces.
 *
 * Offline by default (recorded answers; summaries by `extractiveSummarizer()` from
 * `@threadwise/summarize`, passed through `models`). With `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live
 * `ChatOpenAI` answers and summarizes.
 *
 *   pnpm tsx examples/memory.ts
 */
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { memoryStack } from "@threadwise/memory";
import { extractiveSummarizer } from "@threadwise/summarize";
import { createAgent, HumanMessage } from "langchain";
import { exampleModel, ONESHOT } from "./support/live-model.js";
import { loadConversationSlice, replayConversation } from "./support/locomo-slice.js";
import { exampleTempDir } from "./support/temp-dir.js";

const slice = loadConversationSlice();
const dir = exampleTempDir("memory");
// What a deployment's .env would hold; nothing below names a backend or a size in code.
const env: NodeJS.ProcessEnv = {
  MEMORY_BACKEND: "sqlite",
  MEMORY_SQLITE_PATH: join(dir, "support_memory.sqlite"),
  MEMORY_WINDOW_SIZE: "12",
  MAX_HISTORY_TOKENS: "3000",
  MEMORY_FACTS_MODE: "heuristic",
  MEMORY_SUMMARIZE: "true",
  MEMORY_SUMMARIZE_THRESHOLD: "24",
};
console.log(
  "env:",
  Object.entries(env)
    .map(([k, v]) => `${k}=${v}`)
    .join(" "),
  "\n",
);

const { model, live } = await exampleModel(() => replayConversation(slice.exchanges, () => "(no recorded answer)"));
const lines: string[] = [];
const logger = { info: (line: string) => lines.push(line), warn: (line: string) => lines.push(`warn: ${line}`) };
const build = () => memoryStack({ env, logger, models: live ? {} : { summarize: extractiveSummarizer() } });

const stack = build();
console.log(`memoryStack(): checkpointer ${stack.checkpointer?.constructor.name}; middleware, outermost first:`);
console.log(`  ${stack.middleware.map((m) => m.name).join(" -> ")}\n`);

const agent = createAgent({ model, systemPrompt: `You are ${slice.assistant}, a friend of ${slice.user}.`, ...stack });
const config = { configurable: { thread_id: "locomo-conv-26-memory" } };
const exchanges = slice.exchanges.slice(0, ONESHOT ? 20 : 40);
for (const [i, exchange] of exchanges.entries()) {
  const before = lines.length;
  await agent.invoke({ messages: [new HumanMessage(exchange.user)] }, config);
  if (i < 2 || i % 6 === 5)
    console.log(
      `turn ${String(i + 1).padStart(2)}: ${lines
        .slice(before)
        .filter((l) => l.startsWith("multiturn"))
        .join("; ")}`,
    );
}

// A new process would build the same stack from the same env: the thread is in the SQLite file.
const reopened = createAgent({ model, systemPrompt: "unused", ...build() });
const stored = ((await reopened.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
console.log(`\nreopened from ${env.MEMORY_SQLITE_PATH}: ${stored.length} stored messages`);

try {
  memoryStack({ env: { ...env, MEMORY_BACKEND: "in-memory" } });
} catch (error) {
  console.log(`MEMORY_BACKEND=in-memory -> ${(error as Error).name}: ${(error as Error).message}`);
}
