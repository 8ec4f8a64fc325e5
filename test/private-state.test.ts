/**
 * Spec R41: private memory state (summary, facts, work memory) never reaches a client. A stack of
 * summarize + factRecall + workMemory under `hideMemoryState`, streamed in every stream mode, and
 * a restart (a new agent on the same checkpointer) that still reads the summary.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { hideMemoryState, readSummarySlot, systemText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { factRecall } from "@threadwise/fact-recall";
import { memoryStack } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { windowTrim } from "@threadwise/window-trim";
import { workMemory } from "@threadwise/work-memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";

const SUMMARY = "SUMMARY-7f3a: the user talked about trips";
const STREAM_MODES = ["values", "updates", "messages", "custom", "debug", "tasks", "checkpoints"] as const;
type StreamMode = (typeof STREAM_MODES)[number];

function build(checkpointer: MemorySaver, hide = true) {
  const model = scriptedModel((messages: BaseMessage[]) => `Noted: ${messages.at(-1)?.text ?? ""}`);
  const summarizer = scriptedModel(() => SUMMARY);
  const condenser = scriptedModel(() => "WORK-9c1e: booked a trip");
  const agent = createAgent({
    model,
    systemPrompt: "You are a travel assistant.",
    checkpointer,
    middleware: [
      windowTrim({ maxMessages: 4, logger: false }),
      summarize({ model: summarizer, windowSize: 4, threshold: 6, logger: false }),
      factRecall({ logger: false }),
      workMemory({ model: condenser, logger: false }),
    ],
  });
  return { agent: hide ? hideMemoryState(agent) : agent, model };
}

/** A thread with a summary, a fact and a work-memory entry in its checkpoint. */
async function thread(checkpointer: MemorySaver, threadId: string) {
  const { agent } = build(checkpointer);
  const config = { configurable: { thread_id: threadId } };
  for (const text of ["I live in Busan.", "Book a flight to Jeju.", "Then a hotel.", "And a taxi.", "Thanks."]) {
    await agent.invoke({ messages: [new HumanMessage(text)] }, config);
  }
  const stored = (await checkpointer.getTuple(config))?.checkpoint.channel_values ?? {};
  return { config, stored };
}

const leaks = (value: unknown): boolean => /_threadwise_|SUMMARY-7f3a|WORK-9c1e/.test(JSON.stringify(value));

async function chunks(agent: ReturnType<typeof build>["agent"], config: object, mode: StreamMode, text: string) {
  const out: unknown[] = [];
  for await (const chunk of await agent.stream({ messages: [new HumanMessage(text)] }, { ...config, streamMode: mode })) {
    out.push(chunk);
  }
  return out;
}

