/**
 * A turn retried with the same `configurable.operation_id` is refused `duplicate-operation` (spec
 * R38), and the refusal says "nothing was stored": that must hold for every way a turn is sent.
 * A turn sent as input stores nothing before its first checkpoint, the one refused. A turn sent as
 * a `Command` (`{ update }`, `{ update, goto: "model_request" }`, `{ resume, update }`) is
 * different: LangGraph stores the Command's writes as writes of its null task pending on the
 * thread's head before the run's first checkpoint. Was (breaker29): those writes stayed on the
 * head, `getState` applied them and the next turn carried the refused turn's user message a
 * second time; a retried `Command({ resume, update })` was not refused at all (a resumed run's
 * operation id was never stored) and stored its message again. Now the registry refuses such
 * writes under the thread's lock when another run stored the operation, and a resumed run's first
 * checkpoint stores its operation id. On each backend, one process and two (SQLite and PostgreSQL
 * share the registry), under LangGraph's `async` and `sync` durability (a Command's writes reach
 * the saver before or after the run's first checkpoint) and `exit` (the run's one checkpoint is
 * stored as it ends, from its last step: was never refused, as only a run start stored its
 * operation id, so a retried turn, input included, was stored twice).
 */
import { randomUUID } from "node:crypto";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, ThreadwiseConcurrentTurnError, type ThreadwiseSaver } from "@threadwise/memory";
import { type AgentMiddleware, createAgent, humanInTheLoopMiddleware, tool } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { BACKENDS, type Backend, backendStorage } from "./support/threadwise-savers.js";

const storage = backendStorage("cmdop");

const book = tool(async () => "booked", { name: "book", description: "Books the seat.", schema: z.object({}) });

/** Savers opened by a test, closed after it (a PostgreSQL pool holds connections). */
const opened: ThreadwiseSaver[] = [];
afterEach(async () => {
  for (const saver of opened.splice(0)) await saver.close();
});

