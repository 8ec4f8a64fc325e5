/**
 * Threads in Anthropic's native content format, through whole agents: an AI message whose content
 * holds `{ type: "tool_use", id, name, input }` blocks while its `tool_calls` is `[]` (or lacks
 * some of them), answered by a user message whose content holds `{ type: "tool_result",
 * tool_use_id, content }` blocks (no ToolMessage). Such threads come from imported Anthropic
 * transcripts (`historySeed`, `updateState`, an input of many messages) and from older
 * `@langchain/anthropic` versions. Every request the model receives, at several window sizes and
 * under `[windowTrim, summarize]`, `tokenCap` and `memoryStack`, must pass the strict validator's
 * Anthropic rules (each `tool_use` answered by a `tool_result` in the next user turn, each
 * `tool_result` naming a `tool_use` of the assistant turn right before it) and the same rules on
 * the payload `@langchain/anthropic`'s own converter builds. The stored thread is never changed,
 * and a fresh agent on the same checkpointer sends the same request.
 */
import { convertPromptToAnthropic } from "@langchain/anthropic";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const toolUse = (id: string, city: string) => ({ type: "tool_use", id, name: "weather", input: { city } });
const toolResult = (id: string, content: unknown) => ({ type: "tool_result", tool_use_id: id, content });

/** An imported transcript in Anthropic's format: calls only as `tool_use` blocks, results only as `tool_result` blocks. */
function transcript(lang: "en" | "ko"): BaseMessage[] {
  const t =
    lang === "en"
      ? {
          q1: "What's the weather in Seoul?",
          look: "Let me check.",
          r1: "sunny, 21C",
          a1: "It is sunny and 21C in Seoul.",
          q2: "And Busan and Jeju?",
          r2: "cloudy, 18C",
          r3: [{ type: "text", text: "rain, 16C" }],
          a2: "Busan is cloudy, Jeju is rainy.",
          q3: "Incheon please.",
          r4: "windy, 12C",
          more: "Thanks. Also, should I bring an umbrella to Jeju tomorrow?",
          a4: "Yes, bring one.",
          q5: "And Daegu?",
          a5: "Daegu is hot.",
        }
      : {
          q1: "서울 날씨 어때?",
          look: "확인해 볼게요.",
          r1: "맑음, 21도",
          a1: "서울은 맑고 21도입니다.",
          q2: "부산이랑 제주는?",
          r2: "흐림, 18도",
          r3: [{ type: "text", text: "비, 16도" }],
          a2: "부산은 흐리고 제주는 비가 와요.",
          q3: "인천도 알려줘.",
          r4: "바람, 12도",
          more: "고마워. 그리고 내일 제주 갈 때 우산 챙겨야 해?",
          a4: "네, 챙기세요.",
          q5: "대구는?",
          a5: "대구는 더워요.",
        };
  const p = `${lang}-`;
  return [
    new HumanMessage({ id: `${p}h1`, content: t.q1 }),
    new AIMessage({
      id: `${p}a1`,
      content: [{ type: "text", text: t.look }, toolUse(`toolu_${lang}_01`, "Seoul")] as never,
      tool_calls: [],
    }),
    new HumanMessage({ id: `${p}r1`, content: [toolResult(`toolu_${lang}_01`, t.r1)] as never }),
    new AIMessage({ id: `${p}a2`, content: t.a1 }),
    new HumanMessage({ id: `${p}h2`, content: t.q2 }),
    // A parallel call: two tool_use blocks, answered in one user message.
    new AIMessage({ id: `${p}a3`, content: [toolUse(`toolu_${lang}_02`, "Busan"), toolUse(`toolu_${lang}_03`, "Jeju")] as never }),
    new HumanMessage({
      id: `${p}r2`,
      content: [toolResult(`toolu_${lang}_02`, t.r2), toolResult(`toolu_${lang}_03`, t.r3)] as never,
    }),
    new AIMessage({ id: `${p}a4`, content: t.a2 }),
    new HumanMessage({ id: `${p}h3`, content: t.q3 }),
    // tool_calls lacks one of the two blocks' calls; each answered in a user message of its own.
    new AIMessage({
      id: `${p}a5`,
      content: [toolUse(`toolu_${lang}_04`, "Incheon"), toolUse(`toolu_${lang}_05`, "Incheon")] as never,
      tool_calls: [{ id: `toolu_${lang}_04`, name: "weather", args: { city: "Incheon" }, type: "tool_call" }],
    }),
    new HumanMessage({ id: `${p}r4`, content: [toolResult(`toolu_${lang}_04`, t.r4)] as never }),
    // The last result shares its user message with the user's next question (Anthropic's own wire
    // shape; the Korean import stores the words first, which Anthropic refuses as it is).
    new HumanMessage({
      id: `${p}r5`,
      content: (lang === "en"
        ? [toolResult(`toolu_${lang}_05`, t.r4), { type: "text", text: t.more }]
        : [{ type: "text", text: t.more }, toolResult(`toolu_${lang}_05`, t.r4)]) as never,
    }),
    new AIMessage({ id: `${p}a6`, content: t.a4 }),
    new HumanMessage({ id: `${p}h5`, content: t.q5 }),
    new AIMessage({ id: `${p}a7`, content: [{ type: "text", text: t.look }, toolUse(`toolu_${lang}_06`, "Daegu")] as never }),
    new HumanMessage({ id: `${p}r6`, content: [toolResult(`toolu_${lang}_06`, "35C")] as never }),
    new AIMessage({ id: `${p}a8`, content: t.a5 }),
  ];
}

