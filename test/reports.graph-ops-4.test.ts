/**
 * LangGraph operations reviewers run on a thread the stack has windowed, summarized and (archive
 * on) archived: `updateState` with `RemoveMessage`, a resume of two interrupts in one invoke, an
 * Anthropic answer with a server tool and an `invalid_tool_calls` entry, and a turn streamed with
 * `streamMode: "messages"`. `memoryStack` (window 4, summarize), English and Korean, archive off
 * and on; oracle: plain `createAgent` on a `MemorySaver`, and the strict validator for OpenAI,
 * Anthropic (no prefill), Gemini and Bedrock.
 *
 * - https://github.com/langchain-ai/langgraphjs/issues/1152 "RemoveMessage id error" and
 *   https://github.com/langchain-ai/langgraph/issues/5112 "`RemoveMessage` Does Not Remove Messages
 *   from State": `updateState(config, { messages: [new RemoveMessage({ id })] })` on the newest
 *   answer removes it from the thread as on a plain saver; removing an AI message whose tool calls
 *   have results leaves those results without their call: plain LangGraph sends them (a request
 *   OpenAI refuses), the stack's requests stay valid;
 * - https://github.com/langchain-ai/langgraph/issues/4028 "Unable to resume multiple interrupts
 *   from a single graph invoke" and https://github.com/langchain-ai/langgraph/issues/5952 "Resolved
 *   interrupts from nodes executed in parallel keep firing unnecessarily": two parallel calls each
 *   waiting on `interrupt()`, resumed with one `Command({ resume: { [id]: value } })`: each call gets
 *   its own value, no interrupt is left, the thread is plain LangGraph's;
 * - https://github.com/langchain-ai/langchainjs/issues/9911 "ChatAnthropic + web_search + streaming =
 *   invalid_tool_calls": an answer with a thinking block, a `server_tool_use` and its result, and the
 *   server call's streamed input filed in `invalid_tool_calls`: the turn ends (no tool runs), the
 *   answer is stored as given, and the next requests keep the server block with its result;
 * - https://github.com/langchain-ai/langchainjs/issues/9734 "tool_call fails with invalid_tool_calls
 *   when using streamMode: 'messages'" and https://github.com/langchain-ai/langchainjs/pull/10085
 *   (`tool_calls` lost when chunks are concatenated): a tool turn streamed in `messages` mode runs
 *   its calls and stores the thread `invoke` stores, as plain LangGraph does.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, type ToolMessage } from "@langchain/core/messages";
import { Command, interrupt, MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, validateProviderRequest } from "@threadwise/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import {
  GRAPH_OPS_CASES,
  type GraphOpsCase,
  graphOpsLabel,
  isTool,
  lastOf,
  lookup,
  parallelModel,
  requests,
  stackAgent,
  storedMessages,
  summarizerModel,
} from "./support/report-agent.js";

const T = {
  en: {
    turn: (i: number) => `Tell me about Busan, part ${i}.`,
    after: "What did we talk about?",
    yes: "yes, window seat",
    no: "no, aisle",
  },
  ko: {
    turn: (i: number) => `부산에 대해 알려 주세요, ${i}부.`,
    after: "우리가 무슨 얘기를 했죠?",
    yes: "네, 창가 좌석",
    no: "아니요, 통로",
  },
} as const;

/** An Anthropic web search answer streamed with thinking on: the server call's input also filed as an invalid client call. */
function searchAnswer(n: number): AIMessage {
  const server = `srvtoolu_0${n}search`;
  return new AIMessage({
    content: [
      { type: "thinking", thinking: "I should search.", signature: `sig${"s".repeat(40)}` },
      { type: "server_tool_use", id: server, name: "web_search", input: { query: `busan ${n}` } },
      {
        type: "web_search_tool_result",
        tool_use_id: server,
        content: [{ type: "web_search_result", url: `https://example.com/${n}`, title: `Busan ${n}`, encrypted_content: "Eqxx" }],
      },
      { type: "text", text: `Found Busan page ${n}.` },
    ] as never,
    invalid_tool_calls: [{ id: server, name: "web_search", args: '{"query": "bus', error: "Malformed args.", type: "invalid_tool_call" }],
  });
}

/**
 * `PARALLEL k`: k `lookup` calls; `ASK2`: two `ask` calls; `SEARCH`: {@link searchAnswer}; after a
 * tool result "done: <results>"; else "ok: <last line>" (report-agent's {@link parallelModel}).
 * Call ids follow the user's text (the same on every thread). Strict on the stack; plain's requests are recorded only.
 */
