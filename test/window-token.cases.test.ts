/**
 * The named hard cases of issue 2 for windowTrim and tokenCap (spec R2, R3, R4), through the
 * hooks alone and through createAgent with a checkpointer.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { createTokenCounter, findOrphans, NO_REPLY_TEXT, requestOverheadTokens } from "@threadwise/core";
import { characterTokenCounter, scriptedModel } from "@threadwise/core/testing";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent, createMiddleware, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { viewOf } from "./support/hook.js";

/** Index of the newest message of `type` (-1 when none); lib is ES2022, so no findLastIndex. */
function lastIndexOfType(messages: readonly BaseMessage[], type: string): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) if (messages[i]?.getType() === type) return i;
  return -1;
}

const human = (id: string) => new HumanMessage({ id, content: `user ${id}` });
const ai = (id: string) => new AIMessage({ id, content: `assistant ${id}` });
const call = (id: string, callIds: string[]) =>
  new AIMessage({
    id,
    content: "",
    tool_calls: callIds.map((c) => ({ id: c, name: "seat_map", args: { seat: c }, type: "tool_call" as const })),
  });
const result = (id: string, callId: string) => new ToolMessage({ id, content: `seat ${callId} is free`, tool_call_id: callId });
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => m.id);

const seatMap = tool(async ({ seat }: { seat: string }) => `seat ${seat} is free`, {
  name: "seat_map",
  description: "Tell whether a seat is free",
  schema: z.object({ seat: z.string() }),
});

describe("an AI message with 10 parallel calls, the cut landing inside its results", () => {
  const tenIds = Array.from({ length: 10 }, (_, i) => `s${i + 1}`);
  const thread = [human("h1"), call("c", tenIds), ...tenIds.map((s) => result(`t-${s}`, s)), ai("a1"), human("h2")];

  it("windowTrim drops the 11-message group whole or keeps it whole", async () => {
    for (let n = 1; n <= 14; n += 1) {
      const view = await viewOf(windowTrim({ eviction: "sliding", maxMessages: n, logger: false, startOn: "any" }), thread);
      expect(findOrphans(view)).toEqual([]);
      expect(ids(view)).toEqual(
        n < 13 ? (n === 1 ? ["h2"] : ["a1", "h2"]) : n === 13 ? ["c", ...tenIds.map((s) => `t-${s}`), "a1", "h2"] : ids(thread),
      );
    }
  });

  it("tokenCap with a cap that would fit 5 of the 10 results drops the group whole", async () => {
    const counter = characterTokenCounter();
    const keep = [thread[12], thread[13]] as BaseMessage[];
    const cap = counter.countMessages(keep) + counter.countMessages(thread.slice(2, 7));
    const view = await viewOf(tokenCap({ maxTokens: cap, tokenCounter: counter, logger: false, startOn: "any" }), thread);
    expect(ids(view)).toEqual(["a1", "h2"]);
  });

  it("through createAgent: the run's 10 results stay together; the next turn cuts before them", async () => {
    const model = scriptedModel((messages, n) => {
      if (n === 0) return new AIMessage({ content: "", tool_calls: tenIds.map((s) => ({ id: s, name: "seat_map", args: { seat: s } })) });
      return `checked ${messages.filter((m) => m.getType() === "tool").length} seats`;
    });
    const agent = createAgent({
      model,
      tools: [seatMap],
      checkpointer: new MemorySaver(),
      middleware: [
        windowTrim({ eviction: "sliding", maxMessages: 8, logger: false, startOn: "any" }),
        tokenCap({ maxTokens: 2000, logger: false }),
      ],
    });
    const config = { configurable: { thread_id: "ten" } };
    await agent.invoke({ messages: [new HumanMessage("check ten seats")] }, config);
    await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);
    expect(model.calls.map((c) => c.messages.length)).toEqual([1, 12, 2]);
    expect(model.calls[1]?.messages.filter((m) => m.getType() === "tool")).toHaveLength(10);
    expect(model.calls[2]?.messages.map((m) => m.content)).toEqual(["checked 10 seats", "thanks"]);
  });
});