/**
 * Anthropic's pairing on the payload `@langchain/anthropic` builds (consecutive messages of one role
 * are one turn, as the API combines them): every `tool_use` of an assistant turn has a
 * `tool_result` in the next user turn, every `tool_result` names a `tool_use` of the assistant turn
 * right before it, and in a user turn the `tool_result` blocks come before any other block.
 */
function wireProblems(sent: BaseMessage[]): string[] {
  const { messages } = convertPromptToAnthropic(new ChatPromptValue(sent)) as {
    messages: Array<{ role: string; content: string | Array<Record<string, unknown>> }>;
  };
  const turns: Array<{ role: string; blocks: Array<Record<string, unknown>> }> = [];
  for (const m of messages) {
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    const last = turns.at(-1);
    if (last && last.role === m.role) last.blocks.push(...blocks);
    else turns.push({ role: m.role, blocks: [...blocks] });
  }
  const problems: string[] = [];
  turns.forEach((turn, k) => {
    if (turn.role === "assistant") {
      const next = turns[k + 1];
      const answered = new Set(next?.blocks.filter((b) => b.type === "tool_result").map((b) => String(b.tool_use_id)));
      for (const b of turn.blocks)
        if (b.type === "tool_use" && !answered.has(String(b.id))) problems.push(`turn ${k}: tool_use ${String(b.id)} without tool_result`);
      return;
    }
    const previous = turns[k - 1];
    const uses = new Set(
      previous?.role === "assistant" ? previous.blocks.filter((b) => b.type === "tool_use").map((b) => String(b.id)) : [],
    );
    let other = false;
    for (const b of turn.blocks) {
      if (b.type !== "tool_result") other = true;
      else {
        if (!uses.has(String(b.tool_use_id))) problems.push(`turn ${k}: tool_result ${String(b.tool_use_id)} names no tool_use before it`);
        if (other) problems.push(`turn ${k}: tool_result ${String(b.tool_use_id)} after other content`);
      }
    }
  });
  return problems;
}

/** A summarizer whose answer depends only on its input (a fresh process gives the same summary). */
const summarizer = () => scriptedModel((messages) => `summary of ${messages.map((m) => messageText(m)).join("").length} characters`);

const STACKS: Record<string, (window: number) => AgentMiddleware[]> = {
  "[windowTrim(n), summarize()]": (n) => [
    windowTrim({ maxMessages: n, logger: false }),
    summarize({ model: summarizer() as never, threshold: n + 2, logger: false }),
  ],
  tokenCap: (n) => [tokenCap({ maxTokens: 30 + n * 25, logger: false })],
  memoryStack: (n) =>
    memoryStack({
      backend: "in_memory",
      windowSize: n,
      summarizeThreshold: n + 2,
      models: { summarize: summarizer() as never },
      recallMaxTokens: false,
      logger: false,
      env: {},
    }).middleware,
};

