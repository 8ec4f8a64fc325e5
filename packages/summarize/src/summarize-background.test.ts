/**
 * `summarize({ background: true })`: the summarizer runs after the answer of a due call, and the
 * next model call adopts the summary (spec R36 with R10-R13 kept).
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import { messageText, readSummarySlot, type ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { summarize } from "./summarize.js";

/** A summarizer whose answers wait until `release()`; records the order of events. */
function gatedSummarizer(events: string[]) {
  let open: () => void = () => {};
  let gate = new Promise<void>((resolve) => {
    open = resolve;
  });
  let calls = 0;
  const model = {
    invoke: async () => {
      calls += 1;
      const n = calls;
      events.push(`summarizer ${n} called`);
      await gate;
      events.push(`summarizer ${n} answered`);
      return new AIMessage(`S${n}`);
    },
  };
  return {
    model,
    calls: () => calls,
    release: () => {
      open();
      gate = new Promise<void>((resolve) => {
        open = resolve;
      });
    },
  };
}

function agentModel(events: string[]) {
  return scriptedModel((messages) => {
    const last = [...messages].reverse().find((m) => m.getType() === "human" && !String(m.id ?? "").startsWith("tw-context-"));
    events.push(`model answered ${String(last?.id)}`);
    return `a${String(last?.id ?? "?").slice(1)}`;
  });
}

