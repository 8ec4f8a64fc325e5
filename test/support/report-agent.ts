/**
 * The agent the public bug report tests run (test/public-reports.test.ts, test/reports.*.test.ts):
 * `createAgent` with `memoryStack` and a strict fake model, the tools `lookup` and `book`, and
 * readers of what the model received and what the thread stored.
 */
import { AIMessage, type BaseMessage, HumanMessage, type SystemMessage, type ToolMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, scriptedModel, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { type MemoryStackOptions, memoryStack } from "@threadwise/memory";
import { type AgentMiddleware, createAgent, tool } from "langchain";
import { expect } from "vitest";
import { z } from "zod/v4";
import { wireViolations } from "./provider-wire.js";

export const lookup = tool(async ({ n }: { n: number }) => `result ${n}`, {
  name: "lookup",
  description: "Looks a number up.",
  schema: z.object({ n: z.number() }),
});
export const book = tool(async ({ seat }: { seat: string }) => `booked seat ${seat}`, {
  name: "book",
  description: "Books a seat.",
  schema: z.object({ seat: z.string() }),
});

export const lastOf = (messages: BaseMessage[]) => messages.at(-1) as BaseMessage;

export const isTool = (m: BaseMessage) => m.getType() === "tool";

/**
 * The agent's model: a user message starting with `PARALLEL <k>` gets k parallel `lookup` calls;
 * after tool results it answers with the results it saw; otherwise "ok: <last text>".
 */
export function agentModel() {
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) {
        const results = messages.filter(isTool).map((m) => messageText(m));
        return `done with ${results.join(", ")}`;
      }
      const text = messageText(last);
      const parallel = /^PARALLEL (\d+)/.exec(text);
      if (parallel) {
        const k = Number(parallel[1]);
        return new AIMessage({
          content: "",
          tool_calls: Array.from({ length: k }, (_, i) => ({
            id: `call_${text.length}_${i}`,
            name: "lookup",
            args: { n: i },
            type: "tool_call" as const,
          })),
        });
      }
      return `ok: ${text}`;
    },
  });
}

/** The texts of the run of tool results that ends `messages`, oldest first (a fake model's "done: ..."). */
export function trailingResults(messages: readonly BaseMessage[]): string[] {
  let start = messages.length;
  while (start > 0 && isTool(messages[start - 1] as BaseMessage)) start -= 1;
  return messages.slice(start).map((m) => messageText(m));
}

/** A message's last non-blank line, "" when none: the view sends two user messages in a row as one (a turn left unanswered, then the next). */
export const lastLine = (message: BaseMessage) =>
  messageText(message)
    .split("\n")
    .filter((line) => line.trim() !== "")
    .at(-1) ?? "";

/**
 * The graph-operation report suites' model: a user message whose last non-blank line starts with
 * `PARALLEL <k>` gets k parallel `lookup` calls (ids `call_<text length>_<i>`, the same on every
 * thread); after tool results "done: <the trailing run of results>"; another last line `more`
 * answers (when it returns a message), else "ok: <last line>". Strict (Anthropic without prefill
 * too) for the stack; with `strict: false` a request breaking a provider rule is recorded only
 * (plain `createAgent`'s).
 */
export function parallelModel(strict: boolean, more?: (text: string) => AIMessage | undefined) {
  return strictModel({
    noPrefill: true,
    ...(strict ? {} : { onViolation: "record" as const }),
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `done: ${trailingResults(messages).join(" | ")}`;
      const text = lastLine(last);
      const parallel = /^PARALLEL (\d+)/.exec(text);
      if (parallel)
        return new AIMessage({
          content: "",
          tool_calls: Array.from({ length: Number(parallel[1]) }, (_, i) => ({
            id: `call_${text.length}_${i}`,
            name: "lookup",
            args: { n: i },
            type: "tool_call" as const,
          })),
        });
      return more?.(text) ?? `ok: ${text}`;
    },
  });
}

/** A summarizer that records its inputs and answers with `text(call)`. */
export function summarizerModel(text: (call: number) => string | AIMessage | Error = (call) => `summary ${call + 1}`) {
  const inputs: BaseMessage[][] = [];
  const model = scriptedModel((messages, call) => {
    inputs.push(messages);
    return text(call);
  });
  return { model, inputs };
}

/**
 * `createAgent` with `memoryStack` (recall only with `recallMaxTokens`; summarize only with `summarizer`) and the report's
 * model: by default on `in_memory`, with the tools `lookup` and `book` and a system prompt
 * (`systemPrompt: false` for none).
 */
