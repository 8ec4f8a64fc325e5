import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import {
  addContextBlocks,
  createTokenCounter,
  findOrphans,
  isNoReplyMessage,
  loneSurrogateAt,
  messageText,
  requestOverheadTokens,
  STABLE_TAIL_HEADER,
  sentMessages,
  ThreadwiseConfigError,
  type ThreadwiseLogger,
} from "@threadwise/core";
import {
  characterTokenCounter,
  isCharacterHead,
  receivedRequestTokens,
  repeatedCallIdModel,
  scriptedModel,
  strictModel,
  validateProviderRequest,
} from "@threadwise/core/testing";
import { createAgent, tool } from "langchain";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { shortenToolResults, truncationMarker } from "./shorten-tool-results.js";
import { ThreadwiseTokenBudgetError } from "./token-budget-error.js";
import { capMessages, tokenCap } from "./token-cap.js";

// characterTokenCounter: ceil(characters / 4) per text, plus 4 framing tokens per message, 3 per
// tool call, and a ToolMessage's tool_call_id. capMessages gets no request overhead (tokenCap adds it).
const counter = () => characterTokenCounter();
const human = (id: string, text: string) => new HumanMessage({ id, content: text });
const ai = (id: string, text: string) => new AIMessage({ id, content: text });
const call = (id: string, callIds: string[]) =>
  new AIMessage({ id, content: "", tool_calls: callIds.map((c) => ({ id: c, name: "look", args: {}, type: "tool_call" as const })) });
const result = (id: string, callId: string, text: string) => new ToolMessage({ id, content: text, tool_call_id: callId });
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => m.id);

/** What the model receives when `tokenCap(options)` handles a request of `thread` (no system prompt, no tools). */
async function sentThrough(options: Parameters<typeof tokenCap>[0], thread: BaseMessage[], model: unknown = {}): Promise<BaseMessage[]> {
  let sent: BaseMessage[] = [];
  const request = { messages: thread, systemMessage: new SystemMessage(""), state: { messages: thread }, tools: [], model };
  // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
  await (tokenCap(options).wrapModelCall as any)(request, async (r: { messages: BaseMessage[] }) => {
    sent = r.messages;
    return new AIMessage("ok");
  });
  return sent;
}

function recordingLogger(): ThreadwiseLogger & { lines: string[]; warnings: Array<[string, unknown]> } {
  const lines: string[] = [];
  const warnings: Array<[string, unknown]> = [];
  return { lines, warnings, info: (m) => lines.push(m), warn: (m, f) => warnings.push([m, f]) };
}

afterEach(() => vi.unstubAllEnvs());

describe("tokenCap options", () => {
  it("requires maxTokens or MAX_HISTORY_TOKENS, and names what is wrong", () => {
    vi.stubEnv("MAX_HISTORY_TOKENS", "");
    expect(() => tokenCap()).toThrow(ThreadwiseConfigError);
    expect(() => tokenCap()).toThrow(/tokenCap\.maxTokens: required.*MAX_HISTORY_TOKENS/);
    expect(() => tokenCap({ maxTokens: -1 })).toThrow(/tokenCap\.maxTokens/);
    expect(() => tokenCap({ maxTokens: 100, eviction: "chunked", lowWatermark: 100 })).toThrow(/tokenCap\.lowWatermark/);
    // The default eviction (sliding) has no watermark: one given is refused, not ignored.
    expect(() => tokenCap({ maxTokens: 100, lowWatermark: 50 })).toThrow(/tokenCap\.lowWatermark: applies only with eviction "chunked"/);
    expect(() => tokenCap({ maxTokens: 100, eviction: "chunked", lowWatermark: 50 })).not.toThrow();
    // biome-ignore lint/suspicious/noExplicitAny: invalid values on purpose
    expect(() => tokenCap({ maxTokens: 100, overflow: "drop" as any })).toThrow(/tokenCap\.overflow/);
    // biome-ignore lint/suspicious/noExplicitAny: invalid values on purpose
    expect(() => tokenCap({ maxTokens: 100, tokenCounter: {} as any })).toThrow(/tokenCap\.tokenCounter/);
    vi.stubEnv("MAX_HISTORY_TOKENS", "lots");
    expect(() => tokenCap()).toThrow(/MAX_HISTORY_TOKENS/);
    vi.stubEnv("MAX_HISTORY_TOKENS", "500");
    expect(tokenCap().name).toBe("threadwise/token-cap");
  });
});