const requestsOf = (model: ReturnType<typeof strictModel>) => (model.calls as Array<{ messages: BaseMessage[] }>).map((c) => c.messages);
const shape = (messages: BaseMessage[]) =>
  JSON.stringify(messages.map((m) => [m.getType(), m.content, (m as AIMessage).tool_calls?.map((c) => c.id) ?? []]));

describe("threads in Anthropic's native tool_use / tool_result format", () => {
  for (const [name, build] of Object.entries(STACKS))
    for (const lang of ["en", "ko"] as const)
      it.each([2, 3, 4, 5, 7, 10, 30])(
        `${name}, ${lang}, window %i: every request pairs each tool_use with its tool_result; stored thread unchanged; a fresh agent sends the same`,
        async (n) => {
          const checkpointer = new MemorySaver();
          const model = strictModel({
            providers: ["anthropic"],
            answer: (messages) => `ok: ${messageText(messages.at(-1) as BaseMessage)}`,
          });
          const agent = createAgent({ model, tools: [], systemPrompt: "Be brief.", checkpointer, middleware: build(n) });
          const config = { configurable: { thread_id: `native-${lang}-${n}` } };
          const seed = transcript(lang);
          const before = JSON.stringify(seed);
          await agent.invoke(
            { messages: [...seed, new HumanMessage({ id: "u1", content: lang === "en" ? "Summarize the trip." : "여행 정리해줘." })] },
            config,
          );
          for (const [k, text] of ["one more", "두 개 더", "last"].entries())
            await agent.invoke({ messages: [new HumanMessage({ id: `u${k + 2}`, content: text })] }, config);
          expect(model.providerLog.rejections).toBe(0);
          for (const request of requestsOf(model)) {
            expect(validateProviderRequest(request, { providers: ["anthropic"] })).toEqual([]);
            expect(wireProblems(request)).toEqual([]);
          }
          // The widest window sends every pair, blocks included.
          if (n === 30) {
            const first = JSON.stringify(requestsOf(model)[0]);
            for (const id of ["01", "02", "03", "04", "05", "06"]) expect(first).toContain(`"tool_use_id":"toolu_${lang}_${id}"`);
          }
          expect(JSON.stringify(seed)).toBe(before);
          const stored = (await agent.graph.getState(config)).values.messages as BaseMessage[];
          const storedSeed = stored.filter((m) => seed.some((s) => s.id === m.id));
          expect(JSON.stringify(storedSeed.map((m) => [m.id, m.content]))).toBe(JSON.stringify(seed.map((m) => [m.id, m.content])));

          // A fresh agent (new middleware, new model) on the same checkpointer sends what this one sends.
          const again = strictModel({
            providers: ["anthropic"],
            answer: (messages) => `ok: ${messageText(messages.at(-1) as BaseMessage)}`,
          });
          const fresh = createAgent({ model: again, tools: [], systemPrompt: "Be brief.", checkpointer, middleware: build(n) });
          const head = (await agent.graph.getState(config)).config;
          await agent.invoke({ messages: [new HumanMessage({ id: "u9", content: "again" })] }, head);
          await fresh.invoke({ messages: [new HumanMessage({ id: "u9", content: "again" })] }, head);
          expect(shape(requestsOf(again).at(-1) as BaseMessage[])).toBe(shape(requestsOf(model).at(-1) as BaseMessage[]));
        },
      );
});

