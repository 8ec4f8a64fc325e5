/**
 * What a client streaming an agent reads when the memory stack's own model calls use the agent's
 * streaming model: newuser39 checked the summarizer; here every internal call at once (the summary,
 * workMemory's condensation and factRecall's `llm` extraction, none given a model of its own) with
 * user memory on, `ChatOpenAI` streaming word by word from an OpenAI-compatible server on
 * 127.0.0.1, `streamMode: ["values", "updates", "messages"]` under `hideMemoryState`, English and
 * Korean. Each internal call answers with a marker; no chunk of any mode may carry one, nor a
 * private field (`_threadwise_*`) or the user-memory block, while the user's next thread does get
 * that block. A guard: it fails when the internal calls lose their `nostream` tag (core's
 * INTERNAL_CALL_TAGS), or `hideMemoryState` lets a private field through.
 */
import { HumanMessage } from "@langchain/core/messages";
import { ChatOpenAI } from "@langchain/openai";
import { hideMemoryState, memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeProviderServer, startFakeProviderServer } from "./support/fake-provider-server.js";

const TURNS = {
  en: ["I moved to Busan last month.", "My seat is 14C", "the gate is B7", "I booked a hotel", "it is near the beach"],
  ko: ["지난달에 부산으로 이사했어요.", "좌석은 14C예요", "게이트는 B7이에요", "호텔을 예약했어요", "해변 근처예요"],
} as const;
const QUESTION = { en: "Where do I live now?", ko: "제가 지금 어디 살아요?" } as const;
const USER_TEXTS: readonly string[] = [...TURNS.en, ...TURNS.ko, ...Object.values(QUESTION)];
const MARKERS = ["PRIVSUMMARY", "PRIVWORK", "PRIVFACT"];
const USER_MEMORY_LABEL = "Memory from this user's other conversations";

let server: FakeProviderServer;
beforeAll(async () => {
  server = await startFakeProviderServer(({ body }) => {
    const messages = (body.messages ?? []) as { role: string; content: unknown }[];
    const all = JSON.stringify(messages);
    const last = messages.at(-1);
    const lastText = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
    if (all.includes("You extract durable facts"))
      return JSON.stringify({ facts: [{ subject: "user", attribute: "residence", value: "Busan", text: `PRIVFACT ${lastText}` }] });
    // The agent's own request ends on the user's turn; the summarizer's and the condenser's do not.
    if (last?.role === "user" && USER_TEXTS.some((text) => lastText.startsWith(text))) return `answer to ${lastText.slice(0, 12)}`;
    return all.includes("work memory") ? "PRIVWORK booked a hotel" : "PRIVSUMMARY the user moved";
  });
});
afterAll(() => server?.close());

describe("no private memory reaches a client streaming values, updates and messages, internal calls on the agent's own streaming model", () => {
  for (const lang of ["en", "ko"] as const)
    it(lang, async () => {
      const before = server.recorded.length;
      const model = new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "sk-fake", configuration: { baseURL: server.openaiBaseUrl } });
      const stack = memoryStack({
        env: {},
        logger: false,
        windowSize: 2,
        summarizeThreshold: 4,
        workMemory: true,
        factsMode: "llm",
        userMemory: true,
      });
      const agent = hideMemoryState(createAgent({ model, tools: [], ...stack }));
      const streamed: string[] = [];
      const run = async (text: string, thread_id: string) => {
        const config = { configurable: { thread_id, user_id: `u-${lang}` }, streamMode: ["values", "updates", "messages"] };
        for await (const chunk of await agent.stream({ messages: [new HumanMessage(text)] }, config as never))
          streamed.push(JSON.stringify(chunk));
      };
      for (const turn of TURNS[lang]) await run(turn, `first-${lang}`);
      await run(QUESTION[lang], `second-${lang}`);

      const sent = server.recorded.slice(before).map((call) => JSON.stringify(call.body));
      // Each internal call ran, streaming, on the agent's model; the next thread got the user's memory.
      expect(sent.some((body) => body.includes("You extract durable facts"))).toBe(true);
      expect(sent.some((body) => body.includes("work memory"))).toBe(true);
      expect(sent.some((body) => body.includes("PRIVSUMMARY"))).toBe(true);
      expect(server.recorded.slice(before).every((call) => call.body.stream === true)).toBe(true);
      expect(sent.some((body) => body.includes(USER_MEMORY_LABEL) && body.includes(QUESTION[lang]))).toBe(true);
      // The client read the answers, and nothing private.
      const all = streamed.join("\n");
      expect(all).toContain("answer to");
      for (const marker of [...MARKERS, "_threadwise_", USER_MEMORY_LABEL]) expect(all).not.toContain(marker);
    });
});
