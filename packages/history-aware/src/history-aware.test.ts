import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import {
  addContextBlocks,
  contextMessage,
  isContextMessage,
  ThreadwiseConfigError,
  tailContextOf,
  withoutTailContext,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent, createMiddleware } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { DEFAULT_HISTORY_NOTE, hasEarlierTurn, historyAware } from "./index.js";

const NOTE = DEFAULT_HISTORY_NOTE;

/** Adds a `facts` block whose text changes on every model call. */
function changingFacts(mode: "legacy_system" | "stable_tail") {
  let call = 0;
  return createMiddleware({
    name: "test/facts",
    wrapModelCall: (request, handler) => {
      call += 1;
      return handler(
        addContextBlocks(request, [{ kind: "facts", producer: "test/facts", label: "Facts about the user", text: `call ${call}` }], {
          mode,
        }),
      );
    },
  });
}

/** createAgent turns a string system prompt into one text block; appended text is one block more. */
function textBlocks(...texts: string[]) {
  return texts.map((text) => ({ type: "text", text }));
}

function systemOf(messages: readonly BaseMessage[]): SystemMessage | undefined {
  const first = messages[0];
  return first instanceof SystemMessage ? first : undefined;
}

async function turns(agent: { invoke: (input: never, config: never) => Promise<unknown> }, thread: string, texts: string[]) {
  const config = { configurable: { thread_id: thread } };
  for (const text of texts) await agent.invoke({ messages: [new HumanMessage(text)] } as never, config as never);
}

describe("hasEarlierTurn", () => {
  it("is false for an empty thread and for turn 1, also during turn 1's tool loop", () => {
    expect(hasEarlierTurn([])).toBe(false);
    expect(hasEarlierTurn([new HumanMessage("hi")])).toBe(false);
    const call = new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "lookup", args: {}, type: "tool_call" }] });
    expect(hasEarlierTurn([new HumanMessage("hi"), call, new ToolMessage({ content: "r", tool_call_id: "c1" })])).toBe(false);
  });

  it("is false during turn 1's tool loop in Anthropic's native format (results as a user message of tool_result blocks)", () => {
    // Regression: the tool_result carrier was taken for the newest user message, so the note was
    // added in the middle of turn 1 (the system prompt changed between two calls of one run).
    for (const [asked, result, words] of [
      ["What's the weather in Seoul?", "sunny, 21C", "Thanks. And Busan?"],
      ["서울 날씨 어때?", "맑음, 21도", "고마워. 부산은?"],
    ] as const) {
      const call = new AIMessage({ content: [{ type: "tool_use", id: "toolu_1", name: "weather", input: {} }] as never, tool_calls: [] });
      const carrier = new HumanMessage({ content: [{ type: "tool_result", tool_use_id: "toolu_1", content: result }] as never });
      expect(hasEarlierTurn([new HumanMessage(asked), call, carrier])).toBe(false);
      // Results with the user's own words: a new turn, after the AI message that made the call.
      const withWords = new HumanMessage({
        content: [
          { type: "tool_result", tool_use_id: "toolu_1", content: result },
          { type: "text", text: words },
        ] as never,
      });
      expect(hasEarlierTurn([new HumanMessage(asked), call, withWords])).toBe(true);
    }
  });

  it("is true once an AI answer precedes the newest user message", () => {
    expect(hasEarlierTurn([new HumanMessage("hi"), new AIMessage("hello"), new HumanMessage("again")])).toBe(true);
  });

  it("does not take a stable_tail context message for the newest user message", () => {
    const thread = [new HumanMessage("hi"), new AIMessage("hello"), contextMessage("[Facts]\nx")];
    expect(isContextMessage(thread[2] as BaseMessage)).toBe(true);
    // The newest real user message is "hi": the AI answer comes after it, so this is still turn 1.
    expect(hasEarlierTurn(thread)).toBe(false);
  });
});

