/**
 * The message archive under edits by id in a turn's input and forks (issue 27, R37): a message sent
 * under an archived id is refused with `ThreadwiseArchivedMessageError` (`archived-edit`) and stores
 * nothing (a `RemoveMessage` of one fails in LangGraph's reducer first, and stores nothing either);
 * the thread takes its next turn at once; a fork from the
 * thread's first checkpoint is refused (`archived-fork`); a rewrite (`REMOVE_ALL_MESSAGES`, then the
 * whole thread as read back) passes. The seeded property over
 * every operation is test/stack.archive.test.ts.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, messageArchive, ThreadwiseArchivedMessageError, type ThreadwiseSaver, turnAdmission } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const config = { configurable: { thread_id: "t" } };
const dir = mkdtempSync(join(tmpdir(), "threadwise-archive-edits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** The backend of the stacks the tests below build (each describe sets its own); each SQLite stack gets a file of its own. */
let backend: "in_memory" | "sqlite" = "in_memory";
let stacks = 0;
const ids = (messages: readonly BaseMessage[]) => messages.map((m) => String(m.id));

/**
 * A stack (turn admission first, as memoryStack) that archives all but the newest `keepGroups`
 * groups (two unless given), in batches of two.
 */
function archivingAgent(keepGroups = 2) {
  stacks += 1;
  const stack = memoryStack({
    backend,
    ...(backend === "sqlite" ? { sqlitePath: join(dir, `stack-${stacks}.sqlite`) } : {}),
    windowSize: false,
    summarize: false,
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const model = scriptedModel((_messages, call) => new AIMessage({ id: `a${call}`, content: `answer ${call}` }));
  const agent = createAgent({
    model,
    checkpointer: saver,
    middleware: [turnAdmission(saver), messageArchive(saver, { keepGroups, batchMessages: 2, logger: false })],
  });
  return { saver, agent, model };
}

async function archivedThread() {
  const { saver, agent, model } = archivingAgent();
  for (let k = 0; k < 6; k += 1) await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
  const stored = async () => {
    const history = [];
    for await (const snapshot of agent.graph.getStateHistory(config)) history.push(snapshot.config.configurable?.checkpoint_id);
    return { thread: ids(await saver.readThread(config)), history };
  };
  return { saver, agent, stored, model };
}

/**
 * A checkpoint of `archivedThread`'s thread whose hot part begins inside the archive and holds the
 * rest of it (a fork the archive allows), with at least one archived message hot again; `target`
 * is the first of them.
 */
async function heldAgain(saver: ThreadwiseSaver, agent: ReturnType<typeof archivingAgent>["agent"]) {
  const archived = ids(await saver.archivedMessages("t"));
  const history = [];
  for await (const snapshot of agent.graph.getStateHistory(config)) history.push(snapshot);
  const branch = history.find((snapshot) => {
    const hot = ids((snapshot.values as { messages?: BaseMessage[] }).messages ?? []);
    const from = archived.indexOf(hot[0] ?? "");
    return from >= 0 && archived.slice(from).every((id) => hot.includes(id));
  });
  if (!branch) throw new Error("no checkpoint holds archived messages again");
  return { branch, target: ids((branch.values as { messages: BaseMessage[] }).messages)[0] as string };
}

// On SQLite the input's archive lookup is read by the statement taking the thread's lock (issue 27); in memory, asked apart.
describe.each(["in_memory", "sqlite"] as const)("%s: message archive: edits by id in a turn's input, forks from the start", (kind) => {
  beforeAll(() => {
    backend = kind;
  });

  it("a message under an archived id is refused (archived-edit), nothing stored; the next turn runs", async () => {
    const { saver, agent, stored } = await archivedThread();
    expect(ids(await saver.archivedMessages("t"))).toContain("u0");
    const before = await stored();
    // Was appended at the end (u0 read back after a5), where a run without the archive replaces it in place.
    const edit = agent.invoke({ messages: [new HumanMessage({ id: "u0", content: "edited" })] }, config);
    await expect(edit).rejects.toSatisfy(
      (error) => ThreadwiseArchivedMessageError.isInstance(error) && error.reason === "archived-edit" && error.messageIds.includes("u0"),
    );
    expect(await stored()).toEqual(before);
    await agent.invoke({ messages: [new HumanMessage({ id: "u6", content: "u6" })] }, config);
    expect((await stored()).thread).toEqual([...before.thread, "u6", "a6"]);
  });

  it("a RemoveMessage of an archived id stores nothing and leaves no turn open", async () => {
    const { agent, stored } = await archivedThread();
    const before = await stored();
    await expect(
      agent.invoke({ messages: [new RemoveMessage({ id: "u1" }), new HumanMessage({ id: "x", content: "x" })] }, config),
    ).rejects.toThrow();
    expect(await stored()).toEqual(before);
    // Before, the input checkpoint was stored with its turn lease, and the next turn was refused (turn-in-progress).
    await agent.invoke({ messages: [new HumanMessage({ id: "u6", content: "u6" })] }, config);
    expect((await stored()).thread).toEqual([...before.thread, "u6", "a6"]);
  });

  // Regression (found by hand): the thread's first checkpoint has no message, so no archived id
  // placed the fork; it was accepted and the new branch read back as the other branch's archived
  // messages followed by its own.
  it("a fork from the thread's first checkpoint (no message yet) is refused (archived-fork), nothing stored", async () => {
    const { agent, stored } = await archivedThread();
    const before = await stored();
    const history = [];
    for await (const snapshot of agent.graph.getStateHistory(config)) history.push(snapshot);
    const first = history.at(-1) as (typeof history)[number];
    expect((first.values as { messages?: unknown[] }).messages ?? []).toEqual([]);
    const fork = agent.invoke({ messages: [new HumanMessage({ id: "f1", content: "fork" })] }, first.config);
    await expect(fork).rejects.toSatisfy((error) => ThreadwiseArchivedMessageError.isInstance(error) && error.reason === "archived-fork");
    expect(await stored()).toEqual(before);
  });

  // Found by the archive fuzz (seed 20261203 case 15): a branch forked from before an archiving
  // holds archived messages in its hot part again; a RemoveMessage of one removed the hot copy,
  // and the archived copy was read back (the archive is the thread's, not the branch's).
  it("a RemoveMessage of a message both hot (on a branch forked before an archiving) and archived is refused (archived-edit)", async () => {
    const { saver, agent, stored } = await archivedThread();
    const { branch, target } = await heldAgain(saver, agent);
    const before = await stored();
    const fork = agent.invoke(
      { messages: [new RemoveMessage({ id: target }), new HumanMessage({ id: "f1", content: "fork" })] },
      branch.config,
    );
    await expect(fork).rejects.toSatisfy(
      (error) => ThreadwiseArchivedMessageError.isInstance(error) && error.reason === "archived-edit" && error.messageIds.includes(target),
    );
    expect(await stored()).toEqual(before);
  });

  // The memory README's former "Known, not fixed": an edit in place (same id, new content) of a
  // message held again on a branch forked from before an archiving was admitted; that branch's
  // next archiving rewrote the archived row (an archived id keeps its row), so every other branch
  // read the edit (a redaction) back.
  it("an edit in place of a message both hot (on a branch forked before an archiving) and archived is refused (archived-edit), by input and by updateState", async () => {
    const { saver, agent, stored } = await archivedThread();
    const { branch, target } = await heldAgain(saver, agent);
    const copy = async () => (await saver.archivedMessages("t")).find((m) => m.id === target)?.content;
    const original = await copy();
    const before = await stored();
    const refused = (error: unknown) =>
      ThreadwiseArchivedMessageError.isInstance(error) && error.reason === "archived-edit" && error.messageIds.join() === target;
    const edited = new HumanMessage({ id: target, content: "[redacted]" });
    await expect(agent.invoke({ messages: [edited, new HumanMessage({ id: "f1", content: "fork" })] }, branch.config)).rejects.toSatisfy(
      refused,
    );
    await expect(agent.graph.updateState(branch.config, { messages: [edited] })).rejects.toSatisfy(refused);
    expect(await stored()).toEqual(before);
    expect(await copy()).toBe(original);
    // The same fork without the edit is admitted, and its archiving leaves the archived copy as it was.
    await agent.invoke({ messages: [new HumanMessage({ id: "f1", content: "fork" })] }, branch.config);
    await agent.invoke({ messages: [new HumanMessage({ id: "f2", content: "fork" })] }, config);
    expect(await copy()).toBe(original);
  });

  // Found by the archive fuzz (seed 104 case 8): a branch forked from before an archiving whose
  // thread holds every archived message, but with messages the other branch removed before it
  // archived (here a0) between them. Its thread does not begin with the archive. It was admitted;
  // its first model call archived a0 at the archive's end (after a1), the put after it was refused
  // mid-run (archived-fork), and the fork's first steps stayed stored as the head, its turn lease
  // held for up to turnLeaseMs (the next turn refused turn-in-progress).
  it("a fork whose thread holds the archived messages with others between them is refused at its input (archived-fork), nothing stored", async () => {
    // Three groups kept: the turn after the removal archives u0, u1, a1 and keeps u2 (with two,
    // the batch ends right before a2 and archives u2 too, which the fork's thread does not hold).
    const { saver, agent, model } = archivingAgent(3);
    const turn = (input: BaseMessage[], at: RunnableConfig = config) => agent.invoke({ messages: input }, at);
    await turn([new HumanMessage({ id: "u0", content: "u0" })]);
    await turn([new HumanMessage({ id: "u1", content: "u1" })]);
    const beforeArchiving = await agent.graph.getState(config);
    expect(ids((beforeArchiving.values as { messages: BaseMessage[] }).messages)).toEqual(["u0", "a0", "u1", "a1"]);
    await turn([new RemoveMessage({ id: "a0" }), new HumanMessage({ id: "u2", content: "u2" })]);
    await turn([new HumanMessage({ id: "u3", content: "u3" })]);
    expect(ids(await saver.archivedMessages("t"))).toEqual(["u0", "u1", "a1"]);
    const stored = async () => {
      const history = [];
      for await (const snapshot of agent.graph.getStateHistory(config)) history.push(snapshot.config.configurable?.checkpoint_id);
      return { thread: ids(await saver.readThread(config)), archive: ids(await saver.archivedMessages("t")), history };
    };
    const before = await stored();
    const calls = model.calls.length;
    await expect(turn([new HumanMessage({ id: "f1", content: "fork" })], beforeArchiving.config)).rejects.toSatisfy(
      (error) =>
        ThreadwiseArchivedMessageError.isInstance(error) && error.reason === "archived-fork" && error.messageIds.join() === "u1,a1",
    );
    expect(model.calls.length).toBe(calls);
    expect(await stored()).toEqual(before);
    // The thread takes its next turn at once.
    await turn([new HumanMessage({ id: "u4", content: "u4" })]);
    expect(ids(await saver.readThread(config))).toEqual([...before.thread, "u4", `a${calls}`]);
  });

  it("a rewrite (REMOVE_ALL_MESSAGES, then the thread as read back) passes", async () => {
    const { saver, agent, stored } = await archivedThread();
    const thread = await saver.readThread(config);
    await agent.invoke(
      { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...thread, new HumanMessage({ id: "u6", content: "u6" })] },
      config,
    );
    expect((await stored()).thread).toEqual([...ids(thread), "u6", "a6"]);
  });

  // The slow archive fuzz with persistTrim in the stack (seed 20261203 case 35): the replay's fork
  // (a copy of the first checkpoint, no message yet) was stored as the head, then its next
  // checkpoint, holding the replayed input, was refused archived-fork (its thread does not begin
  // with the rewritten thread's first message): the thread read back empty.
  it("a replay from the thread's first checkpoint after a rewrite emptied the archive is refused (archived-fork) at its fork, nothing stored", async () => {
    const { saver, agent, stored, model } = await archivedThread();
    expect((await saver.archivedMessages("t")).length).toBeGreaterThan(0);
    const thread = await saver.readThread(config);
    // Keeping one message, so the rewrite's own turn archives nothing again.
    await agent.invoke({ messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...thread.slice(-1)] }, config);
    expect(await saver.archivedMessages("t")).toEqual([]);
    const history = [];
    for await (const snapshot of agent.graph.getStateHistory(config)) history.push(snapshot);
    const first = history.at(-1);
    expect(first?.next).toEqual(["__start__"]);
    const before = await stored();
    const calls = model.calls.length;
    await expect(
      agent.invoke(null, { configurable: { thread_id: "t", checkpoint_id: first?.config.configurable?.checkpoint_id } }),
    ).rejects.toSatisfy((error) => ThreadwiseArchivedMessageError.isInstance(error) && error.reason === "archived-fork");
    expect(model.calls.length).toBe(calls);
    expect(await stored()).toEqual(before);
  });
});
