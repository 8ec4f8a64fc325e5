/**
 * Public reports not cited before, through `memoryStack` (window 4, summarize), in English and
 * Korean, with the message archive off and on. Every request the agent's model receives must pass
 * the strict validator for OpenAI, Anthropic (no prefill), Gemini and Bedrock, and what the report
 * lost must reach the model.
 *
 * - https://github.com/langchain-ai/langgraph/issues/2831 "graph stream with stream_mode=updates
 *   miss tool messages when using tools that return Command": two parallel calls of a tool that
 *   answers with `Command({ update: { messages: [ToolMessage] } })`: the `updates` stream shows both
 *   results, the thread stores each once after its call, and the model sees both;
 * - https://github.com/langchain-ai/langchainjs/issues/7371 "ChatAnthropic: Allow Multiple Tool
 *   Result Blocks + Tool Content Blocks": two parallel results whose content is blocks (text and an
 *   image): each result reaches the model whole (its image data unchanged), right after its call,
 *   on every call while in the window;
 * - https://github.com/langchain-ai/langchainjs/issues/11352 "createAgent drops the Bedrock reasoning
 *   signature, breaking replay on multi-step turns": a tool loop whose AI messages carry Bedrock's
 *   `reasoning_content` blocks with a signature: every request of the loop sends each block with
 *   its signature, the copies the view sends too;
 * - https://github.com/langchain-ai/langchainjs/pull/10882 "preserve caller-supplied tool_calls on
 *   AIMessageChunk when chunks are present" (and langchainjs#8276): a streaming model's answer stored
 *   as an `AIMessageChunk` whose calls live in `tool_call_chunks`, from a model that numbers its calls
 *   per answer (`call_0` each time): the view's renamed copies keep every call, and each result
 *   follows its call;
 * - https://github.com/langchain-ai/langgraph/issues/6626 "`interrupt()` calls in parallel tools
 *   generate identical IDs" (and langgraph#6624 "ToolNode doesn't collect all interrupts from
 *   parallel tool execution"): three parallel calls of a tool that asks the user; each interrupt
 *   resumed by its id: each call gets the answer given for it, once, and the thread reads as a
 *   plain MemorySaver run's;
 * - https://github.com/langchain-ai/langchain/issues/34542 "AnthropicPromptCachingMiddleware applies
 *   cache_control to tool_use/tool_result blocks called by code_execution" (`Tool use result for
 *   toolu_... called by code execution cannot have cache_control`): with `cacheBreakpoints()` after
 *   the stack, a call made by Anthropic's code execution (a `tool_use` block whose `caller` is
 *   `code_execution_20250825`): its result never takes the tool loop's breakpoint, a call of the
 *   model's own still does, and the user's message keeps its mark.
 */
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { Command, interrupt, MemorySaver } from "@langchain/langgraph";
import { convertMessagesToCompletionsMessageParams } from "@langchain/openai";
import { messageText } from "@threadwise/core";
import { PROVIDERS, type Provider, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { cacheBreakpoints } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

const LANGS = ["en", "ko"] as const;
type Lang = (typeof LANGS)[number];
const CASES = LANGS.flatMap((lang) => [false, true].map((archive) => ({ lang, archive })));
type Case = (typeof CASES)[number];
const label = (c: Case) => `${c.lang}, archive ${c.archive ? "on" : "off"}`;

const T = {
  en: {
    hi: "Hello, I am planning a trip to Busan.",
    more: "Anything else to check?",
    go: "go check both",
    ask: "ask me about all three seats",
  },
  ko: {
    hi: "안녕하세요, 부산 여행을 계획하고 있어요.",
    more: "더 확인할 게 있나요?",
    go: "go 둘 다 확인해 줘",
    ask: "ask 세 좌석 모두 물어봐 줘",
  },
} as const;

type Answer = (text: string, n: number) => AIMessage | undefined;

/** A strict model: after results it repeats them; a user message `answer` handles gets its call; else "ok: <first line>". */
function model(answer: Answer, providers: readonly Provider[] = PROVIDERS) {
  let n = 0;
  return strictModel({
    providers,
    noPrefill: true,
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last))
        return `done: ${messages
          .filter(isTool)
          .map((m) => messageText(m))
          .join(", ")}`;
      const text =
        messageText(last)
          .split("\n")
          .find((line) => line.trim() !== "") ?? "";
      n += 1;
      return answer(text, n) ?? `ok: ${text}`;
    },
  });
}

