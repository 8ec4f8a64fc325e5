/**
 * Before a thread's first summary is due, the view keeps every message the window left out: no
 * summary covers them yet, so dropping them sends the model neither. A chunked window of 6 with
 * `threshold: 8` (the root README's tool-agent recipe, `memoryStack({ windowSize: 6,
 * summarizeThreshold: 8 })`) on a thread of a chat turn, a tool turn and a new question (7
 * messages): the window cuts back to the new question, the thread is below the threshold, and the
 * first call of that turn sent the question alone (6 messages neither summarized nor sent) while
 * warning of a "backlog ... larger than maxPassesPerCall". Now it sends all 7 and does not warn;
 * the summary made once the thread reaches 8 covers what the view leaves out. English and Korean.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { messageText, type ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";

const texts = {
  en: ["Hi, I'm Mina. I fly to Busan on Friday.", "Please look up booking QX-4417.", "When do I fly?"],
  ko: ["안녕하세요, 저는 민아예요. 금요일에 부산으로 가요.", "예약 QX-4417 조회해 주세요.", "제가 언제 가요?"],
} as const;

const lookup = tool(async () => "QX-4417: Friday 09:00 KTX", {
  name: "lookup",
  description: "Look up a booking.",
  schema: z.object({ code: z.string() }),
});

async function run(lang: "en" | "ko", middleware: "stack" | "pair") {
  const [greeting, lookupTurn, question] = texts[lang];
  const views: string[][] = [];
  let calls = 0;
  const model = scriptedModel((messages: BaseMessage[]) => {
    const last = messages.at(-1);
    if (messages.some((m) => messageText(m).includes("<new_messages>"))) return "SUMMARY";
    views.push(messages.filter((m) => m.getType() !== "system").map((m) => messageText(m)));
    if (last?.getType() === "human" && messageText(last) === lookupTurn) {
      calls += 1;
      return new AIMessage({ content: "", tool_calls: [{ id: `call-${calls}`, name: "lookup", args: { code: "QX-4417" } }] });
    }
    return `answer ${views.length}`;
  });
  const warnings: string[] = [];
  const logger: ThreadwiseLogger = { info: () => {}, warn: (message) => void warnings.push(message) };
  const agent =
    middleware === "stack"
      ? createAgent({
          model,
          tools: [lookup],
          ...memoryStack({ windowSize: 6, summarizeThreshold: 8, recallMaxTokens: false, historyAware: false, logger, env: {} }),
        })
      : createAgent({
          model,
          tools: [lookup],
          checkpointer: new MemorySaver(),
          middleware: [windowTrim({ maxMessages: 6, logger }), summarize({ threshold: 8, logger })],
        });
  const config = { configurable: { thread_id: `first-summary-${lang}-${middleware}` } };
  for (const text of [greeting, lookupTurn, question] as const) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
  return { views, warnings };
}

describe("before the first summary is due, the view keeps what the window left out", () => {
  for (const lang of ["en", "ko"] as const) {
    for (const middleware of ["stack", "pair"] as const) {
      it(`${lang}, ${middleware === "stack" ? "memoryStack({ windowSize: 6, summarizeThreshold: 8 })" : "[windowTrim(6), summarize({ threshold: 8 })]"}`, async () => {
        const { views, warnings } = await run(lang, middleware);
        const [greeting, lookupTurn, question] = texts[lang];
        // Calls: greeting; the lookup turn's call and its answer after the result; the question.
        expect(views).toHaveLength(4);
        // The question's call: 7 stored messages, below the threshold of 8, so no summary yet: all sent.
        expect(views[3]).toEqual([greeting, "answer 1", lookupTurn, "", "QX-4417: Friday 09:00 KTX", "answer 3", question]);
        expect(warnings.filter((w) => w.includes("neither summarized yet nor sent"))).toEqual([]);
      });
    }
  }
});
