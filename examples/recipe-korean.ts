/**
 * Recipe "a Korean-language assistant" (root README, Choose your stack).
 *
 *   memoryStack({ factsMode: "heuristic" }) inside hideMemoryState(createAgent(...))
 *
 * The same preset: fact extraction has Korean rules ("저는 서울에 살아요", "부산으로 이사했어요"),
 * and recall's tokenizer strips Korean particles, so "비밀번호가" finds "비밀번호는". Token counts
 * use the model's tokenizer, which spends more tokens per character on Hangul than on English,
 * so keep the window in messages and add `maxHistoryTokens` if calls grow too large.
 * A scripted conversation of 25 turns: the user's residence changes early on, a code is given
 * once; both are asked about after they left the window. Checks that the newer residence is
 * recalled as a fact, the code by recall, and that what left the window was summarized.
 *
 * Offline by default (a scripted model; summaries by `extractiveSummarizer()`). With
 * `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` answers and summarizes.
 *
 *   pnpm tsx examples/recipe-korean.ts
 */
import assert from "node:assert/strict";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { hideMemoryState, memoryStack } from "@threadwise/memory";
import { extractiveSummarizer } from "@threadwise/summarize";
import { type AgentMiddleware, createAgent } from "langchain";
import { exampleModel, modelInputRecorder, preview } from "./support/live-model.js";

const { model, live } = await exampleModel(() => scriptedModel(() => "네, 알겠어요."));
const recorder = modelInputRecorder();
const stack = memoryStack({ factsMode: "heuristic", logger: false, ...(live ? {} : { models: { summarize: extractiveSummarizer() } }) });
const middleware: AgentMiddleware[] = [...stack.middleware, recorder.middleware];
const agent = hideMemoryState(
  createAgent({
    model,
    systemPrompt: "당신은 친절한 한국어 비서입니다.",
    ...stack,
    middleware,
  }),
);
const config = { configurable: { thread_id: "ko-user-7" } };
const say = (text: string) => agent.invoke({ messages: [new HumanMessage(text)] }, config);

await say("저는 서울에 살아요. 개발자로 일하고 있어요.");
await say("제 사물함 비밀번호는 4417이에요.");
await say("지난달에 부산으로 이사했어요.");
const chat = ["오늘 날씨가 정말 좋네요.", "점심으로 김치찌개를 먹었어요.", "주말에 영화를 볼까 해요.", "요즘 운동을 시작했어요."];
for (let i = 0; i < 20; i += 1) await say(`${chat[i % chat.length]} (${i + 1})`);

await say("제가 사는 곳 근처에 괜찮은 카페 있을까요?");
const where = recorder.calls.at(-1);
await say("사물함 비밀번호가 뭐였죠?");
const code = recorder.calls.at(-1);
assert.ok(where && code, "the model was called");

console.log(`middleware: ${stack.middleware.map((m) => m.name).join(" -> ")}`);
console.log(
  `"제가 사는 곳 근처에 괜찮은 카페 있을까요?" -> sent ${where.messages.length} of ${where.stored} messages; facts: ${preview(where.system.slice(where.system.indexOf("[Known facts")), 120)}`,
);
console.log(`"사물함 비밀번호가 뭐였죠?" -> recall: ${preview(code.system.slice(code.system.indexOf("[Recalled")), 140)}`);

const sentText = (call: typeof where) => call.messages.map((m) => m.text).join("\n");
assert.ok(!sentText(where).includes("부산으로 이사"), "the move left the window");
assert.ok(where.system.includes("부산"), "the newer residence is placed as a fact");
assert.ok(!sentText(code).includes("4417"), "the code left the window");
assert.ok(code.system.slice(code.system.indexOf("[Recalled")).includes("4417"), "recall brings the code back");
assert.ok(code.system.includes("[Previous conversation summary]"), "what left the window was summarized");
console.log("recipe Korean assistant: ok");
