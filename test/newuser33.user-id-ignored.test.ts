/**
 * A run naming `configurable.user_id` (or `context.user_id`) on a memoryStack with userMemory off
 * gets one warning through the stack's logger saying the user id is ignored and how to turn user
 * memory on (was: ignored without a word; a new user thought their user memory was working).
 * Once per stack; none without a user id, none with userMemory on. English and Korean turns.
 */
import type { ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

function recording() {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: ThreadwiseLogger = { info() {}, warn: (message, fields) => warnings.push({ message, fields }) };
  return { logger, warnings };
}

const ignored = (warnings: ReturnType<typeof recording>["warnings"]) => warnings.filter((w) => w.message.includes("user_id"));

describe("user_id with userMemory off", () => {
  for (const [language, text] of [
    ["English", "I moved to Busan."],
    ["Korean", "부산으로 이사했어요."],
  ] as const) {
    it(`${language}: configurable.user_id is named in one warning per stack`, async () => {
      const { logger, warnings } = recording();
      const agent = createAgent({ model: scriptedModel(() => "ok"), tools: [], ...memoryStack({ env: {}, logger }) });
      for (const thread of ["a", "b"])
        await agent.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: thread, user_id: "mina" } });
      const lines = ignored(warnings);
      expect(lines).toHaveLength(1);
      expect(lines[0]?.message).toContain("configurable.user_id");
      expect(lines[0]?.message).toContain("userMemory: true");
      expect(lines[0]?.message).toContain("MEMORY_USER_MEMORY");
      expect(lines[0]?.fields).toEqual({ field: "configurable.user_id" });
      // The user id itself is not logged.
      expect(JSON.stringify(lines)).not.toContain("mina");
    });
  }

  it("context.user_id is named too", async () => {
    const { logger, warnings } = recording();
    const agent = createAgent({ model: scriptedModel(() => "ok"), tools: [], ...memoryStack({ env: {}, logger }) });
    await agent.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: "c" }, context: { user_id: "jun" } });
    expect(ignored(warnings).map((w) => w.fields)).toEqual([{ field: "context.user_id" }]);
  });

  it("no warning without a user id, nor with userMemory on", async () => {
    const off = recording();
    const plain = createAgent({ model: scriptedModel(() => "ok"), tools: [], ...memoryStack({ env: {}, logger: off.logger }) });
    await plain.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: "d" } });
    expect(ignored(off.warnings)).toEqual([]);
    const on = recording();
    const withMemory = createAgent({
      model: scriptedModel(() => "ok"),
      tools: [],
      ...memoryStack({ env: {}, logger: on.logger, userMemory: true }),
    });
    await withMemory.invoke({ messages: [{ role: "user", content: "hi" }] }, { configurable: { thread_id: "e", user_id: "mina" } });
    expect(on.warnings.filter((w) => w.message.includes("userMemory is off"))).toEqual([]);
  });
});