describe("capMessages", () => {
  // h1: 4 + 2 = 6, a1: 6, h2: 6, c1: 4 + ceil(4/4)=1 + ceil(2/4)=1 + 3 -> 9, t1: 4 + 10 + 1 = 15, h3: 6.
  const thread = [
    human("h1", "12345678"),
    ai("a1", "12345678"),
    human("h2", "12345678"),
    call("c1", ["x"]),
    result("t1", "x", "r".repeat(40)),
    human("h3", "12345678"),
  ];

  it("drops the oldest whole groups until the rest fits as sent, fixed tokens included", () => {
    const c = counter();
    expect(c.countMessages(thread)).toBe(48);
    // As sent: core puts its no-reply message (4 + 11 tokens) between t1 and h3 (a run that stopped after its tool).
    const sent = sentMessages(thread);
    expect(sent.filter(isNoReplyMessage)).toHaveLength(1);
    expect(c.countMessages(sent)).toBe(63);
    expect(ids(capMessages(thread, { maxTokens: 63, counter: c }).messages)).toEqual(["h1", "a1", "h2", "c1", "t1", "h3"]);
    expect(ids(capMessages(thread, { maxTokens: 62, counter: c }).messages)).toEqual(["a1", "h2", "c1", "t1", "h3"]);
    // 45 = h3 + the 24-token tool group + the no-reply message: h2 no longer fits.
    const capped = capMessages(thread, { maxTokens: 50, counter: c });
    expect(ids(capped.messages)).toEqual(["c1", "t1", "h3"]);
    expect(capped.tokens).toBe(45);
    expect(capped.droppedGroups).toBe(3);
    // 10 fixed tokens (system prompt, tools) push the tool group out.
    expect(ids(capMessages(thread, { maxTokens: 50, fixedTokens: 10, counter: c }).messages)).toEqual(["h3"]);
  });

  it("over the cap with only the current tool loop left: shortens its tool results oldest first, with a marker", () => {
    const c = counter();
    const loop = [
      ai("a0", "old answer"),
      human("h1", "find it"),
      call("c1", ["x"]),
      result("t1", "x", "a".repeat(400)),
      call("c2", ["y"]),
      result("t2", "y", "b".repeat(400)),
    ];
    // h1 6, c1 9, t1 105, c2 9, t2 105 = 234 tokens of must-keep tail.
    const capped = capMessages(loop, { maxTokens: 150, counter: c });
    expect(capped.overLimit).toBe(false);
    expect(capped.shortenedToolResults).toBe(1);
    expect(ids(capped.messages)).toEqual(["h1", "c1", "t1", "c2", "t2"]);
    const t1 = capped.messages[2] as ToolMessage;
    expect(t1).not.toBe(loop[3]);
    expect(t1.tool_call_id).toBe("x");
    // 84 tokens over: t1's 100 content tokens may keep 16. At 4 characters per token, the marker
    // alone costs 9, so the head gets (16 - 9) * 4 = 28 characters: 28 + "\n" + 33 = 62 characters = 16 tokens.
    expect(t1.content).toBe(`${"a".repeat(28)}\n${truncationMarker(93)}`);
    expect(capped.messages[4]).toBe(loop[5]);
    expect(capped.tokens).toBe(c.countMessages(capped.messages));
    expect(capped.tokens).toBe(150);
    expect((loop[3] as ToolMessage).content).toBe("a".repeat(400));
  });

  it("cuts a result to the marker alone and goes on to the next one when one is not enough", () => {
    const c = counter();
    const loop = [
      human("h1", "go"),
      call("c1", ["x"]),
      result("t1", "x", "a".repeat(100)),
      call("c2", ["y"]),
      result("t2", "y", "b".repeat(400)),
    ];
    const capped = capMessages(loop, { maxTokens: 60, counter: c });
    expect(capped.shortenedToolResults).toBe(2);
    expect((capped.messages[2] as ToolMessage).content).toBe(truncationMarker(25));
    expect(String((capped.messages[4] as ToolMessage).content)).toMatch(/^b+\n\[threadwise: truncated \d+ tokens\]$/);
    expect(capped.tokens).toBeLessThanOrEqual(60);
    expect(capped.tokens).toBe(c.countMessages(capped.messages));
  });

  it("never drops the newest user message; reports overLimit when nothing is left to shorten", () => {
    const c = counter();
    const big = [ai("a0", "x"), human("h1", "q".repeat(400))];
    const capped = capMessages(big, { maxTokens: 50, counter: c });
    expect(ids(capped.messages)).toEqual(["h1"]);
    expect(capped.overLimit).toBe(true);
    expect(capped.tokens).toBe(104);
  });

  it('overflow "throw" throws a typed error naming the cap and the count, before shortening anything', () => {
    const c = counter();
    const loop = [human("h1", "go"), call("c1", ["x"]), result("t1", "x", "a".repeat(400))];
    let error: unknown;
    try {
      capMessages(loop, { maxTokens: 40, counter: c, overflow: "throw" });
    } catch (e) {
      error = e;
    }
    expect(ThreadwiseTokenBudgetError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "THREADWISE_TOKEN_BUDGET_EXCEEDED", maxTokens: 40, tokens: 119 });
    expect((error as Error).message).toContain("79 over the cap of 40");
  });

  it("never cuts a result inside a surrogate pair (half an emoji makes Anthropic and Gemini refuse the request)", () => {
    const c = counter();
    const emoji = "😀🚀한".repeat(200);
    const cut: string[] = [];
    for (let excess = 1; excess <= 300; excess += 7) {
      const out = shortenToolResults([human("h", "go"), call("c1", ["x"]), result("t1", "x", emoji)], 2, excess, c);
      const content = String((out.messages[2] as ToolMessage).content);
      expect(loneSurrogateAt(content), `excess ${excess}: ${JSON.stringify(content.slice(-40))}`).toBe(-1);
      cut.push(content);
    }
    // Some cuts keep a head (else the test would pass on marker-only results).
    expect(cut.some((content) => content.startsWith("😀"))).toBe(true);
  });

  it("cuts a result between characters: no decomposed Korean syllable or emoji sequence is split (was a code-point cut)", () => {
    const c = counter();
    for (const unit of [`${"서울".normalize("NFD")} `, "👨‍👩‍👧", "👋🏽🇰🇷"]) {
      const text = unit.repeat(300);
      let heads = 0;
      for (let excess = 1; excess <= 400; excess += 13) {
        const out = shortenToolResults([human("h", "go"), call("c1", ["x"]), result("t1", "x", text)], 2, excess, c);
        const content = String((out.messages[2] as ToolMessage).content);
        const at = content.lastIndexOf("\n");
        if (at <= 0) continue;
        heads += 1;
        expect(
          isCharacterHead(content.slice(0, at), text),
          `${unit} excess ${excess}: ${JSON.stringify(content.slice(Math.max(0, at - 12), at))}`,
        ).toBe(true);
      }
      expect(heads, unit).toBeGreaterThan(0);
    }
  });

  it("shortenToolResults leaves everything before `from` alone", () => {
    const c = counter();
    const list = [result("t0", "z", "z".repeat(400)), human("h", "x"), result("t1", "x", "a".repeat(400))];
    const out = shortenToolResults(list, 1, 50, c);
    expect(out.messages[0]).toBe(list[0]);
    expect(out.shortened).toBe(1);
    expect(out.savedTokens).toBe(50);
  });
});

