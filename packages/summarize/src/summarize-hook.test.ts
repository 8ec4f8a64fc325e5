import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { Command, interrupt, MemorySaver } from "@langchain/langgraph";
import { findOrphans, messageText, readSummarySlot, SUMMARY_SLOT_KEY, type SummaryRecord } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent, createMiddleware, tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { summarize } from "./summarize.js";

/** Calls the hook alone; returns what the handler saw and what the hook returned. */
async function runHook(middleware: ReturnType<typeof summarize>, messages: BaseMessage[], slot: object = {}) {
  let seen: { messages: BaseMessage[]; system: string } | undefined;
  const request = {
    messages,
    systemMessage: new SystemMessage("sys"),
    systemPrompt: "sys",
    state: { messages, [SUMMARY_SLOT_KEY]: slot },
    tools: [],
    model: scriptedModel(() => "AGENT-MODEL-SUMMARY"),
    runtime: { configurable: { thread_id: "hook" } },
  };
  // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
  const result = await (middleware.wrapModelCall as any)(request, async (r: { messages: BaseMessage[]; systemMessage: SystemMessage }) => {
    seen = { messages: r.messages, system: messageText(r.systemMessage) };
    return new AIMessage("ok");
  });
  return { seen: seen as { messages: BaseMessage[]; system: string }, result };
}

/** The summary slot as a checkpointer stores it after the call that returned `result` (its `Command`'s summary update). */
function slotWritten(result: unknown): { summary?: SummaryRecord } {
  const update = result instanceof Command ? (result.update as Record<string, { summary?: SummaryRecord }>)[SUMMARY_SLOT_KEY] : undefined;
  return update?.summary ? { summary: update.summary } : {};
}

const thread = (turns: number) =>
  Array.from({ length: turns }, (_, i) => [
    new HumanMessage({ id: `u${i + 1}`, content: `u${i + 1}` }),
    new AIMessage({ id: `a${i + 1}`, content: `a${i + 1}` }),
  ]).flat();