describe("a run of ToolMessages answering two different AI messages, cut between them", () => {
  // Stored as the provider would reject it: two calls back to back, then both results in one run.
  const malformed = [human("h1"), call("c1", ["x"]), call("c2", ["y"]), result("tx", "x"), result("ty", "y"), ai("a1"), human("h2")];
  // Well formed: each call directly followed by its result.
  const wellFormed = [human("h1"), call("c1", ["x"]), result("tx", "x"), call("c2", ["y"]), result("ty", "y"), ai("a1"), human("h2")];

  it("no window size and no cap yields an orphan", async () => {
    const counter = characterTokenCounter();
    for (const thread of [malformed, wellFormed]) {
      for (let n = 1; n <= 8; n += 1)
        expect(findOrphans(await viewOf(windowTrim({ eviction: "sliding", maxMessages: n, logger: false }), thread))).toEqual([]);
      for (let cap = 5; cap <= 80; cap += 5) {
        expect(findOrphans(await viewOf(tokenCap({ maxTokens: cap, tokenCounter: counter, logger: false }), thread))).toEqual([]);
      }
    }
  });

  it("the cut between the two results keeps the later pair and drops the first whole", async () => {
    // Window 4: h2, a1, and the c2/ty pair; c1/tx is cut off.
    expect(ids(await viewOf(windowTrim({ eviction: "sliding", maxMessages: 4, logger: false, startOn: "any" }), wellFormed))).toEqual([
      "c2",
      "ty",
      "a1",
      "h2",
    ]);
    // In the malformed run, c1 has no result right after it and tx is a stray: only c2/ty can ever be sent.
    expect(ids(await viewOf(windowTrim({ eviction: "sliding", maxMessages: 4, logger: false, startOn: "any" }), malformed))).toEqual([
      "c2",
      "ty",
      "a1",
      "h2",
    ]);
    expect(ids(await viewOf(windowTrim({ eviction: "sliding", maxMessages: 50, logger: false }), malformed))).toEqual([
      "h1",
      "c2",
      "ty",
      "a1",
      "h2",
    ]);
  });
});

describe("a hook-created pair of messages without ids", () => {
  /** A user middleware that injects a call and its result, without ids, before the newest question. */
  const injector = createMiddleware({
    name: "user/inject-lookup",
    wrapModelCall: (request, handler) => {
      const at = lastIndexOfType(request.messages, "human");
      const pair = [
        new AIMessage({ content: "", tool_calls: [{ id: "inj", name: "seat_map", args: { seat: "1A" } }] }),
        new ToolMessage({ content: "seat 1A is free", tool_call_id: "inj" }),
      ];
      return handler({ ...request, messages: [...request.messages.slice(0, at), ...pair, ...request.messages.slice(at)] });
    },
  });

  it("is kept or dropped as one group by both middlewares, and never stored", async () => {
    const model = scriptedModel((_m, n) => `answer ${n + 1}`);
    const agent = createAgent({
      model,
      tools: [seatMap],
      checkpointer: new MemorySaver(),
      middleware: [
        injector,
        windowTrim({ eviction: "sliding", maxMessages: 4, logger: false, startOn: "any" }),
        tokenCap({ maxTokens: 5000, logger: false }),
      ],
    });
    const config = { configurable: { thread_id: "hook" } };
    for (const q of ["one", "two", "three"]) await agent.invoke({ messages: [new HumanMessage(q)] }, config);
    const shapes = model.calls.map((c) => c.messages.map((m) => `${m.getType()}:${m.id === undefined ? "no-id" : "id"}`));
    expect(shapes[0]).toEqual(["ai:no-id", "tool:no-id", "ai:id", "human:id"]);
    // Turn 3 sees [one, answer 1, two, answer 2, pair, three]; a window of 4 holds three, the pair, answer 2.
    // answer 2 and the injected call are two assistant turns in a row: core sends them as one. The
    // injected result and the question are two user turns on Bedrock: core's no-reply message goes between.
    expect(model.calls[2]?.messages.map((m) => m.content)).toEqual(["answer 2", "seat 1A is free", NO_REPLY_TEXT, "three"]);
    expect((model.calls[2]?.messages[0] as AIMessage | undefined)?.tool_calls?.map((c) => c.id)).toEqual(["inj"]);
    for (const c of model.calls) expect(findOrphans(c.messages)).toEqual([]);
    const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    expect(stored.map((m) => m.content)).toEqual(["one", "answer 1", "two", "answer 2", "three", "answer 3"]);
  });

  it("tokenCap counts id-less messages without caching them by id", async () => {
    const texts: string[] = [];
    const counter = createTokenCounter({
      countText: (t) => {
        texts.push(t);
        return t.length;
      },
    });
    const pair = [
      new AIMessage({ content: "", tool_calls: [{ id: "k", name: "f", args: {} }] }),
      new ToolMessage({ content: "v", tool_call_id: "k" }),
    ];
    const view = await viewOf(tokenCap({ maxTokens: 1000, tokenCounter: counter, logger: false, startOn: "any" }), [...pair, human("q")]);
    expect(view[0]).toBe(pair[0]);
    expect(view[1]).toBe(pair[1]);
    // Without ids the cache is by object: the same objects are not tokenized again.
    const before = texts.length;
    await viewOf(tokenCap({ maxTokens: 1000, tokenCounter: counter, logger: false, startOn: "any" }), [...pair, human("q")]);
    expect(texts.length).toBe(before);
  });
});

