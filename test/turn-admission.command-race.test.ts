/**
 * A `Command` turn refused for any reason stores nothing, and an operation is stored once however
 * its sends meet (spec R38). LangGraph stores a `Command`'s update, goto or resume as writes of no
 * task on the checkpoint the run starts from, before the run's first checkpoint (the one the
 * thread's checks admit or refuse), and under `async` durability a `DeltaChannel` makes that
 * checkpoint's put wait for those writes. Was (left by session 50):
 * - two sends of one `configurable.operation_id` at once (two replicas retrying) both passed the
 *   writes' check before either's first checkpoint was stored: both stored their writes, the loser
 *   was refused at its checkpoint and its user message stayed pending where both started;
 * - a `Command` turn refused `turn-in-progress` left its writes on the checkpoint it started from:
 *   `getState` there, and a fork from there, applied them;
 * - a resume interrupted again before its first checkpoint stored no operation id: its retry ran
 *   the tool again and stored its answer twice;
 * - under `durability: "exit"` a run stopped by its caller stored its last checkpoint with the
 *   turn lease, held until it lapsed: the next turn was refused `turn-in-progress`.
 * On each backend, in one process and two (SQLite and PostgreSQL share the registry).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command, interrupt } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, ThreadwiseConcurrentTurnError, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { BACKENDS, type Backend, backendStorage } from "./support/threadwise-savers.js";

const storage = backendStorage("cmdrace");

/** The step timeout of the stopped turn: long enough for its steps before the tool on a loaded machine; the tool outlasts any. */
const STEP_TIMEOUT_MS = 1000;

/** Savers opened by a test, closed after it (a PostgreSQL pool holds connections). */
const opened: ThreadwiseSaver[] = [];
afterEach(async () => {
  for (const saver of opened.splice(0)) await saver.close();
});

/** A gate a tool waits at until the test opens it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  let reached!: () => void;
  const arrived = new Promise<void>((resolve) => {
    reached = resolve;
  });
  return { open, opened, reached, arrived };
}

/**
 * An agent on the stack: its model calls `slow` when told "SLOW", `ask` when told "ASK", else
 * answers; `slow` waits at `slowGate`; `ask` asks the user twice (`interrupt`). `counter` counts
 * model calls and `ask` runs.
 */
function agentOn(backend: Backend, slowGate = gate()) {
  const stack = memoryStack({ ...storage(backend), windowSize: 6, summarize: false, recallMaxTokens: false, logger: false, env: {} });
  if (stack.checkpointer) opened.push(stack.checkpointer);
  const counter = { calls: 0, asks: 0 };
  const slow = tool(
    async () => {
      slowGate.reached();
      await slowGate.opened;
      return "slow done";
    },
    { name: "slow", description: "Takes a while.", schema: z.object({}) },
  );
  const ask = tool(
    async () => {
      counter.asks += 1;
      const first = interrupt("first?");
      const second = interrupt("second?");
      return `asked: ${String(first)} ${String(second)}`;
    },
    { name: "ask", description: "Asks the user twice.", schema: z.object({}) },
  );
  const model = scriptedModel((messages, call) => {
    counter.calls += 1;
    const last = messageText(messages.at(-1) as BaseMessage);
    const name = last === "SLOW" ? "slow" : last === "ASK" ? "ask" : undefined;
    if (name) return new AIMessage({ content: "", tool_calls: [{ id: `call_${call}`, name, args: {}, type: "tool_call" }] });
    return `answer ${counter.calls}`;
  });
  const agent = createAgent({ model, tools: [slow, ask], checkpointer: stack.checkpointer, middleware: stack.middleware });
  return { agent, counter, saver: stack.checkpointer as ThreadwiseSaver, slowGate };
}

type Agent = ReturnType<typeof agentOn>["agent"];

const texts = async (agent: Agent, thread: string, checkpointId?: string) =>
  (
    (await agent.graph.getState({ configurable: { thread_id: thread, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } }))
      .values as { messages: BaseMessage[] }
  ).messages.map((m) => `${m.getType()}:${messageText(m)}`);

/** Every pending write stored on the thread (root namespace), as `channel` and the text of its messages. */
async function storedWrites(saver: ThreadwiseSaver, thread: string): Promise<string[]> {
  const found: string[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: thread, checkpoint_ns: "" } }))
    for (const [, channel, value] of tuple.pendingWrites ?? [])
      if (channel === "messages")
        for (const message of Array.isArray(value) ? value : [value]) found.push(`${channel}:${messageText(message as BaseMessage)}`);
  return found;
}

const settle = (run: Promise<unknown>) =>
  run.then(
    () => undefined,
    (error: unknown) => error ?? new Error("rejected"),
  );

/** LangGraph's id of writes of no task (a `Command`'s update, goto and resume). */
const NULL_TASK_ID = "00000000-0000-0000-0000-000000000000";