const turn = (k: number) => ({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] });
const conversation = (messages: BaseMessage[]) => messages.filter((m) => m.getType() !== "system");
/** The thread's summary slot as checkpointed (private state is not in `invoke`'s output). */
async function slotOf(agent: unknown, config: unknown) {
  const state = await (agent as { getState(c: unknown): Promise<{ values: unknown }> }).getState(config);
  return readSummarySlot(state.values);
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("summarize({ background: true })", () => {
  it("answers a due call without waiting; the next call adopts the summary and moves the window with it", async () => {
    const events: string[] = [];
    const summarizer = gatedSummarizer(events);
    const model = agentModel(events);
    const checkpointer = new MemorySaver();
    const agent = createAgent({
      model,
      checkpointer,
      middleware: [summarize({ model: summarizer.model, windowSize: 4, threshold: 8, background: true, startOn: "any", logger: false })],
    });
    const config = { configurable: { thread_id: "bg" } };
    for (let k = 1; k <= 3; k += 1) await agent.invoke(turn(k), config);
    expect(summarizer.calls()).toBe(0);
    // Turn 4: the thread holds 7 messages, one exchange short of 8 -> due in the background. The
    // model answers before the summarizer is even called.
    await agent.invoke(turn(4), config);
    expect(events.slice(-2)).toEqual(["model answered u4", "summarizer 1 called"]);
    const due = model.calls.at(-1)?.messages ?? [];
    // Nothing summarized yet: the view is the whole uncovered thread (7 messages, within threshold 8).
    expect(conversation(due).map((m) => m.id)).toEqual([
      "u1",
      expect.any(String),
      "u2",
      expect.any(String),
      "u3",
      expect.any(String),
      "u4",
    ]);
    expect((await slotOf(agent, config)).summary?.text ?? "").toBe("");
    summarizer.release();
    await tick();
    expect(events.at(-1)).toBe("summarizer 1 answered");
    // Turn 5 adopts S1 and writes it: S1 covers everything before the last exchange of turn 4
    // (u1 .. u3), and the view, cut in the same step, is the 4-message window again.
    await agent.invoke(turn(5), config);
    const next = model.calls.at(-1)?.messages ?? [];
    expect(messageText(next[0] as BaseMessage)).toContain("S1");
    expect(conversation(next).map((m) => m.content)).toEqual(["a3", "u4", "a4", "u5"]);
    expect((await slotOf(agent, config)).summary).toMatchObject({ text: "S1", coveredThroughId: "u3", coveredCount: 5 });
    expect(summarizer.calls()).toBe(1);
  });

  it("keeps nothing it has not adopted: a new process prepares the summary again and loses no message", async () => {
    const events: string[] = [];
    const summarizer = gatedSummarizer(events);
    const checkpointer = new MemorySaver();
    const build = () =>
      createAgent({
        model: agentModel(events),
        checkpointer,
        middleware: [summarize({ model: summarizer.model, windowSize: 4, threshold: 8, background: true, logger: false })],
      });
    const config = { configurable: { thread_id: "crash" } };
    const first = build();
    for (let k = 1; k <= 4; k += 1) await first.invoke(turn(k), config);
    expect(summarizer.calls()).toBe(1);
    // "Crash": the process that prepared S1 is gone before adopting it; a fresh middleware takes over.
    summarizer.release();
    const second = build();
    const state = await second.invoke(turn(5), config);
    expect((await slotOf(second, config)).summary?.text ?? "").toBe("");
    expect(summarizer.calls()).toBe(2);
    // Every message is still in the stored thread and nothing is covered by a summary it never stored.
    expect(
      conversation(state.messages)
        .map((m) => m.id)
        .filter((id) => String(id).startsWith("u")),
    ).toEqual(["u1", "u2", "u3", "u4", "u5"]);
  });

  it("a failed background summary keeps the previous one, logs a warning, and is retried on a later turn", async () => {
    const warnings: string[] = [];
    const logger: ThreadwiseLogger = { info: () => {}, warn: (message) => warnings.push(message) };
    const summarizer = fakeModel().respond(new Error("boom")).respond(new AIMessage("S2"));
    const model = agentModel([]);
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, windowSize: 4, threshold: 8, background: true, logger })],
    });
    const config = { configurable: { thread_id: "fail" } };
    for (let k = 1; k <= 4; k += 1) await agent.invoke(turn(k), config);
    // Turn 4 started the job and recorded it in the slot (a fresh process reads the same).
    expect((await slotOf(agent, config)).summary?.lastAttempt).toEqual({ turnId: "u4", failed: false, viewFromId: null });
    await tick();
    await agent.invoke(turn(5), config);
    // The failure only: the view keeps every message no summary covers, u1 .. u5 (was: only u5,
    // the rest neither summarized nor sent, with the backlog warning).
    expect(warnings).toEqual(["summarize: summarizer failed; keeping the previous summary"]);
    expect(
      conversation(model.calls.at(-1)?.messages ?? [])
        .filter((m) => m.getType() === "human")
        .map((m) => m.id),
    ).toEqual(["u1", "u2", "u3", "u4", "u5"]);
    expect((await slotOf(agent, config)).summary?.text ?? "").toBe("");
    // Turn 6 saw the failure of turn 5's job and started the next attempt after its answer.
    await tick();
    await agent.invoke(turn(6), config);
    expect((await slotOf(agent, config)).summary?.text).toBe("S2");
    expect(summarizer.calls).toHaveLength(2);
  });

  it("over a long thread no view holds more than threshold messages, and view plus summary is always the whole thread", async () => {
    const model = agentModel([]);
    const summarizer = scriptedModel((messages) => {
      // The summary lists the ids it covers, so coverage can be checked against the views.
      const text = messageText(messages.at(-1) as BaseMessage);
      const previous = /<previous_summary>\n([\s\S]*?)\n<\/previous_summary>/.exec(text)?.[1] ?? "";
      const ids = [...text.matchAll(/User: (u\d+)/g)].map((m) => m[1]);
      return [previous, ...ids].filter(Boolean).join(" ");
    });
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, windowSize: 6, threshold: 12, background: true, logger: false })],
    });
    const config = { configurable: { thread_id: "long" } };
    for (let k = 1; k <= 30; k += 1) {
      await agent.invoke(turn(k), config);
      await tick();
    }
    expect(summarizer.calls.length).toBeGreaterThanOrEqual(3);
    for (const [i, call] of model.calls.entries()) {
      const view = conversation(call.messages);
      expect(view.length).toBeLessThanOrEqual(12);
      const summary = call.messages[0]?.getType() === "system" ? messageText(call.messages[0] as BaseMessage) : "";
      const seen = new Set([...summary.matchAll(/\bu(\d+)\b/g)].map((m) => `u${m[1]}`));
      for (const m of view) if (m.getType() === "human") seen.add(String(m.id));
      // Every user message of the thread so far is in the summary or in the view.
      expect([...seen].sort()).toEqual(Array.from({ length: i + 1 }, (_, k) => `u${k + 1}`).sort());
    }
  });
});

