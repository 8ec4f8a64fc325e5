import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import {
  findOrphans,
  messageText,
  SUMMARY_SLOT_KEY,
  summarySlotMiddleware,
  summarySlotState,
  ThreadwiseConfigError,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { messagesToDelete, persistTrim, resolvePersistTrimOptions } from "./persist-trim.js";

const human = (id: string) => new HumanMessage({ id, content: id });
const ai = (id: string) => new AIMessage({ id, content: id });
const call = (id: string, callId: string) =>
  new AIMessage({ id, content: "", tool_calls: [{ id: callId, name: "lookup", args: {}, type: "tool_call" as const }] });
const result = (id: string, callId: string) => new ToolMessage({ id, content: "r", tool_call_id: callId, name: "lookup" });

describe("persistTrim options", () => {
  it("requires keepGroups, from the option or MEMORY_PERSIST_TRIM_KEEP_GROUPS; errors name it", () => {
    expect(() => resolvePersistTrimOptions({}, {})).toThrow(ThreadwiseConfigError);
    expect(() => resolvePersistTrimOptions({}, {})).toThrow(/persistTrim\.keepGroups/);
    expect(() => resolvePersistTrimOptions({}, {})).toThrow(/required/);
    expect(() => resolvePersistTrimOptions({ keepGroups: 0 }, {})).toThrow("persistTrim.keepGroups: expected a positive integer");
    expect(() => resolvePersistTrimOptions({ keepGroups: 2.5 }, {})).toThrow("persistTrim.keepGroups: expected a positive integer");
    expect(() => resolvePersistTrimOptions({}, { MEMORY_PERSIST_TRIM_KEEP_GROUPS: "x" })).toThrow(/MEMORY_PERSIST_TRIM_KEEP_GROUPS/);
    expect(resolvePersistTrimOptions({}, { MEMORY_PERSIST_TRIM_KEEP_GROUPS: "8" })).toMatchObject({
      keepGroups: 8,
      keepUnsummarized: true,
    });
    expect(resolvePersistTrimOptions({ keepGroups: 3 }, { MEMORY_PERSIST_TRIM_KEEP_GROUPS: "8" }).keepGroups).toBe(3);
  });
});

describe("messagesToDelete", () => {
  const thread: BaseMessage[] = [
    new SystemMessage({ id: "sys", content: "rules" }),
    human("u1"),
    call("c1", "t1"),
    result("r1", "t1"),
    ai("a1"),
    human("u2"),
    ai("a2"),
    human("u3"),
    ai("a3"),
  ];

  it("deletes whole older groups, keeps the newest keepGroups and stored system messages", () => {
    expect(messagesToDelete(thread, 3)).toEqual(["u1", "c1", "r1", "a1", "u2"]);
    expect(messagesToDelete(thread, 4)).toEqual(["u1", "c1", "r1", "a1"]);
    // The tool call and its result go together.
    expect(messagesToDelete(thread, 5)).toEqual(["u1", "c1", "r1"]);
    expect(messagesToDelete(thread, 6)).toEqual(["u1"]);
    expect(messagesToDelete(thread, 7)).toEqual([]);
    const left = thread.filter((m) => !messagesToDelete(thread, 4).includes(m.id as string));
    expect(left.map((m) => m.id)).toEqual(["sys", "u2", "a2", "u3", "a3"]);
    expect(findOrphans(left)).toEqual([]);
  });

  it("never deletes the newest user turn, even with keepGroups 1", () => {
    expect(messagesToDelete(thread, 1)).toEqual(["u1", "c1", "r1", "a1", "u2", "a2"]);
  });

  it("never deletes past a summary's boundary; a boundary no longer stored means nothing to delete", () => {
    expect(messagesToDelete(thread, 1, "a1")).toEqual(["u1", "c1", "r1", "a1"]);
    expect(messagesToDelete(thread, 1, "c1")).toEqual(["u1"]); // the tool group is not fully covered
    expect(messagesToDelete(thread, 1, "gone")).toEqual([]);
    expect(messagesToDelete(thread, 1, null)).toEqual([]);
  });
});

describe("persistTrim in an agent", () => {
  it("deletes older groups after each run; the thread keeps working", async () => {
    const model = scriptedModel((messages) => `seen ${messages.length}`);
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [persistTrim({ keepGroups: 4, logger: false })] });
    const config = { configurable: { thread_id: "pt" } };
    await agent.invoke({ messages: [new SystemMessage({ id: "sys", content: "stored rules" }), human("u1")] }, config);
    for (let k = 2; k <= 6; k += 1) await agent.invoke({ messages: [human(`u${k}`)] }, config);
    const stored = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    expect(stored.map((m) => (m.getType() === "ai" ? messageText(m) : m.id))).toEqual(["sys", "u5", "seen 6", "u6", "seen 6"]);
    // The model saw 1 system + 4 kept + the new user message on turn 6: 6 messages (system counted once).
    expect(model.calls.at(-1)?.messages).toHaveLength(6);
  });
});

describe("persistTrim({ declareState: false })", () => {
  // A summary covering through u2 bounds what is deleted; the afterAgent hook must read it from the
  // graph when persistTrim declares no slot (a hook node's input holds only what its middleware
  // declares): read as absent, it would delete past the boundary, messages no summary holds.
  const summary = { text: "s", coveredThroughId: "u2", coveredCount: 3, updatedAt: "2026-01-01T00:00:00Z" };
  const writer = () =>
    createMiddleware({
      name: "fake-summarize",
      stateSchema: summarySlotState,
      afterModel: () => ({ [SUMMARY_SLOT_KEY]: { summary } }) as never,
    });

  async function stored(middleware: ReturnType<typeof createMiddleware>[]) {
    const agent = createAgent({
      model: scriptedModel((_m, k) => new AIMessage({ id: `a${k + 1}`, content: `a${k + 1}` })),
      checkpointer: new MemorySaver(),
      middleware,
    });
    const config = { configurable: { thread_id: "pt-shared" } };
    for (let k = 1; k <= 4; k += 1) await agent.invoke({ messages: [human(`u${k}`)] }, config);
    return ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages.map((m) => m.id);
  }

  it("with summarySlotMiddleware deletes what the default deletes, never past the summary's boundary", async () => {
    expect(persistTrim({ keepGroups: 1 }).stateSchema).toBeDefined();
    expect(persistTrim({ keepGroups: 1, declareState: false }).stateSchema).toBeUndefined();
    const declared = await stored([writer(), persistTrim({ keepGroups: 1, logger: false })]);
    const shared = await stored([summarySlotMiddleware(), writer(), persistTrim({ keepGroups: 1, logger: false, declareState: false })]);
    expect(declared).toEqual(["a2", "u3", "a3", "u4", "a4"]);
    expect(shared).toEqual(declared);
  });

  it("without a middleware declaring the slot, the run throws naming persistTrim.declareState and deletes nothing", async () => {
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      checkpointer: new MemorySaver(),
      middleware: [persistTrim({ keepGroups: 1, logger: false, declareState: false })],
    });
    const config = { configurable: { thread_id: "pt-undeclared" } };
    const error = await agent.invoke({ messages: [human("u1")] }, config).catch((e: unknown) => e);
    expect(ThreadwiseConfigError.find(error)?.option, String(error)).toBe("persistTrim.declareState");
  });
});