describe("historyAware options", () => {
  it("rejects an empty note, naming the option", () => {
    let error: unknown;
    try {
      historyAware({ note: "  " });
    } catch (e) {
      error = e;
    }
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe("historyAware.note");
  });

  it("rejects an archive reader that is not a function, naming the option", () => {
    expect(() => historyAware({ archived: "t" as never })).toThrow(/historyAware\.archived/);
  });

  it("reads the archive only when the stored thread holds no earlier answer, and then decides on the whole thread", async () => {
    const reads: string[] = [];
    const archived = async (threadId: string) => {
      reads.push(threadId);
      return [new HumanMessage({ id: "u0", content: "hi" }), new AIMessage({ id: "a0", content: "hello" })];
    };
    const middleware = historyAware({ archived, logger: false });
    const systemOfCall = async (messages: BaseMessage[]) => {
      let seen = "";
      const wrap = middleware.wrapModelCall as unknown as (request: unknown, handler: (request: unknown) => unknown) => Promise<unknown>;
      await wrap(
        {
          messages,
          state: { messages },
          systemMessage: new SystemMessage("S"),
          systemPrompt: "S",
          tools: [],
          runtime: { configurable: { thread_id: "t" } },
        },
        (request) => {
          seen = String((request as { systemMessage: SystemMessage }).systemMessage.text);
          return new AIMessage("ok");
        },
      );
      return seen;
    };
    // The stored thread holds an earlier answer: the archive is not read.
    expect(await systemOfCall([new HumanMessage("a"), new AIMessage("b"), new HumanMessage("c")])).toContain(NOTE);
    expect(reads).toEqual([]);
    // Turn 1 as stored (its earlier turns archived): the archive's answer counts.
    expect(await systemOfCall([new HumanMessage({ id: "u1", content: "c" })])).toContain(NOTE);
    expect(reads).toEqual(["t"]);
  });

  it("rejects a logger without info/warn", () => {
    expect(() => historyAware({ logger: { info() {} } as never })).toThrow(/historyAware\.logger/);
  });
});

