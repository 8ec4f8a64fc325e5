import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { createCheckpointer } from "./backends.js";
import { resolveMemoryConfig } from "./config.js";
import { loadBetterSqlite3, loadSqliteSaver } from "./optional-peers.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

const dir = mkdtempSync(join(tmpdir(), "threadwise-sqlite-statements-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Db = import("better-sqlite3").Database;

/** Counts SqliteSaver's write statements (`INSERT` into `checkpoints` and `writes`) prepared on `db`'s connection while `run` runs. */
async function insertsPrepared(db: Db, run: () => Promise<void>): Promise<number> {
  const proto = Object.getPrototypeOf(db) as { prepare: (sql: string) => unknown };
  const prepare = proto.prepare;
  let count = 0;
  proto.prepare = function (this: Db, sql: string) {
    if (/^\s*INSERT\b.*\bINTO (checkpoints|writes)\b/is.test(sql)) count += 1;
    return prepare.call(this, sql);
  };
  try {
    await run();
  } finally {
    proto.prepare = prepare;
  }
  return count;
}

/** `turns` turns of a thread: an input checkpoint, its pending write and a loop checkpoint each, as LangGraph writes them. */
async function writeTurns(saver: ThreadwiseSaver, threadId: string, turns: number): Promise<void> {
  let parent: string | undefined;
  let step = -1;
  const messages: unknown[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push(
      new HumanMessage({ id: `u${turn}`, content: `question ${turn} 질문` }),
      new AIMessage({ id: `a${turn}`, content: `answer ${turn}` }),
    );
    for (const source of ["input", "loop"] as const) {
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(step), channel_values: { messages: [...messages] } };
      const config = { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } };
      const stored = await saver.put(config, checkpoint, { source, step, parents: {} }, {});
      await saver.putWrites(stored, [["messages", [messages.at(-1)]]], `task-${turn}-${source}`);
      parent = checkpoint.id;
      step += 1;
    }
  }
}

describe("SqliteSaver's write statements under ThreadwiseSaver", () => {
  it("are prepared once per SQL text, not at every put and putWrites, and store the same rows", async () => {
    const Database = loadBetterSqlite3();
    const SqliteSaver = loadSqliteSaver();
    const db = new Database(join(dir, "adopted.db"));
    // As a user wraps a SqliteSaver of their own: ThreadwiseSaver hands it the registry's view of the handle.
    const inner = new SqliteSaver(db);
    const saver = new ThreadwiseSaver(inner, new SqliteThreadRegistry(db), { turnLeaseMs: 0 });
    const prepared = await insertsPrepared(db, () => writeTurns(saver, "t-adopted", 6));
    // 12 puts and 12 putWrites: SqliteSaver prepared 24 INSERTs before; one per SQL text now.
    expect(prepared).toBeLessThanOrEqual(2);
    const tuple = await saver.getTuple({ configurable: { thread_id: "t-adopted" } });
    expect(tuple?.checkpoint.channel_values.messages).toHaveLength(12);
    expect(tuple?.pendingWrites?.map(([, channel]) => channel)).toEqual(["messages"]);
    const rows = db.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?").get("t-adopted") as { n: number };
    expect(rows.n).toBe(12);
    expect((db.prepare("SELECT count(*) AS n FROM writes WHERE thread_id = ?").get("t-adopted") as { n: number }).n).toBe(12);
    // The handle the saver holds is the same connection: a transaction opened through it is the file's.
    const held = (inner as unknown as { db: Db }).db;
    expect(held).not.toBe(db);
    expect(held.inTransaction).toBe(false);
    held.transaction(() => expect(db.inTransaction).toBe(true))();
    db.close();
  });

  it("are prepared once in the saver createCheckpointer builds", async () => {
    const config = resolveMemoryConfig({ backend: "sqlite", sqlitePath: join(dir, "built.db") }, {});
    const saver = createCheckpointer(config, { env: {} }) as ThreadwiseSaver;
    const db = (saver.registry as unknown as { saverDatabase(): Db }).saverDatabase();
    const prepared = await insertsPrepared(db, () => writeTurns(saver, "t-built", 5));
    expect(prepared).toBeLessThanOrEqual(2);
    expect(await saver.readThread({ configurable: { thread_id: "t-built" } })).toHaveLength(10);
    await saver.close();
  });
});
