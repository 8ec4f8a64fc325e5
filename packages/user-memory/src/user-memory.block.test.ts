/**
 * The user-memory block names no message number: it reuses recall's block, whose `#<n>` is a
 * message's position in the thread asking, but here it numbers the user's messages across threads,
 * so a model reading `#2` in thread B looked for B's message 2. Lines say when a message was said
 * and a fact when its source message was; recall's own block keeps its numbers (recall.test.ts).
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { userMemory } from "./user-memory.js";

const systemOf = (messages: BaseMessage[]) => (messages[0]?.getType() === "system" ? systemText(messages[0] as never) : "");

describe("the user-memory block in another thread of the user", () => {
  for (const c of [
    {
      lang: "en",
      a: ["I'm planning a trip next month.", "My sister Hana lives in Jeju.", "I moved to Busan last month."],
      b: ["Hi again.", "Where did I move to?"],
      word: "Busan",
    },
    {
      lang: "ko",
      a: ["다음 달에 여행 갈 계획이에요.", "제 여동생 하나는 제주에 살아요.", "저는 지난달에 부산으로 이사했어요."],
      b: ["안녕하세요.", "제가 어디로 이사했죠?"],
      word: "부산",
    },
  ] as const)
    it(`${c.lang}: names no #<n> (thread A's message numbers are not thread B's), says when each was said`, async () => {
      const model = scriptedModel(() => "ok");
      const agent = createAgent({
        model,
        systemPrompt: "You are a helpful assistant.",
        checkpointer: new MemorySaver(),
        store: new InMemoryStore(),
        middleware: [userMemory({ logger: false, promptContextMode: "legacy_system" })],
      });
      const say = (content: string, thread_id: string) =>
        agent.invoke({ messages: [new HumanMessage(content)] }, { configurable: { thread_id, user_id: "u1" } });
      for (const text of c.a) await say(text, "A");
      for (const text of c.b) await say(text, "B");
      const system = systemOf(model.calls.at(-1)?.messages as BaseMessage[]);
      const block = system.slice(system.indexOf("[Memory from this user's other conversations]"));
      expect(block).toContain(c.word);
      const lines = block.split("\n").slice(1);
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) expect(line).not.toMatch(/#\d/);
      // When it was said: a fact line by its source's time, the first message line and where it changes (recall's rule).
      for (const line of lines.filter((l) => l.startsWith("- fact"))) expect(line).toMatch(/^- fact \(\d{4}-\d\d-\d\dT[\d:]+Z\): /);
      expect(lines.find((l) => !l.startsWith("- fact"))).toMatch(/^user \(\d{4}-\d\d-\d\dT[\d:]+Z\): /);
      expect(lines.some((line) => line.startsWith("user") && line.includes(c.word))).toBe(true);
    });
});
