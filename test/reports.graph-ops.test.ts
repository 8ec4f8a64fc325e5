/**
 * LangGraph.js operations from public reports not cited before, through `memoryStack` (window 4,
 * summarize), in English and Korean, with the message archive off and on, in each placement mode.
 * Every request the agent's model receives must pass the strict validator for the four providers,
 * with Anthropic's opt-in `assistant_prefill` rule on (the stack never makes a request end on an AI
 * message: Claude 4.6 and later refuse a prefill), and what the report lost must reach the model.
 *
 * - https://github.com/langchain-ai/langgraphjs/pull/1549 "allow `updateState` after resuming from an
 *   interrupt": a review resumed, then a note written with `updateState`, then a new turn;
 * - https://github.com/langchain-ai/langgraphjs/issues/1796 "Graph jumped directly to the end node
 *   when I resume a graph after updateState": an answer with a tool call written with
 *   `updateState(config, values, "model_request")`, then `invoke(null)`: the tool runs and the model
 *   sees the call and its result;
 * - https://github.com/langchain-ai/langchainjs/issues/9247 (and #9323) "quickstart ... `tool_call_id`
 *   error": a thread stored by `createAgent` with `responseFormat` before langchainjs#9265 holds the
 *   structured-output call without its ToolMessage; the next turns on it must be accepted;
 * - https://github.com/langchain-ai/langgraphjs/pull/740 "Allow tools to return Commands and update
 *   graph state": a tool answers with a `Command` that writes its ToolMessage;
 * - https://github.com/langchain-ai/langgraphjs/pull/1498 "use Send for each of the tool calls": a
 *   parallel call whose tools finish in reverse order;
 * - https://github.com/langchain-ai/langchainjs/pull/7547 "Fix trim messages mutation bug": trimming
 *   and summarizing never change the stored messages they read.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { messageText, type PromptContextMode } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { humanInTheLoopMiddleware, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { book, isTool, lastOf, lookup, requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const MODES: readonly PromptContextMode[] = ["legacy_system", "stable_tail", "cache_aware"];
const LANGS = ["en", "ko"] as const;
type Lang = (typeof LANGS)[number];
const CASES = MODES.flatMap((mode) => LANGS.flatMap((lang) => [false, true].map((archive) => ({ mode, lang, archive }))));
const label = (c: (typeof CASES)[number]) => `${c.mode}, ${c.lang}, archive ${c.archive ? "on" : "off"}`;

const T = {
  en: {
    hi: "Hello, I am Minjun.",
    book: "book seat 12A please",
    note: "Note: window seat only.",
    more: "What did I ask for?",
    look: "look up 3 and 4",
  },
  ko: {
    hi: "안녕하세요, 저는 민준이에요.",
    book: "book 12A 좌석 예약해 줘",
    note: "메모: 창가 자리만요.",
    more: "제가 뭘 부탁했죠?",
    look: "look 3이랑 4 찾아줘",
  },
} as const;

/** The agent's model: `book` calls book, `look` calls lookup twice in parallel; after results it repeats them. Strict, no prefill. */
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
      const text = messageText(last);
      n += 1;
      if (text.startsWith("book"))
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_book_${n}`, name: "book", args: { seat: "12A" }, type: "tool_call" }],
        });
      if (text.startsWith("look"))
        return new AIMessage({
          content: "",
          tool_calls: [3, 4].map((k) => ({ id: `call_look_${n}_${k}`, name: "slow_lookup", args: { n: k }, type: "tool_call" as const })),
        });
      return `ok: ${text}`;
    },
  });
}

/** A lookup whose first call finishes last (LangGraph runs each call as its own `Send` task). */
const slowLookup = tool(
  async ({ n }: { n: number }) => {
    await new Promise((resolve) => setTimeout(resolve, n === 3 ? 30 : 1));
    return `result ${n}`;
  },
  { name: "slow_lookup", description: "Looks a number up, slowly.", schema: z.object({ n: z.number() }) },
);

/** A tool that answers with a `Command` writing its ToolMessage (langgraphjs#740). */
const noting = tool(
  async ({ seat }: { seat: string }, config) =>
    new Command({
      update: {
        messages: [
          new ToolMessage({
            content: `held seat ${seat}`,
            tool_call_id: (config as { toolCall: { id: string } }).toolCall.id,
            name: "hold",
          }),
        ],
      },
    }),
  { name: "hold", description: "Holds a seat.", schema: z.object({ seat: z.string() }) },
);

function agentFor(c: (typeof CASES)[number], extra: Parameters<typeof stackAgent>[0] = {}) {
  const m = extra.model ?? model();
  const built = stackAgent({
    model: m,
    windowSize: 4,
    summarizeThreshold: 6,
    summarizer: summarizerModel((call) => `요약 summary ${call + 1}`).model,
    promptContextMode: c.mode,
    stack: { archive: c.archive },
    tools: [lookup, book, slowLookup as never, noting as never],
    ...extra,
  });
  return { ...built, model: m };
}

/** Every request accepted by the four providers, with no prefill (Anthropic, Claude 4.6+). */
function expectAccepted(m: ReturnType<typeof model>) {
  expect(m.providerLog.rejected).toEqual([]);
  for (const request of requests(m)) {
    expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    expect(lastOf(request).getType()).not.toBe("ai");
  }
}

const stored = async (agent: ReturnType<typeof stackAgent>["agent"], config: object) =>
  ((await agent.graph.getState(config as never)).values as { messages: BaseMessage[] }).messages;

async function warm(agent: ReturnType<typeof stackAgent>["agent"], config: object, lang: Lang) {
  await agent.invoke({ messages: [new HumanMessage(T[lang].hi)] }, config);
  for (const k of [1, 2]) await agent.invoke({ messages: [new HumanMessage(`${T[lang].more} ${k}`)] }, config);
}

describe("public reports: LangGraph operations through the stack (strict validator, no prefill)", () => {
  for (const c of CASES)
    it(`langgraphjs#1549: updateState after a resumed review, then a new turn (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c, { extra: [humanInTheLoopMiddleware({ interruptOn: { book: true } })] });
      const config = { configurable: { thread_id: `1549-${label(c)}` } };
      await warm(agent, config, c.lang);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].book)] }, config);
      expect((await agent.graph.getState(config)).tasks.some((t) => (t.interrupts ?? []).length > 0)).toBe(true);
      await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }) as never, config);
      await agent.graph.updateState(config, { messages: [new HumanMessage({ id: "note-1549", content: T[c.lang].note })] } as never);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
      expectAccepted(m);
      const last = requests(m).at(-1) as BaseMessage[];
      expect(last.map((x) => messageText(x)).join("\n")).toContain(T[c.lang].note);
      expect((await stored(agent, config)).filter(isTool).map((x) => messageText(x))).toEqual(["booked seat 12A"]);
    });

  for (const c of CASES)
    it(`langgraphjs#1796: an answer with a call written as model_request, then invoke(null): the tool runs, the model sees call and result (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c);
      const config = { configurable: { thread_id: `1796-${label(c)}` } };
      await warm(agent, config, c.lang);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
      await agent.graph.updateState(
        config,
        {
          messages: [
            new AIMessage({
              id: "written-1796",
              content: "",
              tool_calls: [{ id: "call_written", name: "lookup", args: { n: 7 }, type: "tool_call" }],
            }),
          ],
        } as never,
        "model_request",
      );
      await agent.invoke(null as never, config);
      expectAccepted(m);
      const last = requests(m).at(-1) as BaseMessage[];
      expect(isTool(lastOf(last))).toBe(true);
      expect(messageText(lastOf(last))).toBe("result 7");
      expect(last.some((x) => (x as AIMessage).tool_calls?.some((call) => call.id === "call_written"))).toBe(true);
    });

  for (const c of CASES)
    it(`langchainjs#9247: a thread stored before langchainjs#9265 (structured-output call without its ToolMessage) goes on (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c);
      const config = { configurable: { thread_id: `9247-${label(c)}` } };
      const json = JSON.stringify({ answer: c.lang === "en" ? "Sunny in Seoul" : "서울은 맑음" });
      await agent.graph.updateState(config, {
        messages: [
          new HumanMessage({ id: "q1", content: c.lang === "en" ? "Weather in Seoul?" : "서울 날씨 어때?" }),
          new AIMessage({
            id: "a1",
            content: "",
            tool_calls: [{ id: "call_extract", name: "extract-1", args: JSON.parse(json), type: "tool_call" }],
          }),
          new AIMessage({ id: "a2", content: json }),
        ],
      } as never);
      for (const text of [T[c.lang].more, T[c.lang].book, T[c.lang].hi, T[c.lang].note])
        await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      expectAccepted(m);
      // What the structured answer said stays in front of the model, verbatim or summarized.
      expect(
        requests(m)[0]
          ?.map((x) => messageText(x))
          .join("\n"),
      ).toContain(json);
    });

  for (const c of CASES)
    it(`langgraphjs#740: a tool's Command writes its ToolMessage; the turn and the next are accepted (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c, {
        model: strictModel({
          noPrefill: true,
          answer: (messages) => {
            const last = lastOf(messages);
            if (isTool(last)) return `done: ${messageText(last)}`;
            if (messageText(last).startsWith("hold"))
              return new AIMessage({
                content: "",
                tool_calls: [{ id: `call_hold_${messages.length}`, name: "hold", args: { seat: "3C" }, type: "tool_call" }],
              });
            return `ok: ${messageText(last)}`;
          },
        }),
      });
      const config = { configurable: { thread_id: `740-${label(c)}` } };
      await warm(agent, config, c.lang);
      await agent.invoke({ messages: [new HumanMessage(c.lang === "en" ? "hold seat 3C" : "hold 3C 좌석 잡아줘")] }, config);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
      expectAccepted(m);
      expect(requests(m).some((r) => messageText(lastOf(r)) === "held seat 3C")).toBe(true);
    });

  for (const c of CASES)
    it(`langgraphjs#1498: parallel calls whose tools finish in reverse order; every request pairs them (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c);
      const config = { configurable: { thread_id: `1498-${label(c)}` } };
      await warm(agent, config, c.lang);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].look)] }, config);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
      expectAccepted(m);
      const answered = requests(m).find((r) => isTool(lastOf(r))) as BaseMessage[];
      expect(
        answered
          .filter(isTool)
          .map((x) => messageText(x))
          .sort(),
      ).toEqual(["result 3", "result 4"]);
    });

  for (const c of CASES)
    it(`langchainjs#7547: trimming and summarizing never change a stored message (${label(c)})`, async () => {
      const { agent, model: m } = agentFor(c);
      const config = { configurable: { thread_id: `7547-${label(c)}` } };
      const seen = new Map<string, string>();
      const snapshot = (x: BaseMessage) => JSON.stringify([x.getType(), x.content, (x as AIMessage).tool_calls ?? [], x.additional_kwargs]);
      for (const text of [T[c.lang].hi, T[c.lang].book, T[c.lang].look, T[c.lang].note, T[c.lang].more, T[c.lang].hi]) {
        await agent.invoke({ messages: [new HumanMessage(text)] }, config);
        for (const x of await stored(agent, config)) {
          const before = seen.get(x.id as string);
          if (before !== undefined) expect(snapshot(x)).toBe(before);
          else seen.set(x.id as string, snapshot(x));
        }
      }
      expectAccepted(m);
      expect(seen.size).toBeGreaterThan(6);
    });
});