describe("tokenCap encoding", () => {
  // 20 tokens in o200k_base, 33 in cl100k_base.
  const korean = "안녕하세요, 부산으로 이사했어요. 다음 주 예약을 바꾸고 싶습니다.";
  const thread = [human("old", korean), ai("old-answer", korean), human("now", korean)];

  const sentWith = async (options: Parameters<typeof tokenCap>[0], model: unknown) => ids(await sentThrough(options, thread, model));

  it("follows the request's model name, the model option, or the encoding option", async () => {
    // 3 messages x (20 + 4) + 3 of reply priming = 75 tokens in o200k_base; x (33 + 4) + 3 = 114 in cl100k_base (two: 77).
    expect(await sentWith({ maxTokens: 76, logger: false }, { model: "gpt-4o" })).toEqual(["old", "old-answer", "now"]);
    expect(await sentWith({ maxTokens: 76, logger: false }, {})).toEqual(["old", "old-answer", "now"]);
    expect(await sentWith({ maxTokens: 76, logger: false }, { model: "gpt-4" })).toEqual(["now"]);
    expect(await sentWith({ maxTokens: 76, logger: false }, { modelName: "gpt-3.5-turbo" })).toEqual(["now"]);
    expect(await sentWith({ maxTokens: 76, model: "gpt-4", logger: false }, { model: "gpt-4o" })).toEqual(["now"]);
    expect(await sentWith({ maxTokens: 76, encoding: "o200k_base", model: "gpt-4", logger: false }, { model: "gpt-4" })).toEqual([
      "old",
      "old-answer",
      "now",
    ]);
  });
});

