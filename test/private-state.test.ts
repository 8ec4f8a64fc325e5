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

  it("tasks and debug carry it only in node inputs (what a memory node reads), never in results or checkpoints", async () => {
    const checkpointer = new MemorySaver();
    const { config } = await thread(checkpointer, "r41-tasks");
    const { agent } = build(checkpointer);
    for (const mode of ["tasks", "debug"] as const) {
      const streamed = (await chunks(agent, config, mode, `mode ${mode}`)) as Record<string, unknown>[];
      const strip = ({ input: _input, ...rest }: Record<string, unknown>) => rest;
      const withoutInputs = streamed.map((chunk) =>
        mode === "debug" ? { ...chunk, payload: strip(chunk.payload as Record<string, unknown>) } : strip(chunk),
      );
      expect(streamed.some(leaks), `${mode} shows node inputs`).toBe(true);
      expect(withoutInputs.filter(leaks), mode).toEqual([]);
    }
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
