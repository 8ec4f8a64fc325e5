/**
 * Tools that answer with a `Command` carrying `goto` or a history edit, and a summarization cut
 * between calls of two AI messages, through `memoryStack` (window 4, summarize), English and
 * Korean, archive off and on. Oracle: a plain `createAgent` on a `MemorySaver` with the same model
 * script (what LangGraph stores and routes), and the strict validator for OpenAI, Anthropic (no
 * prefill), Gemini and Bedrock on every request the stack's model receives.
 *
 * - https://github.com/langchain-ai/langgraph/issues/6578 "`Command(goto="__end__")` returned from
 *   tool does not stop agent loop in `create_agent`, causes invalid message order error": a tool
 *   that asks the user answers `Command({ goto: END, update: { messages: [ToolMessage, AIMessage] } })`;
 * - https://github.com/langchain-ai/langgraph/issues/5831 "Command.goto interrupts ToolMessage
 *   creation in multi-agent system": `Command({ goto: "model_request", update: { messages:
 *   [ToolMessage] } })` from one of two parallel calls;
 * - https://github.com/langchain-ai/langgraph/pull/5678 "Allow `Command` update to remove all
 *   messages" (and langgraph#4117): a tool that clears the history with
 *   `RemoveMessage({ id: REMOVE_ALL_MESSAGES })` and its own result, which is then a result whose
 *   call is gone;
 * - https://github.com/langchain-ai/langchain/issues/38352 "SummarizationMiddleware
 *   _find_safe_cutoff_point preserves orphan ToolMessages -> provider 400 on next call" (and
 *   langchain-ai/deepagents#270): results of calls from two consecutive AI messages, in one run,
 *   while the window and the summary cut through them.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, ToolMessage } from "@langchain/core/messages";
import { Command, END, MemorySaver, REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { messageText, ThreadwiseStrayResultError } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel, trailingResults } from "./support/report-agent.js";

const LANGS = ["en", "ko"] as const;
const CASES = LANGS.flatMap((lang) => [false, true].map((archive) => ({ lang, archive })));
type Case = (typeof CASES)[number];
const label = (c: Case) => `${c.lang}, archive ${c.archive ? "on" : "off"}`;

const T = {
  en: { hi: "Hello, I am planning a trip to Busan.", go: "go book a seat", more: "Anything else?", answer: "The window seat." },
  ko: { hi: "안녕하세요, 부산 여행을 계획하고 있어요.", go: "go 좌석 예약해 줘", more: "더 있나요?", answer: "창가 좌석이요." },
} as const;

type Answer = (text: string, n: number) => AIMessage | undefined;

/** After results: "done: <the trailing run of results>"; a user message `answer` handles gets its calls; else "ok: <first line>". */
function model(answer: Answer, strict: boolean) {
  let n = 0;
  return strictModel({
    noPrefill: true,
    ...(strict ? {} : { onViolation: "record" as const }),
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `done: ${trailingResults(messages).sort().join(", ")}`;
      const text =
        messageText(last)
          .split("\n")
          .find((line) => line.trim() !== "") ?? "";
      n += 1;
      return answer(text, n) ?? `ok: ${text}`;
    },
  });
}

type Tools = Parameters<typeof stackAgent>[0]["tools"];

/** The stack's agent (strict model) and a plain createAgent on a MemorySaver (model only recording). */
function agents(c: Case, answer: Answer, tools: Tools, windowSize = 4, strict = true) {
  const m = model(answer, strict);
  const { agent, stack } = stackAgent({
    model: m,
    tools,
    windowSize,
    summarizeThreshold: windowSize + 2,
    summarizer: summarizerModel((call) => `요약 summary ${call + 1}`).model,
    stack: { archive: c.archive },
  });
  const plainModel = model(answer, false);
  const plain = createAgent({
    model: plainModel,
    tools: tools as never,
    systemPrompt: "You are a helpful assistant.",
    checkpointer: new MemorySaver(),
  });
  return { agent, m, plain, plainModel, stack };
}

function expectAccepted(m: ReturnType<typeof model>) {
  expect(m.providerLog.rejected).toEqual([]);
  for (const request of requests(m)) {
    expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    expect(lastOf(request).getType()).not.toBe("ai");
  }
}

/** Type and text of each stored message, with each call's and result's id (what the thread holds). */
const shape = (messages: readonly BaseMessage[]) =>
  messages.map((m) => {
    const calls = m.getType() === "ai" ? ((m as AIMessage).tool_calls ?? []).map((call) => call.id) : [];
    const answers = m.getType() === "tool" ? (m as ToolMessage).tool_call_id : undefined;
    return { type: m.getType(), text: messageText(m), ...(calls.length ? { calls } : {}), ...(answers ? { answers } : {}) };
  });

