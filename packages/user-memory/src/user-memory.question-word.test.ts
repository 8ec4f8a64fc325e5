/**
 * A where/when question in another thread of the user finds the plan it asks about (session 56):
 * the question word is a function word in both languages, so the verb is all the question has.
 * In Korean that verb was the motion verb 가다/오다, read as a stop stem (`가요` -> nothing), and
 * `제가 어디로 가요?` recalled nothing while `Where am I driving?` recalled the plan.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { userMemory } from "./user-memory.js";

const systemOf = (messages: BaseMessage[]) => (messages[0]?.getType() === "system" ? systemText(messages[0] as never) : "");
const HEADER = "[Memory from this user's other conversations]";

describe("user memory: a question word and a verb recall the plan from another thread", () => {
  for (const c of [
    { lang: "en", a: ["My cousin is a nurse.", "I'm driving to Gangneung on Saturday."], b: "Where am I driving?", word: "Gangneung" },
    { lang: "ko", a: ["사촌이 간호사예요.", "토요일에 강릉으로 가요."], b: "제가 어디로 가요?", word: "강릉" },
    { lang: "ko", a: ["사촌이 간호사예요.", "저는 토요일에 강릉으로 기차 타고 가요."], b: "제가 언제 가요?", word: "강릉" },
    { lang: "ko", a: ["사촌이 간호사예요.", "다음 달에 동생이 서울에 와요."], b: "누가 와요?", word: "동생" },
    { lang: "ko", a: ["사촌이 간호사예요.", "금요일 저녁에 대학 동기를 만나요."], b: "제가 누구를 만나요?", word: "동기" },
  ] as const)
    it(`${c.lang}: ${c.b}`, async () => {
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
      await say(c.b, "B");
      const system = systemOf(model.calls.at(-1)?.messages as BaseMessage[]);
      expect(system).toContain(HEADER);
      const block = system.slice(system.indexOf(HEADER));
      expect(block).toContain(c.word);
    });
});
