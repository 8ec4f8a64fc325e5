import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { RunnableConfig } from "@langchain/core/runnables";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import type { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
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

/** The kind of each statement SQLite ran on a connection (its first words), in order, via better-sqlite3's `verbose` hook. */
function openCounted(path: string): { db: Db; ran: string[] } {
  const Database = loadBetterSqlite3();
  const ran: string[] = [];
  const kind = (sql: string) => {
    const text = sql.trim().replace(/\s+/g, " ");
    if (/^INSERT (OR \w+ )?INTO (checkpoints|writes)\b/.test(text)) return `saver ${text.split(" ")[text.includes(" OR ") ? 4 : 2]}`;
    if (/^SELECT thread_id, checkpoint_ns, checkpoint_id\b/.test(text)) return "saver read";
    return text.split(" ").slice(0, 2).join(" ");
  };
  const db = new Database(path, { verbose: (sql: unknown) => ran.push(kind(String(sql))) });
  return { db, ran };
}

/** What SQLite ran while `run` ran. */
async function statementsOf(ran: string[], run: () => Promise<unknown>): Promise<string[]> {
  const from = ran.length;
  await run();
  return ran.slice(from);
}

/** A root checkpoint holding `messages`, with `input` as its pending input (`__start__`) when given. */
function checkpointOf(messages: unknown[], input?: unknown[]) {
  const channelValues: Record<string, unknown> = { messages: [...messages] };
  if (input) channelValues.__start__ = { messages: input };
  return { ...emptyCheckpoint(), id: uuid6(-1), channel_values: channelValues };
}

describe("statements per put, write batch and read (issue 27)", () => {
  /**
   * One turn as LangGraph stores it: the input checkpoint (its pending input a new message), its
   * write, the step that applies it, its write; then the head read. Each list is what SQLite ran
   * for one call.
   */
  async function turn(
    saver: SqliteSaver | ThreadwiseSaver,
    ran: string[],
    threadId: string,
    state: { parent?: string; messages: unknown[]; n: number },
  ) {
    const n = state.n++;
    const config = () => ({
      configurable: { thread_id: threadId, checkpoint_ns: "", ...(state.parent ? { checkpoint_id: state.parent } : {}) },
    });
    const question = new HumanMessage({ id: `u${n}`, content: `question ${n} 질문` });
    const calls: Record<string, string[]> = {};
    const input = checkpointOf(state.messages, [question]);
    let stored: RunnableConfig = {};
    calls.inputPut = await statementsOf(ran, async () => {
      stored = await saver.put(config(), input, { source: "input", step: -1, parents: {} }, {});
    });
    state.parent = input.id;
    calls.inputWrites = await statementsOf(ran, () => saver.putWrites(stored, [["messages", [question]]], `task-${n}-input`));
    state.messages.push(question, new AIMessage({ id: `a${n}`, content: `answer ${n}` }));
    const loop = checkpointOf(state.messages);
    calls.loopPut = await statementsOf(ran, async () => {
      stored = await saver.put(config(), loop, { source: "loop", step: 0, parents: {} }, {});
    });
    state.parent = loop.id;
    calls.loopWrites = await statementsOf(ran, () => saver.putWrites(stored, [["messages", [state.messages.at(-1)]]], `task-${n}-loop`));
    calls.read = await statementsOf(ran, () => saver.getTuple({ configurable: { thread_id: threadId } }));
    return calls;
  }

  it("are the plain SqliteSaver's plus the registry's: 3 per put, 2 per write batch (no savepoint), 1 per read, an archived thread's input included", async () => {
    const SqliteSaver = loadSqliteSaver();
    const plainDb = openCounted(join(dir, "plain-counted.db"));
    const plain = new SqliteSaver(plainDb.db);
    const twDb = openCounted(join(dir, "threadwise-counted.db"));
    const saver = new ThreadwiseSaver(new SqliteSaver(twDb.db), new SqliteThreadRegistry(twDb.db), { turnLeaseMs: 0 });
    const plainState = { messages: [] as unknown[], n: 0 };
    const twState = { messages: [] as unknown[], n: 0 };
    // The first turn creates the tables, the thread's row and the prepared statements.
    await turn(plain, plainDb.ran, "t", plainState);
    await turn(saver, twDb.ran, "t", twState);
    // The thread's archive holds messages: every input put then asks whether its messages are archived.
    await saver.archiveMessages("t", [new HumanMessage({ id: "old", content: "archived earlier" })]);
    for (let i = 0; i < 3; i += 1) {
      const alone = await turn(plain, plainDb.ran, "t", plainState);
      const threadwise = await turn(saver, twDb.ran, "t", twState);
      // SqliteSaver alone: a put is its INSERT, a write batch BEGIN, INSERT, COMMIT, a read its SELECT.
      expect(alone).toEqual({
        inputPut: ["saver checkpoints"],
        inputWrites: ["BEGIN", "saver writes", "COMMIT"],
        loopPut: ["saver checkpoints"],
        loopWrites: ["BEGIN", "saver writes", "COMMIT"],
        read: ["saver read"],
      });
      // The head moves in the statement taking the row, its checks in its WHERE (was: the row read,
      // the INSERT, then the head's UPDATE: 5 statements).
      const put = ["BEGIN IMMEDIATE", "UPDATE threadwise_threads", "saver checkpoints", "COMMIT"];
      // SqliteSaver's write batch runs in the registry's transaction (was: inside a SAVEPOINT and its RELEASE).
      const writes = ["BEGIN IMMEDIATE", "INSERT INTO", "saver writes", "COMMIT"];
      expect(threadwise).toEqual({
        inputPut: put,
        inputWrites: writes,
        loopPut: put,
        loopWrites: writes,
        read: ["SELECT head_id,", "saver read"],
      });
    }
    // The same rows: the checkpoint's messages and its pending write.
    const tuple = await saver.getTuple({ configurable: { thread_id: "t" } });
    const plainTuple = await plain.getTuple({ configurable: { thread_id: "t" } });
    expect(tuple?.checkpoint.channel_values.messages).toEqual(plainTuple?.checkpoint.channel_values.messages);
    expect(tuple?.pendingWrites).toEqual(plainTuple?.pendingWrites);
    plainDb.db.close();
    twDb.db.close();
  });
});

describe("an archive write's statements (issue 27)", () => {
  it("upserts a batch in one statement (32 rows a statement), storing what one statement per row stored", async () => {
    const SqliteSaver = loadSqliteSaver();
    const { db, ran } = openCounted(join(dir, "archive-counted.db"));
    const saver = new ThreadwiseSaver(new SqliteSaver(db), new SqliteThreadRegistry(db), { turnLeaseMs: 0 });
    const batch = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => new HumanMessage({ id: `m${from + i}`, content: `message ${from + i} 메시지` }));
    // The first write creates the tables and the thread's row.
    await saver.archiveMessages("t", batch(0, 1));
    const ten = await statementsOf(ran, () => saver.archiveMessages("t", batch(1, 10)));
    // The lock with the archive's mark, the batch's one upsert, the commit (was: one INSERT per message).
    expect(ten).toEqual(["BEGIN IMMEDIATE", "INSERT INTO", "INSERT INTO", "COMMIT"]);
    // 70 rows: 32 + 32 + 6, the seqs running on across the statements; m5 and m6 archived again
    // (m6 twice in this batch) keep their seq and take the newest record and the batch's stamp.
    const again = [...batch(11, 60), new HumanMessage({ id: "m5", content: "edited 5" }), ...batch(71, 7)];
    again.push(new HumanMessage({ id: "m6", content: "edited 6 once" }), new HumanMessage({ id: "m6", content: "edited 6 twice 두 번" }));
    const seventy = await statementsOf(ran, () => saver.archiveMessages("t", again));
    expect(seventy.filter((kind) => kind === "INSERT INTO")).toHaveLength(1 + 3);
    const rows = db
      .prepare("SELECT message_id AS id, seq, stamp FROM threadwise_archive WHERE thread_id = 't' ORDER BY seq")
      .all() as Array<{
      id: string;
      seq: number;
      stamp: number;
    }>;
    expect(rows.map((row) => row.id)).toEqual(Array.from({ length: 78 }, (_, i) => `m${i}`));
    // A row's seq is its place in its batch: those archived again leave theirs unused (m5's, 72).
    expect(rows.map((row) => row.seq)).toEqual(Array.from({ length: 78 }, (_, i) => (i < 71 ? i + 1 : i + 2)));
    expect(rows.map((row) => row.stamp)).toEqual([1, ...Array(4).fill(2), 3, 3, ...Array(4).fill(2), ...Array(67).fill(3)]);
    const messages = await saver.archivedMessages("t");
    expect(messages.map((message) => message.content)).toEqual(
      Array.from({ length: 78 }, (_, i) => (i === 5 ? "edited 5" : i === 6 ? "edited 6 twice 두 번" : `message ${i} 메시지`)),
    );
    db.close();
  });
});

