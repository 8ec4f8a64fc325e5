/**
 * `exportThread` reads the checkpoint it found (its head) and then the thread at it: a turn stored
 * between the two reads made the export's messages the new head's while its `checkpointId` named
 * the old one. Now the second read is of the checkpoint found, by id. SQLite, Korean and English.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { exportThread, memoryStack, ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, expect, it, vi } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-export-consistent-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("a turn stored between exportThread's reads: the export is the checkpoint it names, without that turn", async () => {
  const sqlitePath = join(dir, "t.sqlite");
  const stack = memoryStack({ backend: "sqlite", sqlitePath, logger: false, env: {} });
  const agent = createAgent({ model: scriptedModel((_m, k) => (k === 0 ? "첫 답변 first answer" : "나중 답변 later answer")), ...stack });
  const config = { configurable: { thread_id: "t1" } };
  await agent.invoke({ messages: [new HumanMessage("첫 질문 first question")] }, config);
  const getTuple = ThreadwiseSaver.prototype.getTuple;
  let between = false;
  const spy = vi.spyOn(ThreadwiseSaver.prototype, "getTuple").mockImplementation(async function (this: ThreadwiseSaver, c) {
    const tuple = await getTuple.call(this, c);
    if (this !== stack.checkpointer && !between) {
      // The export's saver found the head: another turn is stored before it reads the thread.
      between = true;
      await agent.invoke({ messages: [new HumanMessage("다음 질문 next question")] }, config);
    }
    return tuple;
  });
  try {
    const exported = await exportThread({ sqlitePath, threadId: "t1", env: {} });
    expect(between).toBe(true);
    expect(mapStoredMessagesToChatMessages(exported.messages).map(messageText)).toEqual(["첫 질문 first question", "첫 답변 first answer"]);
    const state = await agent.graph.getState(config);
    expect(exported.checkpointId).not.toBe(state.config.configurable?.checkpoint_id);
  } finally {
    spy.mockRestore();
    await (stack.checkpointer as ThreadwiseSaver).close();
  }
});