/** Which send a saver or registry call serves (the tag of its `Command`'s message), across awaits. */
const sendOf = new AsyncLocalStorage<"a" | "b">();

/** The send whose message (`book it (a)` or `book it (b)`) `value` holds, if any. */
function tagIn(value: unknown): "a" | "b" | undefined {
  const text = JSON.stringify(value) ?? "";
  return text.includes("book it (a)") ? "a" : text.includes("book it (b)") ? "b" : undefined;
}

/**
 * Makes send `a` and send `b` of one operation meet as two replicas' retries can, in this order:
 * b's `Command` writes are handled (stored, checked or held), then a's, then a's first checkpoint
 * commits, then b's is tried. So both pass any check of those writes before either's first
 * checkpoint is stored, and b's writes, if stored, come first (LangGraph's savers keep the first
 * write of a task's slot: a's would not replace them).
 */
function meetAtOnce(savers: readonly ThreadwiseSaver[]): void {
  const signal = () => {
    let done!: () => void;
    const promise = new Promise<void>((resolve) => {
      done = resolve;
    });
    return { promise, done };
  };
  const aWrites = signal();
  const bWrites = signal();
  const aCommit = signal();
  for (const saver of new Set(savers)) {
    const putWrites = saver.putWrites.bind(saver);
    saver.putWrites = (config, writes, taskId, taskPath) => {
      const tag = taskId === NULL_TASK_ID ? tagIn(writes) : undefined;
      return tag ? sendOf.run(tag, () => putWrites(config, writes, taskId, taskPath)) : putWrites(config, writes, taskId, taskPath);
    };
    const put = saver.put.bind(saver);
    saver.put = (config, checkpoint, metadata, versions) => {
      const tag = metadata?.source === "input" ? tagIn(checkpoint.channel_values?.messages) : undefined;
      return tag ? sendOf.run(tag, () => put(config, checkpoint, metadata, versions)) : put(config, checkpoint, metadata, versions);
    };
    const { registry } = saver;
    const commitWrites = registry.commitWrites.bind(registry);
    registry.commitWrites = async (threadId, target, write) => {
      const tag = sendOf.getStore();
      if (tag === "a") await bWrites.promise;
      try {
        return await commitWrites(threadId, target, write);
      } finally {
        (tag === "a" ? aWrites : tag === "b" ? bWrites : undefined)?.done();
      }
    };
    const commitCheckpoint = registry.commitCheckpoint.bind(registry);
    registry.commitCheckpoint = async (threadId, checkpoint, write) => {
      const tag = checkpoint.operationId === undefined ? undefined : sendOf.getStore();
      if (tag === "a") await aWrites.promise;
      if (tag === "b") await aCommit.promise;
      try {
        return await commitCheckpoint(threadId, checkpoint, write);
      } finally {
        if (tag === "a") aCommit.done();
      }
    };
  }
}

const updateAndGoto = () => new Command({ update: { messages: [new HumanMessage("book it")] }, goto: "model_request" });