describe("tokenCap counts placed context", () => {
  const thread = [human("h1", "a".repeat(40)), ai("a1", "b".repeat(40)), human("h2", "c".repeat(40))];
  const block = { kind: "facts", producer: "test", label: "Facts", text: "f".repeat(80) };

  async function run(request: { messages: BaseMessage[]; systemMessage: SystemMessage }) {
    let seen: BaseMessage[] = [];
    const full = { ...request, state: { messages: thread }, tools: [], model: {} };
    // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
    await (tokenCap({ maxTokens: 45, tokenCounter: characterTokenCounter(), logger: false }).wrapModelCall as any)(
      full,
      async (r: { messages: BaseMessage[] }) => {
        seen = r.messages;
        return new AIMessage("ok");
      },
    );
    return seen;
  }

  it("a stable_tail context block and a legacy_system block take room from the history", async () => {
    // Each message: 3 + 10 = 13 tokens; 3 fit under 45.
    expect(ids(await run({ messages: thread, systemMessage: new SystemMessage("") }))).toEqual(["h1", "a1", "h2"]);
    // The context block on h2 costs ceil((header + block) / 4) tokens: only h2 is left, and it carries the block.
    const tail = addContextBlocks({ messages: thread, systemMessage: new SystemMessage("") }, [block], { mode: "stable_tail" });
    const sent = await run(tail);
    expect(ids(sent)).toEqual(["h2"]);
    expect(messageText(sent[0] as BaseMessage)).toContain(STABLE_TAIL_HEADER);
    const legacy = addContextBlocks({ messages: thread, systemMessage: new SystemMessage("") }, [block], { mode: "legacy_system" });
    expect(ids(await run(legacy))).toEqual(["h2"]);
  });
});

describe("tokenCap with a provider compaction", () => {
  // An Anthropic compaction block (core compactionBoundary): kept in every view, sent ahead of a
  // view that starts after it, with the user message of its turn.
  const compacted = (id: string) =>
    new AIMessage({
      id,
      content: [
        { type: "compaction", content: "p".repeat(200) },
        { type: "text", text: "ok" },
      ],
    });
  const thread: BaseMessage[] = [human("h0", "x".repeat(40)), compacted("c0")];
  for (let k = 1; k <= 12; k += 1) thread.push(human(`h${k}`, "q".repeat(40)), ai(`a${k}`, "r".repeat(40)));

  it("counts the compaction message it keeps ahead of the view, so the request stays within maxTokens", async () => {
    const maxTokens = 200;
    const sent = await sentThrough({ maxTokens, tokenCounter: characterTokenCounter(), logger: false }, thread);
    expect(ids(sent).slice(0, 2)).toEqual(["h0", "c0"]);
    expect(sent.at(-1)?.id).toBe("a12");
    // The request as the cap counts it: the messages sent plus the reply priming of a request.
    expect(counter().countMessages(sent) + requestOverheadTokens({ system: false, tools: false })).toBeLessThanOrEqual(maxTokens);
    // And the cap still uses its room: one more exchange would not fit.
    const firstKept = thread.findIndex((m) => m.id === sent[2]?.id);
    const withOneMore = [...sent.slice(0, 2), ...thread.slice(firstKept - 2)];
    expect(counter().countMessages(withOneMore) + requestOverheadTokens({ system: false, tools: false })).toBeGreaterThan(maxTokens);
  });
});