export function stackAgent(options: {
  backend?: "in_memory" | "sqlite";
  sqlitePath?: string;
  tools?: Array<typeof lookup | typeof book>;
  systemPrompt?: string | SystemMessage | false;
  promptContextMode?: "legacy_system" | "stable_tail" | "cache_aware";
  recallMaxTokens?: number;
  windowSize?: number | false;
  summarizeThreshold?: number;
  summarizer?: ReturnType<typeof summarizerModel>["model"];
  maxHistoryTokens?: number;
  model?: ReturnType<typeof strictModel>;
  extra?: AgentMiddleware[];
  /** List `extra` before the stack's middleware (default: after). */
  extraFirst?: boolean;
  responseFormat?: z.ZodType;
  /** Further `memoryStack` options (`summarizeTrigger`, `persistTrimKeepGroups`, ...). */
  stack?: MemoryStackOptions;
}) {
  const model = options.model ?? agentModel();
  const stack = memoryStack({
    backend: options.backend ?? "in_memory",
    ...(options.sqlitePath ? { sqlitePath: options.sqlitePath } : {}),
    windowSize: options.windowSize ?? 4,
    summarize: options.summarizer !== undefined,
    ...(options.summarizeThreshold ? { summarizeThreshold: options.summarizeThreshold } : {}),
    ...(options.maxHistoryTokens ? { maxHistoryTokens: options.maxHistoryTokens } : {}),
    ...(options.summarizer ? { models: { summarize: options.summarizer as never } } : {}),
    recallMaxTokens: options.recallMaxTokens ?? false,
    ...(options.promptContextMode ? { promptContextMode: options.promptContextMode } : {}),
    logger: false,
    env: {},
    ...options.stack,
  });
  const agent = createAgent({
    model,
    tools: options.tools ?? [lookup, book],
    ...(options.systemPrompt === false ? {} : { systemPrompt: options.systemPrompt ?? "You are a helpful assistant." }),
    checkpointer: stack.checkpointer,
    middleware: options.extraFirst ? [...(options.extra ?? []), ...stack.middleware] : [...stack.middleware, ...(options.extra ?? [])],
    ...(options.responseFormat ? { responseFormat: options.responseFormat } : {}),
  });
  return { agent, model, stack };
}

export async function storedMessages(agent: { getState: (config: never) => Promise<{ values: unknown }> }, threadId: string) {
  const state = await agent.getState({ configurable: { thread_id: threadId } } as never);
  return ((state.values as { messages?: BaseMessage[] }).messages ?? []) as BaseMessage[];
}

/** The messages the agent model received on each call (system message first). */
export const requests = (model: ReturnType<typeof strictModel>) =>
  (model.calls as Array<{ messages: BaseMessage[] }>).map((c) => c.messages);

/** What the graph-operation report suites call on an agent (a compiled `createAgent` graph). */
export interface ReportGraph {
  invoke(input: unknown, config: object): Promise<unknown>;
  stream(input: unknown, config: object): Promise<AsyncIterable<unknown>>;
  updateState(config: object, values: object, asNode?: string): Promise<{ configurable?: Record<string, unknown> }>;
  getState(config: object): Promise<{ values: { messages?: BaseMessage[] }; config: { configurable?: Record<string, unknown> } }>;
  getStateHistory(
    config: object,
    options?: object,
  ): AsyncIterable<{
    values: { messages?: BaseMessage[] };
    config: { configurable?: Record<string, unknown> };
    metadata?: Record<string, unknown>;
  }>;
  checkpointer?: unknown;
}

/** What they call on a saver. */
export interface ReportLister {
  list(config: object, options?: object): AsyncIterable<{ metadata?: { source?: string; step?: number } }>;
  deleteThread(threadId: string): Promise<void>;
}

/** The graph-operation report suites' cases: English and Korean, archive off and on. */
export const GRAPH_OPS_CASES = (["en", "ko"] as const).flatMap((lang) => [false, true].map((archive) => ({ lang, archive })));
export type GraphOpsCase = (typeof GRAPH_OPS_CASES)[number];
export const graphOpsLabel = (c: GraphOpsCase) => `${c.lang}, archive ${c.archive ? "on" : "off"}`;

/** Their texts per language: a numbered turn, a question after, a note and its fix. */
export const GRAPH_OPS_TEXT = {
  en: {
    turn: (i: number) => `Tell me about Busan, part ${i}.`,
    after: "What did we talk about?",
    note: "Note: the user prefers trains.",
    fixed: "Note: the user prefers ferries.",
  },
  ko: {
    turn: (i: number) => `부산에 대해 알려 주세요, ${i}부.`,
    after: "우리가 무슨 얘기를 했죠?",
    note: "메모: 사용자는 기차를 좋아함.",
    fixed: "메모: 사용자는 배를 좋아함.",
  },
} as const;

/** `turns` numbered turns (from `from`) on `target`'s thread `cfg`. */
export async function warmGraphOps(target: ReportGraph, lang: GraphOpsCase["lang"], cfg: object, turns = 6, from = 1) {
  for (let i = from; i < from + turns; i += 1) await target.invoke({ messages: [new HumanMessage(GRAPH_OPS_TEXT[lang].turn(i))] }, cfg);
}

/**
 * A `more` answer for {@link graphOpsAgents}: to a last line `<WORD> <rest>`, one AI message (text
 * `content`) holding `calls(rest, text length)`; to any other line none.
 */