describe("summarize hook alone", () => {
  it("below threshold: passes every message through, returns the model's message and no state update beyond the marker", async () => {
    const messages = [...thread(2), new HumanMessage({ id: "u3", content: "u3" })];
    const marker = { summary: { text: "", coveredThroughId: null, coveredCount: 0, updatedAt: "t" } };
    const { seen, result } = await runHook(summarize({ windowSize: 2, threshold: 6, logger: false }), messages, marker);
    expect(seen.messages.map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2", "u3"]);
    expect(seen.system).toBe("sys");
    expect(result).toBeInstanceOf(AIMessage);
  });

  it("when due: summarizes with the request's model and returns a Command upserting only the summary part", async () => {
    const messages = [...thread(3), new HumanMessage({ id: "u4", content: "u4" })];
    const { seen, result } = await runHook(summarize({ windowSize: 2, threshold: 6, startOn: "any", logger: false }), messages);
    expect(seen.system).toBe("sys\n\n[Previous conversation summary]\nAGENT-MODEL-SUMMARY");
    expect(seen.messages.map((m) => m.id)).toEqual(["a3", "u4"]);
    expect(result).toBeInstanceOf(Command);
    const update = (result as Command).update as Record<string, { summary: object; workMemory?: unknown }>;
    expect(Object.keys(update)).toEqual([SUMMARY_SLOT_KEY]);
    expect(update[SUMMARY_SLOT_KEY]).toEqual({
      summary: {
        text: "AGENT-MODEL-SUMMARY",
        coveredThroughId: "u3",
        coveredCount: 5,
        updatedAt: expect.any(String),
        // One 8-character digest per covered message (u1 a1 u2 a2 u3).
        coveredDigests: expect.stringMatching(/^[A-Za-z0-9+/]{40}$/),
        // Provenance: first covered id, one pass of 5 messages.
        coveredFromId: "u1",
        // The newest covered user message, for persistTrim's trim mark (R37).
        coveredUserId: "u3",
        passes: 1,
        lastPasses: [{ fromId: "u1", throughId: "u3", messages: 5, inputTokens: expect.any(Number) }],
      },
    });
  });

  it("a call with nothing due and a model object reaches the handler without awaiting (no promise per model call for the model option)", async () => {
    // The per-step path (issue 27): awaiting the model option cost a promise and a microtask on
    // every model call; a model object needs no wait, only a "provider:model" string does.
    const messages = [...thread(2), new HumanMessage({ id: "u3", content: "u3" })];
    const slot = { summary: { text: "", coveredThroughId: null, coveredCount: 0, updatedAt: "t" } };
    const middleware = summarize({ windowSize: 2, threshold: 6, model: scriptedModel(() => "S"), logger: false });
    let reached = false;
    const request = {
      messages,
      systemMessage: new SystemMessage("sys"),
      systemPrompt: "sys",
      state: { messages, [SUMMARY_SLOT_KEY]: slot },
      tools: [],
      model: scriptedModel(() => "AGENT"),
      runtime: { configurable: { thread_id: "sync" } },
    };
    // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
    const pending = (middleware.wrapModelCall as any)(request, async () => {
      reached = true;
      return new AIMessage("ok");
    });
    expect(reached).toBe(true);
    expect(await pending).toBeInstanceOf(AIMessage);
  });

  it("never mutates the request's messages", async () => {
    const messages = [...thread(3), new HumanMessage({ id: "u4", content: "u4" })];
    const copy = [...messages];
    const texts = messages.map((m) => messageText(m));
    await runHook(summarize({ windowSize: 2, threshold: 6, logger: false }), messages);
    expect(messages).toEqual(copy);
    expect(messages.map((m) => messageText(m))).toEqual(texts);
  });
});

describe("a failed due summary is tried again on the next user turn, not within the turn", () => {
  /** A summarizer that always fails, counting its calls. */
  const failing = () => {
    const calls: number[] = [];
    return {
      calls,
      invoke: async () => {
        calls.push(calls.length);
        throw new Error("summarizer down");
      },
    };
  };
  const toolUse = (id: string, city: string) => ({ type: "tool_use", id, name: "weather", input: { city } });
  const toolResult = (id: string, text: string) => ({ type: "tool_result", tool_use_id: id, content: text });

  for (const lang of ["en", "ko"] as const) {
    const t =
      lang === "en"
        ? { look: "Let me check.", result: "sunny, 21C", words: "Thanks. And tomorrow?" }
        : { look: "확인해 볼게요.", result: "맑음, 21도", words: "고마워. 내일은?" };
    it(`${lang}: a user message of only tool_result blocks (Anthropic's native tool loop) is the same turn, one with words a new one`, async () => {
      // Regression: the turn was the newest human message, so each step of a native tool loop was a
      // new turn and called the failing summarizer again (ToolMessages did not).
      const summarizer = failing();
      const middleware = summarize({ model: summarizer, windowSize: 2, threshold: 6, startOn: "any", logger: false });
      const turn = [...thread(3), new HumanMessage({ id: "u4", content: "u4" })];
      // The failure is recorded in the summary slot the call writes (`lastAttempt`): the next calls
      // get it as a checkpointer hands it back, so a fresh process decides the same.
      const slot = slotWritten((await runHook(middleware, turn)).result);
      expect(slot.summary?.lastAttempt).toEqual({ turnId: "u4", failed: true, viewFromId: null });
      expect(summarizer.calls).toHaveLength(1);
      const step = [
        ...turn,
        new AIMessage({ id: "c1", content: [{ type: "text", text: t.look }, toolUse("toolu_1", "Seoul")] as never, tool_calls: [] }),
        new HumanMessage({ id: "r1", content: [toolResult("toolu_1", t.result)] as never }),
      ];
      const { seen } = await runHook(middleware, step, slot);
      expect(summarizer.calls).toHaveLength(1);
      expect(seen.messages.map((m) => m.id)).toEqual(step.map((m) => m.id));
      // The same loop through ToolMessages: the same turn.
      await runHook(
        middleware,
        [
          ...turn,
          new AIMessage({
            id: "c1",
            content: t.look,
            tool_calls: [{ id: "toolu_1", name: "weather", args: { city: "Seoul" }, type: "tool_call" }],
          }),
          new ToolMessage({ id: "r1", content: t.result, tool_call_id: "toolu_1" }),
        ],
        slot,
      );
      expect(summarizer.calls).toHaveLength(1);
      // Results with the user's own words: a new user turn, tried again.
      await runHook(
        middleware,
        [
          ...turn,
          new AIMessage({ id: "c1", content: [toolUse("toolu_1", "Seoul")] as never, tool_calls: [] }),
          new HumanMessage({ id: "r2", content: [toolResult("toolu_1", t.result), { type: "text", text: t.words }] as never }),
        ],
        slot,
      );
      expect(summarizer.calls).toHaveLength(2);
    });
  }
});

describe("summarize in an agent with tools", () => {
  it("keeps tool calls and results together in the view and in the summarized spans", async () => {
    const lookup = tool(async ({ code }: { code: string }) => `booking ${code}: confirmed`, {
      name: "lookup",
      description: "Look up a booking.",
      schema: z.object({ code: z.string() }),
    });
    let callId = 0;
    const model = scriptedModel((messages) => {
      const last = messages.at(-1) as BaseMessage;
      if (last.getType() === "human") {
        callId += 1;
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_${callId}`, name: "lookup", args: { code: `B${callId}` }, type: "tool_call" }],
        });
      }
      return `done ${messageText(last)}`;
    });
    const summarizer = scriptedModel((_m, call) => `S${call + 1}`);
    const agent = createAgent({
      model,
      tools: [lookup],
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, windowSize: 5, threshold: 12, logger: false })],
    });
    const config = { configurable: { thread_id: "tools" } };
    for (let k = 1; k <= 12; k += 1) await agent.invoke({ messages: [new HumanMessage(`question ${k}`)] }, config);
    expect(summarizer.calls.length).toBeGreaterThanOrEqual(3);
    for (const call of model.calls)
      expect(findOrphans((call.messages as BaseMessage[]).filter((m) => m.getType() !== "system"))).toEqual([]);
    for (const call of summarizer.calls) {
      const lines = messageText(call.messages[1] as BaseMessage).split("\n");
      const calls = lines.filter((l) => l.startsWith("Assistant called lookup")).length;
      const results = lines.filter((l) => l.startsWith("Tool lookup:")).length;
      expect(results).toBe(calls);
    }
    const state = await agent.graph.getState(config);
    expect(state.values.messages).toHaveLength(48);
    const summary = readSummarySlot(state.values).summary;
    const at = (state.values.messages as BaseMessage[]).findIndex((m) => m.id === summary?.coveredThroughId);
    expect(at + 1).toBe(summary?.coveredCount);
    // The boundary sits between groups: never between a tool call and its result.
    expect((state.values.messages as BaseMessage[])[at + 1]?.getType()).not.toBe("tool");
    expect(findOrphans((state.values.messages as BaseMessage[]).slice(0, at + 1))).toEqual([]);
  });

  it("bounds the summarizer input when one stored message is huge, keeping the previous summary", async () => {
    const summarizer = scriptedModel((_m, call) => `SUMMARY-${call + 1}`);
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, windowSize: 2, threshold: 4, maxInputTokens: 600, logger: false })],
    });
    const config = { configurable: { thread_id: "huge" } };
    const texts = ["hello", "y".repeat(30_000), "third", "fourth", "fifth", "sixth"];
    for (const text of texts) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    const second = summarizer.calls.find((c) => messageText(c.messages[1] as BaseMessage).includes("yyyy"));
    const input = messageText(second?.messages[1] as BaseMessage);
    expect(input.length).toBeLessThan(5_000);
    expect(input).toMatch(/\[\.\.\. \d+ characters left out: summarizer input limit\]/);
    const withPrevious = summarizer.calls.filter((c) =>
      messageText(c.messages[1] as BaseMessage).startsWith("<previous_summary>\nSUMMARY-"),
    );
    expect(withPrevious.length).toBe(summarizer.calls.length - 1);
    expect((await agent.graph.getState(config)).values.messages).toHaveLength(12);
  });
});

describe("summarize with structured output", () => {
  it("keeps the agent's structuredResponse on the calls where it writes the summary slot", async () => {
    const answer = z.object({ reply: z.string() }).meta({ title: "Answer", description: "The answer." });
    let turn = 0;
    const model = scriptedModel(() => {
      turn += 1;
      return new AIMessage({
        content: "",
        tool_calls: [{ id: `s${turn}`, name: "Answer", args: { reply: `r${turn}` }, type: "tool_call" }],
      });
    });
    const summarizer = scriptedModel((_m, call) => `S${call + 1}`);
    const agent = createAgent({
      model,
      responseFormat: answer,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, windowSize: 2, threshold: 6, structuredResponse: true, logger: false })],
    });
    const config = { configurable: { thread_id: "structured" } };
    const replies: unknown[] = [];
    for (let k = 1; k <= 5; k += 1) {
      const result = await agent.invoke({ messages: [new HumanMessage(`q${k}`)] }, config);
      replies.push((result as { structuredResponse?: { reply: string } }).structuredResponse?.reply);
    }
    // Turn 1 writes the marker, turn 3 the first summary: both must keep the structured response.
    expect(replies).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    expect(summarizer.calls.length).toBeGreaterThanOrEqual(1);
    const slot = readSummarySlot((await agent.graph.getState(config)).values);
    expect(slot.summary?.text).toBe(`S${summarizer.calls.length}`);
  });
});

describe("summarize with structured output, interrupted before its afterModel (R37, issue 21)", () => {
  // The update of a structured-response call waits for summarize's afterModel. It was kept per
  // thread id in process memory: a review that interrupted the run before that afterModel left it
  // there, and the resumed run (or any later afterModel of the thread) wrote it in this process,
  // where a process that never made it writes nothing.
  it("a resumed run writes what a process that never made the update writes: nothing; the summary is made again later", async () => {
    const answer = z.object({ reply: z.string() }).meta({ title: "Answer", description: "The answer." });
    let turn = 0;
    const model = scriptedModel(() => {
      turn += 1;
      return new AIMessage({
        content: "",
        tool_calls: [{ id: `s${turn}`, name: "Answer", args: { reply: `r${turn}` }, type: "tool_call" }],
      });
    });
    const summarizer = scriptedModel((_m, call) => `S${call + 1}`);
    const checkpointer = new MemorySaver();
    let pauseAt = 0;
    const review = createMiddleware({
      name: "test/review",
      afterModel: () => {
        if (turn === pauseAt) interrupt("review the answer");
        return undefined;
      },
    });
    const agent = createAgent({
      model,
      responseFormat: answer,
      checkpointer,
      // review's afterModel runs before summarize's (afterModel hooks run last to first).
      middleware: [summarize({ model: summarizer, windowSize: 2, threshold: 6, structuredResponse: true, logger: false }), review],
    });
    const config = { configurable: { thread_id: "structured-interrupt" } };
    const slot = async () => readSummarySlot((await agent.graph.getState(config)).values).summary;
    for (let k = 1; k <= 2; k += 1) await agent.invoke({ messages: [new HumanMessage(`q${k}`)] }, config);
    // Turn 3 makes the first summary; the review interrupts before summarize's afterModel.
    pauseAt = 3;
    await agent.invoke({ messages: [new HumanMessage("q3")] }, config);
    expect(summarizer.calls).toHaveLength(1);
    const atInterrupt = await slot();
    expect(atInterrupt?.text).toBe("");
    await agent.invoke(new Command({ resume: "ok" }), config);
    expect(await slot()).toEqual(atInterrupt);
    // The next call finds the summary still due and makes it from the stored messages.
    await agent.invoke({ messages: [new HumanMessage("q4")] }, config);
    expect((await slot())?.text).toBe("S2");
  });
});

describe("summarize graph footprint (issue 16)", () => {
  it("registers an afterModel hook only with structuredResponse", () => {
    expect(summarize({ logger: false }).afterModel).toBeUndefined();
    expect(summarize({ logger: false }).beforeModel).toBeUndefined();
    expect(summarize({ structuredResponse: true, logger: false }).afterModel).toBeDefined();
  });

  it("keeps the structured response and warns once per thread when structuredResponse is unset", async () => {
    const answer = z.object({ reply: z.string() }).meta({ title: "Answer", description: "The answer." });
    const model = scriptedModel(
      () => new AIMessage({ content: "", tool_calls: [{ id: "s", name: "Answer", args: { reply: "r" }, type: "tool_call" }] }),
    );
    const warnings: string[] = [];
    const agent = createAgent({
      model,
      responseFormat: answer,
      checkpointer: new MemorySaver(),
      middleware: [
        summarize({
          model: scriptedModel(() => "S"),
          windowSize: 2,
          threshold: 6,
          logger: { info: () => {}, warn: (m: string) => warnings.push(m) },
        }),
      ],
    });
    for (let k = 1; k <= 4; k += 1) {
      const result = await agent.invoke({ messages: [new HumanMessage(`q${k}`)] }, { configurable: { thread_id: "unset" } });
      expect((result as { structuredResponse?: { reply: string } }).structuredResponse?.reply).toBe("r");
    }
    expect(warnings).toEqual(["summarize: could not attach the summary to a structured response; pass `structuredResponse: true`"]);
  });
});
