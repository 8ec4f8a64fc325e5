/**
 * A run stopped by its caller (an `AbortSignal` passed to `invoke`, or a client leaving a `stream`
 * early), or by LangGraph's step timeout (`graph.stepTimeout`), writes nothing more: LangGraph's runner rejects with `Abort` and stores no error write, so
 * the turn lease the run held was left to lapse (`turnLeaseMs`, 10 s by default) and the user's
 * next message was refused `turn-in-progress` ("retry in about 100 ms") the whole time. A chat UI's
 * stop button followed by a new message is the common case. Through a real `createAgent` +
 * `memoryStack` on in_memory and SQLite, with the strict provider validator on the agent's model;
 * the oracle is the same agent on a plain MemorySaver without the stack (LangGraph runs the
 * interrupted tool call again in the next turn, with or without the stack).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";

const dir = mkdtempSync(join(tmpdir(), "threadwise-turn-abort-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The step timeout of the slow turn: long enough for its steps before the tool on a loaded machine; the tool outlasts any. */
const STEP_TIMEOUT_MS = 1000;
const lastOf = (messages: BaseMessage[]) => messages.at(-1) as BaseMessage;
type Lane = "plain" | "in_memory" | "sqlite";

/**
 * The agent of `lane` with a `slow` tool: its first call runs `first` (which stops the run) and
 * waits until the test ends; later calls answer at once.
 */
