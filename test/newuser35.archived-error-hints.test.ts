/**
 * A new user's path through the archive's refusals (newuser35): the `archived-edit` error of an
 * `updateState` that edits an archived message by id names what to do instead (a rewrite:
 * `readThread`, then `REMOVE_ALL_MESSAGES` and the thread as it should read), and doing exactly
 * that edits the message; the `archived-fork` error of a fork from an old checkpoint names both
 * ways on (a newer checkpoint, or a new thread from `readThread` at that checkpoint), and the second
 * works. Was: "... are archived and cannot be edited by id; only messages still in the hot part can",
 * which named no way to edit one.
 */
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { hideMemoryState, memoryStack, ThreadwiseArchivedMessageError, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { expect, it } from "vitest";

const config = { configurable: { thread_id: "kr" } };

async function archivedThread() {
  const stack = memoryStack({
    backend: "in_memory",
    archive: true,
    windowSize: 4,
    summarize: false,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const model = scriptedModel((messages, call) => new AIMessage({ id: `a${call}`, content: `답변 ${call}: ${messages.length}개` }));
  const agent = hideMemoryState(createAgent({ model, ...stack }));
  for (let k = 0; k < 24; k += 1)
    await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `질문 ${k}: 부산 날씨` })] }, config);
  const archived = await saver.archivedMessages("kr");
  expect(archived.length).toBeGreaterThan(0);
  return { saver, agent, archived };
}

it("archived-edit names the rewrite, and the rewrite it names edits the archived message", async () => {
  const { saver, agent, archived } = await archivedThread();
  const target = String(archived[0]?.id);
  const error = await agent.graph
    .updateState(config, { messages: [new HumanMessage({ id: target, content: "수정됨" })] })
    .catch((e: unknown) => e);
  expect(ThreadwiseArchivedMessageError.isInstance(error)).toBe(true);
  const message = (error as Error).message;
  expect(message).toContain("readThread");
  expect(message).toContain("REMOVE_ALL_MESSAGES");
  // What the message says, done: the thread read back, the one message edited, written as a rewrite.
  const thread = await saver.readThread(config);
  const edited = thread.map((m) => (m.id === target ? new HumanMessage({ id: target, content: "수정됨 (edited)" }) : m));
  await agent.graph.updateState(config, { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...edited] });
  const after = await saver.readThread(config);
  expect(after.map((m) => m.id)).toEqual(thread.map((m) => m.id));
  expect(after.find((m) => m.id === target)?.text).toBe("수정됨 (edited)");
});

it("archived-fork names a new thread from readThread at the checkpoint, which carries that branch on", async () => {
  const { saver, agent } = await archivedThread();
  const history = [];
  // LangChain types the agent's own getStateHistory/updateState as `never`: the graph's are typed.
  for await (const snapshot of agent.graph.getStateHistory(config)) history.push(snapshot);
  const old = history.at(-4);
  const checkpointId = String(old?.config.configurable?.checkpoint_id);
  const forkConfig = { configurable: { thread_id: "kr", checkpoint_id: checkpointId } };
  const error = await agent.invoke({ messages: [new HumanMessage("포크")] }, forkConfig).catch((e: unknown) => e);
  expect(ThreadwiseArchivedMessageError.find(error)?.reason).toBe("archived-fork");
  const message = (error as Error).message;
  expect(message).toContain("readThread({ configurable: { thread_id, checkpoint_id } })");
  const branch = await saver.readThread(forkConfig);
  const result = await agent.invoke({ messages: [...branch, new HumanMessage("포크")] }, { configurable: { thread_id: "kr-fork" } });
  expect(result.messages.at(-1)?.text).toMatch(/^답변/);
  expect((await saver.readThread({ configurable: { thread_id: "kr-fork" } })).map((m) => m.text).slice(0, branch.length)).toEqual(
    branch.map((m) => m.text),
  );
});