describe("SqliteSaver's write batch inside the registry's transaction (issue 27)", () => {
  it("is undone whole when it fails, and keeps better-sqlite3's transaction outside it", async () => {
    const { db, ran } = openCounted(join(dir, "savepoint.db"));
    const registry = new SqliteThreadRegistry(db);
    // The checkpoint the writes belong to (commitWrites writes nothing for one not stored).
    db.prepare(
      "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) VALUES ('t', '', 'c1', 'json', '{}', '{}')",
    ).run();
    const saverDb = registry.saverDatabase();
    const insert = saverDb.prepare(
      "INSERT INTO writes (thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, type, value) VALUES (?, '', 'c1', 'task', ?, 'messages', 'json', ?)",
    );
    const count = () => (db.prepare("SELECT count(*) AS n FROM writes WHERE thread_id = 't'").get() as { n: number }).n;
    // A batch whose second row fails after its first row ran: the transaction keeps neither (a
    // savepoint's ROLLBACK TO used to undo the first; now the registry's ROLLBACK does).
    const failing = saverDb.transaction((rows: Array<[number, string]>) => {
      for (const [idx, value] of rows) {
        insert.run("t", idx, value);
        if (idx === 1) throw new Error("second row refused 두 번째");
      }
    });
    const statements = await statementsOf(ran, () =>
      expect(
        registry.commitWrites("t", { checkpointNs: "", checkpointId: "c1", endsTurn: false }, async () => {
          failing([
            [0, "first 첫"],
            [1, "second"],
          ]);
        }),
      ).rejects.toThrow("second row refused 두 번째"),
    );
    expect(statements).not.toContain("SAVEPOINT `");
    expect(statements.at(-1)).toBe("ROLLBACK");
    expect(count()).toBe(0);
    expect(db.inTransaction).toBe(false);
    // Called by the saver on its own (no registry transaction): BEGIN and COMMIT, or ROLLBACK, as better-sqlite3 runs them.
    const alone = await statementsOf(ran, async () => failing([[0, "alone 혼자"]]));
    expect(alone).toEqual(["BEGIN", "saver writes", "COMMIT"]);
    expect(count()).toBe(1);
    expect(() => failing([[1, "refused"]])).toThrow("second row refused");
    expect(count()).toBe(1);
    expect(db.inTransaction).toBe(false);
    db.close();
  });
});

