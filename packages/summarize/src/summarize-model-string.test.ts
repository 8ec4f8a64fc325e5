import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { readSummarySlot, ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { summarize } from "./summarize.js";

// LangChain's createAgent and summarizationMiddleware take a model as "provider:model"
// (initChatModel); summarize refused it ("expected a chat model or runnable with invoke()").
// The OpenAI endpoint is a local server speaking the Chat Completions API: no network.
const SUMMARY = "The user counted to six, 숫자를 하나씩 말했다.";
const requests: Array<{ path: string; body: { model?: string; messages?: Array<{ role: string; content: unknown }> } }> = [];
let server: Server;

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (chunk) => {
      raw += chunk;
    });
    req.on("end", () => {
      requests.push({ path: req.url ?? "", body: JSON.parse(raw || "{}") });
      res.setHeader("content-type", "application/json");
      res.end(
        JSON.stringify({
          id: "chatcmpl-1",
          object: "chat.completion",
          created: 0,
          model: "gpt-4o-mini",
          choices: [{ index: 0, message: { role: "assistant", content: SUMMARY }, finish_reason: "stop", logprobs: null }],
          usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  vi.stubEnv("OPENAI_API_KEY", "sk-test-local");
  vi.stubEnv("OPENAI_BASE_URL", `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise((resolve) => server.close(resolve));
});

function agentWith(model: string) {
  return createAgent({
    model: scriptedModel((_m, call) => `a${call + 1}`),
    checkpointer: new MemorySaver(),
    middleware: [summarize({ model, windowSize: 2, threshold: 4, logger: false })],
  });
}

describe('summarize({ model: "provider:model" })', () => {
  it("makes the summarizer with LangChain's initChatModel and stores what it answers", async () => {
    const agent = agentWith("openai:gpt-4o-mini");
    const config = { configurable: { thread_id: "string-model" } };
    for (let k = 1; k <= 4; k += 1) await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `count ${k}` })] }, config);
    // The summarizer call reached the OpenAI endpoint as gpt-4o-mini, with the messages to fold in.
    expect(requests.length).toBeGreaterThan(0);
    expect(requests[0]?.path).toBe("/v1/chat/completions");
    expect(requests[0]?.body.model).toBe("gpt-4o-mini");
    expect(JSON.stringify(requests[0]?.body.messages)).toContain("count 1");
    const state = await agent.graph.getState(config);
    expect(readSummarySlot(state.values).summary?.text).toBe(SUMMARY);
  });

  it("a provider whose package is not installed fails the first model call, naming summarize.model", async () => {
    // @langchain/groq is not a dependency of this repository.
    const agent = agentWith("groq:llama-3.3-70b-versatile");
    const error = await agent
      .invoke({ messages: [new HumanMessage({ id: "u1", content: "hi" })] }, { configurable: { thread_id: "missing" } })
      .catch((e: unknown) => e);
    const found = ThreadwiseConfigError.find(error);
    expect(found?.option, String(error)).toBe("summarize.model");
    expect(found?.message).toContain("@langchain/groq");
  });

  it("refuses a blank string at construction, naming summarize.model", () => {
    expect(() => summarize({ model: " " })).toThrow(/summarize\.model/);
  });
});
