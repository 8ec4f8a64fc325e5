/**
 * Thread state operations on a thread the stack has windowed and archived: closing an interrupt
 * with `updateState(values, END)`, and a stale writer after `deleteThread`. `memoryStack` (window
 * 4, summarize), English and Korean, archive off and on; oracle: plain `createAgent` on a
 * `MemorySaver`, and the strict validator for OpenAI, Anthropic (no prefill), Gemini and Bedrock.
 *
 * - https://github.com/langchain-ai/langgraph/issues/8653 "update_state can permanently erase a
 *   thread's messages": a thread paused on `interrupt()` in a tool, closed by the user with
 *   `updateState(config, values, END)`: the thread keeps every message (the archived ones too),
 *   its head reads what plain LangGraph's does, and the next turn's request holds the conversation;
 * - https://github.com/langchain-ai/langgraph/issues/7206 "Prevent late checkpoint writes from
 *   resurrecting deleted threads": after `deleteThread`, a run given the config of a checkpoint
 *   from before the delete is refused (`ThreadwiseConfigError` naming `configurable.checkpoint_id`
 *   and the checkpoint, nothing stored), brings no old message back and sends none to the model.
 */
import { AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { END, interrupt, MemorySaver } from "@langchain/langgraph";
import { messageText, ThreadwiseConfigError } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

const CASES = (["en", "ko"] as const).flatMap((lang) => [false, true].map((archive) => ({ lang, archive })));
type Case = (typeof CASES)[number];
const label = (c: Case) => `${c.lang}, archive ${c.archive ? "on" : "off"}`;

const T = {
  en: { turn: (i: number) => `Tell me about Busan, part ${i}.`, ask: "ask me which seat", after: "What did we talk about?" },
  ko: { turn: (i: number) => `부산에 대해 알려 주세요, ${i}부.`, ask: "ask 어느 좌석인지 물어봐 줘", after: "우리가 무슨 얘기를 했죠?" },
} as const;

function model(strict: boolean) {
  let n = 0;
  return strictModel({
    noPrefill: true,
    ...(strict ? {} : { onViolation: "record" as const }),
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `done: ${messageText(last)}`;
      const text =
        messageText(last)
          .split("\n")
          .find((line) => line.trim() !== "") ?? "";
      n += 1;
      if (text.startsWith("ask"))
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_ask_${n}`, name: "lookup", args: { q: "seat" }, type: "tool_call" }],
        });
      return `ok: ${text}`;
    },
  });
}

const askSeat = tool(async ({ q }: { q: string }) => `answer: ${String(interrupt({ question: q }))}`, {
  name: "lookup",
  description: "Asks the user.",
  schema: z.object({ q: z.string() }),
});

/** What these tests read of a graph's state (the stack's agent type does not carry it). */
interface StateReader {
  getState(config: object): Promise<{
    tasks: Array<{ interrupts?: unknown[] }>;
    next: string[];
    config: { configurable?: Record<string, unknown> };
  }>;
  getStateHistory(config: object): AsyncIterable<unknown>;
}
const reader = (graph: unknown) => graph as StateReader;

function agents(c: Case) {
  const m = model(true);
  const { agent, stack } = stackAgent({
    model: m,
    tools: [askSeat as never],
    windowSize: 4,
    summarizeThreshold: 6,
    summarizer: summarizerModel((call) => `요약 summary ${call + 1}`).model,
    stack: { archive: c.archive },
  });
  const plainModel = model(false);
  const plain = createAgent({
    model: plainModel,
    tools: [askSeat],
    systemPrompt: "You are a helpful assistant.",
    checkpointer: new MemorySaver(),
  });
  return { agent, stack, m, plain, plainModel };
}

const whole = (a: ReturnType<typeof agents>, threadId: string) =>
  (a.stack.checkpointer as unknown as { readThread(config: object): Promise<BaseMessage[]> }).readThread({
    configurable: { thread_id: threadId },
  });

const shape = (messages: readonly BaseMessage[]) =>
  messages.map((m) => ({
    type: m.getType(),
    text: messageText(m),
    ...(m.getType() === "tool" ? { answers: (m as ToolMessage).tool_call_id } : {}),
  }));

function expectAccepted(m: ReturnType<typeof model>) {
  expect(m.providerLog.rejected).toEqual([]);
  for (const request of requests(m)) expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
}

describe.each(CASES)("public reports, thread state operations (%o)", (c) => {
  it(`langgraph#8653: updateState with no values closing an interrupt keeps every message (${label(c)})`, async () => {
    const a = agents(c);
    const cfg = { configurable: { thread_id: `state-close-${c.lang}-${c.archive}` } };
    for (const target of [a.agent, a.plain] as const) {
      for (let i = 1; i <= 6; i += 1) await target.invoke({ messages: [new HumanMessage(T[c.lang].turn(i))] }, cfg);
      await target.invoke({ messages: [new HumanMessage(T[c.lang].ask)] }, cfg);
    }
    const paused = await reader(a.agent).getState(cfg);
    expect(paused.tasks.some((task) => (task.interrupts ?? []).length > 0)).toBe(true);
    const before = await whole(a, cfg.configurable.thread_id);
    // The user dismisses the question: no values (LangGraph JS has no update as END: "Node
    // "__end__" does not exist"; the node the interrupt paused is the closest).
    await expect(a.plain.updateState(cfg, {}, END)).rejects.toThrow(/does not exist/);
    for (const target of [a.agent, a.plain] as const) await target.updateState(cfg, {}, "tools");
    const after = await whole(a, cfg.configurable.thread_id);
    expect(shape(after)).toEqual(shape(before));
    expect(shape(after)).toEqual(shape(await storedMessages(a.plain as never, cfg.configurable.thread_id)));
    const head = await reader(a.agent).getState(cfg);
    const plainHead = await reader(a.plain).getState(cfg);
    expect(head.next).toEqual(plainHead.next);
    // The next turn: a request with the conversation's newest turns (the rest in the summary), valid
    // everywhere (the dismissed call has no result: the view leaves it out; plain LangGraph sends it unanswered).
    await a.agent.invoke({ messages: [new HumanMessage(T[c.lang].after)] }, cfg);
    const last = requests(a.m).at(-1) as BaseMessage[];
    expect(last.some((m) => messageText(m).includes(T[c.lang].turn(6)))).toBe(true);
    expect(messageText(lastOf(last))).toContain(T[c.lang].after);
    expect((await whole(a, cfg.configurable.thread_id)).length).toBeGreaterThan(before.length);
    expectAccepted(a.m);
  });

  it(`langgraph#7206: after deleteThread, a run given a pre-delete checkpoint brings nothing back (${label(c)})`, async () => {
    const a = agents(c);
    const threadId = `state-delete-${c.lang}-${c.archive}`;
    const cfg = { configurable: { thread_id: threadId } };
    for (let i = 1; i <= 6; i += 1) await a.agent.invoke({ messages: [new HumanMessage(T[c.lang].turn(i))] }, cfg);
    const stale = (await reader(a.agent).getState(cfg)).config;
    expect(stale.configurable?.checkpoint_id).toBeDefined();
    await a.stack.checkpointer?.deleteThread(threadId);
    expect(await whole(a, threadId)).toEqual([]);
    const history = [];
    for await (const snapshot of reader(a.agent).getStateHistory(cfg)) history.push(snapshot);
    expect(history).toEqual([]);
    // The stale writer: a run from the deleted checkpoint.
    const outcome = await a.agent.invoke({ messages: [new HumanMessage(T[c.lang].after)] }, stale).catch((error: unknown) => error);
    // Refused with a typed error naming the option and the checkpoint, nothing stored.
    expect(ThreadwiseConfigError.isInstance(outcome)).toBe(true);
    expect((outcome as Error).message).toContain("configurable.checkpoint_id");
    expect((outcome as Error).message).toContain(String(stale.configurable?.checkpoint_id));
    const thread = await whole(a, threadId);
    for (let i = 1; i <= 6; i += 1) expect(thread.some((m) => messageText(m).includes(T[c.lang].turn(i)))).toBe(false);
    for (const request of requests(a.m).slice(12))
      for (let i = 1; i <= 6; i += 1) expect(request.some((m) => messageText(m).includes(T[c.lang].turn(i)))).toBe(false);
    expectAccepted(a.m);
  });
});