describe("historyAware through createAgent", () => {
  it("turn 1 gets no note; turns 2 and 3 get it at the end of a string system prompt", async () => {
    const model = scriptedModel((_, call) => `answer ${call}`);
    const agent = createAgent({ model, systemPrompt: "You are terse.", checkpointer: new MemorySaver(), middleware: [historyAware()] });
    await turns(agent, "s1", ["one", "two", "three"]);
    const systems = model.calls.map((c) => systemOf(c.messages)?.content);
    const noted = textBlocks("You are terse.", `\n\n${NOTE}`);
    expect(systems).toEqual([textBlocks("You are terse."), noted, noted]);
    expect(model.calls[2]?.messages.slice(1).map((m) => m.content)).toEqual(["one", "answer 0", "two", "answer 1", "three"]);
  });

  it("keeps the system prompt unchanged across turn 1's tool loop", async () => {
    const lookup = tool(async () => "42", { name: "lookup", description: "Looks up a number.", schema: z.object({}) });
    const model = scriptedModel((_messages, call) =>
      call === 0 ? new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "lookup", args: {}, type: "tool_call" }] }) : `done ${call}`,
    );
    const agent = createAgent({
      model,
      tools: [lookup],
      systemPrompt: "Use tools.",
      checkpointer: new MemorySaver(),
      middleware: [historyAware()],
    });
    await turns(agent, "s2", ["first", "second"]);
    expect(model.calls.map((c) => systemOf(c.messages)?.content)).toEqual([
      textBlocks("Use tools."),
      textBlocks("Use tools."),
      textBlocks("Use tools.", `\n\n${NOTE}`),
    ]);
  });

  it("stable_tail with a block changing every call: the system prefix changes once (turn 1 -> 2) and is byte-identical afterwards", async () => {
    const model = scriptedModel((_, call) => `answer ${call}`);
    const agent = createAgent({
      model,
      systemPrompt: "Operator prompt.",
      checkpointer: new MemorySaver(),
      middleware: [historyAware(), changingFacts("stable_tail")],
    });
    await turns(agent, "s3", ["t1", "t2", "t3", "t4", "t5"]);
    const serialized = model.calls.map((c) => JSON.stringify(systemOf(c.messages)?.content));
    expect(serialized[0]).toBe(JSON.stringify(textBlocks("Operator prompt.")));
    expect(serialized[1]).toBe(JSON.stringify(textBlocks("Operator prompt.", `\n\n${NOTE}`)));
    expect(new Set(serialized.slice(1)).size).toBe(1);
    // The changing block went to the tail, after the newest user message, never into the system prompt.
    const last = model.calls[4]?.messages ?? [];
    expect(withoutTailContext(last.at(-1) as BaseMessage).content).toBe("t5");
    expect(tailContextOf(last.at(-1) as BaseMessage)).toContain("call 5");
  });

  it("legacy_system: the note comes before the placed blocks, whatever the middleware order", async () => {
    for (const order of ["note-outer", "note-inner"] as const) {
      const model = scriptedModel(() => "ok");
      const middleware =
        order === "note-outer" ? [historyAware(), changingFacts("legacy_system")] : [changingFacts("legacy_system"), historyAware()];
      const agent = createAgent({ model, systemPrompt: "Base.", checkpointer: new MemorySaver(), middleware });
      await turns(agent, `s4-${order}`, ["a", "b"]);
      expect(systemOf(model.calls[0]?.messages ?? [])?.content).toEqual(textBlocks("Base.", "\n\n[Facts about the user]\ncall 1"));
      expect(systemOf(model.calls[1]?.messages ?? [])?.content).toEqual(
        textBlocks("Base.", `\n\n${NOTE}`, "\n\n[Facts about the user]\ncall 2"),
      );
    }
  });

  it("a SystemMessage with content blocks keeps its blocks and cache_control; the note is one text block more", async () => {
    const model = scriptedModel(() => "ok");
    const block = { type: "text", text: "Cached operator prompt.", cache_control: { type: "ephemeral" } };
    const agent = createAgent({
      model,
      systemPrompt: new SystemMessage({ content: [block] }),
      checkpointer: new MemorySaver(),
      middleware: [historyAware({ note: "Earlier turns matter." })],
    });
    await turns(agent, "s5", ["a", "b", "c"]);
    expect(systemOf(model.calls[0]?.messages ?? [])?.content).toEqual([block]);
    const expected = [block, { type: "text", text: "\n\nEarlier turns matter." }];
    expect(systemOf(model.calls[1]?.messages ?? [])?.content).toEqual(expected);
    expect(systemOf(model.calls[2]?.messages ?? [])?.content).toEqual(expected);
  });

  it("no system prompt: no note and no system message on any turn", async () => {
    const model = scriptedModel(() => "ok");
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [historyAware()] });
    await turns(agent, "s6", ["a", "b", "c"]);
    for (const call of model.calls) expect(call.messages.some((m) => m instanceof SystemMessage)).toBe(false);
    expect(model.calls[2]?.messages.map((m) => m.content)).toEqual(["a", "ok", "b", "ok", "c"]);
  });

  it("never writes the note into the stored thread, and logs one line per noted call", async () => {
    const lines: string[] = [];
    const logger = { info: (line: string) => lines.push(line), warn() {} };
    const model = scriptedModel(() => "ok");
    const agent = createAgent({ model, systemPrompt: "P.", checkpointer: new MemorySaver(), middleware: [historyAware({ logger })] });
    await turns(agent, "s7", ["a", "b", "c"]);
    const state = await agent.graph.getState({ configurable: { thread_id: "s7" } });
    const stored = (state.values as { messages: BaseMessage[] }).messages;
    expect(stored.map((m) => m.content)).toEqual(["a", "ok", "b", "ok", "c", "ok"]);
    expect(stored.some((m) => m instanceof SystemMessage)).toBe(false);
    expect(lines).toEqual([`history_aware: note_chars=${NOTE.length}`, `history_aware: note_chars=${NOTE.length}`]);
  });

  describe("with SqliteSaver", () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-history-aware-"));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it("detects the earlier turn from the checkpointed thread across agent instances", async () => {
      const path = join(dir, "threads.sqlite");
      const first = scriptedModel(() => "first answer");
      const agentA = createAgent({
        model: first,
        systemPrompt: "P.",
        checkpointer: SqliteSaver.fromConnString(path),
        middleware: [historyAware()],
      });
      await turns(agentA, "s8", ["a"]);
      const second = scriptedModel(() => "second answer");
      const agentB = createAgent({
        model: second,
        systemPrompt: "P.",
        checkpointer: SqliteSaver.fromConnString(path),
        middleware: [historyAware()],
      });
      await turns(agentB, "s8", ["b"]);
      expect(systemOf(first.calls[0]?.messages ?? [])?.content).toEqual(textBlocks("P."));
      expect(systemOf(second.calls[0]?.messages ?? [])?.content).toEqual(textBlocks("P.", `\n\n${NOTE}`));
      expect(second.calls[0]?.messages.slice(1).map((m) => m.content)).toEqual(["a", "first answer", "b"]);
    });
  });
});
