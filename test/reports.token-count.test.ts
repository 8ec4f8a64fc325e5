/**
 * Token counts that decide what the stack keeps, against the public reports on LangChain's
 * `count_tokens_approximately` / `countTokensApproximately` and the summarization trigger:
 *
 * - https://github.com/langchain-ai/langchain/issues/35558 and
 *   https://github.com/langchain-ai/langchain/pull/35696: `tool_use` content blocks counted by
 *   their repr, about 2.4x (premature summarization);
 * - https://github.com/langchain-ai/langchain/pull/39982 (issue 39697): `reasoning` / `thinking`
 *   blocks counted with their `encrypted_content` and `signature`, 5-10x;
 * - https://github.com/langchain-ai/langchain/issues/38227: audio, video and file blocks counted
 *   by the characters of their base64 payload (a 1 MB clip: about 250K tokens);
 * - https://github.com/langchain-ai/langchain/pull/34883 (issue 34873): a base64 image counted as
 *   about 25,000 tokens of text;
 * - https://github.com/langchain-ai/langchain/issues/34664 "SummarizationMiddleware doesn't account
 *   for tools or system prompt" (a tool-heavy agent overflowed the context window).
 *
 * Each case compares the stack's count with what the provider is sent, read with the o200k
 * tokenizer, and the last one runs the cap through `createAgent`.
 */
import { AIMessage, type BaseMessage, HumanMessage, type SystemMessage } from "@langchain/core/messages";
import { createTokenCounter, messageText, requestTokens } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { requests, stackAgent } from "./support/report-agent.js";

const counter = createTokenCounter();
const args = { query: "recent events in Busan", filters: { year: 2026, tags: ["travel", "food"] } };
const BASE64 = "QUJD".repeat(250_000); // 1 MB of base64 payload

describe("public reports: what a message costs", () => {
  it("an Anthropic answer with its call as a tool_use block beside tool_calls costs the call once", () => {
    const plain = new AIMessage({
      id: "a1",
      content: "Searching.",
      tool_calls: [{ id: "toolu_1", name: "search", args, type: "tool_call" }],
    });
    const native = new AIMessage({
      id: "a2",
      content: [
        { type: "text", text: "Searching." },
        { type: "tool_use", id: "toolu_1", name: "search", input: args },
      ] as never,
      tool_calls: [{ id: "toolu_1", name: "search", args, type: "tool_call" }],
    });
    const call = counter.countText(JSON.stringify(args)) + counter.countText("search");
    expect(counter.countMessage(native)).toBeLessThanOrEqual(counter.countMessage(plain) + 4);
    expect(counter.countMessage(native)).toBeLessThan(counter.countText("Searching.") + 2 * call);
  });

  it("a reasoning block's encrypted content and a thinking block's signature cost nothing, their text does", () => {
    const thought = "The user wants the cheapest fare; compare the two.";
    const secret = "gAAAAB".repeat(700);
    const text = new AIMessage({ id: "r0", content: [{ type: "text", text: "Fare B." }] as never });
    const reasoning = new AIMessage({
      id: "r1",
      content: [
        { type: "reasoning", reasoning: thought, extras: { encrypted_content: secret }, id: "rs_1" },
        { type: "text", text: "Fare B." },
      ] as never,
    });
    const thinking = new AIMessage({
      id: "r2",
      content: [
        { type: "thinking", thinking: thought, signature: secret },
        { type: "text", text: "Fare B." },
      ] as never,
    });
    const expected = counter.countMessage(text) + counter.countText(thought);
    for (const m of [reasoning, thinking]) expect(Math.abs(counter.countMessage(m) - expected)).toBeLessThanOrEqual(2);
  });

  it("audio, video, file and image blocks cost a fixed amount, not their base64 payload", () => {
    const blocks = [
      { type: "audio", data: BASE64, mimeType: "audio/wav" },
      { type: "input_audio", input_audio: { data: BASE64, format: "wav" } },
      { type: "video", data: BASE64, mimeType: "video/mp4" },
      { type: "file", data: BASE64, mimeType: "application/pdf" },
      { type: "image_url", image_url: { url: `data:image/png;base64,${BASE64}` } },
      { type: "image", data: BASE64, mimeType: "image/png" },
    ];
    for (const block of blocks) {
      const m = new HumanMessage({ id: `m-${block.type}`, content: [{ type: "text", text: "what is this?" }, block] as never });
      const cost = counter.countMessage(m);
      expect(cost, block.type).toBeGreaterThan(counter.countText("what is this?"));
      expect(cost, block.type).toBeLessThan(5_000);
    }
  });
});

describe("public reports: the system prompt and the tools count against the cap", () => {
  it("a tool-heavy agent with a long system prompt: every request, system and tool schemas included, is within maxHistoryTokens", async () => {
    const maxHistoryTokens = 1_500;
    const tools = Array.from({ length: 6 }, (_, k) =>
      tool(async () => "ok", {
        name: `tool_${k}`,
        description: `Tool ${k}: ${"looks up airline records by many criteria and returns them. ".repeat(6)}`,
        schema: z.object({ id: z.string().describe("the record id"), fields: z.array(z.string()).describe("fields to return") }),
      }),
    );
    const systemPrompt = `You are an airline agent. ${"Follow the fare rules of the airline exactly. ".repeat(40)}`;
    const model = strictModel({ answer: (messages) => `ok: ${messageText(messages.at(-1) as BaseMessage).slice(0, 40)}` });
    const { agent } = stackAgent({ windowSize: false, maxHistoryTokens, model, tools: tools as never, systemPrompt });
    const config = { configurable: { thread_id: "heavy-agent" } };
    for (let k = 1; k <= 12; k += 1)
      await agent.invoke({ messages: [new HumanMessage(`turn ${k}: ${"please check my booking and seat. ".repeat(8)}`)] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const sent = requests(model);
    for (const request of sent) {
      expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
      const [system, ...messages] = request;
      expect(system?.getType()).toBe("system");
      const total = requestTokens(counter, { systemMessage: system as SystemMessage, messages, tools });
      expect(total).toBeLessThanOrEqual(maxHistoryTokens);
    }
    // The cap cut history: the last request holds fewer than the 23 messages stored before it.
    expect((sent.at(-1) as BaseMessage[]).length).toBeLessThan(23);
  });
});