describe("the current run's tool loop alone over the budget", () => {
  const loop = [
    human("old"),
    ai("old-answer"),
    human("now"),
    call("c1", ["a"]),
    new ToolMessage({ id: "t1", content: "x".repeat(2000), tool_call_id: "a" }),
    call("c2", ["b"]),
    new ToolMessage({ id: "t2", content: "y".repeat(2000), tool_call_id: "b" }),
  ];

  it("windowTrim sends the whole loop even when the window is smaller", async () => {
    expect(ids(await viewOf(windowTrim({ eviction: "sliding", maxMessages: 2, logger: false }), loop))).toEqual([
      "now",
      "c1",
      "t1",
      "c2",
      "t2",
    ]);
  });

  it("tokenCap keeps the loop, shortens the older result first, and never drops the question", async () => {
    const counter = characterTokenCounter();
    const view = await viewOf(tokenCap({ maxTokens: 700, tokenCounter: counter, logger: false }), loop);
    expect(ids(view)).toEqual(["now", "c1", "t1", "c2", "t2"]);
    expect(String(view[2]?.content)).toMatch(/^x+\n\[threadwise: truncated \d+ tokens\]$/);
    expect(view[4]).toBe(loop[6]);
    expect(counter.countMessages(view)).toBeLessThanOrEqual(700);
    expect((loop[4] as ToolMessage).content).toBe("x".repeat(2000));
  });

  it('tokenCap with overflow "throw" fails the model call with the typed error', async () => {
    const counter = characterTokenCounter();
    await expect(viewOf(tokenCap({ maxTokens: 700, tokenCounter: counter, overflow: "throw", logger: false }), loop)).rejects.toMatchObject(
      {
        code: "THREADWISE_TOKEN_BUDGET_EXCEEDED",
        maxTokens: 700,
        // The view plus what the request adds once (reply priming; no system prompt, no tools here).
        tokens: counter.countMessages(loop.slice(2)) + requestOverheadTokens({ system: false, tools: false }),
      },
    );
  });

  it("tokenCap warns and still sends when shortening cannot get under the cap", async () => {
    const warnings: Array<[string, unknown]> = [];
    const counter = characterTokenCounter();
    const logger = { info: () => {}, warn: (m: string, f?: Record<string, unknown>) => warnings.push([m, f]) };
    const view = await viewOf(tokenCap({ maxTokens: 20, tokenCounter: counter, logger }), loop);
    expect(ids(view)).toEqual(["now", "c1", "t1", "c2", "t2"]);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.[1]).toMatchObject({ max_tokens: 20, shortened_tool_results: 2 });
    expect(warnings[0]?.[1]).toMatchObject({
      tokens: counter.countMessages(view) + requestOverheadTokens({ system: false, tools: false }),
    });
  });
});