describe("native threads whose tool_use ids repeat and are not portable", () => {
  // A transcript from a model that numbers its calls per answer (`functions.weather:0` on every
  // turn, as Kimi K2 does), kept in Anthropic's format: Anthropic refuses both the pattern and the
  // repeat (`tool_use ids must be unique`). The request sends each id portable and unique, the
  // tool_result blocks renamed with their call; the stored thread keeps the model's ids.
  it.each([3, 6, 30])("memoryStack, window %i: every request is accepted; stored ids unchanged", async (n) => {
    const id = "functions.weather:0";
    const turn = (k: number, city: string, text: string) => [
      new HumanMessage({ id: `h${k}`, content: text }),
      new AIMessage({ id: `a${k}`, content: [toolUse(id, city)] as never, tool_calls: [] }),
      new HumanMessage({ id: `r${k}`, content: [toolResult(id, `${city}: 맑음`)] as never }),
      new AIMessage({ id: `b${k}`, content: `${city} is sunny.` }),
    ];
    const seed = [...turn(1, "Seoul", "서울 날씨?"), ...turn(2, "Busan", "Busan?"), ...turn(3, "Jeju", "제주는?")];
    const before = JSON.stringify(seed);
    const model = strictModel({ providers: ["anthropic"], answer: (messages) => `ok: ${messageText(messages.at(-1) as BaseMessage)}` });
    const agent = createAgent({ model, tools: [], checkpointer: new MemorySaver(), middleware: STACKS.memoryStack?.(n) ?? [] });
    const config = { configurable: { thread_id: `repeat-${n}` } };
    await agent.invoke({ messages: [...seed, new HumanMessage({ id: "u1", content: "all three?" })] }, config);
    await agent.invoke({ messages: [new HumanMessage({ id: "u2", content: "thanks" })] }, config);
    expect(model.providerLog.rejections).toBe(0);
    for (const request of requestsOf(model)) expect(wireProblems(request)).toEqual([]);
    if (n === 30) {
      const sent = JSON.stringify(requestsOf(model).at(-1));
      expect(sent).not.toContain(id);
      // The portable id (32 characters), then its repeats: 26 characters of it, `_r` and a digest (40: OpenAI's limit).
      expect(sent.match(/"tool_use_id":"functions_weather_0_([0-9a-f]{12}|[0-9a-f]{6}_r[0-9a-f]{12})"/g)).toHaveLength(3);
    }
    expect(JSON.stringify(seed)).toBe(before);
    const stored = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    expect(JSON.stringify(stored.filter((m) => m.id?.startsWith("r")).map((m) => m.content))).toContain(`"tool_use_id":"${id}"`);
  });
});

/** The notes and words of {@link notedTranscript}, per language. */
const NOTES = {
  en: {
    q1: "Weather in Seoul?",
    look: "Let me check.",
    n1: "a note: I mean tomorrow",
    a1: "Sunny tomorrow.",
    q2: "Busan and Jeju?",
    n2: "also, I land at noon",
    more: "Thanks. Umbrella for Jeju?",
    a2: "Yes, bring one.",
    q3: "Incheon?",
    n3: "the airport, not the city",
    a3: "Windy at the airport.",
    n4: "forget the last one",
    q5: "Daegu then?",
    n5: "only the afternoon",
  },
  ko: {
    q1: "서울 날씨?",
    look: "확인해 볼게요.",
    n1: "메모: 내일 말이야",
    a1: "내일은 맑아요.",
    q2: "부산이랑 제주는?",
    n2: "그리고 나 정오에 도착해",
    more: "고마워. 제주에 우산 챙길까?",
    a2: "네, 챙기세요.",
    q3: "인천은?",
    n3: "시내 말고 공항",
    a3: "공항은 바람이 불어요.",
    n4: "방금 건 잊어줘",
    q5: "그럼 대구는?",
    n5: "오후만",
  },
};

/** The request as one sequence of blocks: `use:<id>`, `result:<id>`, `text:<text>` (calls of `tool_calls` as `use:`). */
function blockSequence(request: BaseMessage[]): string[] {
  const out: string[] = [];
  for (const m of request) {
    const blocks = typeof m.content === "string" ? [{ type: "text", text: m.content }] : (m.content as Array<Record<string, unknown>>);
    const listed = new Set<string>();
    for (const b of blocks) {
      if (b.type === "tool_use") listed.add(String(b.id));
      out.push(
        b.type === "tool_use"
          ? `use:${String(b.id)}`
          : b.type === "tool_result"
            ? `result:${String(b.tool_use_id)}`
            : `text:${String(b.text ?? "")}`,
      );
    }
    for (const call of (m as AIMessage).tool_calls ?? []) if (!listed.has(call.id ?? "")) out.push(`use:${call.id ?? ""}`);
  }
  return out;
}

