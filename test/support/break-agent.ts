/**
 * A full `memoryStack` agent on each backend, with tools that do what real tools do (parallel
 * calls, a throw, an interrupt, a `Command` with messages, a huge result, image blocks), a strict
 * model (every request checked against all four providers' rules, refusals recorded) and an
 * oracle: the same turn run by fresh middleware instances (another `memoryStack` on the same
 * storage, "a fresh process") from the same checkpoint must send the same request.
 * Used by `test/break.*.test.ts`.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { hideMemoryState, messageText, toolCallsOf } from "@threadwise/core";
import { type StrictFakeModel, scriptedModel, strictModel } from "@threadwise/core/testing";
import { type MemoryStackOptions, memoryStack } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { afterAll } from "vitest";
import { z } from "zod/v4";

import type { Backend } from "./threadwise-savers.js";

export { BACKENDS, type Backend, backendStorage } from "./threadwise-savers.js";

export const lookup = tool(async ({ q }: { q: string }) => `result for ${q}`, {
  name: "lookup",
  description: "Looks things up.",
  schema: z.object({ q: z.string() }),
});
export const failing = tool(
  async () => {
    throw new Error("disk quota exceeded");
  },
  { name: "failing", description: "Always fails.", schema: z.object({ q: z.string() }) },
);
export const asking = tool(async ({ q }: { q: string }) => `approved ${q}: ${String(interrupt({ question: `approve ${q}?` }))}`, {
  name: "asking",
  description: "Asks a human.",
  schema: z.object({ q: z.string() }),
});
/** Answers with a `Command` whose update holds its ToolMessage and a note from the tool. */
export const commanding = tool(
  async ({ q }: { q: string }, config) =>
    new Command({
      update: {
        messages: [new ToolMessage({ content: `command result for ${q}`, tool_call_id: config.toolCall?.id ?? "", name: "commanding" })],
      },
    }),
  { name: "commanding", description: "Answers with a Command.", schema: z.object({ q: z.string() }) },
);
/** A result far bigger than any window or cap. */
export const huge = tool(async ({ q }: { q: string }) => `${q}: ${"서울 Seoul weather data row. ".repeat(4000)}`, {
  name: "huge",
  description: "Returns a huge result.",
  schema: z.object({ q: z.string() }),
});
export const TOOLS = [lookup, failing, asking, commanding, huge];

/** A tiny valid PNG (1x1), base64. */
export const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

/**
 * The agent's model: `TOOLS a,b` calls those tools in parallel (args `{ q: "<n>" }`); after tool
 * results it answers with their text; otherwise `ok: <text>`. Every request is checked against all
 * four providers and refusals are recorded (not thrown), so a run shows every refused request.
 */
export function agentModel(): StrictFakeModel {
  let n = 0;
  return strictModel({
    onViolation: "record",
    answer: (messages) => {
      const last = messages.at(-1) as BaseMessage;
      if (last.getType() === "tool") return `done: ${messageText(last).slice(0, 40)}`;
      const text = messageText(last);
      const m = /TOOLS ([\w,]+)/.exec(text);
      if (m && last.getType() === "human") {
        n += 1;
        const names = (m[1] as string).split(",");
        return new AIMessage({
          content: "",
          tool_calls: names.map((name, i) => ({ id: `call_${n}_${i}`, name, args: { q: `${n}.${i}` }, type: "tool_call" as const })),
        });
      }
      return `ok: ${text.slice(0, 40)}`;
    },
  });
}

/** Stack options used by the break suites: small window, a cap, summary, facts, recall. */
export function stackOptions(storage: MemoryStackOptions, extra: MemoryStackOptions = {}): MemoryStackOptions {
  return {
    windowSize: 6,
    maxHistoryTokens: 1500,
    summarizeThreshold: 10,
    factsMode: "heuristic",
    recallMaxTokens: 200,
    models: { summarize: scriptedModel(() => "SUMMARY-7f3a of the earlier talk", { strict: false }) },
    logger: false,
    env: {},
    ...storage,
    ...extra,
  };
}

/** What a provider sees of a request: type, text, calls, call id (message ids left out where random). */
export function requestShape(messages: readonly BaseMessage[]): string[] {
  return messages.map((m) => {
    const calls = toolCallsOf(m)
      .map((c) => `${c.id}:${c.name}:${JSON.stringify(c.args)}`)
      .join(",");
    const callId = m.getType() === "tool" ? `<${(m as ToolMessage).tool_call_id}>` : "";
    const content = typeof m.content === "string" ? m.content : JSON.stringify(m.content);
    return `${m.getType()}${callId}${calls ? `[${calls}]` : ""}: ${content}`;
  });
}

/** The last request a fake model received. */
export function lastRequest(model: StrictFakeModel): BaseMessage[] {
  return (model.calls.at(-1) as { messages: BaseMessage[] } | undefined)?.messages ?? [];
}