describe("tokenCap through createAgent with MemorySaver", () => {
  it("counts the system prompt and tool schemas, keeps whole groups, and logs the multiturn line", async () => {
    const c = createTokenCounter({ encoding: "o200k_base" });
    const lookup = tool(async () => "x", {
      name: "lookup",
      description: "Look up a booking by its id.",
      schema: z.object({ id: z.string() }),
    });
    const systemPrompt = "You are a careful airline agent.";
    const model = scriptedModel((_m, n) => `Answer number ${n + 1} with some words in it.`);
    const logger = recordingLogger();
    const fixed = c.countMessage(new SystemMessage(systemPrompt)) + c.countTools([lookup]);
    const perTurn =
      c.countMessage(new HumanMessage("Question one here?")) + c.countMessage(new AIMessage("Answer number 1 with some words in it."));
    // Room for the fixed part, the newest question and about two earlier exchanges.
    const maxTokens = fixed + perTurn * 3;
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt,
      checkpointer: new MemorySaver(),
      middleware: [tokenCap({ maxTokens, logger })],
    });
    const config = { configurable: { thread_id: "tc1" } };
    const questions = ["Question one here?", "Question two here?", "Question six here?", "Question ten here?", "Question 100 here"];
    for (const q of questions) await agent.invoke({ messages: [new HumanMessage(q)] }, config);
    const last = model.calls.at(-1)?.messages ?? [];
    expect(last[0]?.text).toBe(systemPrompt);
    const sent = last.slice(1);
    expect(sent.at(-1)?.content).toBe("Question 100 here");
    expect(sent[0]?.getType()).toBe("human");
    expect(sent.map((m) => m.content)).toEqual([
      "Question six here?",
      "Answer number 3 with some words in it.",
      "Question ten here?",
      "Answer number 4 with some words in it.",
      "Question 100 here",
    ]);
    expect(fixed + c.countMessages(sent)).toBeLessThanOrEqual(maxTokens);
    expect(logger.lines.at(-1)).toBe(`multiturn: thread_msgs=9 window=${maxTokens}tok sent_to_llm=5 has_prior=true`);
    const state = await agent.graph.getState(config);
    expect((state.values as { messages: BaseMessage[] }).messages).toHaveLength(10);
  });

  it("tokenizes only new messages on later calls of a checkpointed thread", async () => {
    const texts: string[] = [];
    const spy = createTokenCounter({
      countText: (t) => {
        texts.push(t);
        return Math.ceil(t.length / 4);
      },
    });
    const model = scriptedModel((_m, n) => `reply ${n}`);
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [tokenCap({ maxTokens: 10_000, tokenCounter: spy })] });
    const config = { configurable: { thread_id: "tc2" } };
    const perCall: number[] = [];
    for (let turn = 0; turn < 6; turn += 1) {
      const before = texts.length;
      await agent.invoke({ messages: [new HumanMessage(`question ${turn}`)] }, config);
      perCall.push(texts.length - before);
    }
    // Turn 1 tokenizes one text; each later turn only the two new messages: the previous reply
    // (its content and its name, "model") and the new question. The thread grows to 11 messages.
    expect(perCall).toEqual([1, 3, 3, 3, 3, 3]);
    expect(model.calls[5]?.messages).toHaveLength(11);
  });

  // Issue 21: a replica that never saw the thread pays what one that did pays. A view that fits
  // by its UTF-8 bytes (an upper bound of any byte-level BPE count) needs no cut and no count.
  it("a thread that fits by its upper bounds is not tokenized, on a new process as on a warm one; the cut is the exact one", async () => {
    const thread = Array.from({ length: 30 }, (_, k) =>
      k % 2 === 0 ? human(`u${k}`, `서울 question ${k} about seat ${k}A`) : ai(`a${k}`, `answer ${k}: the seat is free`),
    );
    const sent = async (maxTokens: number) => {
      const shared = createTokenCounter();
      let messages: BaseMessage[] = [];
      // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
      await (tokenCap({ maxTokens, tokenCounter: shared, logger: false }).wrapModelCall as any)(
        { messages: thread, systemMessage: new SystemMessage("You are helpful."), tools: [], state: { messages: thread }, runtime: {} },
        async (r: { messages: BaseMessage[] }) => {
          messages = r.messages;
          return new AIMessage("ok");
        },
      );
      return { ids: ids(messages), encoded: shared.encodedCharacters };
    };
    const exact = createTokenCounter();
    const tokens = exact.countMessages(thread) + exact.countText("You are helpful.") + 4 + 3;
    const bytes = thread.reduce((n, m) => n + Buffer.byteLength(messageText(m)) + 4, 0);
    // Fits by bytes: every message sent, nothing tokenized.
    expect(await sent(bytes + 100)).toEqual({ ids: ids(thread), encoded: 0 });
    // Fits exactly but not by bytes: counted, every message sent.
    expect((await sent(tokens + 1)).ids).toEqual(ids(thread));
    // Over the cap: the same cut as capMessages with the same counts.
    const cut = await sent(Math.floor(tokens / 2));
    const expected = capMessages(thread, {
      maxTokens: Math.floor(tokens / 2),
      fixedTokens: exact.countMessage(new SystemMessage("You are helpful.")) + 3,
      counter: exact,
      startOn: "human",
    });
    expect(cut.ids).toEqual(ids(expected.messages));
    expect(cut.ids.length).toBeLessThan(thread.length);
  });

  it("a shortened emoji tool result reaches a strict model well-formed", async () => {
    const emojis = tool(async () => "🙂".repeat(3000), { name: "emojis", description: "Emojis", schema: z.object({}) });
    const model = strictModel({
      answer: (messages) =>
        messages.at(-1)?.getType() === "tool"
          ? "seen"
          : new AIMessage({ content: "", tool_calls: [{ id: "call_e", name: "emojis", args: {}, type: "tool_call" }] }),
    });
    const agent = createAgent({ model, tools: [emojis], middleware: [tokenCap({ maxTokens: 500, logger: false })] });
    await agent.invoke({ messages: [new HumanMessage("show emojis")] });
    const shortened = String(model.calls[1]?.messages.at(-1)?.content);
    expect(shortened).toMatch(/\[threadwise: truncated \d+ tokens\]$/);
    expect(model.providerLog.rejections).toBe(0);
  });

  it("keeps the tool loop of the run whole and shortens its results over the cap, warning when still over", async () => {
    const fetchDoc = tool(async ({ n }: { n: number }) => `${"word ".repeat(300)}end ${n}`, {
      name: "fetch_doc",
      description: "Fetch a document",
      schema: z.object({ n: z.number() }),
    });
    const model = scriptedModel((messages) => {
      const results = messages.filter((m) => m.getType() === "tool").length;
      if (results < 2)
        return new AIMessage({ content: "", tool_calls: [{ id: `call_${results}`, name: "fetch_doc", args: { n: results } }] });
      return "summary of both";
    });
    const logger = recordingLogger();
    const agent = createAgent({
      model,
      tools: [fetchDoc],
      checkpointer: new MemorySaver(),
      middleware: [tokenCap({ maxTokens: 450, logger })],
    });
    const config = { configurable: { thread_id: "tc3" } };
    const out = await agent.invoke({ messages: [new HumanMessage("read two documents")] }, config);
    const third = model.calls[2]?.messages ?? [];
    expect(third.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai", "tool"]);
    expect(String(third[2]?.content)).toMatch(/\[threadwise: truncated \d+ tokens\]$/);
    expect(String(third[4]?.content).endsWith("end 1")).toBe(true);
    expect(findOrphans(third)).toEqual([]);
    expect(logger.warnings).toEqual([]);
    // Stored results are the originals.
    expect(out.messages.filter((m) => m.getType() === "tool").map((m) => String(m.content).length)).toEqual([1505, 1505]);
  });
});

