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
