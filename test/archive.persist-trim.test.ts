/**
 * persistTrim on a thread whose older messages are in the message archive (issue 27, R5): the trim
 * decides over the whole thread (archive, then the checkpoint), as on a thread that never archived.
 * A trim that deletes only archived messages empties the archive (was: the hot part held nothing
 * to delete, no rewrite was written, and every archived message outlived the trim); archived
 * messages within its `keepGroups` come back into the checkpoint with the rewrite (was: the rewrite
 * emptied the archive with them). Found by the slow archive fuzz (`STACK_ARCHIVE_SLOW_SEED=12
 * STACK_ARCHIVE_CASE=30`, another stack's persistTrim on an archived thread).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, messageArchive, type ThreadwiseSaver, turnAdmission } from "@threadwise/memory";
import { persistTrim } from "@threadwise/persist-trim";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const config = { configurable: { thread_id: "t" } };
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => String(m.id));
const dir = mkdtempSync(join(tmpdir(), "threadwise-archive-trim-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Six turns through a stack that archives all but the newest two groups (batches of two), then one through `persistTrim({ keepGroups })` alone on the same saver. */
async function trimmedAfterArchiving(backend: "in_memory" | "sqlite", keepGroups: number) {
  const stack = memoryStack({
    backend,
    ...(backend === "sqlite" ? { sqlitePath: join(dir, `${keepGroups}.sqlite`) } : {}),
    windowSize: false,
    summarize: false,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const archiving = createAgent({
    model: scriptedModel((_messages, call) => new AIMessage({ id: `a${call}`, content: `answer ${call}` })),
    checkpointer: saver,
    middleware: [turnAdmission(saver), messageArchive(saver, { keepGroups: 2, batchMessages: 2, logger: false })],
  });
  for (let k = 0; k < 6; k += 1) await archiving.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
  const archivedBefore = ids(await saver.archivedMessages("t"));
  const trimming = createAgent({
    model: scriptedModel(() => new AIMessage({ id: "a6", content: "answer 6" })),
    checkpointer: saver,
    middleware: [persistTrim({ keepGroups, logger: false })],
  });
  await trimming.invoke({ messages: [new HumanMessage({ id: "u6", content: "u6" })] }, config);
  const state = await trimming.graph.getState(config);
  return {
    archivedBefore,
    thread: ids(await saver.readThread(config)),
    archive: ids(await saver.archivedMessages("t")),
    stored: ids(state.values.messages as BaseMessage[]),
  };
}

/** What persistTrim keeps of the same seven turns on a thread that never archived. */
async function trimmedWithoutArchive(keepGroups: number) {
  const checkpointer = new MemorySaver();
  const plain = createAgent({
    model: scriptedModel((_messages, call) => new AIMessage({ id: `a${call}`, content: `answer ${call}` })),
    checkpointer,
  });
  for (let k = 0; k < 6; k += 1) await plain.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
  const trimming = createAgent({
    model: scriptedModel(() => new AIMessage({ id: "a6", content: "answer 6" })),
    checkpointer,
    middleware: [persistTrim({ keepGroups, logger: false })],
  });
  await trimming.invoke({ messages: [new HumanMessage({ id: "u6", content: "u6" })] }, config);
  return ids((await trimming.graph.getState(config)).values.messages as BaseMessage[]);
}

describe.each(["in_memory", "sqlite"] as const)("persistTrim over an archived thread (%s)", (backend) => {
  it("deleting only archived messages empties the archive; the thread is what a thread that never archived keeps", async () => {
    // The hot part holds five groups with the new turn (a4 u5 a5 u6 a6): a trim keeping five
    // deletes nothing there, only the archived messages.
    const after = await trimmedAfterArchiving(backend, 5);
    expect(after.archivedBefore.length).toBeGreaterThan(4);
    expect(after.thread).toEqual(await trimmedWithoutArchive(5));
    expect(after.thread).toEqual(["a4", "u5", "a5", "u6", "a6"]);
    expect(after.archive).toEqual([]);
    expect(after.stored).toEqual(after.thread);
  });

  it("archived messages within keepGroups come back into the checkpoint; older ones are deleted", async () => {
    const after = await trimmedAfterArchiving(backend, 7);
    expect(after.thread).toEqual(await trimmedWithoutArchive(7));
    expect(after.thread).toEqual(["a3", "u4", "a4", "u5", "a5", "u6", "a6"]);
    expect(after.archive).toEqual([]);
    expect(after.stored).toEqual(after.thread);
  });

  it("a trim that deletes nothing leaves the archive and the checkpoint as they were", async () => {
    const after = await trimmedAfterArchiving(backend, 20);
    expect(after.thread).toEqual(await trimmedWithoutArchive(20));
    expect(after.archive).toEqual(after.archivedBefore);
    expect(after.stored).toEqual(after.thread.slice(after.archive.length));
  });
});