describe.each(BACKENDS)("a Command turn refused stores nothing (%s)", (backend) => {
  for (const processes of backend === "in_memory" ? [1] : [1, 2])
    for (const way of ["Command({ update, goto })", "Command({ update })"] as const)
      it(`two sends of one operation at once, ${way}, ${processes} process(es): one is stored, the other refused with nothing stored`, async () => {
        const a = agentOn(backend);
        const b = processes === 1 ? a : agentOn(backend);
        const thread = `t-${randomUUID()}`;
        await a.agent.invoke({ messages: [new HumanMessage("hello")] }, { configurable: { thread_id: thread } });
        const before = await texts(a.agent, thread);
        const calls = a.counter.calls + (b === a ? 0 : b.counter.calls);
        const config = { configurable: { thread_id: thread, operation_id: "req-1" } };
        meetAtOnce([a.saver, b.saver]);
        const command = (tag: "a" | "b") => {
          const update = { messages: [new HumanMessage(`book it (${tag})`)] };
          return way === "Command({ update })" ? new Command({ update }) : new Command({ update, goto: "model_request" });
        };
        const errors = await Promise.all([
          settle(a.agent.invoke(command("a") as never, config)),
          settle(b.agent.invoke(command("b") as never, config)),
        ]);
        const refused = errors.filter((error) => error !== undefined);
        expect(refused).toHaveLength(1);
        expect(["duplicate-operation", "turn-in-progress", "stale-parent"]).toContain(
          ThreadwiseConcurrentTurnError.find(refused[0])?.reason,
        );
        const modelCalls = a.counter.calls + (b === a ? 0 : b.counter.calls) - calls;
        expect(modelCalls).toBe(way === "Command({ update })" ? 0 : 1);
        const after = await texts(a.agent, thread);
        expect(after.slice(0, before.length)).toEqual(before);
        const booked = after.filter((text) => text.startsWith("human:book it"));
        expect(booked).toHaveLength(1);
        // Nothing of the refused send is pending anywhere: the one "book it" write is the stored one's.
        expect((await storedWrites(a.saver, thread)).filter((text) => text.startsWith("messages:book it"))).toEqual([
          `messages:${(booked[0] as string).slice("human:".length)}`,
        ]);
        await a.agent.invoke({ messages: [new HumanMessage("next")] }, { configurable: { thread_id: thread } });
        const next = await texts(a.agent, thread);
        expect(next.filter((text) => text.startsWith("human:book it"))).toEqual(booked);
        expect(next.slice(-2)).toEqual(["human:next", expect.stringMatching(/^ai:answer/)]);
      });

  for (const processes of backend === "in_memory" ? [1] : [1, 2])
    it(`a Command turn refused turn-in-progress leaves no write on the checkpoint it started from, ${processes} process(es)`, async () => {
      const a = agentOn(backend);
      const b = processes === 1 ? a : agentOn(backend);
      const thread = `t-${randomUUID()}`;
      const config = { configurable: { thread_id: thread } };
      await a.agent.invoke({ messages: [new HumanMessage("hello")] }, config);
      const running = a.agent.invoke({ messages: [new HumanMessage("SLOW")] }, config);
      await a.slowGate.arrived;
      const startedAt = (await b.agent.graph.getState(config)).config.configurable?.checkpoint_id as string;
      const calls = b.counter.calls;
      const error = await settle(b.agent.invoke(updateAndGoto() as never, config));
      expect(ThreadwiseConcurrentTurnError.find(error)?.reason).toBe("turn-in-progress");
      expect(b.counter.calls).toBe(calls);
      a.slowGate.open();
      await running;
      expect(await storedWrites(a.saver, thread)).not.toContain("messages:book it");
      expect(await texts(a.agent, thread, startedAt)).not.toContain("human:book it");
      expect(await texts(a.agent, thread)).not.toContain("human:book it");
    });

  for (const processes of backend === "in_memory" ? [1] : [1, 2])
    it(`a resume interrupted again before its first checkpoint stores its operation: its retry is refused, ${processes} process(es)`, async () => {
      const a = agentOn(backend);
      const b = processes === 1 ? a : agentOn(backend);
      const thread = `t-${randomUUID()}`;
      await a.agent.invoke({ messages: [new HumanMessage("ASK")] }, { configurable: { thread_id: thread } });
      const config = { configurable: { thread_id: thread, operation_id: "req-1" } };
      const first = await a.agent.invoke(new Command({ resume: "yes" }) as never, config);
      expect((first as { __interrupt__?: Array<{ value: unknown }> }).__interrupt__?.map((i) => i.value)).toEqual(["second?"]);
      const asks = a.counter.asks + (b === a ? 0 : b.counter.asks);
      const pending = await storedWrites(a.saver, thread);
      const error = await settle(b.agent.invoke(new Command({ resume: "yes" }) as never, config));
      expect({
        reason: ThreadwiseConcurrentTurnError.find(error)?.reason,
        operationId: ThreadwiseConcurrentTurnError.find(error)?.operationId,
      }).toEqual({
        reason: "duplicate-operation",
        operationId: "req-1",
      });
      expect(a.counter.asks + (b === a ? 0 : b.counter.asks)).toBe(asks);
      expect(await storedWrites(a.saver, thread)).toEqual(pending);
      // The second question is still the one waiting; answering it (a new operation) finishes the turn.
      const done = await a.agent.invoke(new Command({ resume: "sure" }) as never, {
        configurable: { thread_id: thread, operation_id: "req-2" },
      });
      expect(messageText((done as { messages: BaseMessage[] }).messages.at(-2) as BaseMessage)).toBe("asked: yes sure");
    });

  for (const how of ["signal", "step-timeout"] as const)
    it(`a run stopped by ${how === "signal" ? "its caller" : "its step timeout"} under durability exit ends its turn lease: the next turn is admitted at once`, async () => {
      const a = agentOn(backend);
      const thread = `t-${randomUUID()}`;
      const config = { configurable: { thread_id: thread }, durability: "exit" as const };
      await a.agent.invoke({ messages: [new HumanMessage("hello")] }, config);
      const controller = new AbortController();
      // LangGraph's own step timeout: the tool waits at its gate until the test opens it, so the step times out whatever the machine's speed.
      if (how === "step-timeout") a.agent.graph.stepTimeout = STEP_TIMEOUT_MS;
      const stopped = settle(
        a.agent.invoke({ messages: [new HumanMessage("SLOW")] }, how === "signal" ? { ...config, signal: controller.signal } : config),
      );
      await a.slowGate.arrived;
      if (how === "signal") controller.abort();
      expect(String(await stopped)).toMatch(/abort/i);
      a.agent.graph.stepTimeout = undefined;
      a.slowGate.open();
      const out = await a.agent.invoke({ messages: [new HumanMessage("next")] }, config);
      expect(messageText(out.messages.at(-1) as BaseMessage)).toMatch(/^answer/);
    });
});
