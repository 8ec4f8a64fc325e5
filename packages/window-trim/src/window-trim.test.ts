import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { findOrphans, indexThread, ThreadwiseConfigError, type ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent, tool } from "langchain";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod/v4";
import { resolveWindowTrimOptions, selectWindow, windowTrim } from "./window-trim.js";

/** Index of the newest message of `type` (-1 when none); lib is ES2022, so no findLastIndex. */
function lastIndexOfType(messages: readonly BaseMessage[], type: string): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]?.getType() === type) return i;
  return -1;
}

const human = (id: string, text = id) => new HumanMessage({ id, content: text });
const ai = (id: string, text = id) => new AIMessage({ id, content: text });
const call = (id: string, callIds: string[]) =>
  new AIMessage({
    id,
    content: "",
    tool_calls: callIds.map((c) => ({ id: c, name: "lookup", args: { q: c }, type: "tool_call" as const })),
  });
const result = (id: string, callId: string) => new ToolMessage({ id, content: `result ${callId}`, tool_call_id: callId, name: "lookup" });
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => m.id);

function recordingLogger(): ThreadwiseLogger & { lines: string[]; warnings: string[] } {
  const lines: string[] = [];
  const warnings: string[] = [];
  return { lines, warnings, info: (m) => lines.push(m), warn: (m) => warnings.push(m) };
}

/** Calls the middleware's hook alone with a minimal request; returns what the handler received. */
async function runHook(middleware: ReturnType<typeof windowTrim>, messages: BaseMessage[], system?: (s: SystemMessage) => void) {
  let seen: BaseMessage[] = [];
  const request = { messages, systemMessage: new SystemMessage("sys"), state: { messages }, tools: [], model: {} };
  // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
  await (middleware.wrapModelCall as any)(request, async (r: { messages: BaseMessage[]; systemMessage: SystemMessage }) => {
    seen = r.messages;
    system?.(r.systemMessage);
    return new AIMessage("ok");
  });
  return seen;
}

describe("windowTrim options", () => {
  it("defaults to 20 messages, chunked eviction down to 10, the stack's start rule", () => {
    expect(resolveWindowTrimOptions({}, {})).toEqual({ maxMessages: 20, startOn: undefined, eviction: "chunked", lowWatermark: 10 });
  });

  it("reads MEMORY_WINDOW_SIZE when the option is absent; the option wins", () => {
    expect(resolveWindowTrimOptions({}, { MEMORY_WINDOW_SIZE: "7" }).maxMessages).toBe(7);
    expect(resolveWindowTrimOptions({ maxMessages: 3 }, { MEMORY_WINDOW_SIZE: "7" }).maxMessages).toBe(3);
  });

  it("names the bad option or variable", () => {
    expect(() => resolveWindowTrimOptions({ maxMessages: 0 }, {})).toThrow(/windowTrim\.maxMessages/);
    expect(() => resolveWindowTrimOptions({}, { MEMORY_WINDOW_SIZE: "many" })).toThrow(ThreadwiseConfigError);
    expect(() => resolveWindowTrimOptions({}, { MEMORY_WINDOW_SIZE: "many" })).toThrow(/MEMORY_WINDOW_SIZE/);
    expect(() => resolveWindowTrimOptions({ eviction: "chunked", maxMessages: 10, lowWatermark: 10 }, {})).toThrow(
      /windowTrim\.lowWatermark/,
    );
    // A watermark sliding eviction would ignore is refused, not taken silently.
    expect(() => resolveWindowTrimOptions({ eviction: "sliding", maxMessages: 10, lowWatermark: 5 }, {})).toThrow(
      /windowTrim\.lowWatermark: applies only with eviction "chunked"/,
    );
    expect(resolveWindowTrimOptions({ eviction: "sliding", maxMessages: 10 }, {}).eviction).toBe("sliding");
    // biome-ignore lint/suspicious/noExplicitAny: an invalid value on purpose
    expect(() => resolveWindowTrimOptions({ startOn: "user" as any }, {})).toThrow(/windowTrim\.startOn/);
  });
});