/**
 * A user message stored between an AI message's `tool_use` blocks and the user message of their
 * `tool_result` blocks (LangChain users who build messages by hand, an import from Anthropic's
 * logs, a `bulkUpdateState` import). Anthropic requires the results in the user turn right after
 * the call, so the view sends the results right after their call and the note after them, as it
 * does for the ToolMessage form (`deferredResults` in core's groups.ts); before, it dropped the
 * call and its result, and the model never saw that the tool ran.
 */
function notedTranscript(lang: "en" | "ko"): BaseMessage[] {
  const t = NOTES[lang];
  const p = `${lang}n-`;
  const id = (k: string) => `toolu_${lang}_n${k}`;
  return [
    new HumanMessage({ id: `${p}h1`, content: t.q1 }),
    // The note right after the call, before its only result (tool_calls empty: the call only as a block).
    new AIMessage({ id: `${p}a1`, content: [{ type: "text", text: t.look }, toolUse(id("1"), "Seoul")] as never, tool_calls: [] }),
    new HumanMessage({ id: `${p}n1`, content: t.n1 }),
    new HumanMessage({ id: `${p}r1`, content: [toolResult(id("1"), "sunny")] as never }),
    new AIMessage({ id: `${p}a2`, content: t.a1 }),
    new HumanMessage({ id: `${p}h2`, content: t.q2 }),
    // A parallel call whose results are split over two user messages, the note between them; the
    // second holds the user's words too (text first, as an import may store it).
    new AIMessage({ id: `${p}a3`, content: [toolUse(id("2"), "Busan"), toolUse(id("3"), "Jeju")] as never }),
    new HumanMessage({ id: `${p}r2`, content: [toolResult(id("2"), "cloudy")] as never }),
    new HumanMessage({ id: `${p}n2`, content: t.n2 }),
    new HumanMessage({
      id: `${p}r3`,
      content: [{ type: "text", text: t.more }, toolResult(id("3"), [{ type: "text", text: "rain" }])] as never,
    }),
    new AIMessage({ id: `${p}a4`, content: t.a2 }),
    new HumanMessage({ id: `${p}h3`, content: t.q3 }),
    // The call in tool_calls and as a block; the note before its result.
    new AIMessage({
      id: `${p}a5`,
      content: [toolUse(id("4"), "Incheon")] as never,
      tool_calls: [{ id: id("4"), name: "weather", args: { city: "Incheon" }, type: "tool_call" }],
    }),
    new HumanMessage({ id: `${p}n3`, content: t.n3 }),
    new HumanMessage({ id: `${p}r4`, content: [toolResult(id("4"), "windy")] as never }),
    new AIMessage({ id: `${p}a6`, content: t.a3 }),
    // A result whose call is not in the thread (trimmed away before the import): never sent; the note before it is.
    new HumanMessage({ id: `${p}n4`, content: t.n4 }),
    new HumanMessage({ id: `${p}r0`, content: [toolResult(id("0"), "gone")] as never }),
    new HumanMessage({ id: `${p}h5`, content: t.q5 }),
    // The run in progress: the note is the newest user message, written before the result.
    new AIMessage({ id: `${p}a7`, content: [{ type: "text", text: t.look }, toolUse(id("5"), "Daegu")] as never }),
    new HumanMessage({ id: `${p}n5`, content: t.n5 }),
    new HumanMessage({ id: `${p}r5`, content: [toolResult(id("5"), "hot")] as never }),
  ];
}

