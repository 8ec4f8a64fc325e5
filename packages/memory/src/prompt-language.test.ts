import type { BaseMessage } from "@langchain/core/messages";
import { contentText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { DEFAULT_FACTS_LABELS } from "@threadwise/fact-recall";
import { DEFAULT_HISTORY_NOTES } from "@threadwise/history-aware";
import { DEFAULT_RECALL_LABELS } from "@threadwise/recall";
import { SUMMARY_BLOCK_LABELS } from "@threadwise/summarize";
import { DEFAULT_USER_MEMORY_LABELS } from "@threadwise/user-memory";
import { WORK_MEMORY_LABELS } from "@threadwise/work-memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { memoryStack } from "./memory-stack.js";

const SYSTEM = "You are a travel assistant.";

const conversations = {
  ko: {
    turns: [
      "저는 서울에 살아요. 다음 주 금요일에 부산으로 출장 가요.",
      "호텔은 해운대 근처가 좋아요.",
      "저녁에는 돼지국밥을 먹고 싶어요.",
      "회의는 오후 두 시에 시작해요.",
      "기차표는 KTX로 예매할게요.",
      "부산 출장은 무슨 요일이었죠?",
    ],
    otherThread: "안녕하세요, 제가 어디 사는지 기억해요?",
    answer: "네, 알겠어요. 부산 출장 준비를 도와드릴게요.",
  },
  en: {
    turns: [
      "I live in Seoul. Next Friday I go to Busan on a business trip.",
      "I'd like a hotel near Haeundae beach.",
      "For dinner I want to try pork soup.",
      "The meeting starts at two in the afternoon.",
      "I will book the KTX train tickets.",
      "Which day was the Busan business trip again?",
    ],
    otherThread: "Hello again, do you remember where I live?",
    answer: "Sure, I will help you get ready for the Busan trip.",
  },
};

const labels = {
  summary: SUMMARY_BLOCK_LABELS,
  recall: DEFAULT_RECALL_LABELS,
  facts: DEFAULT_FACTS_LABELS,
  userMemory: DEFAULT_USER_MEMORY_LABELS,
  workMemory: WORK_MEMORY_LABELS,
};

/** The system prompts the agent's model calls received (not the summarizer's or the condenser's) over both threads. */
async function systemPrompts(language: "ko" | "en", promptLanguage?: "en" | "ko" | "auto", env: NodeJS.ProcessEnv = {}): Promise<string> {
  const conversation = conversations[language];
  const seen: string[] = [];
  const model = scriptedModel((messages: BaseMessage[]) => {
    const system = contentText(messages[0]?.content);
    if (system.startsWith(SYSTEM)) seen.push(system);
    return conversation.answer;
  });
  const stack = memoryStack({
    env,
    windowSize: 4,
    summarizeThreshold: 6,
    factsMode: "heuristic",
    userMemory: true,
    workMemory: true,
    ...(promptLanguage ? { promptLanguage } : {}),
  });
  const agent = createAgent({ model, systemPrompt: SYSTEM, ...stack });
  for (const words of conversation.turns)
    await agent.invoke({ messages: [{ role: "user", content: words }] }, { configurable: { thread_id: `${language}-1`, user_id: "u1" } });
  await agent.invoke(
    { messages: [{ role: "user", content: conversation.otherThread }] },
    { configurable: { thread_id: `${language}-2`, user_id: "u1" } },
  );
  return seen.join("\n\n");
}

const systemPromptsWith = (env: NodeJS.ProcessEnv) => systemPrompts("ko", undefined, env);

describe("promptLanguage: the labels and notes the stack adds are in the conversation's language", () => {
  it.each([
    ["ko", "auto", "ko"],
    ["en", "auto", "en"],
    ["ko", undefined, "en"],
    ["en", "ko", "ko"],
  ] as const)(
    "a %s conversation with promptLanguage %s gets every block's label and the note in %s (was: English inside Korean prompts)",
    async (language, option, expected) => {
      const other = expected === "ko" ? "en" : "ko";
      const prompts = await systemPrompts(language, option);
      for (const [name, byLanguage] of Object.entries(labels)) {
        expect(prompts, name).toContain(`[${byLanguage[expected]}]`);
        expect(prompts, name).not.toContain(`[${byLanguage[other]}]`);
      }
      expect(prompts).toContain(DEFAULT_HISTORY_NOTES[expected]);
      expect(prompts).not.toContain(DEFAULT_HISTORY_NOTES[other]);
    },
  );

  it("THREADWISE_PROMPT_LANGUAGE in the stack's env sets it; a bad value names the variable", async () => {
    const prompts = await systemPromptsWith({ THREADWISE_PROMPT_LANGUAGE: "auto" });
    expect(prompts).toContain(`[${SUMMARY_BLOCK_LABELS.ko}]`);
    expect(prompts).toContain(DEFAULT_HISTORY_NOTES.ko);
    expect(() => memoryStack({ env: { THREADWISE_PROMPT_LANGUAGE: "korean" } })).toThrow(/THREADWISE_PROMPT_LANGUAGE/);
    expect(() => memoryStack({ env: {}, promptLanguage: "kr" as never })).toThrow(/promptLanguage/);
  });
});