describe("windowTrim hook", () => {
  it("keeps the newest whole groups; a call and its results are never split", async () => {
    const thread = [
      human("h1"),
      ai("a1"),
      human("h2"),
      call("c1", ["x", "y"]),
      result("t1", "x"),
      result("t2", "y"),
      ai("a2"),
      human("h3"),
    ];
    // 4 messages: h3 (1) + a2 (1) leaves 2, too few for the 3-message tool group, so the cut is after it.
    expect(ids(await runHook(windowTrim({ eviction: "sliding", maxMessages: 4, startOn: "any" }), thread))).toEqual(["a2", "h3"]);
    expect(ids(await runHook(windowTrim({ eviction: "sliding", maxMessages: 5, startOn: "any" }), thread))).toEqual([
      "c1",
      "t1",
      "t2",
      "a2",
      "h3",
    ]);
    expect(ids(await runHook(windowTrim({ eviction: "sliding", maxMessages: 6, startOn: "any" }), thread))).toEqual([
      "h2",
      "c1",
      "t1",
      "t2",
      "a2",
      "h3",
    ]);
  });

  it("startOn human drops leading groups until a user message", async () => {
    const thread = [human("h1"), ai("a1"), human("h2"), call("c1", ["x"]), result("t1", "x"), ai("a2"), human("h3")];
    expect(ids(await runHook(windowTrim({ eviction: "sliding", maxMessages: 4, startOn: "any" }), thread))).toEqual([
      "c1",
      "t1",
      "a2",
      "h3",
    ]);
    expect(ids(await runHook(windowTrim({ eviction: "sliding", maxMessages: 4, startOn: "human" }), thread))).toEqual(["h3"]);
    // No startOn stated: core's default is "human".
    expect(ids(await runHook(windowTrim({ eviction: "sliding", maxMessages: 4 }), thread))).toEqual(["h3"]);
    expect(ids(await runHook(windowTrim({ eviction: "sliding", maxMessages: 5, startOn: "human" }), thread))).toEqual([
      "h2",
      "c1",
      "t1",
      "a2",
      "h3",
    ]);
  });

  it("merges a stored system message into the one leading system message and leaves out stored orphans", async () => {
    const thread = [
      new SystemMessage({ id: "s0", content: "stored system" }),
      result("stray", "nobody"),
      human("h1"),
      call("c-open", ["never-answered"]),
      human("h2"),
      ai("a2"),
      human("h3"),
    ];
    let system = "";
    const view = await runHook(windowTrim({ eviction: "sliding", maxMessages: 3 }), thread, (s) => {
      system = s.text;
    });
    // The stored system message is not a message of the view any more: it leads, merged.
    expect(system).toBe("sys\n\nstored system");
    expect(ids(view)).toEqual(["h2", "a2", "h3"]);
    // Without the open call in between, h1 and h2 are two user turns in a row: one user message.
    const wide = await runHook(windowTrim({ eviction: "sliding", maxMessages: 100 }), thread);
    expect(ids(wide)).toEqual(["h2", "a2", "h3"]);
    expect(wide[0]?.content).toBe("h1\n\nh2");
    expect(findOrphans(view)).toEqual([]);
  });

  it("keeps the whole tool loop of the current run even over the window", async () => {
    const thread = [
      human("h1"),
      ai("a1"),
      human("h2"),
      call("c1", ["x"]),
      result("t1", "x"),
      call("c2", ["y", "z"]),
      result("t2", "y"),
      result("t3", "z"),
    ];
    expect(ids(await runHook(windowTrim({ eviction: "sliding", maxMessages: 2 }), thread))).toEqual(["h2", "c1", "t1", "c2", "t2", "t3"]);
  });

  it("never mutates the request's messages", async () => {
    const thread = [human("h1"), ai("a1"), human("h2")];
    const before = JSON.stringify(thread);
    const copy = [...thread];
    await runHook(windowTrim({ eviction: "sliding", maxMessages: 1 }), thread);
    expect(thread).toEqual(copy);
    expect(JSON.stringify(thread)).toBe(before);
  });

  it("chunked eviction moves the view start once per step, not every turn", () => {
    const starts: string[] = [];
    const thread: BaseMessage[] = [];
    for (let turn = 1; turn <= 12; turn += 1) {
      thread.push(human(`h${turn}`), ai(`a${turn}`));
      starts.push(
        String(
          selectWindow([...thread, human("next")], { maxMessages: 10, lowWatermark: 6, startOn: "any", eviction: "chunked" }).messages[0]
            ?.id,
        ),
      );
    }
    // The thread grows by 2 messages a turn; with a step of 4 messages (10 - 6) the start moves
    // every 2 turns, and the view holds between 7 and 9 messages (above the low mark, within the limit).
    expect(starts).toEqual(["h1", "h1", "h1", "h1", "h3", "h3", "h5", "h5", "h7", "h7", "h9", "h9"]);
    const sliding = [];
    for (let n = 10; n <= 24; n += 2) {
      sliding.push(
        selectWindow([...thread.slice(0, n), human("next")], { maxMessages: 10, lowWatermark: 5, startOn: "any", eviction: "sliding" })
          .messages[0]?.id,
      );
    }
    expect(sliding).toEqual(["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8"]);
  });
});

