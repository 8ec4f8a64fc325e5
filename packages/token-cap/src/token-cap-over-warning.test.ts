/**
 * The over-cap warning says how much of the request is the system prompt (newuser61). A Korean
 * conversation under `memoryStack({ maxHistoryTokens: 250 })` warned "the newest user turn and the
 * current tool loop are over the cap" on a 20-token question: the summary, facts and recall blocks
 * in the system prompt took most of the cap, and the warning named only the turn.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createTokenCounter, type ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { tokenCap } from "./token-cap.js";

function recordingLogger(): ThreadwiseLogger & { warnings: Array<[string, Record<string, unknown>]> } {
  const warnings: Array<[string, Record<string, unknown>]> = [];
  return { warnings, info: () => {}, warn: (m, f) => warnings.push([m, f as Record<string, unknown>]) };
}

describe("tokenCap's over-cap warning", () => {
  it.each([
    ["en", "You are a travel helper. Known facts: the user lives in Seongsu-dong, is allergic to peanuts. ", "Where do I live?"],
    ["ko", "당신은 출장 도우미입니다. 알려진 사실: 사용자는 성수동에 살고 땅콩 알레르기가 있다. ", "제가 지금 어디 살아요?"],
  ])("names the system prompt's share when it takes most of the cap (%s)", async (_language, prompt, question) => {
    const systemPrompt = prompt.repeat(12);
    const counter = createTokenCounter({ encoding: "o200k_base" });
    const system = counter.countText(systemPrompt);
    const maxTokens = 120;
    expect(system).toBeGreaterThan(maxTokens);
    const logger = recordingLogger();
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      systemPrompt,
      checkpointer: new MemorySaver(),
      middleware: [tokenCap({ maxTokens, logger })],
    });
    await agent.invoke({ messages: [new HumanMessage(question)] }, { configurable: { thread_id: "t" } });
    const [message, fields] = logger.warnings[0] ?? ["", {}];
    expect(message).toContain(`over the cap of ${maxTokens}`);
    expect(message).toContain("the system prompt");
    // The system message as sent: its text plus the message's own framing tokens.
    expect(fields.system_tokens).toBeGreaterThanOrEqual(system);
    expect(fields.system_tokens).toBeLessThan(system + 10);
    expect(message).toContain(`takes ${fields.system_tokens} of them`);
    expect(fields.tokens).toBeGreaterThan(fields.system_tokens as number);
  });
});
