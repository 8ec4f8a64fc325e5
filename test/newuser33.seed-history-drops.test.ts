/**
 * A bulk import through `context.seedHistory` never loses messages without a warning:
 * - on a memoryStack without historySeed (no `historySeedMaxMessages`), the history is ignored:
 *   one warning names `context.seedHistory` and the option that turns it on (was silent: the
 *   thread held only the new turn);
 * - with historySeed, a seed that keeps fewer messages than it was given (over `maxMessages`,
 *   or items dropped by a rule) warns once, with the counts and `historySeed.maxMessages`; later
 *   seeds log at info (was: an info line only, silent by default).
 * A 2,000-message import with `historySeedMaxMessages: 2000` is stored whole, no warning.
 * English and Korean messages.
 */

import { MemorySaver } from "@langchain/langgraph";
import type { ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { historySeed } from "@threadwise/history-seed";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

function recording() {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: ThreadwiseLogger = { info() {}, warn: (message, fields) => warnings.push({ message, fields }) };
  return { logger, warnings };
}

/** `count` alternating user/agent A2A messages, English and Korean. */
const history = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    role: i % 2 ? "agent" : "user",
    parts: [{ kind: "text", text: i % 3 ? `message ${i} about the Busan trip` : `메시지 ${i}: 부산 여행` }],
  }));

const input = { messages: [{ role: "user", content: "Continue from our old chat. 이어서 해요." }] };

describe("seedHistory that is not stored whole is reported", () => {
  it("a memoryStack without historySeed warns once that context.seedHistory is ignored", async () => {
    const { logger, warnings } = recording();
    const stack = memoryStack({ env: {}, logger });
    const agent = createAgent({ model: scriptedModel(() => "ok"), tools: [], ...stack });
    for (const thread of ["a", "b"])
      await agent.invoke(input, { configurable: { thread_id: thread }, context: { seedHistory: history(10) } });
    const state = await agent.graph.getState({ configurable: { thread_id: "a" } });
    expect((state.values as { messages: unknown[] }).messages).toHaveLength(2);
    const lines = warnings.filter((w) => w.message.includes("seedHistory"));
    expect(lines).toHaveLength(1);
    expect(lines[0]?.message).toContain("historySeedMaxMessages");
    expect(lines[0]?.message).toContain("A2A_HISTORY_MAX_MESSAGES");
    expect(lines[0]?.fields).toEqual({ field: "context.seedHistory" });
  });

  it("2,000 messages with historySeedMaxMessages 2000: all stored, no warning", async () => {
    const { logger, warnings } = recording();
    const stack = memoryStack({ env: {}, logger, historySeedMaxMessages: 2000, windowSize: 20 });
    const agent = createAgent({ model: scriptedModel(() => "ok"), tools: [], ...stack });
    const config = { configurable: { thread_id: "bulk" }, context: { seedHistory: history(2000) } };
    await agent.invoke(input, config);
    expect(await stack.checkpointer?.readThread(config)).toHaveLength(2002);
    expect(warnings.filter((w) => w.message.includes("seed"))).toEqual([]);
  });

  it("historySeed keeping fewer than given warns once with the counts and historySeed.maxMessages", async () => {
    const { logger, warnings } = recording();
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [historySeed({ maxMessages: 50, logger })],
    });
    for (const thread of ["x", "y"])
      await agent.invoke(input, { configurable: { thread_id: thread }, context: { seedHistory: history(900) } });
    const state = await agent.graph.getState({ configurable: { thread_id: "x" } });
    expect((state.values as { messages: unknown[] }).messages).toHaveLength(52);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain("historySeed.maxMessages, now 50");
    expect(warnings[0]?.message).toContain("850 item(s)");
    expect(warnings[0]?.fields).toMatchObject({ truncated: 850, seeded: 50 });
  });
});
