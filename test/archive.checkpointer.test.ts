/**
 * `createAgent({ ...memoryStack({ archive: true }), checkpointer })`: the archive lives in the
 * stack's ThreadwiseSaver, so an agent given a checkpointer after the spread that does not reach it
 * kept its thread in one store and the messages archived from it in another (with windowSize 2, 14
 * of 24 messages went to the stack's archive, the rest stayed in the user's MemorySaver). A first
 * refusal of any other checkpointer was reverted: it refused `encryptCheckpointer(stack.checkpointer)`
 * and a replica (a second saver on the same SQLite file). The check is on what provably does not
 * reach the archive; wrappers and replicas run and archive as the stack's own saver does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { encryptCheckpointer } from "@threadwise/encryption";
import { memoryStack, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { testKeyring } from "../packages/encryption/src/test-support.js";
import { archiveSplitReason } from "../packages/memory/src/archive-checkpointer-check.js";
import { ForwardingSaver } from "./support/forwarding-saver.js";

const dir = mkdtempSync(join(tmpdir(), "tw-archive-checkpointer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TURNS = 12;

function stackOn(options: { backend?: "in_memory" | "sqlite"; sqlitePath?: string; archive?: boolean; turnLeaseMs?: number } = {}) {
  return memoryStack({
    backend: "in_memory",
    archive: true,
    windowSize: 2,
    summarizeThreshold: 4,
    logger: false,
    env: {},
    models: { summarize: scriptedModel((_m, k) => `summary ${k + 1}`) },
    ...options,
  });
}

/** Runs TURNS turns of one thread on `checkpointer` with `stack`'s middleware; the error, or the thread as the stack reads it. */
async function converse(stack: ReturnType<typeof stackOn>, checkpointer: BaseCheckpointSaver, thread: string) {
  const agent = createAgent({ model: scriptedModel((_m, k) => `a${k + 1}`), ...stack, checkpointer });
  const config = { configurable: { thread_id: thread } };
  try {
    for (let k = 1; k <= TURNS; k += 1) await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
  } catch (error) {
    return { error };
  }
  const saver = stack.checkpointer as ThreadwiseSaver;
  return {
    archived: (await saver.archivedMessages(thread)).length,
    thread: (await saver.readThread(config)).map((m: BaseMessage) => m.id),
  };
}

const everyMessage = (thread: readonly unknown[] | undefined) => thread?.filter((id) => String(id).startsWith("u")).length;

describe("memoryStack({ archive: true }) and the agent's checkpointer", () => {
  it("another checkpointer after the spread (MemorySaver, SqliteSaver) is refused at the first model call, naming memory.checkpointer", async () => {
    for (const other of [new MemorySaver(), SqliteSaver.fromConnString(":memory:")]) {
      const stack = stackOn();
      const result = await converse(stack, other, "other");
      const found = ThreadwiseConfigError.find(result.error);
      expect(found?.option, String(result.error)).toBe("memory.checkpointer");
      expect(found?.message).toContain(other.constructor.name);
      // Refused before anything was archived.
      expect(await (stack.checkpointer as ThreadwiseSaver).archivedMessages("other")).toEqual([]);
    }
  });

  it("the stack's own checkpointer and a wrapper of it (naming it inner) run and archive", async () => {
    const own = stackOn();
    const plain = await converse(own, own.checkpointer as ThreadwiseSaver, "own");
    expect(plain.error).toBeUndefined();
    expect(plain.archived).toBeGreaterThan(0);
    expect(everyMessage(plain.thread)).toBe(TURNS);
    const wrapped = stackOn();
    const traced = await converse(wrapped, new ForwardingSaver(wrapped.checkpointer as ThreadwiseSaver), "traced");
    expect(traced.error).toBeUndefined();
    expect(traced.archived).toBeGreaterThan(0);
    expect(everyMessage(traced.thread)).toBe(TURNS);
  });

  it("encryptCheckpointer(stack.checkpointer) reaches the archive; encryptCheckpointer(another saver) does not", () => {
    const stack = stackOn();
    const saver = stack.checkpointer as ThreadwiseSaver;
    const keyring = testKeyring(["k1"]);
    expect(archiveSplitReason(encryptCheckpointer(saver, { keyring }), saver)).toBeUndefined();
    expect(archiveSplitReason(encryptCheckpointer(new MemorySaver(), { keyring }), saver)).toContain("EncryptedCheckpointSaver");
    // Note: a turn on encryptCheckpointer(stack.checkpointer) fails inside ThreadwiseSaver, archive
    // or not (it reads sealed channel values: TypeError in its input check); a keyring is given to
    // the stack instead (keyringPath), which puts the encryption inside the ThreadwiseSaver.
  });

  it("a replica (a second stack's saver on the same SQLite file) runs and archives; one on another file is refused", async () => {
    const path = join(dir, "shared.sqlite");
    // turnLeaseMs 0: one stack's turnAdmission over another saver object's lease refuses the next
    // turn (turn-in-progress) with or without the archive, a separate matter (see the report).
    const first = stackOn({ backend: "sqlite", sqlitePath: path, turnLeaseMs: 0 });
    const replica = stackOn({ backend: "sqlite", sqlitePath: path, turnLeaseMs: 0 });
    const result = await converse(first, replica.checkpointer as ThreadwiseSaver, "replica");
    expect(result.error).toBeUndefined();
    expect(result.archived).toBeGreaterThan(0);
    expect(everyMessage(result.thread)).toBe(TURNS);
    const elsewhere = stackOn({ backend: "sqlite", sqlitePath: join(dir, "other.sqlite") });
    const refused = await converse(first, elsewhere.checkpointer as ThreadwiseSaver, "elsewhere");
    expect(ThreadwiseConfigError.find(refused.error)?.option, String(refused.error)).toBe("memory.checkpointer");
    for (const stack of [first, replica, elsewhere]) await stack.checkpointer?.close();
  });

  it("with archive off, stack.middleware runs on any checkpointer (nothing to split)", async () => {
    const stack = stackOn({ archive: false });
    const agent = createAgent({ model: scriptedModel(() => "ok"), middleware: stack.middleware, checkpointer: new MemorySaver() });
    const out = await agent.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "off" } });
    expect(out.messages.at(-1)?.text).toBe("ok");
  });
});
