/**
 * Streamed tool calls through the stack: a model that streams (`_streamResponseChunks`) its
 * answers, each call's name and id in its first `tool_call_chunks` entry and its arguments' JSON
 * in pieces, two or three parallel calls interleaved by index (test/support/streaming-model.ts),
 * run by `createAgent` with `memoryStack` (archive off and on) and with the middlewares on their
 * own (`[windowTrim(), summarize()]`, `[windowTrim(), tokenCap()]`), through `.invoke` (not
 * streamed: `_generate`), `.stream` with `streamMode: "values"` (not streamed either: no handler
 * prefers streaming) and `streamMode: "messages"` (streamed: the thread stores the chunks'
 * concatenation, an `AIMessageChunk`), in English and Korean (arguments with Hangul, quotes and
 * backslashes split mid-string). Oracle: plain `createAgent` on a `MemorySaver` with the same model
 * and the same mode; every request the stack sends passes the strict validator (OpenAI, Anthropic
 * without prefill, Gemini, Bedrock: no result without its call, no call without its result).
 *
 * Public reports:
 * - https://github.com/langchain-ai/langchainjs/issues/8394 "AIMessageChunk tool_call_chunks merging
 *   fails for fragmented tool call arguments" and https://github.com/langchain-ai/langchainjs/pull/9255
 *   "fix chunks constructed with tool calls + chunks": a stored chunk's calls are its merged chunks';
 * - https://github.com/langchain-ai/langchain/pull/35281 "fix merge_lists incorrectly merging parallel
 *   tool calls" (langchain#34807): interleaved pieces of parallel calls stay with their own call;
 * - https://github.com/langchain-ai/langchain/issues/31620 "doesn't stream tool call args on
 *   'message' stream mode": the stack's `messages` stream carries every call's chunks as plain's;
 * - https://github.com/langchain-ai/langgraph/issues/4289 "INVALID_CHAT_HISTORY" (calls without a
 *   ToolMessage in history after streaming `values`): no request has a call without its result.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AIMessage, type BaseMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, scriptedModel, validateProviderRequest } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent, tool } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { lastLine, trailingResults } from "./support/report-agent.js";
import { type StreamedAnswer, streamingModel } from "./support/streaming-model.js";

const find = tool(async ({ q }: { q: string }) => `found ${q}`, {
  name: "find",
  description: "Finds a thing.",
  schema: z.object({ q: z.string() }),
});

const T = {
  en: {
    hi: "Hello, I am planning a trip to Busan.",
    topic: 'Busan "harbour" \\ weather',
    lead: "Let me check that.",
    text: (i: number) => `Tell me more, part ${i}.`,
  },
  ko: {
    hi: "안녕하세요, 부산 여행을 계획하고 있어요.",
    topic: '부산 "항구" \\ 날씨',
    lead: "확인해 볼게요.",
    text: (i: number) => `더 알려 주세요, ${i}부.`,
  },
} as const;
type Lang = keyof typeof T;

/** Turn i's user text: `FIND <k> #<i>` asks for k parallel calls (with `LEAD` a text before them). */
function script(lang: Lang): string[] {
  const t = T[lang];
  return [
    t.hi,
    "FIND 2 #2",
    t.text(3),
    "FIND 1 #4 LEAD",
    "FIND 3 #5",
    t.text(6),
    "FIND 2 #7 LEAD",
    t.text(8),
    "FIND 2 #9",
    t.text(10),
    t.text(11),
    t.text(12),
    t.text(13),
  ];
}