function agentFor(
  c: Case,
  m: ReturnType<typeof model>,
  tools: Parameters<typeof stackAgent>[0]["tools"],
  windowSize = 4,
  extra?: Parameters<typeof stackAgent>[0]["extra"],
) {
  return stackAgent({
    ...(extra ? { extra } : {}),
    model: m,
    tools,
    windowSize,
    summarizeThreshold: windowSize + 2,
    summarizer: summarizerModel((call) => `요약 summary ${call + 1}`).model,
    stack: { archive: c.archive },
  });
}

function expectAccepted(m: ReturnType<typeof model>) {
  expect(m.providerLog.rejected).toEqual([]);
  for (const request of requests(m)) {
    expect(validateProviderRequest(request, { providers: m.providerLog.providers, noPrefill: true })).toEqual([]);
    expect(lastOf(request).getType()).not.toBe("ai");
  }
}

/** Each call of the stored thread answered exactly once, right after its AI message's other results. */
function expectEachCallAnsweredOnce(messages: readonly BaseMessage[]) {
  const calls = messages.flatMap((m) => (m.getType() === "ai" ? ((m as AIMessage).tool_calls ?? []).map((c) => c.id) : []));
  const results = messages.filter(isTool).map((m) => (m as ToolMessage).tool_call_id);
  expect([...results].sort()).toEqual([...calls].sort());
}

const config = (c: Case, name: string) => ({ configurable: { thread_id: `ops3-${name}-${c.lang}-${c.archive}` } });

async function more(agent: ReturnType<typeof stackAgent>["agent"], cfg: object, lang: Lang, k: number) {
  for (let i = 1; i <= k; i += 1) await agent.invoke({ messages: [new HumanMessage(`${T[lang].more} ${i}`)] }, cfg);
}