/** An agent on the stack whose model asks to `book` (reviewed by a human: an interrupt) when told "please book"; `calls` counts its model calls. */
function agentOn(backend: Backend) {
  const stack = memoryStack({
    ...storage(backend),
    windowSize: 4,
    summarize: false,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  if (stack.checkpointer) opened.push(stack.checkpointer);
  const counter = { calls: 0 };
  const model = scriptedModel((messages, call) => {
    counter.calls += 1;
    if (messageText(messages.at(-1) as BaseMessage) === "please book")
      return new AIMessage({ content: "", tool_calls: [{ id: `call_${call}`, name: "book", args: {}, type: "tool_call" }] });
    return `answer ${counter.calls}`;
  });
  const review: AgentMiddleware[] = [humanInTheLoopMiddleware({ interruptOn: { book: true } })];
  const agent = createAgent({ model, tools: [book], checkpointer: stack.checkpointer, middleware: [...stack.middleware, ...review] });
  return { agent, counter };
}

type Agent = ReturnType<typeof agentOn>["agent"];

const WAYS = ["input", "Command({ update })", 'Command({ update, goto: "model_request" })', "Command({ resume, update })"] as const;
type Way = (typeof WAYS)[number];
type Durability = "async" | "sync" | "exit";

/** Sends the turn "book it" the way `way` says. */
function send(agent: Agent, way: Way, config: object) {
  const update = { messages: [new HumanMessage("book it")] };
  if (way === "input") return agent.invoke(update, config);
  const command =
    way === "Command({ update })"
      ? new Command({ update })
      : way === "Command({ resume, update })"
        ? new Command({ resume: { decisions: [{ type: "approve" }] }, update })
        : new Command({ update, goto: "model_request" });
  return agent.invoke(command as never, config);
}

const texts = async (agent: Agent, thread: string) =>
  ((await agent.graph.getState({ configurable: { thread_id: thread } })).values as { messages: BaseMessage[] }).messages.map(
    (m) => `${m.getType()}:${messageText(m)}`,
  );

/**
 * A first turn (a question answered; for a resume, a booking stopped for review), the turn `way`
 * sent with operation id `req-1` by `first`, sent again by `retry` (the same agent, or another
 * process's on the same store), then a next turn on `first`.
 */
async function retried(first: ReturnType<typeof agentOn>, retry: ReturnType<typeof agentOn>, way: Way, durability: Durability) {
  const thread = `t-${randomUUID()}`;
  const opening = way === "Command({ resume, update })" ? "please book" : "first";
  await first.agent.invoke({ messages: [new HumanMessage(opening)] }, { configurable: { thread_id: thread }, durability });
  const config = { configurable: { thread_id: thread, operation_id: "req-1" }, durability };
  await send(first.agent, way, config);
  const stored = await texts(first.agent, thread);
  const callsBefore = retry.counter.calls;
  const error = await send(retry.agent, way, config).then(
    () => undefined,
    (e: unknown) => e,
  );
  const retryCalls = retry.counter.calls - callsBefore;
  const afterRetry = { first: await texts(first.agent, thread), retry: await texts(retry.agent, thread) };
  await first.agent.invoke({ messages: [new HumanMessage("next")] }, { configurable: { thread_id: thread }, durability });
  return { stored, error, retryCalls, afterRetry, next: await texts(first.agent, thread) };
}

function expectNothingStored(outcome: Awaited<ReturnType<typeof retried>>, way: Way, durability: Durability) {
  // The first run stored its turn once.
  expect(outcome.stored.filter((text) => text === "human:book it")).toHaveLength(1);
  if (way !== "Command({ update })") expect(outcome.stored.at(-1)).toMatch(/^ai:answer/);
  const error = ThreadwiseConcurrentTurnError.find(outcome.error);
  expect({ reason: error?.reason, retryable: error?.retryable, operationId: error?.operationId }).toEqual({
    reason: "duplicate-operation",
    retryable: false,
    operationId: "req-1",
  });
  // Under `exit` LangGraph stores the run's one checkpoint as it ends: refused there, after its model call (was: not refused, stored twice).
  if (durability !== "exit") expect(outcome.retryCalls).toBe(0);
  expect(outcome.afterRetry).toEqual({ first: outcome.stored, retry: outcome.stored });
  expect(outcome.next.slice(0, -2)).toEqual(outcome.stored);
  expect(outcome.next.slice(-2)).toEqual(["human:next", expect.stringMatching(/^ai:answer/)]);
}

describe.each(BACKENDS)("a retried turn refused as duplicate-operation stores nothing (%s)", (backend) => {
  for (const durability of ["async", "sync", "exit"] as const)
    for (const way of WAYS) {
      it(`sent as ${way}, durability ${durability}`, async () => {
        const one = agentOn(backend);
        expectNothingStored(await retried(one, one, way, durability), way, durability);
      });
      it.skipIf(backend === "in_memory")(`sent as ${way} by another process on the store, durability ${durability}`, async () => {
        expectNothingStored(await retried(agentOn(backend), agentOn(backend), way, durability), way, durability);
      });
    }

  it("a Command turn with a new operation id, and a resume with its own, are stored as before", async () => {
    const { agent, counter } = agentOn(backend);
    const thread = `t-${randomUUID()}`;
    const at = (operation_id: string) => ({ configurable: { thread_id: thread, operation_id } });
    await agent.invoke({ messages: [new HumanMessage("please book")] }, at("req-1"));
    await agent.invoke(new Command({ resume: { decisions: [{ type: "approve" }] } }) as never, at("req-2"));
    await send(agent, 'Command({ update, goto: "model_request" })', at("req-3"));
    await send(agent, "Command({ update })", at("req-4"));
    expect(await texts(agent, thread)).toEqual([
      "human:please book",
      "ai:",
      "tool:booked",
      "ai:answer 2",
      "human:book it",
      "ai:answer 3",
      "human:book it",
    ]);
    expect(counter.calls).toBe(3);
  });
});
