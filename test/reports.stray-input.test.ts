/**
 * A turn whose input is a stray tool result: a ToolMessage whose call id nothing in the thread
 * made (`invoke({ messages: [new ToolMessage({ tool_call_id: "call_gone", ... })] })`, a client
 * replaying a result of another thread, an `updateState` then `invoke(null)`). Every provider
 * refuses a result with no call right before it, so the view leaves it out (spec R4): the request
 * then ended on the thread's last AI message. OpenAI continued that message as if the user had said
 * nothing; Claude 4.6 and later refuse a request ending on an assistant message (no prefill); plain
 * LangGraph sends the stray, which every provider refuses. Now the agent's model call is refused
 * before the model is called with `ThreadwiseStrayResultError` naming the stray's id: nothing is
 * lost (the thread keeps the stray, as stored), and the next turn goes on with a valid request.
 *
 * Through `memoryStack` (window 4, summarize), English and Korean, archive off and on, each
 * placement mode; every request the model receives passes the strict validator for the four
 * providers with Anthropic's `assistant_prefill` rule on.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { messageText, type PromptContextMode, ThreadwiseStrayResultError } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, summarizerModel } from "./support/report-agent.js";

const MODES: readonly PromptContextMode[] = ["legacy_system", "stable_tail", "cache_aware"];
const CASES = MODES.flatMap((mode) => (["en", "ko"] as const).flatMap((lang) => [false, true].map((archive) => ({ mode, lang, archive }))));
const label = (c: (typeof CASES)[number]) => `${c.mode}, ${c.lang}, archive ${c.archive ? "on" : "off"}`;
const T = {
  en: { hi: "Hello, I am Minjun.", look: "look up 3", more: "What did I ask for?", stray: "result of a call made elsewhere" },
  ko: { hi: "안녕하세요, 저는 민준이에요.", look: "look 3 찾아줘", more: "제가 뭘 부탁했죠?", stray: "다른 곳에서 한 호출의 결과" },
} as const;

function model() {
  return strictModel({
    noPrefill: true,
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `done: ${messageText(last)}`;
      if (messageText(last).startsWith("look"))
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_look_${messages.length}`, name: "lookup", args: { n: 3 }, type: "tool_call" }],
        });
      return `ok: ${messageText(last)}`;
    },
  });
}

function agentFor(c: (typeof CASES)[number]) {
  return stackAgent({
    model: model(),
    windowSize: 4,
    summarizeThreshold: 6,
    summarizer: summarizerModel((call) => `요약 summary ${call + 1}`).model,
    promptContextMode: c.mode,
    stack: { archive: c.archive },
  });
}

function expectAccepted(m: ReturnType<typeof model>) {
  expect(m.providerLog.rejected).toEqual([]);
  for (const request of requests(m)) {
    expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    expect(lastOf(request).getType()).not.toBe("ai");
  }
}

const stored = async (agent: ReturnType<typeof stackAgent>["agent"], config: object) =>
  ((await agent.graph.getState(config as never)).values as { messages: BaseMessage[] }).messages;

describe("a stray tool result as a turn's input (strict validator, no prefill)", () => {
  for (const c of CASES)
    for (const after of ["an answer", "a call's result"] as const)
      it(`after ${after}: refused naming the stray, nothing lost, the next turn valid (${label(c)})`, async () => {
        const { agent, model: m } = agentFor(c);
        const config = { configurable: { thread_id: `stray-input-${after}-${label(c)}` } };
        await agent.invoke({ messages: [new HumanMessage(T[c.lang].hi)] }, config);
        await agent.invoke({ messages: [new HumanMessage(after === "an answer" ? T[c.lang].more : T[c.lang].look)] }, config);
        const calls = m.calls.length;
        const stray = new ToolMessage({ id: "stray-1", tool_call_id: "call_gone", name: "lookup", content: T[c.lang].stray });
        const error = await agent.invoke({ messages: [stray] }, config).then(
          () => undefined,
          (e: unknown) => e,
        );
        const refused = ThreadwiseStrayResultError.find(error);
        expect(refused, String(error)).toBeDefined();
        expect(refused?.messageIds).toEqual(["stray-1"]);
        expect(refused?.message).toContain('"stray-1"');
        // The model was not called, and the thread keeps the stray as stored.
        expect(m.calls.length).toBe(calls);
        expect((await stored(agent, config)).at(-1)?.id).toBe("stray-1");
        await agent.invoke({ messages: [new HumanMessage(T[c.lang].more)] }, config);
        expectAccepted(m);
        const last = requests(m).at(-1) as BaseMessage[];
        expect(messageText(lastOf(last)).startsWith(T[c.lang].more)).toBe(true);
        expect(last.some((x) => messageText(x) === T[c.lang].stray)).toBe(false);
      });

  it.each(["en", "ko"] as const)(
    "a stray as a new thread's first message: refused naming it, not sent as an empty request (%s)",
    async (lang) => {
      const { agent, model: m } = agentFor(CASES[0] as (typeof CASES)[number]);
      const config = { configurable: { thread_id: `stray-input-first-${lang}` } };
      const error = await agent
        .invoke({ messages: [new ToolMessage({ id: "stray-first", tool_call_id: "call_gone", content: T[lang].stray })] }, config)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(ThreadwiseStrayResultError.find(error)?.messageIds, String(error)).toEqual(["stray-first"]);
      expect(m.calls.length).toBe(0);
      await agent.invoke({ messages: [new HumanMessage(T[lang].hi)] }, config);
      expectAccepted(m);
      expect(m.calls.length).toBe(1);
    },
  );

  it("a thread whose input is a result of its own call and a stray: the result is sent, the stray left out, no error", async () => {
    const { agent, model: m } = agentFor(CASES[0] as (typeof CASES)[number]);
    const config = { configurable: { thread_id: "stray-input-own-call" } };
    await agent.invoke({ messages: [new HumanMessage("hi")] }, config);
    await agent.graph.updateState(
      config,
      {
        messages: [
          new HumanMessage({ id: "q", content: "look it up" }),
          new AIMessage({ id: "a", content: "", tool_calls: [{ id: "call_own", name: "lookup", args: { n: 1 }, type: "tool_call" }] }),
        ],
      } as never,
      "model_request",
    );
    await agent.invoke(
      {
        messages: [
          new ToolMessage({ id: "r", tool_call_id: "call_own", content: "result 1" }),
          new ToolMessage({ id: "s", tool_call_id: "call_gone", content: "x" }),
        ],
      },
      config,
    );
    expectAccepted(m);
  });
});
