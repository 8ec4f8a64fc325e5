/**
 * `list` on the stack's checkpointer with a metadata filter, `limit` and `before`, as LangGraph's
 * `getStateHistory` and apps call it.
 *
 * - https://github.com/langchain-ai/langgraphjs/pull/2504 "allow filter on arbitrary metadata keys in
 *   list()" (SqliteSaver dropped every filter key but `source`, `step`, `parents` and returned every
 *   thread's checkpoints: a tenant's history listed another tenant's);
 * - https://github.com/langchain-ai/langgraph/issues/8656 "Checkpoint savers disagree on
 *   list(limit=-1)" and https://github.com/langchain-ai/langgraph/pull/7105 (`before` cursors).
 *
 * The stack's saver over each backend must list what LangGraph's MemorySaver lists for the same
 * runs: the same checkpoints (by source, step and the caller's metadata) for each filter, limit and
 * cursor, and never another thread's.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { agentModel, lookup } from "./support/report-agent.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function listed(saver: BaseCheckpointSaver, config: object, options?: object) {
  const out: string[] = [];
  for await (const tuple of saver.list(config as never, options as never)) {
    const m = tuple.metadata as Record<string, unknown>;
    out.push(`${tuple.config.configurable?.thread_id}:${m.source}:${m.step}:${m.tenant ?? "-"}`);
  }
  return out;
}

async function history(checkpointer: BaseCheckpointSaver) {
  const agent = createAgent({ model: agentModel(), tools: [lookup], checkpointer, middleware: [] });
  for (const thread of ["a", "b"])
    for (const text of ["hello", "PARALLEL 2", "bye"])
      await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: thread } });
  // Checkpoints an app writes with metadata of its own (the report's repro: a tenant per thread).
  for (const [thread, tenant] of [
    ["t1", "acme"],
    ["t2", "globex"],
    ["t3", "acme"],
  ] as const)
    await checkpointer.put(
      { configurable: { thread_id: thread, checkpoint_ns: "" } },
      { ...emptyCheckpoint(), id: uuid6(-1) },
      { source: "update", step: 0, parents: {}, tenant } as never,
      {},
    );
  const oneThread = { configurable: { thread_id: "a" } };
  const all = await listed(checkpointer, oneThread);
  // A cursor: the checkpoint three back from the head of thread a.
  let cursor: object | undefined;
  let k = 0;
  for await (const tuple of checkpointer.list(oneThread as never)) if (++k === 3) cursor = tuple.config;
  return {
    all,
    input: await listed(checkpointer, oneThread, { filter: { source: "input" } }),
    step: await listed(checkpointer, oneThread, { filter: { step: 2 } }),
    tenantAcrossThreads: await listed(checkpointer, {}, { filter: { tenant: "acme" } }),
    tenantAndSource: await listed(checkpointer, {}, { filter: { tenant: "globex", source: "update" } }),
    tenantAndWrongSource: await listed(checkpointer, {}, { filter: { tenant: "globex", source: "loop" } }),
    limit: await listed(checkpointer, oneThread, { limit: 2 }),
    before: await listed(checkpointer, oneThread, { before: cursor }),
    beforeAndLimit: await listed(checkpointer, oneThread, { before: cursor, limit: 1 }),
  };
}

describe("public reports: list with filters, limit and before on the stack's saver", () => {
  it("in_memory and sqlite list what MemorySaver lists", async () => {
    const reference = await history(new MemorySaver());
    expect(reference.tenantAcrossThreads.length).toBeGreaterThan(0);
    expect(reference.tenantAcrossThreads.sort()).toEqual(["t1:update:0:acme", "t3:update:0:acme"]);
    expect(reference.tenantAndSource).toEqual(["t2:update:0:globex"]);
    expect(reference.tenantAndWrongSource).toEqual([]);
    const dir = mkdtempSync(join(tmpdir(), "tw-list-"));
    dirs.push(dir);
    for (const backend of ["in_memory", "sqlite"] as const) {
      const stack = memoryStack({
        backend,
        ...(backend === "sqlite" ? { sqlitePath: join(dir, "list.sqlite") } : {}),
        logger: false,
        env: {},
        recallMaxTokens: false,
        summarize: false,
      });
      const got = await history(stack.checkpointer as BaseCheckpointSaver);
      expect({ ...got, tenantAcrossThreads: got.tenantAcrossThreads.sort() }, backend).toEqual(reference);
    }
  });
});
