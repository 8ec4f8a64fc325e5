import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { loadBetterSqlite3, loadSqliteSaver } from "./optional-peers.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

const dir = mkdtempSync(join(tmpdir(), "threadwise-sqlite-row-writes-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("SqliteThreadRegistry: the thread's row per root checkpoint", () => {
  it("is written once (touch, head and lease in one UPDATE), still touched (R23), and a tombstone still refuses the put (R24)", async () => {
    const Database = loadBetterSqlite3();
    const db = new Database(join(dir, "rows.db"));
    let clock = 1_000_000;
    const registry = new SqliteThreadRegistry(db, { now: () => clock });
    const saver = new ThreadwiseSaver(new (loadSqliteSaver())(db), registry, { turnLeaseMs: 0 });
    // Row writes of threadwise_threads on this connection (an upsert's DO UPDATE fires UPDATE triggers too).
    db.exec(`CREATE TEMP TABLE row_writes (n INTEGER);
      CREATE TEMP TRIGGER count_row_writes AFTER UPDATE ON main.threadwise_threads BEGIN INSERT INTO row_writes VALUES (1); END;`);
    const rowWrites = () => (db.prepare("SELECT count(*) AS n FROM temp.row_writes").get() as { n: number }).n;
    const updatedAt = (threadId: string) =>
      (db.prepare("SELECT updated_at FROM threadwise_threads WHERE thread_id = ?").get(threadId) as { updated_at: number }).updated_at;
    let parent: string | undefined;
    const put = async (threadId: string, step: number) => {
      const checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(step),
        channel_values: { messages: [new HumanMessage({ id: `m${step}`, content: `안녕 hello ${step}` })] },
      };
      const config = { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } };
      await saver.put(config, checkpoint, { source: step < 0 ? "input" : "loop", step, parents: {} }, {});
      parent = checkpoint.id;
    };
    await put("t", -1); // creates the row
    const created = rowWrites();
    for (let step = 0; step < 4; step += 1) {
      clock += 1000;
      await put("t", step);
      expect(updatedAt("t")).toBe(clock);
    }
    // One row write per root checkpoint (was two: the lock's touch, then the head's move).
    expect(rowWrites() - created).toBe(4);
    expect((await registry.head("t"))?.checkpointId).toBe(parent);
    await registry.deleteThread("t");
    await expect(put("t", 9)).rejects.toBeInstanceOf(ThreadwiseThreadDeletedError);
    db.close();
  });

  it("records the thread's tenant at its first root checkpoint and keeps it (a saver of another tenant leaves it)", async () => {
    const Database = loadBetterSqlite3();
    const db = new Database(join(dir, "tenant.db"));
    const registry = new SqliteThreadRegistry(db);
    const inner = new (loadSqliteSaver())(db);
    const saverOf = (tenantId: string) => new ThreadwiseSaver(inner, registry, { turnLeaseMs: 0, tenantId });
    const tenantOf = (threadId: string) =>
      (db.prepare("SELECT tenant_id FROM threadwise_threads WHERE thread_id = ?").get(threadId) as { tenant_id: string | null }).tenant_id;
    let parent: string | undefined;
    const put = async (saver: ThreadwiseSaver, threadId: string, step: number, checkpointNs = "") => {
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(step), channel_values: { messages: [] } };
      const configurable = { thread_id: threadId, checkpoint_ns: checkpointNs, ...(parent ? { checkpoint_id: parent } : {}) };
      await saver.put({ configurable }, checkpoint, { source: step < 0 ? "input" : "loop", step, parents: {} }, {});
      if (checkpointNs === "") parent = checkpoint.id;
    };
    // A subgraph's checkpoint records none; the first root checkpoint records its saver's.
    await put(saverOf("acme"), "t", -1, "sub:1");
    expect(tenantOf("t")).toBeNull();
    await put(saverOf("acme"), "t", 0);
    expect(tenantOf("t")).toBe("acme");
    await put(saverOf("other"), "t", 1);
    await put(saverOf("acme"), "t", 2);
    expect(tenantOf("t")).toBe("acme");
    expect((await registry.tenantThreads("acme", 10)).map((thread) => thread.threadId)).toEqual(["t"]);
    expect(await registry.tenantThreads("other", 10)).toEqual([]);
    db.close();
  });
});