function model(strict: boolean) {
  return parallelModel(strict, (text) => {
    if (text.startsWith("ASK2"))
      return new AIMessage({
        content: "",
        tool_calls: ["window", "aisle"].map((seat, i) => ({
          id: `ask_${text.length}_${i}`,
          name: "ask",
          args: { seat },
          type: "tool_call" as const,
        })),
      });
    if (text.startsWith("SEARCH")) return searchAnswer(text.length);
    return undefined;
  });
}

const ask = tool(async ({ seat }: { seat: string }) => `${seat}: ${String(interrupt({ seat }))}`, {
  name: "ask",
  description: "Asks the user about a seat.",
  schema: z.object({ seat: z.string() }),
});

interface Graph {
  invoke(input: unknown, config: object): Promise<unknown>;
  stream(input: unknown, config: object): Promise<AsyncIterable<unknown>>;
  updateState(config: object, values: object, asNode?: string): Promise<unknown>;
  getState(
    config: object,
  ): Promise<{ values: { messages?: BaseMessage[] }; tasks: Array<{ interrupts?: Array<{ id?: string; value?: unknown }> }> }>;
}

function agents(c: GraphOpsCase) {
  const m = model(true);
  const { agent, stack } = stackAgent({
    model: m,
    tools: [lookup, ask as never],
    windowSize: 4,
    summarizeThreshold: 6,
    summarizer: summarizerModel((call) => `요약 summary ${call + 1}`).model,
    stack: { archive: c.archive },
  });
  const plainModel = model(false);
  const plain = createAgent({
    model: plainModel,
    tools: [lookup, ask],
    systemPrompt: "You are a helpful assistant.",
    checkpointer: new MemorySaver(),
  });
  return { agent: agent as unknown as Graph, stack, m, plain: plain as unknown as Graph, plainModel };
}

/** The whole thread the stack stores (archived messages first). */
const whole = (a: ReturnType<typeof agents>, threadId: string) =>
  (a.stack.checkpointer as unknown as { readThread(config: object): Promise<BaseMessage[]> }).readThread({
    configurable: { thread_id: threadId },
  });

const shape = (messages: readonly BaseMessage[]) =>
  messages.map((m) => ({
    type: m.getType(),
    text: messageText(m),
    ...(m.getType() === "tool" ? { answers: (m as ToolMessage).tool_call_id } : {}),
    ...(m.getType() === "ai" ? { calls: ((m as AIMessage).tool_calls ?? []).map((call) => call.id) } : {}),
  }));

function expectAccepted(m: ReturnType<typeof model>) {
  expect(m.providerLog.rejected).toEqual([]);
  for (const request of requests(m)) expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
}

async function warm(target: Graph, lang: GraphOpsCase["lang"], cfg: object, turns = 6) {
  for (let i = 1; i <= turns; i += 1) await target.invoke({ messages: [new HumanMessage(T[lang].turn(i))] }, cfg);
}

