/**
 * `@threadwise/user-memory`: what one conversation learned, the user's next conversation knows
 * (spec R40), on LangGraph's `Store`.
 *
 * Two users talk to one agent (MemorySaver for threads, InMemoryStore for user memory). Minji says
 * in her first thread that she is vegetarian and moved to Busan, in Korean and English; in a new
 * thread she asks where to eat near home. The example prints the user-memory block the model
 * received there, then shows that Jonas (another user) and a run without a user id get nothing of
 * Minji's, and finally erases Minji's memory (`eraseUserItems`) and asks again. Every claim is
 * checked; a failed check exits non-zero.
 *
 * Offline by default: a scripted model answers. With `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a
 * live `ChatOpenAI` answers.
 *
 *   pnpm tsx examples/user-memory.ts
 */
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { eraseUserItems, UserItemCodec, userMemory } from "@threadwise/user-memory";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent, HumanMessage } from "langchain";
import { exampleModel, modelInputRecorder, preview } from "./support/live-model.js";

const { model, live } = await exampleModel(() => scriptedModel(() => "Noted."));
const recorder = modelInputRecorder();
const store = new InMemoryStore();
const lines: string[] = [];
const agent = createAgent({
  model,
  systemPrompt: "You are a helpful local guide.",
  checkpointer: new MemorySaver(),
  store,
  middleware: [
    windowTrim({ maxMessages: 20, logger: { info: (line) => void lines.push(line), warn: (line) => console.warn(line) } }),
    userMemory({ promptContextMode: "legacy_system" }),
    recorder.middleware,
  ],
});

const say = async (content: string, configurable: Record<string, string>) => {
  await agent.invoke({ messages: [new HumanMessage(content)] }, { configurable });
  const call = recorder.calls.at(-1);
  const block = call?.system.split("[Memory from this user's other conversations]")[1];
  return { block: block?.trim() ?? "", line: lines.at(-1) ?? "" };
};
const check = (ok: boolean, claim: string) => {
  console.log(`${ok ? "ok  " : "FAIL"} ${claim}`);
  if (!ok) process.exitCode = 1;
};

console.log(`user memory across threads (${live ? "live model" : "offline, scripted model"})\n`);
await say("저는 채식주의자예요. 지난달에 부산으로 이사했어요.", { thread_id: "minji-1", user_id: "minji" });
await say("I also love spicy food, and I work as a nurse.", { thread_id: "minji-1", user_id: "minji" });
await say("I moved to Berlin in March.", { thread_id: "jonas-1", user_id: "jonas" });

const minji = await say("부산 집 근처에서 갈 만한 식당 추천해 줄래요?", { thread_id: "minji-2", user_id: "minji" });
console.log("Minji, new thread; the block the model received:");
for (const row of minji.block.split("\n")) console.log(`  ${preview(row, 110)}`);
console.log(`  ${minji.line}\n`);
check(minji.block.includes("부산"), "Minji's new thread recalls the move to Busan from her first thread");
check(minji.line.endsWith("user_memory=on"), "the multiturn line says user_memory=on");

const jonas = await say("Any restaurant tips near home?", { thread_id: "jonas-2", user_id: "jonas" });
check(!jonas.block.includes("부산") && !jonas.block.includes("nurse"), "Jonas's new thread holds nothing of Minji's");
const anonymous = await say("부산 집 근처 식당 추천해 줄래요?", { thread_id: "guest-1" });
check(
  anonymous.block === "" && anonymous.line.endsWith("user_memory=no_user_id"),
  "a run without user_id gets no user memory (user_memory=no_user_id)",
);

const erased = await eraseUserItems(store, { tenantId: "default", userId: "minji" }, new UserItemCodec());
console.log(`\nerased ${erased.items} item(s) of Minji's memory; her threads: ${erased.threadIds.join(", ")}`);
const after = await say("부산 집 근처에서 갈 만한 식당 추천해 줄래요?", { thread_id: "minji-3", user_id: "minji" });
check(after.block === "", "after the erase, a new thread of Minji's recalls nothing");