const config = (c: Case, name: string) => ({ configurable: { thread_id: `cmd-${name}-${c.lang}-${c.archive}` } });

async function both(a: ReturnType<typeof agents>, cfg: object, text: string) {
  await a.agent.invoke({ messages: [new HumanMessage(text)] }, cfg);
  await a.plain.invoke({ messages: [new HumanMessage(text)] }, cfg);
}

/** The stack's whole thread (`readThread`: archived messages too; `getState` reads the hot part) equals plain's. */
async function expectSameThread(a: ReturnType<typeof agents>, cfg: { configurable: { thread_id: string } }) {
  const mine = await (a.stack.checkpointer as unknown as { readThread(config: object): Promise<BaseMessage[]> }).readThread(cfg);
  const theirs = await storedMessages(a.plain as never, cfg.configurable.thread_id);
  expect(shape(mine)).toEqual(shape(theirs));
  return mine;
}

const callId = (runtime: unknown) => (runtime as { toolCall?: { id?: string } }).toolCall?.id ?? "";

describe.each(CASES)("public reports, tools answering with a Command (%o)", (c) => {
  // LangChain JS routes as LangGraph Python did in the report: the tools node's static edge runs the
  // model after the tool's `goto: END`, on a request that ends on the tool's question (a prefill).
  // The stack sends what plain createAgent sends there and adds no refusal of its own.
  it(`langgraph#6578: Command({ goto: END }) with the tool's result and a question: the stack's requests break only what plain createAgent's do (${label(c)})`, async () => {
    const clarify = tool(
      async ({ q }: { q: string }, runtime) =>
        new Command({
          goto: END,
          update: { messages: [new ToolMessage({ content: "asked", tool_call_id: callId(runtime) }), new AIMessage(`${q}?`)] },
        }),
      { name: "lookup", description: "Asks the user.", schema: z.object({ q: z.string() }) },
    );
    const a = agents(
      c,
      (text, n) =>
        text.startsWith("go")
          ? new AIMessage({
              content: "",
              tool_calls: [{ id: `call_ask_${n}`, name: "lookup", args: { q: `which seat ${n}` }, type: "tool_call" }],
            })
          : undefined,
      [clarify as never],
      4,
      false,
    );
    const cfg = config(c, "goto-end");
    for (const text of [
      T[c.lang].hi,
      T[c.lang].go,
      T[c.lang].answer,
      T[c.lang].go,
      `${T[c.lang].more} 1`,
      `${T[c.lang].more} 2`,
      `${T[c.lang].more} 3`,
    ])
      await both(a, cfg, text);
    expect(requests(a.m).length).toBe(requests(a.plainModel).length);
    const stored = await expectSameThread(a, cfg);
    expect(stored.filter((m) => messageText(m).startsWith("which seat")).length).toBe(2);
    // Per request, the stack's refusals are among plain's (plain also sends the question and the
    // model's answer as two AI messages in a row, which the stack's view joins): only the prefill.
    const rules = (log: typeof a.m.providerLog) =>
      new Map(log.rejected.map((r) => [r.request, new Set(r.violations.map((v) => `${v.provider}:${v.rule}`))]));
    const plainRules = rules(a.plainModel.providerLog);
    for (const [request, mine] of rules(a.m.providerLog)) for (const rule of mine) expect(plainRules.get(request)).toContain(rule);
    expect([...rules(a.m.providerLog).values()].map((r) => [...r])).toEqual([
      ["anthropic:assistant_prefill"],
      ["anthropic:assistant_prefill"],
    ]);
  });

  it(`langgraph#5831: Command({ goto: "model_request", update }) from one of two parallel calls: both results reach the model (${label(c)})`, async () => {
    const jump = tool(
      async ({ n }: { n: number }, runtime) =>
        n === 3
          ? new Command({
              goto: "model_request",
              update: { messages: [new ToolMessage({ content: `jumped ${n}`, tool_call_id: callId(runtime) })] },
            })
          : `plain ${n}`,
      { name: "lookup", description: "Looks a number up.", schema: z.object({ n: z.number() }) },
    );
    const a = agents(
      c,
      (text, n) =>
        text.startsWith("go")
          ? new AIMessage({
              content: "",
              tool_calls: [3, 4].map((k) => ({ id: `call_j_${n}_${k}`, name: "lookup", args: { n: k }, type: "tool_call" as const })),
            })
          : undefined,
      [jump as never],
    );
    const cfg = config(c, "goto-model");
    for (const text of [T[c.lang].hi, T[c.lang].go, `${T[c.lang].more} 1`, T[c.lang].go, `${T[c.lang].more} 2`, `${T[c.lang].more} 3`])
      await both(a, cfg, text);
    expect(requests(a.m).length).toBe(requests(a.plainModel).length);
    await expectSameThread(a, cfg);
    for (const request of requests(a.m).filter((r) => isTool(lastOf(r))))
      expect(
        request
          .filter(isTool)
          .slice(-2)
          .map((m) => messageText(m))
          .sort(),
      ).toEqual(["jumped 3", "plain 4"]);
    expectAccepted(a.m);
  });

  it(`langgraph#5678: a tool that removes every message leaves its own result without a call; the next requests are valid (${label(c)})`, async () => {
    const clear = tool(
      async (_: { n: number }, runtime) =>
        new Command({
          update: {
            messages: [
              new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
              new ToolMessage({ content: "history cleared", tool_call_id: callId(runtime) }),
            ],
          },
        }),
      { name: "lookup", description: "Clears the history.", schema: z.object({ n: z.number() }) },
    );
    const a = agents(
      c,
      (text, n) =>
        text.startsWith("go")
          ? new AIMessage({ content: "", tool_calls: [{ id: `call_clear_${n}`, name: "lookup", args: { n }, type: "tool_call" }] })
          : undefined,
      [clear as never],
    );
    const cfg = config(c, "remove-all");
    for (const text of [T[c.lang].hi, `${T[c.lang].more} 1`, `${T[c.lang].more} 2`]) await both(a, cfg, text);
    // The tool loop: plain LangGraph then sends [system, result] (its call removed), which every
    // provider refuses; the stack refuses it before the model call, with a typed error naming the result.
    const refused = await a.agent.invoke({ messages: [new HumanMessage(T[c.lang].go)] }, cfg).catch((error: unknown) => error);
    const stray = ThreadwiseStrayResultError.find(refused);
    expect(stray?.callIds).toEqual(["call_clear_4"]);
    expect(stray?.message).toContain("Command update");
    await a.plain.invoke({ messages: [new HumanMessage(T[c.lang].go)] }, cfg);
    expect(a.plainModel.providerLog.rejected.at(-1)?.violations.map((v) => v.rule)).toContain("tool_result_without_call");
    for (const text of [`${T[c.lang].more} 3`, `${T[c.lang].more} 4`]) await a.agent.invoke({ messages: [new HumanMessage(text)] }, cfg);
    const stored = await storedMessages(a.agent as never, cfg.configurable.thread_id);
    expect(stored.some((m) => messageText(m) === "history cleared")).toBe(true);
    expect(stored.some((m) => messageText(m).startsWith(T[c.lang].hi))).toBe(false);
    // What the model received after the clear: the user's later turns, never the removed ones.
    const last = requests(a.m).at(-1) as BaseMessage[];
    expect(last.some((m) => messageText(m).includes(`${T[c.lang].more} 4`))).toBe(true);
    expect(last.some((m) => messageText(m) === T[c.lang].hi)).toBe(false);
    expectAccepted(a.m);
  });

  it(`langchain#38352: results of two AI messages' calls in one run, cut by the window and the summary: every request is valid (${label(c)})`, async () => {
    const a = agents(c, () => undefined, undefined, 3);
    const cfg = config(c, "mixed-run");
    const call = (id: string, n: number) => ({ id, name: "lookup", args: { n }, type: "tool_call" as const });
    const seeded: BaseMessage[] = [
      new HumanMessage({ id: "h1", content: T[c.lang].hi }),
      new AIMessage({ id: "a1", content: "", tool_calls: [call("call_x", 1)] }),
      new AIMessage({ id: "a2", content: "", tool_calls: [call("call_y", 2)] }),
      new ToolMessage({ id: "t1", content: "result 1", tool_call_id: "call_x", name: "lookup" }),
      new ToolMessage({ id: "t2", content: "result 2", tool_call_id: "call_y", name: "lookup" }),
      new AIMessage({ id: "a3", content: "done: result 1, result 2" }),
    ];
    for (const target of [a.agent, a.plain])
      await (target as unknown as { updateState(config: object, values: object): Promise<unknown> }).updateState(cfg, { messages: seeded });
    for (let i = 1; i <= 6; i += 1) {
      await a.agent.invoke({ messages: [new HumanMessage(`${T[c.lang].more} ${i}`)] }, cfg);
      // Each request holds a result only right after the AI messages that made its call.
      const request = requests(a.m).at(-1) as BaseMessage[];
      const results = request.filter(isTool).map((m) => (m as ToolMessage).tool_call_id);
      expect(
        results.every((id) => request.some((m) => m.getType() === "ai" && ((m as AIMessage).tool_calls ?? []).some((x) => x.id === id))),
      ).toBe(true);
    }
    expectAccepted(a.m);
  });
});
