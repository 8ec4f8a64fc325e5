/**
 * packages/summarize/README.md, "Failures (R13)", as a user reads it: "the next attempt is on the
 * next user turn". The README said the failed turn was remembered in the process only, so a
 * process that did not see the failure called the summarizer once more; since the attempt is
 * recorded in the summary slot (`lastAttempt`) that holds for a background job only. A turn with a
 * tool call, interrupted before the tool (`interruptBefore`), resumed by a fresh process (a new
 * agent on the same saver): after a foreground failure the fresh process does not call the
 * summarizer again in that turn; after a failed background job it does (once). English and
 * Korean turns.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { summarize } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";

const lookup = tool(async () => "result", { name: "lookup", description: "Looks something up.", schema: z.object({ q: z.string() }) });
const TURNS = {
  en: { small: ["I live in Busan.", "I like tea.", "I work at a bakery."], tool: "Look up my booking, please." },
  ko: { small: ["저는 부산에 살아요.", "저는 차를 좋아해요.", "저는 빵집에서 일해요."], tool: "제 예약을 찾아 주세요." },
};

/** The model calls the tool on the turn's first call, then answers. */
function answer(messages: BaseMessage[], toolTurn: string): AIMessage | string {
  const last = messages.at(-1);
  return last?.getType() === "human" && last.text === toolTurn
    ? new AIMessage({ content: "", tool_calls: [{ id: "call-1", name: "lookup", args: { q: "booking" } }] })
    : "ok";
}

async function summarizerCallsOfFreshProcess(language: keyof typeof TURNS, background: boolean) {
  const saver = new MemorySaver();
  const { small, tool: toolTurn } = TURNS[language];
  const agentWith = (calls: { n: number }) =>
    createAgent({
      model: scriptedModel((messages) => answer(messages, toolTurn)),
      tools: [lookup],
      checkpointer: saver,
      middleware: [
        windowTrim({ maxMessages: 4 }),
        summarize({
          windowSize: 4,
          threshold: 6,
          background,
          logger: { info: () => {}, warn: () => {} },
          model: scriptedModel(() => {
            calls.n += 1;
            return "";
          }),
        }),
      ],
    });
  const config = { configurable: { thread_id: `retry-${language}` } };
  const running = { n: 0 };
  const first = agentWith(running);
  for (const text of small) await first.invoke({ messages: [new HumanMessage(text)] }, config);
  expect(running.n, "no summary due before the tool turn").toBe(0);
  await first.invoke({ messages: [new HumanMessage(toolTurn)] }, { ...config, interruptBefore: ["tools"] } as never);
  // A background job runs after the answer: wait until it has called (and failed).
  for (let i = 0; i < 100 && running.n === 0; i++) await new Promise((resolve) => setImmediate(resolve));
  expect(running.n, "the turn's first call attempted the due summary").toBe(1);
  const fresh = { n: 0 };
  const result = await agentWith(fresh).invoke(null as never, config);
  expect(result.messages.at(-1)?.text).toBe("ok");
  for (let i = 0; i < 100 && background && fresh.n === 0; i++) await new Promise((resolve) => setImmediate(resolve));
  return fresh.n;
}

describe("summarize's retry rule across processes, as its README states it", () => {
  for (const language of ["en", "ko"] as const) {
    it(`${language}: a foreground failure is in the stored slot: a fresh process does not try again in that turn`, async () => {
      expect(await summarizerCallsOfFreshProcess(language, false)).toBe(0);
    });
    it(`${language}: a failed background job is known to its process only: a fresh process tries once more`, async () => {
      expect(await summarizerCallsOfFreshProcess(language, true)).toBe(1);
    });
  }
});