/** The agent's answer: calls for a last line `FIND`, "done: <the trailing results>" after results, else "ok: <last line>". */
const answer =
  (lang: Lang) =>
  (messages: BaseMessage[]): StreamedAnswer => {
    const last = messages.at(-1) as BaseMessage;
    if (last.getType() === "tool") return `done: ${trailingResults(messages).join(" | ")}`;
    const text = lastLine(last);
    const m = /^FIND (\d+) #(\d+)( LEAD)?/.exec(text);
    if (!m) return `ok: ${text}`;
    return {
      ...(m[3] ? { content: T[lang].lead } : {}),
      calls: Array.from({ length: Number(m[1]) }, (_, i) => ({
        id: `call_t${m[2]}_${i}`,
        name: "find",
        args: { q: `${T[lang].topic} ${m[2]}.${i}` },
      })),
    };
  };

const summarizer = () => scriptedModel((messages) => `요약 summary of ${messages.length} messages`, { strict: false });

const STACKS = [
  "memoryStack",
  "memoryStack+archive",
  "memoryStack+archive(sqlite)",
  "windowTrim+summarize",
  "windowTrim+tokenCap",
] as const;
type Stack = (typeof STACKS)[number];
const MODES = ["invoke", "values", "messages", "events-v3"] as const;
type Mode = (typeof MODES)[number];

