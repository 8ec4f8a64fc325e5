/**
 * LangGraph thread operations as users run them (a long tool chain in one turn, `updateState` with
 * standard content blocks, dismissing an interrupt with `updateState(config, null, END)`, going on
 * from the original branch after a fork, `RemoveMessage`, `streamMode: "messages"`) through the
 * stack, in English and Korean, on each backend with the message archive off and on. Each case
 * cites the report it replays. Every request must pass the strict provider validator, and what one
 * request showed must stay in the next, verbatim or in the summary.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { END } from "@langchain/langgraph";
import { messageText, readSummarySlot } from "@threadwise/core";
import { PROVIDERS, scriptedModel, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { humanInTheLoopMiddleware } from "langchain";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, summarizerModel } from "./support/report-agent.js";

/** The savers each case runs on: `memoryStack`'s backend, and whether its message archive is on. */
const SAVERS = [
  ["in_memory", false],
  ["sqlite", false],
  ["in_memory", true],
  ["sqlite", true],
] as const;
/**
 * The whole stored thread `threadId` (its archived messages first when the archive is on:
 * `readThread`; `getState` reads the hot part only).
 */
async function wholeThread(stack: ReturnType<typeof stackAgent>["stack"], threadId: string): Promise<BaseMessage[]> {
  return (stack.checkpointer as unknown as { readThread(config: object): Promise<BaseMessage[]> }).readThread({
    configurable: { thread_id: threadId },
  });
}
const texts = (messages: readonly BaseMessage[]) => messages.map((m) => messageText(m));
const valid = (model: ReturnType<typeof strictModel>) => {
  expect(model.providerLog.rejections).toBe(0);
  for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
};

/**
 * A model that chains its tool calls: a user message `CHAIN <k> ...` gets one `lookup` call, each
 * result one more (argument `n`: 100 times the `turn <t>` of the message, or the number of user
 * messages, plus the calls made), until k results of this turn came back; then it answers with
 * the results it saw.
 * Otherwise it answers `ok: <last text>`.
 */
function chainModel() {
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      const lastHuman = [...messages].reverse().find((m) => m.getType() === "human");
      const chain = /CHAIN (\d+)/.exec(lastHuman ? messageText(lastHuman) : "");
      if (chain) {
        const start = messages.lastIndexOf(lastHuman as BaseMessage);
        const done = messages.slice(start).filter(isTool).length;
        // `turn <t>` in the user's message numbers the results `t*100 + k`.
        const turn = Number(
          /turn (\d+)/.exec(messageText(lastHuman as BaseMessage))?.[1] ?? messages.filter((m) => m.getType() === "human").length,
        );
        if (isTool(last) || last === lastHuman) {
          if (done < Number(chain[1]))
            return new AIMessage({
              content: done === 0 ? "" : `step ${done} 단계`,
              tool_calls: [
                { id: `call_t${turn}_${done}_${messages.length}`, name: "lookup", args: { n: turn * 100 + done }, type: "tool_call" },
              ],
            });
          return `done: ${texts(messages.filter(isTool)).join(", ")}`;
        }
      }
      return `ok: ${messageText(last)}`;
    },
  });
}

