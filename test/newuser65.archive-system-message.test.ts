/**
 * `archive: true` on a thread whose stored messages begin with a `SystemMessage` (newuser65): the
 * archive holds a prefix of the thread and a stored system message stays hot, so nothing is ever
 * archived and the checkpoint grows as without the archive. Many LangChain.js apps send the
 * prompt as the first message of the input rather than as `createAgent`'s `systemPrompt`. Was:
 * silent (a team turning the archive on saw no effect and no reason); now messageArchive warns
 * once, naming the thread and the fix.
 */
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const WINDOW = 4;

const CASES = [
  { lang: "en", prompt: "You are a helpful airline agent.", turn: (i: number) => `Question ${i} about my flight.` },
  { lang: "ko", prompt: "당신은 친절한 항공사 상담원입니다.", turn: (i: number) => `${i}번째 항공편 질문이에요.` },
] as const;

async function run(thread: string, c: (typeof CASES)[number], promptIn: "messages" | "systemPrompt") {
  const warnings: string[] = [];
  const stack = memoryStack({
    archive: true,
    windowSize: WINDOW,
    summarizeThreshold: 2 * WINDOW,
    models: { summarize: scriptedModel(() => "s", { strict: false }) },
    logger: { info() {}, warn: (message) => warnings.push(message) },
    env: {},
  });
  const agent = createAgent({
    model: scriptedModel(() => "ok"),
    tools: [],
    ...(promptIn === "systemPrompt" ? { systemPrompt: c.prompt } : {}),
    ...stack,
  });
  const config = { configurable: { thread_id: thread } };
  const first = new HumanMessage(c.turn(0));
  await agent.invoke({ messages: promptIn === "messages" ? [new SystemMessage(c.prompt), first] : [first] }, config);
  for (let i = 1; i < 30; i++) await agent.invoke({ messages: [{ role: "user", content: c.turn(i) }] }, config);
  const archived = (await stack.checkpointer?.archivedMessages(thread))?.length ?? 0;
  return { warnings: warnings.filter((w) => w.startsWith("message_archive")), archived };
}

describe("archive on a thread that stores its system prompt as a message", () => {
  for (const c of CASES) {
    it(`warns once, naming the thread and systemPrompt (${c.lang})`, async () => {
      const { warnings, archived } = await run(`sys-${c.lang}`, c, "messages");
      expect(archived).toBe(0);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain(`sys-${c.lang}`);
      expect(warnings[0]).toContain("SystemMessage");
      expect(warnings[0]).toContain("systemPrompt");
    });
    it(`the prompt as systemPrompt archives, and nothing is warned (${c.lang})`, async () => {
      const { warnings, archived } = await run(`prompt-${c.lang}`, c, "systemPrompt");
      expect(archived).toBeGreaterThan(0);
      expect(warnings).toEqual([]);
    });
  }
});
