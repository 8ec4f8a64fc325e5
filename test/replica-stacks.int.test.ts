/**
 * Two `memoryStack` instances of one deployment on one store (a SQLite file, a PostgreSQL
 * database), the way replicas are built: an agent may take its middleware from stack A and its
 * checkpointer from stack B. Regression: A's `turnAdmission` asked A's saver, which never saw the
 * run, to claim the turn at the checkpoint B had just stored under the run's own lease, so every
 * turn after the first was refused `turn-in-progress` (unless `turnLeaseMs: 0`). And on SQLite,
 * two stacks of one process on one file each held a connection: concurrent turns blocked the
 * event loop in `busy_timeout` and failed `SQLITE_BUSY` after 5 s. R38 holds across the stacks:
 * of two concurrent turns one is refused before its model call.
 */
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { memoryStack, ThreadwiseConcurrentTurnError, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { ForwardingSaver } from "./support/forwarding-saver.js";
import { backendStorage } from "./support/threadwise-savers.js";

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

/** Answers after `delayMs`, naming the newest user text and how many user turns came before it; counts its calls. */
class SlowModel extends BaseChatModel {
  delayMs: number;
  calls = 0;
  constructor(delayMs: number) {
    super({});
    this.delayMs = delayMs;
  }
  _llmType() {
    return "slow";
  }
  override bindTools() {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.calls += 1;
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const humans = messages.filter((m) => m.getType() === "human").map(text);
    const answer = `answer to ${humans.at(-1)} after ${humans.length - 1}`;
    return { generations: [{ text: answer, message: new AIMessage(answer) }] };
  }
}

const storage = backendStorage("twrep");

describe.each(["sqlite", "postgres"] as const)("replicas: two stacks of one deployment on one %s store", (backend) => {
  const stacks = () => {
    const options = { ...storage(backend), windowSize: false as const, env: {} };
    return [memoryStack(options), memoryStack(options)] as const;
  };
  const say = (agent: ReturnType<typeof createAgent>, thread: string, words: string) =>
    agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: thread } });

  it("stack A's middleware on stack B's saver: alternating turns all succeed, each on top of the last", async () => {
    const [a, b] = stacks();
    const model = new SlowModel(5);
    const crossed = createAgent({ model, middleware: a.middleware, checkpointer: b.checkpointer });
    const own = createAgent({ model, ...a });
    const thread = `alt-${backend}`;
    for (const [i, words] of ["one", "two", "three", "four"].entries()) await say(i % 2 === 0 ? crossed : own, thread, words);
    const state = await own.graph.getState({ configurable: { thread_id: thread } });
    expect(((state.values as { messages?: BaseMessage[] }).messages ?? []).map(text)).toEqual([
      "one",
      "answer to one after 0",
      "two",
      "answer to two after 1",
      "three",
      "answer to three after 2",
      "four",
      "answer to four after 3",
    ]);
    await a.checkpointer?.close();
    await b.checkpointer?.close();
  });

  it("stack A's agent given stack B's saver at invoke, wrapped (a tracing wrapper naming it inner): every turn succeeds, each on top of the last", async () => {
    // Regression: turnAdmission took the run's checkpointer only when it was a ThreadwiseSaver
    // itself; through a wrapper it asked A's saver, which never saw the run, and the second turn
    // was refused turn-in-progress under the run's own lease.
    const [a, b] = stacks();
    const model = new SlowModel(5);
    const agent = createAgent({ model, ...a });
    const thread = `lent-${backend}`;
    const lent = new ForwardingSaver(b.checkpointer as ThreadwiseSaver);
    for (const words of ["one", "two", "three"])
      await agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: thread, __pregel_checkpointer: lent } });
    const state = await agent.graph.getState({ configurable: { thread_id: thread } });
    expect(((state.values as { messages?: BaseMessage[] }).messages ?? []).map(text)).toEqual([
      "one",
      "answer to one after 0",
      "two",
      "answer to two after 1",
      "three",
      "answer to three after 2",
    ]);
    await a.checkpointer?.close();
    await b.checkpointer?.close();
  });

  it("concurrent turns across the two stacks: the turn started during the other's model call is refused turn-in-progress before its own (R38)", async () => {
    const [a, b] = stacks();
    const model = new SlowModel(5);
    const crossed = createAgent({ model, middleware: a.middleware, checkpointer: b.checkpointer });
    const own = createAgent({ model, ...a });
    const thread = `conc-${backend}`;
    await say(own, thread, "first");
    const before = model.calls;
    // The winner's model call is long enough that the second turn's admission falls inside it on a
    // loaded machine too: the overlap is made, not hoped for (two turns started together can also
    // run one after the other, or meet as `stale-parent`, which says nothing of the lease).
    model.delayMs = 1500;
    const winner = say(own, thread, "from own");
    while (model.calls === before) await new Promise((resolve) => setTimeout(resolve, 2));
    const results = await Promise.allSettled([winner, say(crossed, thread, "from crossed")]);
    expect(results[0].status).toBe("fulfilled");
    expect(results[1].status).toBe("rejected");
    const lost = (results[1] as PromiseRejectedResult).reason as unknown;
    expect(ThreadwiseConcurrentTurnError.isInstance(lost) && lost.reason).toBe("turn-in-progress");
    model.delayMs = 5;
    // The refused turn called no model: one call for the winner only.
    expect(model.calls - before).toBe(1);
    const state = await own.graph.getState({ configurable: { thread_id: thread } });
    expect(((state.values as { messages?: BaseMessage[] }).messages ?? []).length).toBe(4);
    // The winner's lease ended with its turn: the next turn, through either stack, goes through.
    await say(crossed, thread, "after");
    await say(own, thread, "and again");
    await a.checkpointer?.close();
    await b.checkpointer?.close();
  });
});