const MODES = ["legacy_system", "stable_tail", "cache_aware"] as const;
const NOTED_STACKS: Record<string, (window: number, mode: (typeof MODES)[number]) => AgentMiddleware[]> = {
  "[windowTrim(n), summarize()]": (n, mode) => [
    windowTrim({ maxMessages: n, logger: false }),
    summarize({ model: summarizer() as never, threshold: n + 2, promptContextMode: mode, logger: false }),
  ],
  "[summarize(), tokenCap]": (n, mode) => [
    summarize({ model: summarizer() as never, threshold: n + 2, promptContextMode: mode, logger: false }),
    tokenCap({ maxTokens: 60 + n * 25, logger: false }),
  ],
  memoryStack: (n, mode) =>
    memoryStack({
      backend: "in_memory",
      windowSize: n,
      summarizeThreshold: n + 2,
      models: { summarize: summarizer() as never },
      recallMaxTokens: false,
      promptContextMode: mode,
      logger: false,
      env: {},
    }).middleware,
};

describe("native threads with a user note stored between a tool_use and its tool_result", () => {
  for (const [name, build] of Object.entries(NOTED_STACKS))
    for (const mode of MODES)
      for (const lang of ["en", "ko"] as const)
        it.each([2, 4, 7, 40])(
          `${name}, ${mode}, ${lang}, window %i: every request valid; results right after their call, the note after them`,
          async (n) => {
            const checkpointer = new MemorySaver();
            const answer = (messages: BaseMessage[]) => `ok: ${messageText(messages.at(-1) as BaseMessage)}`;
            const model = strictModel({ providers: ["anthropic"], answer });
            const agent = createAgent({ model, tools: [], systemPrompt: "Be brief.", checkpointer, middleware: build(n, mode) });
            const config = { configurable: { thread_id: `noted-${lang}-${n}` } };
            const seed = notedTranscript(lang);
            const before = JSON.stringify(seed);
            await agent.invoke({ messages: seed }, config);
            for (const [k, text] of ["one more", "하나 더", "last"].entries())
              await agent.invoke({ messages: [new HumanMessage({ id: `nu${k}`, content: text })] }, config);
            expect(model.providerLog.rejections).toBe(0);
            for (const request of requestsOf(model)) {
              expect(validateProviderRequest(request, { providers: ["anthropic"] })).toEqual([]);
              expect(wireProblems(request)).toEqual([]);
            }
            // The request as a sequence of blocks (the view merges consecutive user messages into one).
            const first = blockSequence(requestsOf(model)[0] as BaseMessage[]);
            const t = NOTES[lang];
            const at = (entry: string) =>
              entry.startsWith("text:") ? first.findIndex((e) => e.includes(entry.slice(5))) : first.indexOf(entry);
            const ordered = (...entries: string[]) =>
              entries.every((e, k) => at(e) >= 0 && (k === 0 || at(entries[k - 1] as string) < at(e)));
            const id = (k: string) => `toolu_${lang}_n${k}`;
            // The run in progress is always sent: its call, its result, then the note.
            expect(ordered(`use:${id("5")}`, `result:${id("5")}`, `text:${t.n5}`)).toBe(true);
            if (n === 40) {
              // The widest window sends every pair and every note, each note after its call's results.
              expect(ordered(`use:${id("1")}`, `result:${id("1")}`, `text:${t.n1}`)).toBe(true);
              expect(
                ordered(`use:${id("2")}`, `use:${id("3")}`, `result:${id("2")}`, `result:${id("3")}`, `text:${t.more}`, `text:${t.n2}`),
              ).toBe(true);
              expect(ordered(`use:${id("4")}`, `result:${id("4")}`, `text:${t.n3}`)).toBe(true);
              // The result whose call is gone is not sent; the note before it is.
              expect(at(`result:${id("0")}`)).toBe(-1);
              expect(at(`text:${t.n4}`)).toBeGreaterThan(-1);
            }
            expect(JSON.stringify(seed)).toBe(before);
            const stored = (await agent.graph.getState(config)).values.messages as BaseMessage[];
            const storedSeed = stored.filter((m) => seed.some((s) => s.id === m.id));
            expect(JSON.stringify(storedSeed.map((m) => [m.id, m.content]))).toBe(JSON.stringify(seed.map((m) => [m.id, m.content])));

            // A fresh agent (new middleware, new model) on the same checkpointer sends what this one sends.
            const again = strictModel({ providers: ["anthropic"], answer });
            const fresh = createAgent({ model: again, tools: [], systemPrompt: "Be brief.", checkpointer, middleware: build(n, mode) });
            const head = (await agent.graph.getState(config)).config;
            await agent.invoke({ messages: [new HumanMessage({ id: "nu9", content: "again" })] }, head);
            await fresh.invoke({ messages: [new HumanMessage({ id: "nu9", content: "again" })] }, head);
            expect(shape(requestsOf(again).at(-1) as BaseMessage[])).toBe(shape(requestsOf(model).at(-1) as BaseMessage[]));
          },
        );
});