export const callsOnWord =
  (word: string, calls: (rest: string, n: number) => Array<{ id: string; name: string; args: object }>, content = "") =>
  (text: string) => {
    const hit = new RegExp(`^${word} (.+)$`).exec(text);
    if (!hit) return undefined;
    return new AIMessage({
      content,
      tool_calls: calls(hit[1] as string, text.length).map((call) => ({ ...call, type: "tool_call" as const })),
    });
  };

/**
 * The graph-operation report suites' pair of agents: `memoryStack` (window 4, summary at 6, the
 * `lookup` tool, archive as given) with a strict {@link parallelModel}, and plain `createAgent` on a
 * `MemorySaver` with the same model recording only (the oracle).
 */
export function graphOpsAgents(options: {
  archive: boolean;
  /** Tools besides `lookup`, on both agents. */
  tools?: StructuredToolInterface[];
  /** The models' answer to a last line that is not `PARALLEL <k>` (see {@link parallelModel}). */
  more?: (text: string) => AIMessage | undefined;
  /** Middleware of the user's, after the stack's on one agent and alone on the other (a fresh instance for each). */
  middleware?: () => AgentMiddleware[];
  /** List `middleware` before the stack's instead. */
  middlewareFirst?: boolean;
  /** `createAgent`'s `responseFormat`, on both agents. */
  responseFormat?: unknown;
  /** Further `memoryStack` options for the stack's agent (`recallMaxTokens`, ...). */
  stack?: MemoryStackOptions;
}) {
  const tools = [lookup, ...(options.tools ?? [])];
  const m = parallelModel(true, options.more);
  const summarizer = summarizerModel((call) => `요약 summary ${call + 1}`);
  const { agent, stack } = stackAgent({
    model: m,
    tools: tools as never,
    windowSize: 4,
    summarizeThreshold: 6,
    summarizer: summarizer.model,
    stack: { ...options.stack, archive: options.archive },
    ...(options.middleware ? { extra: options.middleware(), extraFirst: options.middlewareFirst ?? false } : {}),
    ...(options.responseFormat ? { responseFormat: options.responseFormat as z.ZodType } : {}),
  });
  const plainModel = parallelModel(false, options.more);
  const saver = new MemorySaver();
  const plain = createAgent({
    model: plainModel,
    tools,
    systemPrompt: "You are a helpful assistant.",
    checkpointer: saver,
    ...(options.middleware ? { middleware: options.middleware() } : {}),
    ...(options.responseFormat ? { responseFormat: options.responseFormat as never } : {}),
  });
  return {
    agent: agent as unknown as ReportGraph,
    stack,
    m,
    /** What the stack's summarizer was sent, call by call. */
    summarizerInputs: summarizer.inputs,
    plain: plain as unknown as ReportGraph,
    plainModel,
    savers: { agent: stack.checkpointer as unknown as ReportLister, plain: saver as unknown as ReportLister },
  };
}

/** The stack's agent and plain `createAgent`'s from {@link graphOpsAgents}, labelled, to run one case on both. */
export const graphOpsPair = (a: ReturnType<typeof graphOpsAgents>) =>
  [
    ["agent", a.agent],
    ["plain", a.plain],
  ] as const;

/** The whole thread the stack of {@link graphOpsAgents} stores (archived messages first). */
export const wholeThread = (a: ReturnType<typeof graphOpsAgents>, threadId: string) =>
  (a.stack.checkpointer as unknown as { readThread(config: object): Promise<BaseMessage[]> }).readThread({
    configurable: { thread_id: threadId },
  });

/** Messages as the suites compare them: role, text, a result's call id, an AI message's call ids. */
export const threadShape = (messages: readonly BaseMessage[]) =>
  messages.map((m) => ({
    type: m.getType(),
    text: messageText(m),
    ...(m.getType() === "tool" ? { answers: (m as ToolMessage).tool_call_id } : {}),
    ...(m.getType() === "ai" ? { calls: ((m as AIMessage).tool_calls ?? []).map((call) => call.id) } : {}),
  }));

/** The stack's whole thread (archived messages included) against plain's, by {@link threadShape}. */
export async function expectSameThread(a: ReturnType<typeof graphOpsAgents>, threadId: string): Promise<void> {
  expect(threadShape(await wholeThread(a, threadId))).toEqual(threadShape(await storedMessages(a.plain as never, threadId)));
}

/**
 * Every request `m` received passed the strict validator (all four providers, no prefill), none
 * refused, and converted by each provider package it holds nothing that API refuses (`wireViolations`).
 */
export function expectAccepted(m: ReturnType<typeof strictModel>) {
  expect(m.providerLog.rejected).toEqual([]);
  for (const request of requests(m)) {
    expect(validateProviderRequest(request, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    expect(wireViolations(request)).toEqual([]);
  }
}

/** What an operation gave: `ok`, or the error's class and message. */
export const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (e: unknown) => `${(e as Error).name}: ${(e as Error).message}`,
  );
