/**
 * Every threadwise factory that takes a model takes it as LangChain's `createAgent` does: a chat
 * model, or a "provider:model" string made by `initChatModel` at the first model call. Each one
 * refused the string at construction before. Offline: a provider whose package is not installed
 * (@langchain/groq) must fail the first model call with a ThreadwiseConfigError naming the option.
 */
import { HumanMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { memoryStack } from "@threadwise/memory";
import { userMemory } from "@threadwise/user-memory";
import { workMemory } from "@threadwise/work-memory";
import { type AgentMiddleware, createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const MISSING = "groq:llama-3.3-70b-versatile";

async function firstCallError(middleware: AgentMiddleware[]) {
  const agent = createAgent({ model: scriptedModel(() => "ok"), checkpointer: new MemorySaver(), store: new InMemoryStore(), middleware });
  return agent
    .invoke({ messages: [new HumanMessage("I live in Busan.")] }, { configurable: { thread_id: "t", user_id: "u" } })
    .then(() => undefined)
    .catch((e: unknown) => e);
}

describe('"provider:model" strings', () => {
  it.each([
    ["factRecall.model", () => factRecall({ mode: "llm", model: MISSING, logger: false })],
    ["workMemory.model", () => workMemory({ model: MISSING, logger: false })],
    ["userMemory.model", () => userMemory({ factsMode: "llm", model: MISSING, logger: false })],
  ] as const)("%s: accepted at construction; a missing provider package fails the first model call naming it", async (option, make) => {
    const error = await firstCallError([make() as AgentMiddleware]);
    expect(ThreadwiseConfigError.find(error)?.option, String(error)).toBe(option);
    expect(String(ThreadwiseConfigError.find(error)?.message)).toContain("@langchain/groq");
  });

  it("memoryStack passes models.summarize, .facts and .workMemory given as strings to their middlewares", async () => {
    const stack = memoryStack({
      env: {},
      logger: false,
      factsMode: "llm",
      workMemory: true,
      models: { summarize: MISSING, facts: "openai:gpt-4o-mini", workMemory: "openai:gpt-4o-mini" },
    });
    const error = await firstCallError(stack.middleware);
    expect(ThreadwiseConfigError.find(error)?.option, String(error)).toBe("summarize.model");
    expect(() => memoryStack({ env: {}, models: { summarize: "" } })).toThrow(/memory\.models\.summarize/);
  });
});