const dir = mkdtempSync(join(tmpdir(), "tw-streaming-calls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

type Reader = { readThread(config: object): Promise<BaseMessage[]>; close?(): Promise<void> };

function stackAgent(stack: Stack, model: ReturnType<typeof streamingModel>) {
  if (stack.startsWith("memoryStack")) {
    files += 1;
    const sqlitePath = stack.endsWith("(sqlite)") ? join(dir, `t${files}.sqlite`) : undefined;
    const options = {
      backend: sqlitePath ? ("sqlite" as const) : ("in_memory" as const),
      ...(sqlitePath ? { sqlitePath } : {}),
      windowSize: 4,
      summarize: true,
      summarizeThreshold: 6,
      models: { summarize: summarizer() as never },
      recallMaxTokens: false as const,
      archive: stack.includes("archive"),
      logger: false as const,
      env: {},
    };
    const s = memoryStack(options);
    const agent = createAgent({
      model,
      tools: [find],
      systemPrompt: "You are a helpful assistant.",
      checkpointer: s.checkpointer,
      middleware: s.middleware,
    });
    // What a fresh process reads: another stack on the same file (the one on a MemorySaver reads its own).
    const reader = () => (sqlitePath ? (memoryStack(options).checkpointer as unknown as Reader) : (s.checkpointer as unknown as Reader));
    return { agent, reader };
  }
  const middleware: AgentMiddleware[] =
    stack === "windowTrim+summarize"
      ? [
          windowTrim({ maxMessages: 4, logger: false }),
          summarize({ model: summarizer() as never, windowSize: 4, threshold: 6, logger: false }),
        ]
      : [windowTrim({ maxMessages: 4, logger: false }), tokenCap({ maxTokens: 400, logger: false })];
  const agent = createAgent({
    model,
    tools: [find],
    systemPrompt: "You are a helpful assistant.",
    checkpointer: new MemorySaver(),
    middleware,
  });
  return { agent, reader: undefined };
}

interface Runnable {
  invoke(input: unknown, config: object): Promise<unknown>;
  stream(input: unknown, config: object): Promise<AsyncIterable<unknown>>;
  streamEvents(input: unknown, config: object): Promise<AsyncIterable<unknown>>;
  getState(config: object): Promise<{ values: { messages?: BaseMessage[] } }>;
}

/** What the `messages` stream carried from the agent's model: per streamed message, its text and its calls' chunks. */
type Streamed = Array<{ text: string; chunks: string[] }>;

/** One turn in `mode`; returns what a `messages` stream carried (empty otherwise). */
async function turn(agent: Runnable, mode: Mode, text: string, config: object): Promise<Streamed> {
  const input = { messages: [new HumanMessage(text)] };
  if (mode === "invoke") {
    await agent.invoke(input, config);
    return [];
  }
  const streamed: Streamed = [];
  if (mode === "events-v3") {
    for await (const _ of await agent.streamEvents(input, { ...config, version: "v3" }));
    return streamed;
  }
  for await (const part of await agent.stream(input, { ...config, streamMode: mode })) {
    if (mode !== "messages") continue;
    const [chunk, meta] = part as [AIMessage & { tool_call_chunks?: Array<Record<string, unknown>> }, { langgraph_node?: string }];
    if (chunk.getType() !== "ai" || meta.langgraph_node !== "model_request") continue;
    streamed.push({
      text: messageText(chunk),
      chunks: (chunk.tool_call_chunks ?? []).map((c) => JSON.stringify([c.index, c.id ?? null, c.name ?? null, c.args ?? ""])),
    });
  }
  return streamed;
}

/** A stored message as compared: role, text, calls (id, name, args), a result's call id; no message ids (the run's). */
const shape = (m: BaseMessage) => ({
  type: m.getType(),
  text: messageText(m),
  ...(m.getType() === "ai"
    ? {
        calls: ((m as AIMessage).tool_calls ?? []).map((c) => ({ id: c.id, name: c.name, args: c.args })),
        invalid: ((m as AIMessage).invalid_tool_calls ?? []).length,
      }
    : {}),
  ...(m.getType() === "tool" ? { answers: (m as ToolMessage).tool_call_id } : {}),
});

const CASES = (["en", "ko"] as const).flatMap((lang) => STACKS.flatMap((stack) => MODES.map((mode) => ({ lang, stack, mode }))));

describe("streamed tool-call chunks through the stack", () => {
  it.each(CASES)("%o: the stored thread is plain createAgent's, every request accepted", async ({ lang, stack, mode }) => {
    const model = streamingModel(answer(lang));
    const plainModel = streamingModel(answer(lang), { strict: false });
    const { agent, reader } = stackAgent(stack, model);
    const plain = createAgent({
      model: plainModel,
      tools: [find],
      systemPrompt: "You are a helpful assistant.",
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: `stream-${lang}-${stack}-${mode}` } };
    const streams: Record<"stack" | "plain", Streamed> = { stack: [], plain: [] };
    for (const text of script(lang)) {
      streams.stack.push(...(await turn(agent as unknown as Runnable, mode, text, config)));
      streams.plain.push(...(await turn(plain as unknown as Runnable, mode, text, config)));
    }
    // The mode took the path it names: `messages` and `events-v3` streamed every model call, the others none.
    const streaming = mode === "messages" || mode === "events-v3";
    expect(model.streamed).toBe(streaming ? model.calls.length : 0);
    expect(plainModel.streamed).toBe(streaming ? plainModel.calls.length : 0);
    const plainStored = (await (plain as unknown as Runnable).getState(config)).values.messages ?? [];
    const hot = (await (agent as unknown as Runnable).getState(config)).values.messages ?? [];
    const fresh = reader?.();
    const hotReader = reader === undefined ? undefined : stack.endsWith("(sqlite)") ? undefined : fresh;
    const whole = fresh ? await fresh.readThread(config) : hot;
    if (fresh !== hotReader) await fresh?.close?.();
    expect(whole.map(shape)).toEqual(plainStored.map(shape));
    if (stack.includes("archive")) expect(hot.length).toBeLessThan(whole.length);
    // Each call's arguments arrived whole: Hangul, quotes and backslashes as sent, every call asked
    // for stored (10), but with `streamEvents` v3: LangChain's chunk-to-event bridge puts a text's
    // first call into the text block (both index 0), so each of the two turns with a lead text loses
    // its first call, with or without the stack (https://github.com/langchain-ai/langchainjs/issues/11074).
    const calls = whole.flatMap((m) => (m.getType() === "ai" ? ((m as AIMessage).tool_calls ?? []) : []));
    for (const call of calls) {
      const [, turnNo, i] = /^call_t(\d+)_(\d+)$/.exec(call.id ?? "") ?? [];
      expect(call.args).toEqual({ q: `${T[lang].topic} ${turnNo}.${i}` });
    }
    expect(calls.length).toBe(mode === "events-v3" ? 8 : 10);
    // The messages stream carried the agent model's chunks as plain's did.
    expect(streams.stack).toEqual(streams.plain);
    if (mode === "messages") expect(streams.stack.some((s) => s.chunks.length > 0)).toBe(true);
    expect(model.providerLog.rejected).toEqual([]);
    for (const { messages } of model.calls)
      expect(validateProviderRequest(messages, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    // The last request holds the latest parallel calls with every result right after them.
    const last = model.calls.at(-1)?.messages ?? [];
    expect(messageText(last.at(-1) as BaseMessage)).toBe(T[lang].text(13));
  });
});

/**
 * A client that leaves a `messages` stream in the middle of the calls' argument chunks (a chat UI's
 * stop button while the model streams its calls): LangGraph aborts the model call and stores
 * nothing of the half-streamed answer; the next turns go on. The stored thread must be plain's and
 * no later request may hold a call without its result or a result without its call (partial calls
 * in history: https://github.com/langchain-ai/langgraph/issues/4289,
 * https://github.com/langchain-ai/langchain-aws/pull/842).
 */
describe("a messages stream left in the middle of streamed calls", () => {
  const LEFT = (["en", "ko"] as const).flatMap((lang) =>
    (["memoryStack", "memoryStack+archive", "memoryStack+archive(sqlite)", "windowTrim+summarize"] as const).map((stack) => ({
      lang,
      stack,
    })),
  );
  it.each(LEFT)("%o: the thread is plain's, every later request accepted", async ({ lang, stack }) => {
    const model = streamingModel(answer(lang));
    const plainModel = streamingModel(answer(lang), { strict: false });
    const { agent, reader } = stackAgent(stack, model);
    const plain = createAgent({
      model: plainModel,
      tools: [find],
      systemPrompt: "You are a helpful assistant.",
      checkpointer: new MemorySaver(),
    });
    const config = { configurable: { thread_id: `left-${lang}-${stack}` } };
    const turns = script(lang);
    for (const target of [agent, plain] as unknown as Runnable[]) {
      for (const text of turns.slice(0, 8)) await turn(target, "invoke", text, config);
      // Left after the second call's first argument piece.
      let seen = 0;
      for await (const part of await target.stream({ messages: [new HumanMessage("FIND 2 #20")] }, { ...config, streamMode: "messages" })) {
        const [chunk] = part as [{ tool_call_chunks?: Array<{ index?: number; args?: string }> }];
        if ((chunk.tool_call_chunks ?? []).some((c) => c.index === 1 && (c.args ?? "") !== "")) seen += 1;
        if (seen > 0) break;
      }
      expect(seen).toBe(1);
      for (const text of [...turns.slice(8), "FIND 3 #21", T[lang].text(22)]) await turn(target, "invoke", text, config);
    }
    const plainStored = (await (plain as unknown as Runnable).getState(config)).values.messages ?? [];
    const hot = (await (agent as unknown as Runnable).getState(config)).values.messages ?? [];
    const fresh = reader?.();
    const whole = fresh ? await fresh.readThread(config) : hot;
    if (fresh && stack.endsWith("(sqlite)")) await fresh.close?.();
    expect(whole.map(shape)).toEqual(plainStored.map(shape));
    // Nothing of the half-streamed answer was stored: the left turn's user message, then the next one.
    const left = whole.findIndex((m) => messageText(m) === "FIND 2 #20");
    expect(left).toBeGreaterThan(0);
    expect((whole[left + 1] as BaseMessage).getType()).toBe("human");
    expect(model.providerLog.rejected).toEqual([]);
    for (const { messages } of model.calls)
      expect(validateProviderRequest(messages, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
    expect(messageText((model.calls.at(-1)?.messages ?? []).at(-1) as BaseMessage)).toBe(T[lang].text(22));
  });
});