describe("public reports: thread operations through the stack", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "tw-thread-ops-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // https://github.com/langchain-ai/langchainjs/issues/9272 "`summarizationMiddleware` leads message
  // order unsupported by Gemini" (a cut inside a chain of single tool calls left an AI message with
  // calls first: `function call turn comes immediately after a user turn or after a function
  // response turn`), fixed by https://github.com/langchain-ai/langchainjs/pull/9260;
  // https://github.com/ollama/ollama/issues/15507 (a request with no user message at all, after a
  // summarizer collapsed the history).
  for (const [backend, archive] of SAVERS)
    it(`${backend}${archive ? " + archive" : ""}: a chain of single tool calls longer than the window: every request starts with the user's message`, async () => {
      const summarizer = summarizerModel((call) => `요약 summary ${call + 1}`);
      const model = chainModel();
      const { agent, stack } = stackAgent({
        backend,
        sqlitePath: join(dir, "m.sqlite"),
        stack: { archive },
        model,
        windowSize: 4,
        summarizeThreshold: 6,
        summarizer: summarizer.model,
      });
      const config = { configurable: { thread_id: `chain-${backend}-${archive}` } };
      await agent.invoke({ messages: [new HumanMessage("안녕하세요, hello")] }, config);
      await agent.invoke({ messages: [new HumanMessage("CHAIN 7 서울 날씨를 일곱 번 확인해 줘, check the weather seven times")] }, config);
      await agent.invoke({ messages: [new HumanMessage("고마워요 thanks")] }, config);
      await agent.invoke({ messages: [new HumanMessage("CHAIN 3 한 번 더 three more")] }, config);
      valid(model);
      for (const request of requests(model)) {
        const first = request.find((m) => m.getType() !== "system") as BaseMessage;
        expect(first.getType()).toBe("human");
        // The turn's own question is in every request of its chain.
        const lastHuman = [...request].reverse().find((m) => m.getType() === "human") as BaseMessage;
        expect(messageText(lastHuman)).toMatch(/CHAIN|hello|thanks/);
      }
      const chainCalls = requests(model).filter((r) => isTool(lastOf(r)));
      expect(chainCalls.length).toBe(10);
      for (const request of chainCalls) expect(texts(request).join("\n")).toMatch(/CHAIN (7|3)/);
      const stored = await wholeThread(stack, `chain-${backend}-${archive}`);
      expect(stored.filter(isTool)).toHaveLength(10);
      expect(readSummarySlot((await agent.graph.getState(config)).values).summary?.text).toMatch(/^요약 summary \d+$/);
    });

  // https://github.com/langchain-ai/langgraphjs/issues/1949 "AIMessage content erased when doing
  // `updateState`" (messages built from standard `contentBlocks` lost their text in the thread).
  for (const [backend, archive] of SAVERS)
    it(`${backend}${archive ? " + archive" : ""}: a history written with updateState from contentBlocks keeps its text in the thread and in every request`, async () => {
      const { agent, model, stack } = stackAgent({ backend, sqlitePath: join(dir, "m.sqlite"), stack: { archive }, windowSize: 6 });
      const config = { configurable: { thread_id: `blocks-${backend}-${archive}` } };
      await agent.graph.updateState(config, {
        messages: [
          new HumanMessage({ contentBlocks: [{ type: "text", text: "안녕하세요, 제 이름은 민준이에요. Hello, I am Minjun." }] }),
          new AIMessage({ contentBlocks: [{ type: "text", text: "반가워요 민준 씨! Nice to meet you, Minjun." }] }),
          new HumanMessage({ contentBlocks: [{ type: "text", text: "How are you? 잘 지내요?" }] }),
          new AIMessage({ contentBlocks: [{ type: "text", text: "잘 지내요, fine thanks." }] }),
        ],
      } as never);
      const before = texts(await wholeThread(stack, `blocks-${backend}-${archive}`));
      expect(before).toEqual([
        "안녕하세요, 제 이름은 민준이에요. Hello, I am Minjun.",
        "반가워요 민준 씨! Nice to meet you, Minjun.",
        "How are you? 잘 지내요?",
        "잘 지내요, fine thanks.",
      ]);
      await agent.invoke({ messages: [new HumanMessage("제 이름이 뭐였죠? What was my name?")] }, config);
      await agent.invoke({ messages: [new HumanMessage("다시 한 번 once more")] }, config);
      valid(model);
      const first = texts(requests(model)[0] as BaseMessage[]);
      for (const text of before) expect(first).toContain(text);
      expect(texts(await wholeThread(stack, `blocks-${backend}-${archive}`)).slice(0, 4)).toEqual(before);
    });

  // https://github.com/langchain-ai/langgraph/issues/8653 and
  // https://github.com/langchain-ai/langgraph/pull/8654 "update_state can permanently erase messages"
  // (`update_state(values=None, as_node=END)` to dismiss a question the thread is paused on saved a
  // head with `messages: []`).
  for (const [backend, archive] of SAVERS)
    it(`${backend}${archive ? " + archive" : ""}: dismissing a pending review with updateState(config, null, END) keeps the thread, and the next turn is accepted`, async () => {
      const model = strictModel({
        answer: (messages) => {
          const last = lastOf(messages);
          if (isTool(last)) return `reported: ${messageText(last)}`;
          if (/좌석|seat/.test(messageText(last)) && /예약|book/.test(messageText(last)))
            return new AIMessage({
              content: "",
              tool_calls: [{ id: "call_book_12a", name: "book", args: { seat: "12A" }, type: "tool_call" }],
            });
          return `ok: ${messageText(last)}`;
        },
      });
      const hitl = humanInTheLoopMiddleware({ interruptOn: { book: true } });
      const { agent, stack } = stackAgent({
        backend,
        sqlitePath: join(dir, "m.sqlite"),
        stack: { archive },
        windowSize: 6,
        model,
        extra: [hitl],
      });
      const threadId = `dismiss-${backend}-${archive}`;
      const config = { configurable: { thread_id: threadId } };
      await agent.invoke({ messages: [new HumanMessage("안녕하세요 hello")] }, config);
      await agent.invoke({ messages: [new HumanMessage("12A 좌석 예약해 줘, book seat 12A")] }, config);
      const paused = await agent.graph.getState(config);
      expect(paused.tasks.some((t) => (t.interrupts ?? []).length > 0)).toBe(true);
      const kept = texts(await wholeThread(stack, threadId));
      expect(kept).toHaveLength(4);
      await agent.graph.updateState(config, null as never, END);
      expect(texts(await wholeThread(stack, threadId))).toEqual(kept);
      await agent.invoke({ messages: [new HumanMessage("취소할게요, never mind. 오늘 날씨는? weather?")] }, config);
      valid(model);
      const last = requests(model).at(-1) as BaseMessage[];
      expect(texts(last)).toContain("안녕하세요 hello");
      // The dismissed call has no result: it is not sent.
      expect(last.some((m) => JSON.stringify((m as AIMessage).tool_calls ?? []).includes("call_book_12a"))).toBe(false);
      expect(texts(await wholeThread(stack, threadId)).slice(0, 4)).toEqual(kept);
    });

  // https://github.com/langchain-ai/langgraph/issues/8551 "update_state against an older checkpoint
  // writes into the branch it forked away from" and https://github.com/langchain-ai/langgraph/issues/8443
  // "forking a thread replays the abandoned branch's writes into the fork": after a fork, a turn
  // from the original branch's last checkpoint sees that branch only, summary included.
  for (const [backend, archive] of SAVERS)
    it(`${backend}${archive ? " + archive" : ""}: after a fork by updateState, a turn from the original branch's head sees only that branch`, async () => {
      const summarizer = summarizerModel((call) => `요약 summary ${call + 1}`);
      const { agent, model, stack } = stackAgent({
        backend,
        sqlitePath: join(dir, "m.sqlite"),
        stack: { archive },
        windowSize: 4,
        summarizeThreshold: 6,
        summarizer: summarizer.model,
        systemPrompt: false,
      });
      const threadId = `orig-${backend}-${archive}`;
      const config = { configurable: { thread_id: threadId } };
      for (let k = 1; k <= 6; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k} 대화`)] }, config);
      const head = await agent.graph.getState(config);
      const headSummary = readSummarySlot(head.values).summary?.text;
      expect(headSummary).toMatch(/^요약 summary \d+$/);
      let forkFrom: Record<string, unknown> | undefined;
      for await (const snapshot of agent.graph.getStateHistory(config)) {
        const humans = ((snapshot.values as { messages?: BaseMessage[] }).messages ?? []).filter((m) => m.getType() === "human");
        if (snapshot.next.length === 0 && humans.length === 1) forkFrom ??= snapshot.config as Record<string, unknown>;
      }
      expect(forkFrom).toBeDefined();
      await agent.graph.updateState(forkFrom as never, { messages: [new HumanMessage("fork 2 갈래")] } as never);
      await agent.invoke({ messages: [new HumanMessage("fork 3 갈래")] }, config);
      const forkRequest = texts(requests(model).at(-1) as BaseMessage[]).join("\n");
      expect(forkRequest).not.toMatch(/turn [2-6]/);
      // Back to the original branch: a turn from its head checkpoint.
      const calls = summarizer.inputs.length;
      await agent.invoke({ messages: [new HumanMessage("turn 7 대화")] }, head.config as never);
      valid(model);
      const sent = texts(requests(model).at(-1) as BaseMessage[]).join("\n");
      expect(sent).not.toMatch(/fork|갈래/);
      expect(sent).toContain("turn 6 대화");
      expect(sent).toContain("turn 7 대화");
      for (const input of summarizer.inputs.slice(calls)) expect(texts(input).join("\n")).not.toMatch(/fork|갈래/);
      const after = await agent.graph.getState(config);
      expect(texts(await wholeThread(stack, threadId)).filter((t) => /fork|갈래/.test(t))).toEqual([]);
      expect(readSummarySlot(after.values).summary?.text ?? "").not.toMatch(/fork|갈래/);
    });

  // https://github.com/langchain-ai/langgraph/issues/5112 "`RemoveMessage` Does Not Remove Messages
  // from State": messages removed with updateState stay out of the thread, of every later request
  // and of what the summarizer reads.
  for (const [backend, archive] of SAVERS)
    it(`${backend}${archive ? " + archive" : ""}: messages removed with RemoveMessage are never sent again, summaries included`, async () => {
      const summarizer = summarizerModel((call) => `요약 summary ${call + 1}`);
      const { agent, model, stack } = stackAgent({
        backend,
        sqlitePath: join(dir, "m.sqlite"),
        stack: { archive },
        windowSize: 4,
        summarizeThreshold: 6,
        summarizer: summarizer.model,
      });
      const threadId = `remove-${backend}-${archive}`;
      const config = { configurable: { thread_id: threadId } };
      await agent.invoke({ messages: [new HumanMessage("안녕하세요 hello")] }, config);
      await agent.invoke({ messages: [new HumanMessage("제 비밀번호는 sesame-4821 이에요, my password is sesame-4821")] }, config);
      const stored = await wholeThread(stack, threadId);
      const secret = stored.filter((m) => messageText(m).includes("sesame-4821"));
      expect(secret).toHaveLength(2);
      await agent.graph.updateState(config, { messages: secret.map((m) => new RemoveMessage({ id: m.id as string })) } as never);
      expect(texts(await wholeThread(stack, threadId)).join("\n")).not.toContain("sesame-4821");
      const from = requests(model).length;
      for (let k = 1; k <= 6; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k} 대화`)] }, config);
      valid(model);
      for (const request of requests(model).slice(from)) expect(texts(request).join("\n")).not.toContain("sesame-4821");
      expect(summarizer.inputs.length).toBeGreaterThan(0);
      for (const input of summarizer.inputs) expect(texts(input).join("\n")).not.toContain("sesame-4821");
      expect(texts(await wholeThread(stack, threadId)).join("\n")).not.toContain("sesame-4821");
    });

  // https://github.com/langchain-ai/langgraphjs/issues/993 "Setting `streamMode: \"messages\"` changes
  // properties of messages stored in checkpoints": the same turns streamed or invoked store the same
  // thread and send the same requests.
  it("streamMode messages, values and invoke: the same stored thread and the same requests", async () => {
    const script = ["안녕하세요 hello", "PARALLEL 3 세 개 찾아 줘 look three up", "고마워요 thanks", "PARALLEL 2 두 개 more", "끝 done"];
    const runs: Array<{ requests: string[][]; stored: unknown[] }> = [];
    for (const mode of ["invoke", "messages", "values"] as const) {
      const summarizer = summarizerModel((call) => `요약 summary ${call + 1}`);
      const { agent, model, stack } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model });
      const config = { configurable: { thread_id: `stream-${mode}` } };
      for (const text of script) {
        const input = { messages: [new HumanMessage(text)] };
        if (mode === "invoke") await agent.invoke(input, config);
        else for await (const _ of await agent.stream(input, { ...config, streamMode: mode })) void _;
      }
      valid(model);
      const stored = (await wholeThread(stack, `stream-${mode}`)).map((m) => ({
        type: m.getType(),
        text: messageText(m),
        name: m.name,
        calls: ((m as AIMessage).tool_calls ?? []).map((c) => [c.id, c.name, c.args]),
      }));
      runs.push({ requests: requests(model).map(texts), stored });
    }
    expect(runs[1]).toEqual(runs[0]);
    expect(runs[2]).toEqual(runs[0]);
  });

  // https://github.com/langchain-ai/langmem/issues/118 "SummarizationNode() in langmem doesn't merge
  // with previous summary, causing repeated tool call loop" (a running summary not updated inside a
  // tool loop, so the model lost steps and called the tools again) and
  // https://github.com/langchain-ai/langmem/issues/111 "SummarizationNode is trimming the
  // HumanMessage when using tools": through tool chains and turns, whatever one request showed
  // (each user turn, each tool result) the next one shows too, verbatim or in the summary.
  for (const [windowSize, threshold] of [
    [3, 5],
    [4, 6],
    [5, 8],
  ] as const)
    it(`window ${windowSize}, summary at ${threshold}: nothing a request showed is missing from the next, verbatim or summarized`, async () => {
      const LABEL = /(turn \d+|result \d+)/g;
      const labels = (messages: BaseMessage[]) => new Set(JSON.stringify(texts(messages)).match(LABEL) ?? []);
      const model = chainModel();
      // The summary lists every label it read, its earlier summary's included.
      const summarizer = scriptedModel((messages) => `요약 covers: ${[...labels(messages)].join(", ")}`);
      const { agent } = stackAgent({ model, windowSize, summarizeThreshold: threshold, summarizer: summarizer as never });
      const config = { configurable: { thread_id: `nothing-lost-${windowSize}-${threshold}` } };
      for (const text of [
        "turn 1 안녕하세요",
        "turn 2 CHAIN 6 찾아 줘 look up",
        "turn 3 고마워요",
        "turn 4 CHAIN 4 more",
        "turn 5 잘 가요 bye",
        "turn 6 CHAIN 2",
        "turn 7 끝",
      ])
        await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      valid(model);
      const all = requests(model);
      expect(all.length).toBe(7 + 12);
      for (let i = 1; i < all.length; i += 1) {
        const now = labels(all[i] as BaseMessage[]);
        expect([...labels(all[i - 1] as BaseMessage[])].filter((label) => !now.has(label))).toEqual([]);
      }
      const last = texts(all.at(-1) as BaseMessage[]).join("\n");
      for (const label of ["turn 1", "turn 2", "result 200", "result 205", "result 403", "turn 7"]) expect(last).toContain(label);
    });
});