describe("summarize({ background: true }) after the thread is edited (R37)", () => {
  // The job was adopted when the thread still held the summary it built on, by coverage alone: a
  // message it summarized, edited in place before the next call, was then covered by a summary of
  // its old text, and the request differed from a fresh process's (which has no job to adopt).
  it("drops a prepared summary whose span was edited in place; the call is what a fresh process sends", async () => {
    const summarizer = {
      invoke: async (messages: BaseMessage[]) => new AIMessage(`summary of: ${messageText(messages.at(-1) as BaseMessage).slice(-40)}`),
    };
    const stack = () => [summarize({ model: summarizer, windowSize: 4, threshold: 8, background: true, startOn: "any", logger: false })];
    const checkpointer = new MemorySaver();
    const model = agentModel([]);
    const agent = createAgent({ model, checkpointer, middleware: stack() });
    const config = { configurable: { thread_id: "bg-edit" } };
    for (let k = 1; k <= 4; k += 1) await agent.invoke(turn(k), config);
    // Turn 4 was due: a summary of u1..a2 (or so) is being prepared; let it settle.
    await tick();
    await tick();
    // The user corrects u1 in place (same id, other text) before the next turn.
    await agent.updateState(config, { messages: [new HumanMessage({ id: "u1", content: "u1 corrected" })] });
    const before = (await checkpointer.getTuple(config))?.config ?? config;
    await agent.invoke(turn(5), config);
    const freshModel = agentModel([]);
    const fresh = createAgent({ model: freshModel, checkpointer, middleware: stack() });
    await fresh.invoke(turn(5), before);
    const sent = (m: typeof model) => {
      const call = m.calls.at(-1)?.messages ?? [];
      return call.map((message) => [message.getType(), message.content]);
    };
    expect(sent(model)).toEqual(sent(freshModel));
    // Nothing covers the old text of u1.
    expect(JSON.stringify(sent(model))).not.toContain("summary of");
    expect((await slotOf(agent, config)).summary?.text ?? "").toBe("");
  });

  // Found by test/stack.edits.test.ts (seed 20261221, case 2 call 8 and call 11, case 25 call 5):
  // a job built on the current summary was adopted after a message that summary covers was edited
  // in place or removed; the adopted summary carried the old text on, where a fresh process finds
  // the coverage changed and makes the summary again from the stored messages.
  it("drops a prepared summary whose base covers a message edited since; the call is what a fresh process sends", async () => {
    let summarized = 0;
    const summarizer = {
      invoke: async (messages: BaseMessage[]) => {
        summarized += 1;
        return new AIMessage(`summary ${summarized} of: ${messageText(messages.at(-1) as BaseMessage).slice(-60)}`);
      },
    };
    const stack = () => [summarize({ model: summarizer, windowSize: 4, threshold: 8, background: true, startOn: "any", logger: false })];
    const checkpointer = new MemorySaver();
    const model = agentModel([]);
    const agent = createAgent({ model, checkpointer, middleware: stack() });
    const config = { configurable: { thread_id: "bg-base-edit" } };
    const step = async (k: number) => {
      await agent.invoke(turn(k), config);
      await tick();
      await tick();
    };
    // Turns until a first summary (covering u1) is adopted, then until the next job has run on top of it.
    let k = 1;
    while ((await slotOf(agent, config)).summary?.coveredCount === undefined || (await slotOf(agent, config)).summary?.text === "")
      await step(k++);
    const base = (await slotOf(agent, config)).summary;
    const before = summarized;
    while (summarized === before) await step(k++);
    // The slot holds the same summary, and the job started on top of it (`lastAttempt`).
    const held = (await slotOf(agent, config)).summary;
    expect(held?.lastAttempt?.failed).toBe(false);
    expect({ ...held, lastAttempt: undefined }).toEqual(base);
    // The user corrects u1, which the stored summary covers, before the turn that would adopt the job.
    await agent.updateState(config, { messages: [new HumanMessage({ id: "u1", content: "u1 corrected" })] });
    const at = (await checkpointer.getTuple(config))?.config ?? config;
    await agent.invoke(turn(k), config);
    const freshModel = agentModel([]);
    const fresh = createAgent({ model: freshModel, checkpointer, middleware: stack() });
    await fresh.invoke(turn(k), at);
    const sent = (m: typeof model) => (m.calls.at(-1)?.messages ?? []).map((message) => [message.getType(), message.content]);
    expect(sent(model)).toEqual(sent(freshModel));
    expect(JSON.stringify(sent(model))).not.toContain(`summary ${summarized} of`);
  });
});
