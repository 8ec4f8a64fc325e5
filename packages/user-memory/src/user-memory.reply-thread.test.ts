/**
 * A matched question gives its rank to the other speaker's reply (recall's rankRecall). A user's
 * index orders the user's threads by when each message was stored, so the entry after a question
 * may be another thread's line, said between the question and its answer: that line took the
 * question's rank and was placed, though it answers nothing. The reply is now the next line of the
 * question's own thread.
 */
import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { UserMemoryEngine } from "./user-memory-engine.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";

const scope = { tenantId: "default", userId: "u1" };

const CASES = [
  {
    lang: "en",
    // [thread, speaker, text], in the order stored: A's question, B's unrelated line, A's answer.
    said: [
      ["A", "Mia", "Which ferry should I take to Jeju?"],
      ["B", "Joon", "The printer on the third floor jammed again."],
      ["A", "Hana", "Take the early one from Mokpo, it is the cheapest."],
    ],
    query: "Which ferry to Jeju?",
  },
  {
    lang: "ko",
    said: [
      ["A", "민지", "제주도 배편은 어떤 게 좋아요?"],
      ["B", "준호", "3층 프린터가 또 고장났어요."],
      ["A", "하나", "목포에서 아침 일찍 출발하는 게 제일 싸요."],
    ],
    query: "제주도 배편 추천해줘",
  },
] as const;

describe("user memory: a question's reply comes from its own thread", () => {
  for (const c of CASES)
    it(`${c.lang}: the answer in the question's thread is ranked first; another thread's line stored between them is not placed`, async () => {
      const store = new InMemoryStore();
      const engine = new UserMemoryEngine(resolveUserMemoryOptions({ env: {}, factsMode: "off" }));
      const start = Date.parse("2026-03-02T09:00:00Z");
      for (const [i, [threadId, name, text]] of c.said.entries()) {
        const at = new Date(start + i * 3_600_000).toISOString();
        await engine.commit(store, scope, { threadId, messages: [{ id: `m${i}`, text, at, name }], now: at });
      }
      const recalled = await engine.recall(store, scope, { text: c.query, threadId: "D" });
      const first = recalled.items.find((item) => item.kind === "message");
      expect(first?.kind === "message" ? first.entry.text : undefined).toBe(c.said[2][2]);
      expect(recalled.text).toContain(c.said[2][2]);
      expect(recalled.text).not.toContain(c.said[1][2]);
    });
});
