/**
 * More LangGraph.js operations from public reports not cited before, through `memoryStack` (window
 * 4, summarize), in English and Korean, with the message archive off and on, in each placement
 * mode. Every request the agent's model receives must pass the strict validator for OpenAI,
 * Anthropic (no prefill), Gemini and Bedrock.
 *
 * - https://github.com/langchain-ai/langgraphjs/pull/1211 "support removing all messages with
 *   RemoveMessage": a rewrite (`REMOVE_ALL_MESSAGES`, then new messages) written with
 *   `updateState`: nothing of the removed turns reaches the model again (no message, no summary of
 *   them, no fact stated in them);
 * - https://github.com/langchain-ai/langchainjs/pull/6089 "Add RemoveMessage class": a
 *   `RemoveMessage` of an AI message with calls leaves its results without their call: they are
 *   never sent again, and the turns after are accepted;
 * - https://github.com/langchain-ai/langgraphjs/pull/1499 "Allow partially applying tool calls via
 *   postModelHook": an `afterModel` hook answers one of two parallel calls with its own ToolMessage,
 *   the tool node runs the other: the model sees both results, each once, after the call;
 * - https://github.com/langchain-ai/langgraphjs/issues/1552 "Resuming after NodeInterrupt using
 *   subgraphs seems buggy": `updateState(state.tasks[0].state.config, ...)` on the agent subgraph of
 *   a parent graph while its review waits, then the resume: the note reaches the model after the
 *   call's result, and the requests are accepted;
 * - https://github.com/langchain-ai/langgraphjs/pull/928 "stream_mode=messages should not emit input
 *   or state messages": streaming a turn with `streamMode: "messages"` emits only what the agent's
 *   model and tools produced: no input message, no summary, no context the stack placed.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { Command, END, MessagesAnnotation, REMOVE_ALL_MESSAGES, START, StateGraph } from "@langchain/langgraph";
import { messageText, type PromptContextMode } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { createAgent, createMiddleware, humanInTheLoopMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { book, isTool, lastOf, lookup, requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const MODES: readonly PromptContextMode[] = ["legacy_system", "stable_tail", "cache_aware"];
const LANGS = ["en", "ko"] as const;
type Lang = (typeof LANGS)[number];
const CASES = MODES.flatMap((mode) => LANGS.flatMap((lang) => [false, true].map((archive) => ({ mode, lang, archive }))));
type Case = (typeof CASES)[number];
const label = (c: Case) => `${c.mode}, ${c.lang}, archive ${c.archive ? "on" : "off"}`;

const T = {
  en: {
    hi: "Hello, my name is Minjun and I live in Busan.",
    more: "What did I ask for?",
    look: "look up 3 and 4",
    book: "book seat 12A please",
    fresh: "Let us start over: I need a train ticket.",
    note: "Note: an aisle seat is fine too.",
  },
  ko: {
    hi: "안녕하세요, 제 이름은 민준이고 부산에 살아요.",
    more: "제가 뭘 부탁했죠?",
    look: "look 3이랑 4 찾아줘",
    book: "book 12A 좌석 예약해 줘",
    fresh: "처음부터 다시 할게요: 기차표가 필요해요.",
    note: "메모: 통로 좌석도 괜찮아요.",
  },
} as const;

/** `look` calls lookup twice in parallel, `book` calls book; after results it repeats them; else "ok: <first line>". */
function model() {
  let n = 0;
  return strictModel({
    noPrefill: true,
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last))
        return `done: ${messages
          .filter(isTool)
          .map((m) => messageText(m))
          .join(", ")}`;
      // The user's words: the first line (stable_tail places the stack's context after them).
      const text =
        messageText(last)
          .split("\n")
          .find((line) => line.trim() !== "") ?? "";
      n += 1;
      if (text.startsWith("look"))
        return new AIMessage({
          content: "",
          tool_calls: [3, 4].map((k) => ({ id: `call_look_${n}_${k}`, name: "lookup", args: { n: k }, type: "tool_call" as const })),
        });
      if (text.startsWith("book"))
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_book_${n}`, name: "book", args: { seat: "12A" }, type: "tool_call" }],
        });
      return `ok: ${text}`;
    },
  });
}

function agentFor(c: Case, extra: Parameters<typeof stackAgent>[0] = {}) {
  const m = model();
  const built = stackAgent({
    model: m,
    windowSize: 4,
    summarizeThreshold: 6,
    summarizer: summarizerModel((call) => `요약 summary ${call + 1}`).model,
    promptContextMode: c.mode,
    stack: { archive: c.archive },
    ...extra,
  });
  return { ...built, model: m };
}

function expectAccepted(m: ReturnType<typeof model>) {
  expect(m.providerLog.rejected).toEqual([]);
  for (const request of requests(m)) {
    expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    expect(lastOf(request).getType()).not.toBe("ai");
  }
}

const requestText = (request: readonly BaseMessage[]) => request.map((x) => messageText(x)).join("\n");

async function warm(agent: ReturnType<typeof stackAgent>["agent"], config: object, lang: Lang) {
  await agent.invoke({ messages: [new HumanMessage(T[lang].hi)] }, config);
  await agent.invoke({ messages: [new HumanMessage(T[lang].look)] }, config);
  for (const k of [1, 2]) await agent.invoke({ messages: [new HumanMessage(`${T[lang].more} ${k}`)] }, config);
}

describe("public reports: more LangGraph operations through the stack (strict validator, no prefill)", () => {
  for (const c of CASES)
    it(`langgraphjs#1211: a rewrite with REMOVE_ALL_MESSAGES: nothing of the removed turns reaches the model (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c);
      const config = { configurable: { thread_id: `1211-${label(c)}` } };
      await warm(agent, config, c.lang);
      const before = m.calls.length;
      await agent.graph.updateState(config, {
        messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ id: "fresh-1", content: T[c.lang].fresh })],
      } as never);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
      expectAccepted(m);
      const after = requests(m).slice(before);
      expect(after.length).toBeGreaterThan(0);
      for (const request of after) {
        const text = requestText(request);
        expect(text).toContain(T[c.lang].fresh);
        for (const gone of [c.lang === "en" ? "Minjun" : "민준", c.lang === "en" ? "Busan" : "부산", "result 3"])
          expect(text, gone).not.toContain(gone);
      }
    });

  // FINDING (left, reported): the summary made of the removed turns is still placed after the
  // rewrite, until the next summary is due (summarize checks what its summary covers once per
  // period, and a removed `coveredThroughId` only makes the whole thread uncovered). Facts stated
  // in the removed turns are dropped (R37); the summary of them is not. Passes when fixed.
  for (const c of CASES.filter((x) => x.mode === "legacy_system"))
    it(`langgraphjs#1211: after a rewrite with REMOVE_ALL_MESSAGES, no summary of the removed turns is placed (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c);
      const config = { configurable: { thread_id: `1211-summary-${label(c)}` } };
      await warm(agent, config, c.lang);
      expect(requestText(requests(m).at(-1) as BaseMessage[])).toContain("요약 summary");
      const before = m.calls.length;
      await agent.graph.updateState(config, {
        messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ id: "fresh-1", content: T[c.lang].fresh })],
      } as never);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
      for (const request of requests(m).slice(before)) expect(requestText(request)).not.toContain("요약 summary");
    });

  for (const c of CASES)
    it(`langchainjs#6089: a RemoveMessage of an AI message with calls: its results are never sent again (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c, { windowSize: 8 });
      const config = { configurable: { thread_id: `6089-${label(c)}` } };
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].hi)] }, config);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].look)] }, config);
      const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
      const call = stored.find((x) => ((x as AIMessage).tool_calls ?? []).length > 0) as AIMessage;
      await agent.graph.updateState(config, { messages: [new RemoveMessage({ id: call.id as string })] } as never);
      const before = m.calls.length;
      for (const text of [T[c.lang].more, T[c.lang].book, T[c.lang].note])
        await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      expectAccepted(m);
      for (const request of requests(m).slice(before)) expect(request.filter(isTool).map((x) => messageText(x))).not.toContain("result 3");
    });

  for (const c of CASES)
    it(`langgraphjs#1499: an afterModel hook answers one of two parallel calls; the model sees both results once (${label(c)})`, async () => {
      const partly = createMiddleware({
        name: "partly-applied",
        afterModel: (state) => {
          const last = lastOf(state.messages as BaseMessage[]) as AIMessage;
          const first = (last.tool_calls ?? [])[0];
          if (!first || (last.tool_calls ?? []).length < 2) return undefined;
          return { messages: [new ToolMessage({ content: `cached ${first.args.n}`, tool_call_id: first.id as string, name: "lookup" })] };
        },
      });
      const { agent, model: m } = agentFor(c, { extra: [partly as never] });
      const config = { configurable: { thread_id: `1499-${label(c)}` } };
      await warm(agent, config, c.lang);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
      expectAccepted(m);
      const answered = requests(m).filter((r) => isTool(lastOf(r)));
      expect(answered.length).toBeGreaterThan(0);
      for (const request of answered)
        expect(
          request
            .filter(isTool)
            .map((x) => messageText(x))
            .sort(),
        ).toEqual(["cached 3", "result 4"]);
    });

  for (const c of CASES)
    it(`langgraphjs#1552: updateState on the agent subgraph's config while its review waits, then the resume (${label(c)})`, async () => {
      const m = model();
      const { stack } = agentFor(c);
      const agent = createAgent({
        model: m,
        tools: [lookup, book],
        systemPrompt: "You are a helpful assistant.",
        middleware: [...stack.middleware, humanInTheLoopMiddleware({ interruptOn: { book: true } })] as never,
      });
      const parent = new StateGraph(MessagesAnnotation)
        .addNode("agent", agent.graph as never)
        .addEdge(START, "agent")
        .addEdge("agent", END)
        .compile({ checkpointer: stack.checkpointer });
      const config = { configurable: { thread_id: `1552-${label(c)}` } };
      await parent.invoke({ messages: [new HumanMessage(T[c.lang].hi)] }, config);
      await parent.invoke({ messages: [new HumanMessage(T[c.lang].book)] }, config);
      const state = await parent.getState(config, { subgraphs: true });
      const sub = (state.tasks[0]?.state as { config?: object } | undefined)?.config;
      expect(sub).toBeDefined();
      await parent.updateState(sub as never, { messages: [new HumanMessage({ id: "note-1552", content: T[c.lang].note })] } as never);
      await parent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }) as never, config);
      await parent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
      expectAccepted(m);
      // The resumed call's request: the call, its result, then the note written while the review waited.
      const resumed = requests(m).find((r) => r.filter(isTool).some((x) => messageText(x) === "booked seat 12A")) as BaseMessage[];
      expect(resumed).toBeDefined();
      const at = resumed.findIndex((x) => isTool(x) && messageText(x) === "booked seat 12A");
      expect(resumed.slice(at + 1).some((x) => messageText(x).includes(T[c.lang].note))).toBe(true);
    });

  for (const c of CASES)
    it(`langgraphjs#928: streamMode "messages" emits only what the model and tools produced (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c);
      const config = { configurable: { thread_id: `928-${label(c)}` } };
      await warm(agent, config, c.lang);
      const emitted: BaseMessage[] = [];
      const stream = await agent.stream({ messages: [new HumanMessage(T[c.lang].look)] }, { ...config, streamMode: "messages" } as never);
      for await (const chunk of stream as AsyncIterable<[BaseMessage, unknown]>) emitted.push(chunk[0]);
      expectAccepted(m);
      expect(emitted.length).toBeGreaterThan(0);
      for (const message of emitted) {
        expect(["ai", "tool"]).toContain(message.getType());
        const text = messageText(message);
        expect(text).not.toContain("요약 summary");
        expect(text).not.toContain("[Context from memory");
        expect(text).not.toContain(T[c.lang].look);
      }
      expect(
        emitted
          .filter(isTool)
          .map((x) => messageText(x))
          .sort(),
      ).toEqual(["result 3", "result 4"]);
    });
});