describe.each(GRAPH_OPS_CASES)("public reports, graph operations 4 (%o)", (c) => {
  it(`langgraphjs#1152, langgraph#5112: updateState with RemoveMessage removes the message as on a plain saver (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `remove-${c.lang}-${c.archive}` } };
    for (const target of [a.agent, a.plain]) {
      await warm(target, c.lang, cfg);
      const newest = lastOf((await target.getState(cfg)).values.messages ?? []);
      expect(newest.getType()).toBe("ai");
      await target.updateState(cfg, { messages: [new RemoveMessage({ id: newest.id as string })] });
      await target.invoke({ messages: [new HumanMessage(`PARALLEL 2 ${T[c.lang].after}`)] }, cfg);
      // The answer carrying the calls is removed; its results stay (LangGraph removes by id only).
      const calls = (await target.getState(cfg)).values.messages?.find((m) => ((m as AIMessage).tool_calls ?? []).length === 2);
      expect(calls).toBeDefined();
      await target.updateState(cfg, { messages: [new RemoveMessage({ id: calls?.id as string })] });
      await target.invoke({ messages: [new HumanMessage(T[c.lang].after)] }, cfg);
    }
    const stacked = await whole(a, cfg.configurable.thread_id);
    const plain = await storedMessages(a.plain as never, cfg.configurable.thread_id);
    expect(shape(stacked)).toEqual(shape(plain));
    expect(stacked.some((m) => messageText(m) === `ok: ${T[c.lang].turn(6)}`)).toBe(false);
    // Plain LangGraph sends the results without their call: OpenAI refuses that request.
    expect(a.plainModel.providerLog.rejected.length).toBeGreaterThan(0);
    // The stack's last request holds the conversation's newest user turn, and every request is valid.
    expect(messageText(lastOf(requests(a.m).at(-1) as BaseMessage[]))).toContain(T[c.lang].after);
    expectAccepted(a.m);
  });

  it(`langgraph#4028, langgraph#5952: two parallel interrupts resumed in one invoke, none left (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `resume-map-${c.lang}-${c.archive}` } };
    for (const target of [a.agent, a.plain]) {
      await warm(target, c.lang, cfg, 5);
      await target.invoke({ messages: [new HumanMessage("ASK2 seats")] }, cfg);
      const waiting = (await target.getState(cfg)).tasks.flatMap((task) => task.interrupts ?? []);
      expect(waiting).toHaveLength(2);
      const resume = Object.fromEntries(
        waiting.map((w) => [w.id, (w.value as { seat: string }).seat === "window" ? T[c.lang].yes : T[c.lang].no]),
      );
      await target.invoke(new Command({ resume }), cfg);
      expect((await target.getState(cfg)).tasks.flatMap((task) => task.interrupts ?? [])).toEqual([]);
      await target.invoke({ messages: [new HumanMessage(T[c.lang].after)] }, cfg);
    }
    const stacked = await whole(a, cfg.configurable.thread_id);
    expect(shape(stacked)).toEqual(shape(await storedMessages(a.plain as never, cfg.configurable.thread_id)));
    const results = stacked.filter(isTool).map((m) => messageText(m));
    expect(results).toEqual([`window: ${T[c.lang].yes}`, `aisle: ${T[c.lang].no}`]);
    expectAccepted(a.m);
  });

  it(`langchainjs#9911: an answer with a server tool and its call in invalid_tool_calls ends the turn and is sent back valid (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `server-invalid-${c.lang}-${c.archive}` } };
    for (const target of [a.agent, a.plain]) {
      await warm(target, c.lang, cfg, 3);
      await target.invoke({ messages: [new HumanMessage(`SEARCH ${T[c.lang].turn(4)}`)] }, cfg);
      await warm(target, c.lang, cfg, 4);
    }
    const stacked = await whole(a, cfg.configurable.thread_id);
    expect(shape(stacked)).toEqual(shape(await storedMessages(a.plain as never, cfg.configurable.thread_id)));
    const answer = stacked.find((m) => JSON.stringify(m.content).includes("server_tool_use")) as AIMessage;
    expect(answer.invalid_tool_calls).toHaveLength(1);
    expect(stacked.filter(isTool)).toEqual([]);
    // Each request that holds the answer holds its server block with its result.
    for (const request of requests(a.m))
      for (const m of request) {
        const text = JSON.stringify(m.content);
        if (text.includes("server_tool_use")) expect(text).toContain("web_search_tool_result");
      }
    expectAccepted(a.m);
  });

  it(`langchainjs#9734, langchainjs#10085: a tool turn streamed in messages mode runs its calls and stores what invoke stores (${graphOpsLabel(c)})`, async () => {
    const a = agents(c);
    const streamed = { configurable: { thread_id: `stream-${c.lang}-${c.archive}` } };
    const invoked = { configurable: { thread_id: `invoke-${c.lang}-${c.archive}` } };
    const chunks: Record<string, unknown[]> = { agent: [], plain: [] };
    for (const [name, target] of [
      ["agent", a.agent],
      ["plain", a.plain],
    ] as const) {
      for (let i = 1; i <= 5; i += 1) {
        const input = { messages: [new HumanMessage(i === 3 ? `PARALLEL 2 ${T[c.lang].turn(i)}` : T[c.lang].turn(i))] };
        for await (const chunk of await target.stream(input, { ...streamed, streamMode: "messages" })) chunks[name]?.push(chunk);
        if (name === "agent") await target.invoke(input, invoked);
      }
    }
    const viaStream = await whole(a, streamed.configurable.thread_id);
    const viaInvoke = await whole(a, invoked.configurable.thread_id);
    expect(shape(viaStream)).toEqual(shape(await storedMessages(a.plain as never, streamed.configurable.thread_id)));
    expect(shape(viaStream).map(({ type, text }) => ({ type, text }))).toEqual(shape(viaInvoke).map(({ type, text }) => ({ type, text })));
    expect(viaStream.filter(isTool).map((m) => messageText(m))).toEqual(["result 0", "result 1"]);
    expect(chunks.agent?.length).toBeGreaterThan(0);
    expectAccepted(a.m);
  });
});
