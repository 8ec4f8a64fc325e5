/**
 * newuser38 left "with `streamMode: "messages"` the summarizer streams too when it uses the agent's
 * own model". Checked here with what a user runs: `ChatOpenAI` against an OpenAI-compatible server
 * that streams server-sent events word by word (test/support/fake-provider-server.ts), the agent's
 * own model as the summarizer (no `models.summarize`), English and Korean turns. LangChain's
 * summarizationMiddleware hid its call with `callbacks: []` (langchainjs#9640), which also hides it
 * from tracing; threadwise tags it `nostream` (LangGraph's messages handler skips such runs, as
 * deer-flow#3378 does in Python) beside `threadwise:internal`, so the call stays in traces and in
 * `streamEvents`, where `excludeTags: ["threadwise:internal"]` leaves it out.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { messageText, readSummarySlot } from "@threadwise/core";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProviderServer, startFakeProviderServer } from "./support/fake-provider-server.js";

const LANGS = {
  en: {
    turns: ["I fly to Busan on Friday", "my seat is 14C", "the gate is B7", "I booked a hotel", "it is near the beach"],
    summary: "SUMMARY-EN the user flies to Busan",
  },
  ko: {
    turns: ["금요일에 부산 가요", "좌석은 14C예요", "게이트는 B7이에요", "호텔을 예약했어요", "해변 근처예요"],
    summary: "요약-KO 사용자는 부산에 가요",
  },
} as const;
const TURNS: readonly string[] = [...LANGS.en.turns, ...LANGS.ko.turns];

/** The text of the last message of a Chat Completions request. */
function lastText(body: Record<string, unknown>): string {
  const messages = (body.messages ?? []) as { content?: unknown }[];
  const content = messages.at(-1)?.content;
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}

let server: FakeProviderServer;
beforeAll(async () => {
  // A request ending in one of the user's turns is the agent's; anything else is the summarizer's.
  server = await startFakeProviderServer(({ body }) => {
    const last = lastText(body);
    if (TURNS.includes(last)) return `answer to ${last}`;
    return /[가-힣]/.test(JSON.stringify(body.messages)) && !/Busan/.test(JSON.stringify(body.messages))
      ? LANGS.ko.summary
      : LANGS.en.summary;
  });
});
afterAll(() => server?.close());

type Mode = "messages" | ["messages", "updates"];

async function streamThread(lang: keyof typeof LANGS, streamMode: Mode) {
  const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-fake", configuration: { baseURL: server.openaiBaseUrl } });
  // The agent's own model summarizes: no models.summarize.
  const stack = memoryStack({ env: {}, windowSize: 2, summarizeThreshold: 4, recallMaxTokens: false, logger: false });
  const agent = createAgent({ model, tools: [], ...stack });
  const config = { configurable: { thread_id: `stream-${lang}-${String(streamMode)}` } };
  const chunks: string[] = [];
  for (const turn of LANGS[lang].turns) {
    const stream = await agent.stream({ messages: [new HumanMessage(turn)] }, { ...config, streamMode } as never);
    for await (const item of stream as AsyncIterable<unknown>) {
      const [mode, data] = Array.isArray(streamMode) ? (item as [string, unknown]) : ["messages", item];
      if (mode !== "messages") continue;
      const [message] = data as [BaseMessage, unknown];
      chunks.push(messageText(message));
    }
  }
  const summary = readSummarySlot((await agent.graph.getState(config)).values).summary?.text;
  return { text: chunks.join(""), summary };
}

describe("the summarizer's tokens stay out of streamMode messages when it is the agent's own streaming model", () => {
  for (const lang of ["en", "ko"] as const)
    for (const mode of ["messages", ["messages", "updates"]] as Mode[])
      it(`${lang}, streamMode ${JSON.stringify(mode)}`, async () => {
        const before = server.recorded.length;
        const { text, summary } = await streamThread(lang, mode);
        const calls = server.recorded.slice(before);
        // Every call streamed (the agent's and the summarizer's), and a summary was made by one of them.
        expect(calls.every((call) => call.body.stream === true)).toBe(true);
        expect(summary).toBe(LANGS[lang].summary);
        expect(calls.length).toBeGreaterThan(LANGS[lang].turns.length);
        // The client got every answer, word by word, and no word of the summary.
        for (const turn of LANGS[lang].turns) expect(text).toContain(`answer to ${turn}`);
        expect(text).not.toContain(LANGS[lang].summary.split(" ")[0]);
      });
});
