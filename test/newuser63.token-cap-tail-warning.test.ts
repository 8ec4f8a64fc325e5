import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { addContextBlocks, createTokenCounter, type ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { tokenCap } from "@threadwise/token-cap";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";

// newuser63: under `promptContextMode: "stable_tail"` the memory blocks go at the end of the newest
// user message, yet tokenCap's over-cap warning said "the system prompt (memory blocks included:
// summary, facts, recall) takes 37 of them" while a Korean recall block of hundreds of tokens sat
// in the user turn: the reader looked in the system prompt and found nothing to trim. The warning
// now names the tail's share (`tail_context_tokens`) when there is one.
function recordingLogger(): ThreadwiseLogger & { warnings: Array<[string, Record<string, unknown>]> } {
  const warnings: Array<[string, Record<string, unknown>]> = [];
  return { warnings, info: () => {}, warn: (m, f) => warnings.push([m, f as Record<string, unknown>]) };
}

describe("newuser63: tokenCap's over-cap warning with memory in the stable_tail", () => {
  it.each([
    ["en", "The user's booking code is QX-4417 and they fly to Busan on Friday. ", "What was my code?"],
    ["ko", "사용자의 예약 코드는 QX-4417이고 금요일에 부산으로 갑니다. ", "제 예약 코드가 뭐였죠?"],
  ])("says how many tokens the memory context on the user message takes (%s)", async (_language, memory, question) => {
    const text = memory.repeat(10);
    const counter = createTokenCounter({ encoding: "o200k_base" });
    const logger = recordingLogger();
    const knowledge = createMiddleware({
      name: "knowledge",
      wrapModelCall: (request, handler) =>
        handler(addContextBlocks(request, [{ kind: "knowledge", producer: "knowledge", label: "Known", text }], { mode: "stable_tail" })),
    });
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      systemPrompt: "Be brief.",
      checkpointer: new MemorySaver(),
      middleware: [knowledge, tokenCap({ maxTokens: 60, logger })],
    });
    await agent.invoke({ messages: [new HumanMessage(question)] }, { configurable: { thread_id: "t" } });
    const [message, fields] = logger.warnings[0] ?? ["", {}];
    expect(message).toContain("over the cap of 60");
    const tail = fields.tail_context_tokens as number;
    expect(tail).toBeGreaterThanOrEqual(counter.countText(text));
    expect(tail).toBeLessThan(counter.countText(text) + 40);
    expect(message).toContain(`the memory context at the end of the newest user message (stable_tail) takes ${tail}`);
    expect(message).not.toContain("memory blocks included");
    expect(fields.system_tokens as number).toBeLessThan(20);
  });
});