describe("windowTrim through createAgent with MemorySaver", () => {
  it("sends the window, logs one multiturn line per call, and keeps the stored thread whole", async () => {
    const model = scriptedModel((_messages, n) => `answer ${n + 1}`);
    const logger = recordingLogger();
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [windowTrim({ eviction: "sliding", maxMessages: 3, logger })],
    });
    const config = { configurable: { thread_id: "w1" } };
    for (const text of ["one", "two", "three", "four"]) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect(model.calls.map((c) => c.messages.map((m) => m.content))).toEqual([
      ["one"],
      ["one", "answer 1", "two"],
      ["two", "answer 2", "three"],
      ["three", "answer 3", "four"],
    ]);
    const state = await agent.graph.getState(config);
    expect((state.values as { messages: BaseMessage[] }).messages).toHaveLength(8);
    expect(logger.lines).toEqual([
      "multiturn: thread_msgs=1 window=3 sent_to_llm=1 has_prior=false",
      "multiturn: thread_msgs=3 window=3 sent_to_llm=3 has_prior=true",
      "multiturn: thread_msgs=5 window=3 sent_to_llm=3 has_prior=true",
      "multiturn: thread_msgs=7 window=3 sent_to_llm=3 has_prior=true",
    ]);
  });

  it("keeps the run's tool loop whole and pairs results by position across turns", async () => {
    const lookup = tool(async ({ q }: { q: string }) => `found ${q}`, {
      name: "lookup",
      description: "Look something up",
      schema: z.object({ q: z.string() }),
    });
    // Every turn: two tool rounds (the second with parallel calls), then an answer. Ids repeat every turn.
    const model = scriptedModel((messages) => {
      const last = messages.at(-1);
      const rounds = messages.slice(lastIndexOfType(messages, "human")).filter((m) => m.getType() === "ai").length;
      if (rounds === 0) return new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "lookup", args: { q: "a" } }] });
      if (rounds === 1)
        return new AIMessage({
          content: "",
          tool_calls: [
            { id: "call_2", name: "lookup", args: { q: "b" } },
            { id: "call_3", name: "lookup", args: { q: "c" } },
          ],
        });
      return `done after ${String(last?.content)}`;
    });
    const agent = createAgent({
      model,
      tools: [lookup],
      checkpointer: new MemorySaver(),
      middleware: [windowTrim({ eviction: "sliding", maxMessages: 2 })],
    });
    const config = { configurable: { thread_id: "w2" } };
    await agent.invoke({ messages: [new HumanMessage("first")] }, config);
    await agent.invoke({ messages: [new HumanMessage("second")] }, config);
    expect(model.calls).toHaveLength(6);
    // Third call of turn 2: the window is 2, but the whole loop of the run goes: 1 + 2 + 3 messages.
    expect(model.calls[5]?.messages.map((m) => m.getType())).toEqual(["human", "ai", "tool", "ai", "tool", "tool"]);
    expect(model.calls[5]?.messages[0]?.content).toBe("second");
    for (const c of model.calls) expect(findOrphans(c.messages)).toEqual([]);
    const state = await agent.graph.getState(config);
    expect((state.values as { messages: BaseMessage[] }).messages).toHaveLength(14);
  });
});

describe("windowTrim's model call checks no index it built itself", () => {
  const texts = {
    en: ["Where should I stay in Busan?", "Haeundae is close to the beach."],
    ko: ["부산에서 어디에 묵으면 좋을까요?", "해운대가 바다와 가까워요."],
  };
  for (const [lang, t] of Object.entries(texts)) {
    it(`selects and states its window on one index, checked by nobody in between (${lang})`, async () => {
      // A fresh array of fresh messages, as a checkpoint read back gives each step: the selection
      // builds the thread's index; the render of the cut (only core's code ran since) uses it as is.
      const messages: BaseMessage[] = [];
      for (let i = 0; i < 30; i += 1) messages.push(i % 2 === 0 ? human(`u${i}`, `${t[0]} ${i}`) : ai(`a${i}`, `${t[1]} ${i}`));
      const index = Object.getPrototypeOf(indexThread([])) as { isFor: (m: readonly BaseMessage[]) => boolean };
      const checks = vi.spyOn(index, "isFor");
      try {
        const seen = await runHook(windowTrim({ maxMessages: 6, logger: false }), messages);
        expect(checks).not.toHaveBeenCalled();
        // What a process that never saw the thread sends: the same window.
        expect(ids(seen)).toEqual(ids(selectWindow(messages.slice(), resolveWindowTrimOptions({ maxMessages: 6 }, {})).messages));
      } finally {
        checks.mockRestore();
      }
    });
  }
});