describe.each(CASES)("public reports, graph operations 3 (%o)", (c) => {
  it(`langgraph#2831: parallel tools answering with a Command: the updates stream and the model see both results (${label(c)})`, async () => {
    const mark = tool(
      async ({ n }: { n: number }, runtime) =>
        new Command({
          update: {
            messages: [
              new ToolMessage({ content: `marked ${n}`, tool_call_id: (runtime as { toolCall?: { id?: string } }).toolCall?.id ?? "" }),
            ],
          },
        }),
      { name: "lookup", description: "Marks a number.", schema: z.object({ n: z.number() }) },
    );
    const m = model((text, n) =>
      text.startsWith("go")
        ? new AIMessage({
            content: "",
            tool_calls: [3, 4].map((k) => ({ id: `call_mark_${n}_${k}`, name: "lookup", args: { n: k }, type: "tool_call" as const })),
          })
        : undefined,
    );
    const { agent } = agentFor(c, m, [mark as never]);
    const cfg = config(c, "command-tools");
    await agent.invoke({ messages: [new HumanMessage(T[c.lang].hi)] }, cfg);
    const streamed: string[] = [];
    for await (const chunk of await agent.stream({ messages: [new HumanMessage(T[c.lang].go)] }, {
      ...cfg,
      streamMode: "updates",
    } as never)) {
      for (const update of Object.values(chunk as Record<string, { messages?: BaseMessage[] } | undefined>))
        for (const message of update?.messages ?? []) if (message.getType() === "tool") streamed.push(messageText(message));
    }
    expect(streamed.sort()).toEqual(["marked 3", "marked 4"]);
    const afterTools = requests(m).at(-1) as BaseMessage[];
    expect(
      afterTools
        .filter(isTool)
        .map((x) => messageText(x))
        .sort(),
    ).toEqual(["marked 3", "marked 4"]);
    await more(agent, cfg, c.lang, 4);
    expectEachCallAnsweredOnce(await storedMessages(agent as never, cfg.configurable.thread_id));
    expectAccepted(m);
  });

  // OpenAI Chat Completions takes no image in a tool message (`tool_result_parts`); LangChain sends
  // the tool's blocks as they are, so plain createAgent's requests break that rule the same way:
  // the tool's shape, the caller's to change (packages/memory README, "Tool results with images").
  // The other three providers check every request; OpenAI's refusals must be exactly plain LangChain's.
  it(`langchainjs#7371: two parallel results of text and image blocks reach the model whole (${label(c)})`, async () => {
    const DATA = (k: number) => `iVBORw0KGgo${k}AAAANSUhEUg`.repeat(40);
    const snapshot = tool(
      async ({ n }: { n: number }) => [
        { type: "text", text: `screen ${n}` },
        { type: "image", source_type: "base64", mime_type: "image/png", data: DATA(n) },
      ],
      { name: "lookup", description: "Takes a screenshot.", schema: z.object({ n: z.number() }) },
    );
    const answer: Answer = (text, n) =>
      text.startsWith("go")
        ? new AIMessage({
            content: "",
            tool_calls: [3, 4].map((k) => ({ id: `toolu_${n}_${k}`, name: "lookup", args: { n: k }, type: "tool_call" as const })),
          })
        : undefined;
    const others = PROVIDERS.filter((p) => p !== "openai");
    const m = model(answer, others);
    const { agent } = agentFor(c, m, [snapshot as never], 12);
    const cfg = config(c, "image-results");
    const plainModel = model(answer, others);
    const plain = createAgent({
      model: plainModel,
      tools: [snapshot],
      systemPrompt: "You are a helpful assistant.",
      checkpointer: new MemorySaver(),
    });
    for (const text of [T[c.lang].hi, T[c.lang].go, `${T[c.lang].go} again`]) {
      await agent.invoke({ messages: [new HumanMessage(text)] }, cfg);
      await plain.invoke({ messages: [new HumanMessage(text)] }, cfg);
    }
    // Each call after the tools ran (the second one's with both groups in the window): every result,
    // each with its image data as stored.
    const afterTools = requests(m).filter((request) => isTool(lastOf(request)));
    expect(afterTools.length).toBe(2);
    expect(afterTools[1]?.filter(isTool).length).toBe(4);
    for (const request of afterTools) {
      const results = request.filter(isTool) as ToolMessage[];
      for (const result of results) {
        const k = Number(result.tool_call_id.slice(-1));
        const blocks = result.content as Array<{ type: string; data?: string; text?: string }>;
        expect(blocks.find((b) => b.type === "text")?.text).toBe(`screen ${k}`);
        expect(blocks.find((b) => b.type === "image")?.data).toBe(DATA(k));
      }
    }
    // OpenAI: the same refusals as plain LangChain's, request by request, and only of the tool's images.
    const openai = (request: BaseMessage[]) =>
      validateProviderRequest(request, { providers: ["openai"] }).map((v) => `${v.rule}:${(request[v.index] as ToolMessage).tool_call_id}`);
    expect(requests(m).map(openai)).toEqual(requests(plainModel).map(openai));
    expect(afterTools.map(openai)).toEqual(
      afterTools.map((request) => request.filter(isTool).map((t) => `tool_result_parts:${(t as ToolMessage).tool_call_id}`)),
    );
    // What the rule stands for: @langchain/openai sends each image as an image_url part of the tool message.
    const sent = convertMessagesToCompletionsMessageParams({ messages: afterTools[0] as BaseMessage[] }) as Array<{
      role: string;
      content: unknown;
    }>;
    for (const param of sent.filter((p) => p.role === "tool"))
      expect((param.content as Array<{ type: string }>).map((part) => part.type)).toEqual(["text", "image_url"]);
    await more(agent, cfg, c.lang, 4);
    expectEachCallAnsweredOnce(await storedMessages(agent as never, cfg.configurable.thread_id));
    expectAccepted(m);
  });

  it(`langchainjs#11352: Bedrock reasoning blocks keep their signature in every request of a tool loop (${label(c)})`, async () => {
    const reasoning = (n: number, step: string) => ({
      type: "reasoning_content",
      reasoningText: { text: `think ${n} ${step}`, signature: `sig-${n}-${step}` },
    });
    const m = model((text, n) =>
      text.startsWith("go")
        ? new AIMessage({
            content: [reasoning(n, "call"), { type: "text", text: " " }] as never,
            tool_calls: [3, 4].map((k) => ({ id: `tooluse_${n}_${k}`, name: "lookup", args: { n: k }, type: "tool_call" as const })),
          })
        : new AIMessage({ content: [reasoning(n, "answer"), { type: "text", text: `ok: ${text}` }] as never }),
    );
    const { agent } = agentFor(c, m, undefined);
    const cfg = config(c, "bedrock-reasoning");
    await agent.invoke({ messages: [new HumanMessage(T[c.lang].hi)] }, cfg);
    await agent.invoke({ messages: [new HumanMessage(T[c.lang].go)] }, cfg);
    await more(agent, cfg, c.lang, 4);
    const stored = await storedMessages(agent as never, cfg.configurable.thread_id);
    const signatures = new Map<string, string>();
    for (const message of stored)
      if (message.getType() === "ai" && message.id)
        for (const block of message.content as Array<{ type: string; reasoningText?: { signature?: string } }>)
          if (block.type === "reasoning_content") signatures.set(message.id, String(block.reasoningText?.signature));
    let sent = 0;
    for (const request of requests(m))
      for (const message of request)
        if (message.getType() === "ai" && message.id && signatures.has(message.id)) {
          const blocks = (Array.isArray(message.content) ? message.content : []) as Array<{
            type: string;
            reasoningText?: { signature?: string };
          }>;
          expect(blocks.find((b) => b.type === "reasoning_content")?.reasoningText?.signature).toBe(signatures.get(message.id));
          sent += 1;
        }
    expect(sent).toBeGreaterThan(4);
    expectEachCallAnsweredOnce(stored);
    expectAccepted(m);
  });

  it(`langchainjs#10882: streamed answers stored as AIMessageChunk with numbered call ids keep every call in the view (${label(c)})`, async () => {
    const m = model((text) =>
      text.startsWith("go")
        ? (new AIMessageChunk({
            content: "",
            tool_call_chunks: [3, 4].map((k, index) => ({
              id: `call_${index}`,
              name: "lookup",
              args: JSON.stringify({ n: k }),
              index,
              type: "tool_call_chunk" as const,
            })),
          }) as never)
        : undefined,
    );
    const { agent } = agentFor(c, m, undefined, 12);
    const cfg = config(c, "chunk-calls");
    await agent.invoke({ messages: [new HumanMessage(T[c.lang].hi)] }, cfg);
    await agent.invoke({ messages: [new HumanMessage(T[c.lang].go)] }, cfg);
    await agent.invoke({ messages: [new HumanMessage(`${T[c.lang].go} again`)] }, cfg);
    const last = requests(m).at(-1) as BaseMessage[];
    const calls = last.flatMap((x) => (x.getType() === "ai" ? ((x as AIMessage).tool_calls ?? []) : []));
    // Both answers' calls, each id once, each answered by the result of its own arguments.
    expect(calls.length).toBe(4);
    expect(new Set(calls.map((call) => call.id)).size).toBe(4);
    for (const call of calls) {
      const result = last.find((x) => isTool(x) && (x as ToolMessage).tool_call_id === call.id);
      expect(messageText(result as BaseMessage)).toBe(`result ${(call.args as { n: number }).n}`);
    }
    await more(agent, cfg, c.lang, 4);
    expectEachCallAnsweredOnce(await storedMessages(agent as never, cfg.configurable.thread_id));
    expectAccepted(m);
  });

  it(`langgraph#6626: three parallel calls that each interrupt, resumed by interrupt id, each get their own answer (${label(c)})`, async () => {
    const ask = tool(async ({ seat }: { seat: string }) => `seat ${seat}: ${String(interrupt({ seat }))}`, {
      name: "book",
      description: "Asks the user about a seat.",
      schema: z.object({ seat: z.string() }),
    });
    const answer: Answer = (text, n) =>
      text.startsWith("ask")
        ? new AIMessage({
            content: "",
            tool_calls: ["1A", "2B", "3C"].map((seat) => ({
              id: `call_ask_${n}_${seat}`,
              name: "book",
              args: { seat },
              type: "tool_call" as const,
            })),
          })
        : undefined;
    const run = async (plain: boolean) => {
      const m = model(answer);
      const built = plain
        ? { agent: createAgent({ model: m, tools: [ask], checkpointer: new MemorySaver() }) }
        : agentFor(c, m, [ask as never]);
      const agent = built.agent as ReturnType<typeof stackAgent>["agent"];
      const cfg = config(c, `parallel-interrupts-${plain}`);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].hi)] }, cfg);
      await agent.invoke({ messages: [new HumanMessage(T[c.lang].ask)] }, cfg);
      const state = (await agent.getState(cfg as never)) as { tasks?: Array<{ interrupts?: unknown[] }> };
      const interrupts = (state.tasks ?? []).flatMap((task) => (task.interrupts ?? []) as Array<{ id: string; value: { seat: string } }>);
      const resume = Object.fromEntries(interrupts.map((i) => [i.id, c.lang === "ko" ? `${i.value.seat} 좋아요` : `${i.value.seat} yes`]));
      await agent.invoke(new Command({ resume }) as never, cfg);
      await more(agent, cfg, c.lang, 4);
      const stored = await storedMessages(agent as never, cfg.configurable.thread_id);
      return { m, interrupts, stored, texts: stored.map((x) => messageText(x)) };
    };
    const plain = await run(true);
    const stacked = await run(false);
    expect(stacked.interrupts.length).toBe(plain.interrupts.length);
    expect(stacked.texts).toEqual(plain.texts);
    const results = stacked.stored.filter(isTool).map((x) => messageText(x));
    for (const seat of ["1A", "2B", "3C"]) expect(results.filter((r) => r.startsWith(`seat ${seat}: ${seat} `)).length).toBe(1);
    expectEachCallAnsweredOnce(stacked.stored);
    expectAccepted(stacked.m);
  });

  it(`langchain#34542: a result of a call made by code execution never takes a cache breakpoint (${label(c)})`, async () => {
    const marked = (message: BaseMessage) => JSON.stringify(message.content).includes("cache_control");
    const m = model((text, n) => {
      if (!text.startsWith("go")) return undefined;
      const programmatic = text.includes("own") ? [] : [4];
      return new AIMessage({
        content: [
          { type: "text", text: "Running code." },
          ...(programmatic.length > 0
            ? [{ type: "server_tool_use", id: `srvtoolu_${n}`, name: "code_execution", input: { code: "lookup(4)" } }]
            : []),
          ...[3, 4].map((k) => ({
            type: "tool_use",
            id: `toolu_${n}_${k}`,
            name: "lookup",
            input: { n: k },
            ...(programmatic.includes(k) ? { caller: { type: "code_execution_20250825", tool_id: `srvtoolu_${n}` } } : {}),
          })),
        ] as never,
        tool_calls: [3, 4].map((k) => ({ id: `toolu_${n}_${k}`, name: "lookup", args: { n: k }, type: "tool_call" as const })),
      });
    });
    const { agent } = agentFor(c, m, undefined, 12, [cacheBreakpoints({ anyModel: true })]);
    const cfg = config(c, "programmatic-cache");
    await agent.invoke({ messages: [new HumanMessage(T[c.lang].hi)] }, cfg);
    await agent.invoke({ messages: [new HumanMessage(`${T[c.lang].go} 3`)] }, cfg);
    await agent.invoke({ messages: [new HumanMessage(`${T[c.lang].go} own`)] }, cfg);
    const loops = requests(m).filter((request) => isTool(lastOf(request)));
    expect(loops.length).toBe(2);
    // The programmatic call's result is the newest of its loop: it is never marked, the result
    // before it takes the mark instead (the stack's default mode places no tail context).
    const first = loops[0] as BaseMessage[];
    const resultOf = (request: BaseMessage[], id: string) =>
      request.find((x) => isTool(x) && (x as ToolMessage).tool_call_id === id) as BaseMessage;
    expect((lastOf(first) as ToolMessage).tool_call_id).toBe("toolu_2_4");
    for (const request of requests(m))
      for (const message of request) if (message === resultOf(request, "toolu_2_4")) expect(marked(message)).toBe(false);
    expect(marked(resultOf(first, "toolu_2_3"))).toBe(true);
    // The model's own loop: its newest result takes the mark.
    expect(marked(lastOf(loops[1] as BaseMessage[]))).toBe(true);
    expectAccepted(m);
  });
});