describe("a native tool_result, then a ToolMessage for another call of the same AI message", () => {
  // `[AI(tool_use x, y), Human([tool_result y]), ToolMessage(x)]`: an import in Anthropic's format
  // continued by LangGraph's ToolNode. `@langchain/anthropic` sends both results in one user turn,
  // which Anthropic takes; the strict validator refused it (`tool_result_without_call`), so every
  // request of such a thread failed under `strictModel`. Through memoryStack in each placement
  // mode, archive off and on, English and Korean: every request passes the validator's Anthropic
  // rules and the converter's payload pairs each `tool_use` with its `tool_result`.
  const MODES = ["legacy_system", "stable_tail", "cache_aware"] as const;
  for (const mode of MODES)
    for (const archive of [false, true])
      for (const lang of ["en", "ko"] as const)
        it(`${mode}, archive ${archive ? "on" : "off"}, ${lang}`, async () => {
          const t =
            lang === "en"
              ? { q: "Seoul and Busan?", a: "Seoul sunny, Busan cloudy.", next: "And tomorrow?" }
              : { q: "서울이랑 부산은?", a: "서울 맑음, 부산 흐림.", next: "내일은?" };
          const stack = memoryStack({
            backend: "in_memory",
            windowSize: 6,
            summarizeThreshold: 8,
            models: { summarize: summarizer() as never },
            recallMaxTokens: false,
            promptContextMode: mode,
            archive,
            logger: false,
            env: {},
          });
          const model = strictModel({
            providers: ["anthropic"],
            answer: (messages) => `ok: ${messageText(messages.at(-1) as BaseMessage)}`,
          });
          const agent = createAgent({
            model,
            tools: [],
            systemPrompt: "Be brief.",
            checkpointer: stack.checkpointer,
            middleware: stack.middleware,
          });
          const config = { configurable: { thread_id: `mixed-${mode}-${archive}-${lang}` } };
          const seed = [
            new HumanMessage({ id: "m-h1", content: t.q }),
            new AIMessage({ id: "m-a1", content: [toolUse("toolu_x", "Seoul"), toolUse("toolu_y", "Busan")] as never, tool_calls: [] }),
            new HumanMessage({ id: "m-r1", content: [toolResult("toolu_y", lang === "en" ? "cloudy" : "흐림")] as never }),
            new ToolMessage({ id: "m-t1", tool_call_id: "toolu_x", content: lang === "en" ? "sunny" : "맑음" }),
            new AIMessage({ id: "m-a2", content: t.a }),
          ];
          await agent.invoke({ messages: [...seed, new HumanMessage({ id: "m-u1", content: t.next })] }, config);
          for (const [k, text] of ["one more", "두 개 더", "last", "마지막"].entries())
            await agent.invoke({ messages: [new HumanMessage({ id: `m-u${k + 2}`, content: text })] }, config);
          expect(model.providerLog.rejections).toBe(0);
          for (const request of requestsOf(model)) {
            expect(validateProviderRequest(request, { providers: ["anthropic"], noPrefill: true })).toEqual([]);
            expect(wireProblems(request)).toEqual([]);
          }
          // The first request sends the exchange whole: both results after their call.
          const first = JSON.stringify(requestsOf(model)[0]);
          expect(first).toContain('"tool_use_id":"toolu_y"');
          expect(first).toContain('"tool_call_id":"toolu_x"');
        });
});
