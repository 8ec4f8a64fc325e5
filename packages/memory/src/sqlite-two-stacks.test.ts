/**
 * Two `memoryStack`s on one SQLite file in one process: two agents of a multi-agent app that both
 * read `MEMORY_SQLITE_PATH`, or a stack built per request. Each opens its own connection; a write
 * transaction spans `await`s, and better-sqlite3 waits for another connection's lock
 * synchronously (`busy_timeout`), blocking the event loop, so the connection that holds the lock
 * could never finish: the other turn failed `SqliteError: database is locked` after 5 s.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createAgent } from "langchain";
import { afterAll, expect, it } from "vitest";
import { memoryStack } from "./memory-stack.js";

const dir = mkdtempSync(join(tmpdir(), "tw-two-stacks-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Answers after a timer, so the turns of both stacks overlap. */
class SlowModel extends BaseChatModel {
  _llmType() {
    return "slow";
  }
  override bindTools() {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    await new Promise((resolve) => setTimeout(resolve, 5));
    const answer = `answer ${messages.length}`;
    return { generations: [{ text: answer, message: new AIMessage(answer) }] };
  }
}

it("two stacks on one SQLite file in one process: concurrent turns on their threads all commit", async () => {
  const file = join(dir, "shared.sqlite");
  const stacks = [0, 1].map(() => memoryStack({ backend: "sqlite", sqlitePath: file, windowSize: 4, env: {}, logger: false }));
  const agents = stacks.map((stack) => createAgent({ model: new SlowModel({}), ...stack }));
  const turns: Promise<unknown>[] = [];
  for (let round = 0; round < 3; round += 1)
    for (const [i, agent] of agents.entries())
      turns.push(agent.invoke({ messages: [new HumanMessage(`turn ${round}`)] }, { configurable: { thread_id: `t-${i}-${round}` } }));
  const settled = await Promise.allSettled(turns);
  expect(settled.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
  for (const [i, agent] of agents.entries()) {
    const state = await agent.graph.getState({ configurable: { thread_id: `t-${1 - i}-0` } });
    expect((state.values as { messages: BaseMessage[] }).messages).toHaveLength(2);
  }
  for (const stack of stacks) await stack.checkpointer?.close();
}, 60_000);