function agentOn(lane: Lane, file: string, first: () => void, done: Promise<void>) {
  let calls = 0;
  const slow = tool(
    async () => {
      calls += 1;
      if (calls > 1) return "quick result";
      first();
      // The tool goes on after the abort (JavaScript cannot stop it); its result is never stored.
      await done;
      return "late result";
    },
    { name: "slow", description: "Takes a while.", schema: z.object({}) },
  );
  // Without the stack LangGraph sends the aborted turn's unanswered call (a provider refuses it):
  // recorded there, so the plain agent's thread can still be compared.
  const model = strictModel({
    onViolation: lane === "plain" ? "record" : "throw",
    answer: (messages) => {
      const last = lastOf(messages);
      if (last.getType() === "tool") return `after tool: ${messageText(last)}`;
      // The stack merges a run of user messages into one (blank line between): read the newest part.
      if (messageText(last).split("\n\n").at(-1)?.startsWith("SLOW"))
        return new AIMessage({ content: "", tool_calls: [{ id: "call_slow", name: "slow", args: {}, type: "tool_call" }] });
      return `ok: ${messageText(last).split("\n\n").at(-1)}`;
    },
  });
  if (lane === "plain") return { agent: createAgent({ model, tools: [slow], checkpointer: new MemorySaver() }), model };
  const stack = memoryStack({
    backend: lane,
    ...(lane === "sqlite" ? { sqlitePath: join(dir, `${lane}-${file}`) } : {}),
    windowSize: 6,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  return { agent: createAgent({ model, tools: [slow], checkpointer: stack.checkpointer, middleware: stack.middleware }), model };
}

/** What a user sees: the first turn's outcome, the next turn's outcome and answer, the stored thread. */
async function stopThenAsk(lane: Lane, how: "signal" | "leave-stream" | "step-timeout") {
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  let started!: () => void;
  const toolStarted = new Promise<void>((resolve) => {
    started = resolve;
  });
  const controller = new AbortController();
  const { agent, model } = agentOn(lane, `${how}.sqlite`, how === "signal" ? () => controller.abort() : started, done);
  const config = { configurable: { thread_id: `${how}-${lane}` } };
  const outcome = { first: "ok", next: "ok", answer: "", stored: [] as string[] };
  try {
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    if (how === "signal") {
      await agent.invoke({ messages: [new HumanMessage("SLOW please")] }, { ...config, signal: controller.signal }).catch((error) => {
        outcome.first = /abort/i.test(String(error)) ? "aborted" : String(error);
      });
    } else if (how === "step-timeout") {
      // LangGraph's own step timeout (each step's `AbortSignal.timeout`): the tool outlasts it (it
      // waits until the test ends), so the step times out whatever the machine's speed.
      agent.graph.stepTimeout = STEP_TIMEOUT_MS;
      await agent.invoke({ messages: [new HumanMessage("SLOW please")] }, config).catch((error) => {
        outcome.first = /abort/i.test(String(error)) ? "aborted" : String(error);
      });
      agent.graph.stepTimeout = undefined;
    } else {
      const stream = await agent.stream({ messages: [new HumanMessage("SLOW please")] }, { ...config, streamMode: "updates" });
      for await (const _chunk of stream) {
        await toolStarted;
        break;
      }
      outcome.first = "left";
    }
    try {
      const out = await agent.invoke({ messages: [new HumanMessage("never mind")] }, config);
      outcome.answer = messageText(lastOf(out.messages));
    } catch (error) {
      outcome.next = String(error).slice(0, 60);
    }
  } finally {
    release();
  }
  const state = await agent.graph.getState(config);
  outcome.stored = (state.values as { messages: BaseMessage[] }).messages.map((m) => `${m.getType()}:${messageText(m)}`);
  if (lane !== "plain") expect(model.providerLog.rejections).toBe(0);
  return outcome;
}

describe.each(["in_memory", "sqlite"] as const)("%s: a run stopped by its caller", (lane) => {
  it("an abort signal during a tool: the next turn is admitted at once and goes as without the stack", async () => {
    const expected = await stopThenAsk("plain", "signal");
    expect(expected).toMatchObject({ first: "aborted", next: "ok" });
    expect(await stopThenAsk(lane, "signal")).toEqual(expected);
  });

  it("a step timeout during a tool (agent.graph.stepTimeout): the next turn is admitted at once and goes as without the stack", async () => {
    const expected = await stopThenAsk("plain", "step-timeout");
    expect(expected).toMatchObject({ first: "aborted", next: "ok" });
    expect(await stopThenAsk(lane, "step-timeout")).toEqual(expected);
  });

  it("a client leaving a stream during a tool: the next turn is admitted at once and goes as without the stack", async () => {
    const expected = await stopThenAsk("plain", "leave-stream");
    expect(expected).toMatchObject({ first: "left", next: "ok" });
    expect(await stopThenAsk(lane, "leave-stream")).toEqual(expected);
  });
});

/**
 * Two tools in one step, `quick` and `slow`, with a step timeout: `quick` finishes first, so
 * LangGraph's runner does not reject the run with `Abort` when the timeout fires (the saver must
 * not end the turn for it); `slow`'s task fails with the timeout (LangChain races a runnable's
 * call with its abort signal), and LangGraph stores that error, which ends the turn. Returns how
 * the run ended and what the thread's next turn meets.
 */
async function timeoutAfterQuickTool(lane: "in_memory" | "sqlite") {
  const config = { configurable: { thread_id: `after-quick-${lane}` } };
  const quick = tool(async () => "quick result", { name: "quick", description: "Quick.", schema: z.object({}) });
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  // Outlasts any step timeout: waits until the test is done.
  const slow = tool(
    async () => {
      await done;
      return "slow result";
    },
    { name: "slow", description: "Slow.", schema: z.object({}) },
  );
  const model = strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (last.getType() === "tool") return `after tools: ${messageText(last)}`;
      if (messageText(last).split("\n\n").at(-1)?.startsWith("PAIR"))
        return new AIMessage({
          content: "",
          tool_calls: [
            { id: "call_quick", name: "quick", args: {}, type: "tool_call" },
            { id: "call_slow", name: "slow", args: {}, type: "tool_call" },
          ],
        });
      return `ok: ${messageText(last).split("\n\n").at(-1)}`;
    },
  });
  const stack = memoryStack({
    backend: lane,
    ...(lane === "sqlite" ? { sqlitePath: join(dir, `${lane}-go-on.sqlite`) } : {}),
    windowSize: 6,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const agent = createAgent({ model, tools: [quick, slow], checkpointer: stack.checkpointer, middleware: stack.middleware });
  const outcome = (text: string) =>
    agent.invoke({ messages: [new HumanMessage(text)] }, config).then(
      () => "ok",
      (error: unknown) => (error as Error).name,
    );
  try {
    agent.graph.stepTimeout = STEP_TIMEOUT_MS;
    const run = await outcome("PAIR please");
    agent.graph.stepTimeout = undefined;
    return { run, next: await outcome("next") };
  } finally {
    release();
  }
}

describe.each(["in_memory", "sqlite"] as const)("%s: a step timeout after a task of the step finished", (lane) => {
  it("the run fails with the timeout and its error ends the turn: the next turn is admitted at once", async () => {
    expect(await timeoutAfterQuickTool(lane)).toEqual({ run: "TimeoutError", next: "ok" });
  });
});
