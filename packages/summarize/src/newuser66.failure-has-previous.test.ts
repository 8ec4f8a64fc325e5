/**
 * The warning of a failed summarizer call says whether a previous summary is kept
 * (`has_previous`). A thread's first call stores a record that covers nothing (so persistTrim
 * knows summarize is in use), and the warning counted that record as a summary: a thread whose
 * first summary failed read "keeping the previous summary ... has_previous: true" with no summary
 * anywhere. Foreground and background, English and Korean turns.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import type { ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { summarize } from "./summarize.js";

function warningsLogger(): ThreadwiseLogger & { failures: Array<Record<string, unknown> | undefined> } {
  const failures: Array<Record<string, unknown> | undefined> = [];
  return {
    failures,
    info: () => {},
    warn: (message, fields) => {
      if (message.startsWith("summarize: summarizer failed")) failures.push(fields);
    },
  };
}

const TURNS = {
  en: ["I live in Busan.", "My locker code is 4417.", "I like tea.", "I work at a bakery.", "What is my code?", "Thanks.", "And tea?"],
  ko: [
    "저는 부산에 살아요.",
    "제 사물함 비밀번호는 4417이에요.",
    "저는 차를 좋아해요.",
    "저는 빵집에서 일해요.",
    "비밀번호가 뭐였죠?",
    "고마워요.",
    "차는요?",
  ],
};

/** Runs the turns with a summarizer that answers from `answers` in turn (an empty answer fails). */
async function run(turns: readonly string[], answers: readonly string[], background: boolean) {
  const logger = warningsLogger();
  let call = 0;
  const summarizer = scriptedModel(() => answers[Math.min(call++, answers.length - 1)] ?? "");
  const agent = createAgent({
    model: scriptedModel(() => "ok"),
    tools: [],
    checkpointer: new MemorySaver(),
    middleware: [windowTrim({ maxMessages: 4 }), summarize({ windowSize: 4, threshold: 6, model: summarizer, background, logger })],
  });
  for (const text of turns) await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: "t" } });
  await agent.invoke({ messages: [new HumanMessage(turns[0] ?? "")] }, { configurable: { thread_id: "t" } });
  return { failures: logger.failures, calls: call };
}

describe("summarize's failure warning: has_previous only with a summary", () => {
  for (const [language, turns] of Object.entries(TURNS))
    for (const background of [false, true]) {
      const how = background ? "background" : "foreground";
      it(`${language}, ${how}: the thread's first summary fails: has_previous false`, async () => {
        const { failures, calls } = await run(turns, [""], background);
        expect(calls).toBeGreaterThan(0);
        expect(failures.length).toBeGreaterThan(0);
        expect(failures.map((f) => f?.has_previous)).toEqual(failures.map(() => false));
      });
      it(`${language}, ${how}: a summary was made, then one fails: has_previous true`, async () => {
        const { failures } = await run(turns, [`${language} summary one`, "<think>only reasoning</think>"], background);
        expect(failures.length).toBeGreaterThan(0);
        expect(failures.map((f) => f?.has_previous)).toEqual(failures.map(() => true));
      });
    }
});