describe("tokenCap with runs stopped before their reply", () => {
  // Each turn's run stopped after its tool (recursionLimit, a failed model call): core's assembly
  // puts its NO_REPLY_TEXT between the results and the next user message. The cap counts it.
  const thread: BaseMessage[] = [];
  for (let k = 1; k <= 10; k += 1)
    thread.push(human(`h${k}`, "q".repeat(40)), call(`c${k}`, [`x${k}`]), result(`t${k}`, `x${k}`, "r".repeat(40)));
  thread.push(human("h-last", "q".repeat(40)));

  it("counts the replies core adds, so the request stays within maxTokens", async () => {
    const maxTokens = 200;
    const sent = await sentThrough({ maxTokens, tokenCounter: characterTokenCounter(), logger: false }, thread);
    expect(sent.filter(isNoReplyMessage).length).toBeGreaterThan(0);
    expect(validateProviderRequest(sent)).toEqual([]);
    expect(counter().countMessages(sent) + requestOverheadTokens({ system: false, tools: false })).toBeLessThanOrEqual(maxTokens);
  });
});

describe("tokenCap counts the request as sent (call ids an earlier AI message of the request used are sent renamed)", () => {
  // A model that numbers its calls per answer (`call_0` on every turn, as Grok over Chat
  // Completions does): core sends every repeat renamed (`call_0_r` + 12 hex characters), so the
  // results sent are longer than the stored ones. The cap used to count the stored ids and let
  // such requests through over maxTokens by the renamed ids' tokens.
  const lookup = tool(async ({ q }: { q: string }) => `Result for ${q}: seat 12A is free.`, {
    name: "lookup",
    description: "Look up a booking.",
    schema: z.object({ q: z.string() }),
  });
  const systemPrompt = "You are a careful airline agent.";
  const renamed = /_r[0-9a-f]{12}$/;
  /** Tokens of one request the fake model received, with a fresh counter: the oracle. */
  const receivedTokens = (messages: readonly BaseMessage[]) => receivedRequestTokens(messages, { tools: [lookup], encoding: "o200k_base" });
  const agentWith = (maxTokens: number) => {
    const model = repeatedCallIdModel({ tool: "lookup", args: (n) => ({ q: `booking ${n}` }), answer: (n) => `Booking ${n} checked.` });
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt,
      checkpointer: new MemorySaver(),
      middleware: [tokenCap({ maxTokens, encoding: "o200k_base", logger: false })],
    });
    return { model, agent };
  };

  it("every request the model receives is within maxTokens, renamed ids counted", async () => {
    let renamedSent = 0;
    const over: string[] = [];
    // Caps from room for a few turns to room for most of them: each cut lands in another place.
    for (let maxTokens = 260; maxTokens <= 420; maxTokens += 16) {
      const { model, agent } = agentWith(maxTokens);
      const config = { configurable: { thread_id: `renamed-${maxTokens}` } };
      for (let turn = 0; turn < 8; turn += 1) await agent.invoke({ messages: [new HumanMessage(`Check booking ${turn}.`)] }, config);
      for (const [n, call] of model.calls.entries()) {
        const tokens = receivedTokens(call.messages);
        if (tokens > maxTokens) over.push(`cap ${maxTokens}, call ${n}: ${tokens} tokens`);
        renamedSent += call.messages.filter((m) => m.getType() === "tool" && renamed.test((m as ToolMessage).tool_call_id)).length;
      }
      // The stored thread keeps the model's ids.
      const stored = (await agent.graph.getState(config)).values as { messages: BaseMessage[] };
      expect(stored.messages.filter((m) => m.getType() === "tool").every((m) => (m as ToolMessage).tool_call_id === "call_0")).toBe(true);
    }
    expect(renamedSent).toBeGreaterThan(0);
    expect(over).toEqual([]);
  });

  it("a fresh process sends what the long-lived middleware sent (its caches change no answer)", async () => {
    const maxTokens = 372;
    const { model, agent } = agentWith(maxTokens);
    const config = { configurable: { thread_id: "renamed-fresh" } };
    for (let turn = 0; turn < 8; turn += 1) await agent.invoke({ messages: [new HumanMessage(`Check booking ${turn}.`)] }, config);
    const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    // The last model call saw the stored thread less its answer: a new tokenCap on the checkpoint's
    // objects (new ones, read back by getState), with nothing cached from the run.
    const thread = stored.slice(0, -1);
    let fresh: BaseMessage[] = [];
    const request = {
      messages: thread,
      systemMessage: new SystemMessage(systemPrompt),
      state: { messages: thread },
      tools: [lookup],
      model: {},
    };
    // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
    await (tokenCap({ maxTokens, encoding: "o200k_base", logger: false }).wrapModelCall as any)(
      request,
      async (r: { messages: BaseMessage[] }) => {
        fresh = r.messages;
        return new AIMessage("ok");
      },
    );
    const shape = (messages: readonly BaseMessage[]) =>
      messages.map((m) => [
        m.id,
        m.getType() === "tool" ? (m as ToolMessage).tool_call_id : ((m as AIMessage).tool_calls ?? []).map((c) => c.id),
      ]);
    const warm = (model.calls.at(-1)?.messages ?? []).slice(1);
    expect(shape(fresh)).toEqual(shape(warm));
    expect(warm.some((m) => m.getType() === "tool" && renamed.test((m as ToolMessage).tool_call_id))).toBe(true);
  });
});
