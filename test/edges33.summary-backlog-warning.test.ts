/**
 * A backlog larger than one call's summarizer passes (spec R39, `maxPassesPerCall`) leaves
 * messages neither summarized yet nor sent while it is caught up. That is no longer only in the
 * multiturn info line (`unsummarized_dropped`, off by default): the call that sends such a view
 * logs one warning through the stack's logger naming `maxPassesPerCall`,
 * `MEMORY_SUMMARIZE_MAX_PASSES` and the count, on each such call (stateless: a fresh process logs
 * what a running one does). What is sent is
 * unchanged. Case: a new user's 2,000-message import (`historySeedMaxMessages: 2000`) then one
 * turn, whose summary covered part of the import and left the rest out (was: silent).
 * English and Korean threads.
 */
import type { ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

function recording() {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const infos: Array<Record<string, unknown> | undefined> = [];
  const logger: ThreadwiseLogger = {
    info: (_message, fields) => infos.push(fields),
    warn: (message, fields) => warnings.push({ message, fields }),
  };
  return { logger, warnings, infos };
}

const threads = {
  English: (i: number) => `message ${i}: the Busan trip, the hotel near Haeundae and the train back on Sunday`,
  Korean: (i: number) => `메시지 ${i}: 부산 여행, 해운대 근처 호텔과 일요일 돌아오는 기차`,
} as const;

for (const [language, text] of Object.entries(threads))
  describe(`${language}: a 2,000-message import, then turns`, () => {
    it("each turn still behind warns with the count the multiturn line gives", async () => {
      const { logger, warnings, infos } = recording();
      const stack = memoryStack({ env: {}, logger, historySeedMaxMessages: 2000, windowSize: 20 });
      let sentCounts: number[] = [];
      const model = scriptedModel((messages) => {
        sentCounts.push(messages.length);
        return "ok";
      });
      const agent = createAgent({ model, tools: [], ...stack });
      const seedHistory = Array.from({ length: 2000 }, (_, i) => ({
        role: i % 2 ? "agent" : "user",
        parts: [{ kind: "text", text: text(i) }],
      }));
      const config = { configurable: { thread_id: `import-${language}` }, context: { seedHistory } };
      await agent.invoke({ messages: [{ role: "user", content: text(2000) }] }, config);
      const lines = infos.filter((f) => f?.unsummarized_dropped !== undefined);
      const dropped = lines.at(-1)?.unsummarized_dropped as number;
      expect(dropped).toBeGreaterThan(0);
      const backlog = warnings.filter((w) => w.message.includes("maxPassesPerCall"));
      expect(backlog, JSON.stringify(warnings)).toHaveLength(1);
      expect(backlog[0]?.message).toContain("MEMORY_SUMMARIZE_MAX_PASSES");
      expect(backlog[0]?.message).toContain(`${dropped} message(s)`);
      expect(backlog[0]?.fields).toMatchObject({ unsummarized_dropped: dropped, max_passes_per_call: 3 });
      // The model received the view the multiturn line counts, plus the system message.
      expect(sentCounts.at(-1)).toBe((lines.at(-1)?.sent_to_llm as number) + 1);
      // The next turn: still behind (fewer left), warned again with its own count.
      sentCounts = [];
      await agent.invoke({ messages: [{ role: "user", content: text(2001) }] }, { configurable: config.configurable });
      const next = infos.filter((f) => f?.unsummarized_dropped !== undefined).at(-1)?.unsummarized_dropped as number;
      expect(next).toBeGreaterThan(0);
      expect(next).toBeLessThan(dropped);
      const again = warnings.filter((w) => w.message.includes("maxPassesPerCall"));
      expect(again).toHaveLength(2);
      expect(again[1]?.fields).toMatchObject({ unsummarized_dropped: next, max_passes_per_call: 3 });
    });
  });