export const human = (text: string, id?: string) => new HumanMessage({ content: text, ...(id ? { id } : {}) });

/**
 * Agents on a full `memoryStack` over `storage` (see {@link backendStorage}) and the helpers the
 * break suites share: a stack, a turn, the stored messages, the head checkpoint, the refusals, a
 * busy thread, and the fresh-process oracle (`oracleTurn`). Call it at the top level of a test
 * file after `backendStorage`: the checkpointer of every stack it made is closed in an `afterAll`
 * that runs before the storage's (vitest runs after-hooks in reverse), so the PostgreSQL database
 * is dropped with no pool of the suite open.
 */
export function breakHarness(storage: (backend: Backend) => MemoryStackOptions) {
  /** Model calls checked, refused (any provider), oracle comparisons and those that differed, for the suite's report line. */
  const tally = { calls: 0, refused: 0, compared: 0, differing: 0 };
  const built: Array<{ model: StrictFakeModel }> = [];
  const stacks: Array<ReturnType<typeof memoryStack>> = [];
  afterAll(async () => {
    await Promise.all(stacks.splice(0).map((stack) => stack.checkpointer?.close()));
  });
  /** A full stack on `backend` with the break suites' options and `extra`; its checkpointer is closed after the file. */
  function stackOf(backend: Backend, extra: MemoryStackOptions = {}) {
    const stack = memoryStack(stackOptions(storage(backend), extra));
    stacks.push(stack);
    return stack;
  }
  /** An agent on a full stack; `extra` options for the stack. */
  function build(backend: Backend, extra: MemoryStackOptions = {}, shareWith?: { checkpointer: unknown }) {
    const stack = stackOf(backend, extra);
    const model = agentModel();
    // in_memory has no shared storage: the fresh process gets the first one's saver.
    const checkpointer = (shareWith && backend === "in_memory" ? shareWith.checkpointer : stack.checkpointer) as typeof stack.checkpointer;
    const agent = hideMemoryState(createAgent({ model, tools: TOOLS, middleware: stack.middleware, checkpointer }));
    built.push({ model });
    return { agent, model, extra, checkpointer: checkpointer as NonNullable<typeof checkpointer> };
  }
  type BreakAgent = ReturnType<typeof build>;

  const cfg = (thread: string, checkpointId?: string) => ({
    configurable: { thread_id: thread, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
  });
  const refusals = (b: BreakAgent) =>
    b.model.providerLog.rejected.map((r) => r.violations.map((v) => `${v.provider}:${v.rule}: ${v.message}`));

  async function say(b: BreakAgent, thread: string, text: string, checkpointId?: string) {
    return b.agent.invoke({ messages: [human(text)] }, cfg(thread, checkpointId));
  }
  async function messagesOf(b: BreakAgent, thread: string): Promise<BaseMessage[]> {
    return ((await b.agent.graph.getState(cfg(thread))).values as { messages: BaseMessage[] }).messages;
  }
  async function headId(b: BreakAgent, thread: string): Promise<string> {
    return (await b.agent.graph.getState(cfg(thread))).config.configurable?.checkpoint_id as string;
  }

  /** The same turn from the thread's head by `b` and by a fresh process: both requests, and both must match. */
  async function oracleTurn(backend: Backend, b: BreakAgent, thread: string, text: string) {
    const at = await headId(b, thread);
    const fresh = build(backend, b.extra, b);
    await say(fresh, thread, text, at);
    await say(b, thread, text, at);
    const mine = requestShape(lastRequest(b.model));
    const other = requestShape(lastRequest(fresh.model));
    tally.compared += 1;
    if (JSON.stringify(mine) !== JSON.stringify(other)) tally.differing += 1;
    return { mine, fresh: other, freshRefusals: refusals(fresh) };
  }

  /** A thread with tool turns, enough to summarize: parallel calls, a failing tool, a Command, a huge result. */
  async function busyThread(b: BreakAgent, thread: string) {
    const texts = [
      "My name is Mina and I live in Seoul.",
      "TOOLS lookup,lookup",
      "저는 부산으로 이사했어요.",
      "TOOLS lookup,failing",
      "TOOLS commanding,lookup",
      "What is the weather?",
      "TOOLS huge",
      "Thanks, and my dog is Coco.",
      "TOOLS lookup,commanding,lookup",
      "Anything else?",
    ];
    for (const text of texts) await say(b, thread, text);
  }
  /** Totals over every agent built so far (call it in `afterAll`). */
  const report = (name: string) => {
    for (const { model } of built.splice(0)) {
      tally.calls += model.providerLog.requests;
      tally.refused += model.providerLog.rejections;
    }
    return `[${name}] model calls=${tally.calls} refused=${tally.refused} oracle turns=${tally.compared} differing from a fresh process=${tally.differing}`;
  };
  return { stackOf, build, cfg, refusals, say, messagesOf, headId, oracleTurn, busyThread, report };
}
