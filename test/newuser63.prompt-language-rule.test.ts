import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";

// newuser63: with `promptLanguage: "auto"` every block label follows the stored thread's newest user
// messages (summarize, recall, userMemory, workMemory, historyAware read `state.messages`), but
// factRecall decided on the request's messages: behind a middleware of the application's that
// sends fewer messages (a trimmer of its own, LangChain's `summarizationMiddleware`), a short
// English question in a Korean conversation turned the facts' heading English while the rest of the
// prompt stayed Korean. It now decides on the stored thread too.
function seen(model: ReturnType<typeof scriptedModel>): string {
  const messages = (model.calls.at(-1) as { messages: BaseMessage[] }).messages;
  return messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
}

describe("newuser63: one language rule for promptLanguage auto", () => {
  it("factRecall labels its block by the stored thread, not by the view a trimmer of the app's sends", async () => {
    const newestOnly = createMiddleware({
      name: "app-trimmer",
      wrapModelCall: (request, handler) => handler({ ...request, messages: request.messages.slice(-1) }),
    });
    const model = scriptedModel(() => "네.");
    const agent = createAgent({
      model,
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [newestOnly, factRecall({ mode: "heuristic", promptLanguage: "auto", env: {} })],
    });
    const config = { configurable: { thread_id: "ko-then-en" } };
    await agent.invoke({ messages: [new HumanMessage("저는 부산에 살고 있어요. 회사는 판교에 있어요.")] }, config);
    // The stored thread's newest 40 letters are mostly Hangul: a Korean conversation.
    await agent.invoke({ messages: [new HumanMessage("Busan?")] }, config);
    const text = seen(model);
    expect(text).toContain("부산");
    expect(text).toContain("[사용자에 대해 알려진 사실]");
    expect(text).not.toContain("[Known facts about the user]");
  });
});

// newuser63: recall's and userMemory's lines kept English speakers (`#3 user: ...`, `assistant`,
// `- fact (from #3)`) under a Korean label (`[이 대화의 앞부분에서 찾은 내용]`): the words now follow
// the label's language; English prompts are byte-identical.
describe("newuser63: recall's and userMemory's line words follow promptLanguage", () => {
  const turns = {
    ko: [
      "제 예약 코드는 QX-4417이에요.",
      "다음 주 금요일에 부산으로 가요.",
      "호텔은 해운대 근처예요.",
      "점심은 국밥이었어요.",
      "제 예약 코드가 뭐였죠?",
    ],
    en: [
      "My booking code is QX-4417.",
      "Next Friday I go to Busan.",
      "The hotel is near Haeundae.",
      "Lunch was pork soup.",
      "What was my booking code?",
    ],
  };
  it.each([
    ["ko", "auto", ["#1 사용자: 제 예약 코드는 QX-4417이에요.", "어시스턴트: "], [" user: ", "assistant: "]],
    ["en", "auto", ["#1 user: My booking code is QX-4417.", "assistant: "], ["사용자", "어시스턴트"]],
  ] as const)("recall in a %s conversation (promptLanguage %s)", async (language, promptLanguage, present, absent) => {
    const { memoryStack } = await import("@threadwise/memory");
    const model = scriptedModel(() => (language === "ko" ? "네." : "OK."));
    const stack = memoryStack({ windowSize: 2, summarize: false, historyAware: false, promptLanguage, env: {} });
    const agent = createAgent({ model, tools: [], ...stack });
    const config = { configurable: { thread_id: `recall-${language}` } };
    for (const text of turns[language]) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    const text = seen(model);
    expect(text).toContain("QX-4417");
    for (const words of present) expect(text).toContain(words);
    for (const words of absent) expect(text).not.toContain(words);
  });

  it("userMemory's block in another thread of a Korean-speaking user", async () => {
    const { memoryStack } = await import("@threadwise/memory");
    const model = scriptedModel(() => "네.");
    const stack = memoryStack({ userMemory: true, summarize: false, historyAware: false, promptLanguage: "ko", env: {} });
    const agent = createAgent({ model, tools: [], ...stack });
    await agent.invoke(
      { messages: [new HumanMessage("제 예약 코드는 QX-4417이에요.")] },
      { configurable: { thread_id: "a", user_id: "mina" } },
    );
    await agent.invoke({ messages: [new HumanMessage("제 예약 코드가 뭐였죠?")] }, { configurable: { thread_id: "b", user_id: "mina" } });
    const text = seen(model);
    expect(text).toContain("QX-4417");
    expect(text).toMatch(/사용자 \([^)]*\): 제 예약 코드는 QX-4417이에요\./);
    expect(text).not.toMatch(/\buser \(/);
  });
});