describe("private memory state (R41)", () => {
  it("is stored in the checkpoint, yet absent from invoke output, getState and the values, updates, messages, custom and checkpoints streams", async () => {
    const checkpointer = new MemorySaver();
    const { config, stored } = await thread(checkpointer, "r41-streams");
    // The state exists: otherwise nothing below could leak.
    expect(readSummarySlot(stored).summary?.text).toBe(SUMMARY);
    expect(readSummarySlot(stored).workMemory?.entries.map((e) => e.text)).toEqual(expect.arrayContaining(["WORK-9c1e: booked a trip"]));
    expect(JSON.stringify(stored._threadwise_facts)).toContain("Busan");

    const { agent } = build(checkpointer);
    const output = await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    expect(Object.keys(output)).toEqual(["messages"]);
    expect(leaks(output)).toBe(false);
    expect(leaks((await agent.graph.getState(config)).values)).toBe(false);

    for (const mode of ["values", "updates", "messages", "custom", "checkpoints"] as const) {
      const streamed = await chunks(agent, config, mode, `mode ${mode}`);
      if (mode !== "custom") expect(streamed.length, mode).toBeGreaterThan(0);
      expect(streamed.filter(leaks), mode).toEqual([]);
    }
  });

  it("tasks and debug: node inputs without the private fields (they carried the whole state before)", async () => {
    const checkpointer = new MemorySaver();
    const { config } = await thread(checkpointer, "r41-tasks");
    const { agent } = build(checkpointer);
    for (const mode of ["tasks", "debug"] as const) {
      const streamed = (await chunks(agent, config, mode, `mode ${mode}`)) as Record<string, unknown>[];
      const inputs = streamed
        .map((chunk) => (mode === "debug" ? (chunk.payload as Record<string, unknown>) : chunk))
        .filter((task) => task && "input" in task && "triggers" in task);
      // The node inputs are still there (a task's state, its messages), only the private fields are gone.
      expect(inputs.length, mode).toBeGreaterThan(0);
      expect(
        inputs.every((task) => "messages" in (task.input as object)),
        mode,
      ).toBe(true);
      expect(streamed.filter(leaks), mode).toEqual([]);
    }
  });

  // What LangGraph's API server forwards: it calls the compiled graph's streamEvents (v2, with the
  // client's stream modes), or v3; a plain client may call either on the agent.
  for (const [lang, texts] of [
    ["en", ["I live in Busan.", "Book a flight to Jeju.", "Then a hotel.", "And a taxi.", "Thanks."]],
    ["ko", ["저는 부산에 살아요.", "제주행 비행기 예약해 줘.", "그다음 호텔도.", "택시도 불러 줘.", "고마워요."]],
  ] as const) {
    it(`streamEvents v2 (alone and with tasks/debug modes) and v3: no private field in any event (${lang})`, async () => {
      const checkpointer = new MemorySaver();
      const { agent } = build(checkpointer);
      const config = { configurable: { thread_id: `r41-events-${lang}` } };
      for (const text of texts) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      const stored = (await checkpointer.getTuple(config))?.checkpoint.channel_values ?? {};
      expect(readSummarySlot(stored).summary?.text).toBe(SUMMARY);
      const privateField = (value: unknown) => JSON.stringify(value).includes("_threadwise_");
      for (const [label, target, options] of [
        ["agent v2", agent, { version: "v2" }],
        ["agent v2, tasks+debug+values", agent, { version: "v2", streamMode: ["tasks", "debug", "values"] }],
        ["agent.graph v2, tasks, subgraphs", agent.graph, { version: "v2", streamMode: ["tasks", "updates"], subgraphs: true }],
      ] as const) {
        const events: Array<{ event: string; name: string; tags?: string[]; data: unknown }> = [];
        const stream = (target as typeof agent).streamEvents({ messages: [new HumanMessage(texts[0])] }, {
          ...config,
          ...options,
        } as never);
        for await (const event of stream as unknown as AsyncIterable<(typeof events)[number]>) events.push(event);
        expect(
          events.some((e) => e.event === "on_chain_start" && e.name === "model_request"),
          label,
        ).toBe(true);
        expect(
          events.filter(privateField).map((e) => `${e.event} ${e.name}`),
          label,
        ).toEqual([]);
        // Where memory text still shows: the prompt the model is sent, and the memory middlewares' own model calls.
        for (const e of events.filter(leaks)) expect(e.event, `${label}: ${e.name}`).toMatch(/^on_chat_model_/);
      }
      const v3 = (await agent.streamEvents({ messages: [new HumanMessage(texts[1])] }, { ...config, version: "v3" } as never)) as unknown;
      const protocol: unknown[] = [];
      for await (const event of v3 as AsyncIterable<unknown>) protocol.push(event);
      expect(protocol.length).toBeGreaterThan(0);
      expect(protocol.filter(privateField)).toEqual([]);
      // getState, getStateHistory: whole snapshots (values, tasks, metadata), not only values.
      expect(privateField(await agent.graph.getState(config))).toBe(false);
      const history: unknown[] = [];
      for await (const snapshot of agent.graph.getStateHistory(config)) history.push(snapshot);
      expect(history.length).toBeGreaterThan(5);
      expect(history.filter(privateField)).toEqual([]);
    });
  }

  it("a cancelled stream still aborts the run, and a second hideMemoryState changes nothing", async () => {
    const checkpointer = new MemorySaver();
    const { config } = await thread(checkpointer, "r41-cancel");
    const { agent } = build(checkpointer);
    const stream = agent.graph.stream;
    expect(hideMemoryState(agent).graph.stream).toBe(stream);
    const tasks = await agent.stream({ messages: [new HumanMessage("stop")] }, { ...config, streamMode: "tasks" });
    const first = await tasks[Symbol.asyncIterator]().next();
    expect(first.done).toBe(false);
    await tasks.cancel("stop");
    expect((tasks as unknown as { signal: AbortSignal }).signal.aborted).toBe(true);
  });

  it("a new agent on the same checkpointer (a restart) still places the stored summary", async () => {
    const checkpointer = new MemorySaver();
    const { config } = await thread(checkpointer, "r41-restart");
    const restarted = build(checkpointer);
    const streamed = await chunks(restarted.agent, config, "values", "What did we talk about?");
    expect(streamed.filter(leaks)).toEqual([]);
    const seen = (restarted.model.calls.at(-1) as { messages: BaseMessage[] }).messages;
    expect(systemText(seen[0] as never)).toContain(SUMMARY);
    expect(systemText(seen[0] as never)).toContain("WORK-9c1e");
  });

  it("without hideMemoryState, LangGraph streams every channel: values carries the summary (why the call is needed)", async () => {
    const checkpointer = new MemorySaver();
    const { config } = await thread(checkpointer, "r41-plain");
    const { agent } = build(checkpointer, false);
    const streamed = await chunks(agent, config, "values", "hello");
    expect(streamed.some(leaks)).toBe(true);
    // invoke is already clean: createAgent's output schema leaves `_` fields out.
    expect(leaks(await agent.invoke({ messages: [new HumanMessage("again")] }, config))).toBe(false);
  });

  it("the whole preset (user memory, facts, work memory, recall, archive) stays out of combined modes, subgraph streams and agent.graph", async () => {
    const stack = memoryStack({
      userMemory: true,
      factsMode: "heuristic",
      workMemory: true,
      archive: true,
      windowSize: 4,
      summarizeThreshold: 6,
      models: { summarize: scriptedModel(() => SUMMARY), workMemory: scriptedModel(() => "WORK-9c1e: booked a trip") },
      logger: false,
      env: {},
    });
    const agent = hideMemoryState(createAgent({ model: scriptedModel(() => "Noted."), tools: [], ...stack }));
    const config = { configurable: { thread_id: "r41-preset", user_id: "u1" } };
    for (const text of ["I live in Busan.", "Book a flight to Jeju.", "Then a hotel.", "And a taxi.", "Thanks.", "More."]) {
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    }
    const stored = (await stack.checkpointer?.getTuple(config))?.checkpoint.channel_values ?? {};
    expect(leaks(stored), "the checkpoint holds memory state").toBe(true);
    const streams: Array<[string, object, { stream: typeof agent.stream }]> = [
      ["values+updates", { streamMode: ["values", "updates"] }, agent],
      ["values, subgraphs", { streamMode: "values", subgraphs: true }, agent],
      ["updates, subgraphs", { streamMode: "updates", subgraphs: true }, agent],
      ["default mode", {}, agent],
      ["agent.graph values", { streamMode: "values" }, agent.graph as never],
    ];
    for (const [label, options, target] of streams) {
      const out: unknown[] = [];
      for await (const chunk of await target.stream({ messages: [new HumanMessage(`probe ${label}`)] }, {
        ...config,
        ...options,
      } as never)) {
        out.push(chunk);
      }
      expect(out.length, label).toBeGreaterThan(0);
      expect(out.filter(leaks), label).toEqual([]);
    }
  });

  it("throws a typed error for something that is not an agent", () => {
    expect(() => hideMemoryState({})).toThrow(/hideMemoryState.agent/);
  });
});