describe("a LIMIT bound per call (issue 27)", () => {
  /** Every SQL text prepared on `db`'s connection while `run` runs. */
  async function preparedTexts(db: Db, run: () => Promise<void>): Promise<string[]> {
    const proto = Object.getPrototypeOf(db) as { prepare: (sql: string) => unknown };
    const prepare = proto.prepare;
    const texts: string[] = [];
    proto.prepare = function (this: Db, sql: string) {
      texts.push(sql);
      return prepare.call(this, sql);
    };
    try {
      await run();
    } finally {
      proto.prepare = prepare;
    }
    return texts;
  }

  it("is never a bare parameter, so SQLite compiles the statement once, and reads what it read", async () => {
    const Database = loadBetterSqlite3();
    const SqliteSaver = loadSqliteSaver();
    const db = new Database(join(dir, "limits.db"));
    const registry = new SqliteThreadRegistry(db);
    const saver = new ThreadwiseSaver(new SqliteSaver(db), registry, { turnLeaseMs: 0, tenantId: "acme" });
    const ids = Array.from({ length: 70 }, (_, i) => (i % 2 ? `m${i}` : `메시지-${i}`));
    const texts = await preparedTexts(db, async () => {
      await writeTurns(saver, "t", 3);
      await saver.archiveMessages(
        "t",
        ids.map((id, i) => new HumanMessage({ id, content: i % 2 ? `message ${i}` : `메시지 ${i}` })),
      );
      // The archive's tail (summarize's and messageArchive's reads), the store order (list), the
      // idle listing (retention), a tenant's threads and its stray archive rows (eraseTenant).
      for (const last of [1, 8, 64, 100]) {
        const tail = await registry.readArchiveTail("t", "acme", last);
        expect(tail.map((row) => row.messageId)).toEqual(ids.slice(-last));
      }
      expect(await registry.storeOrder("t", { limit: 2 })).toHaveLength(2);
      expect(await registry.storeOrder("t")).toHaveLength(6);
      expect((await registry.listIdle(new Date(Date.now() + 60_000), 5)).map((thread) => thread.threadId)).toEqual(["t"]);
      expect((await registry.tenantThreads("acme", 5)).map((thread) => thread.threadId)).toEqual(["t"]);
      expect(await registry.deleteTenantArchive("acme", 5)).toBe(0);
    });
    // SQLite (a STAT4 build, as better-sqlite3's) reads a bare `LIMIT ?`'s bound value while
    // planning: each new binding then expires the statement, and every run compiles it again.
    const bare = texts.filter((sql) => /\b(LIMIT|OFFSET)\s+[?@:$]/i.test(sql));
    expect(bare).toEqual([]);
    expect(texts.some((sql) => /\bLIMIT \+\?/.test(sql))).toBe(true);
    // The tail read's plan: the seq index read backwards, no sort.
    const tailSql = texts.find((sql) => sql.includes("ORDER BY seq DESC LIMIT")) as string;
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${tailSql}`).all("acme", "t", "x", 1) as Array<{ detail: string }>).map(
      (row) => row.detail,
    );
    expect(plan).toEqual(["SEARCH threadwise_archive USING INDEX threadwise_archive_seq (tenant_id=? AND thread_id=?)"]);
    db.close();
  });
});
