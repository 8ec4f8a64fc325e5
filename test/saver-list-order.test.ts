/**
 * `ThreadwiseSaver.list` (what `getStateHistory` reads) orders a thread by the order its checkpoints
 * were stored in (the registry's insertion sequence), not by their ids: an id is a time-based UUID
 * from its writer's clock, and a writer 5 minutes behind stamps ids that sort before its parent's
 * (spec R38). `before`, `filter` and `limit` apply to that order; `limit` reads only that many
 * checkpoints; fork siblings list in the order they were stored. A store of schema version 6 is
 * migrated: what it held lists as before (by id), what is stored after lists after it. A SQLite
 * file of version 7 upgrades itself to 8 on open (the store-order table `WITHOUT ROWID`, every
 * number kept). On in_memory, SQLite and PostgreSQL; ids are made with the clock given, not
 * waited for. Two writer processes racing: test/clock-skew.slow.test.ts.
 */
import type { RunnableConfig } from "@langchain/core/runnables";
import { v6 } from "@langchain/core/utils/uuid";
import { type CheckpointListOptions, type CheckpointTuple, emptyCheckpoint, MemorySaver, uuid6 } from "@langchain/langgraph-checkpoint";
import {
  createCheckpointer,
  EXPECTED_SCHEMA,
  MemoryThreadRegistry,
  migrate,
  resolveMemoryConfig,
  SQLITE_SCHEMA_VERSION,
  ThreadwiseSaver,
} from "@threadwise/memory";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it, vi } from "vitest";
import { type Backend, backendStorage } from "./support/threadwise-savers.js";

const START_MS = Date.UTC(2026, 11, 5, 12);
const BEHIND_MS = 5 * 60_000;
/** The id a writer stamps at `msecs` (its clock). */
const idAt = (msecs: number) => v6({ msecs, nsecs: 0, clockseq: 0 });
/** A thread id of its own per test (the PostgreSQL database is the file's one). */
const newThread = () => `skewed-${uuid6(-1)}`;

async function listed(saver: ThreadwiseSaver, thread: string, options?: CheckpointListOptions): Promise<string[]> {
  const ids: string[] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: thread } }, options))
    ids.push(String(tuple.config.configurable?.checkpoint_id));
  return ids;
}

/** Stores a chain on `thread` from `from` (`undefined`: a new thread), step `i` stamped at `msecsOf(i)`; returns the ids in store order. */
async function chain(
  saver: ThreadwiseSaver,
  thread: string,
  steps: number,
  msecsOf: (step: number) => number,
  from?: string,
): Promise<string[]> {
  const stored: string[] = [];
  let config: RunnableConfig = { configurable: { thread_id: thread, checkpoint_ns: "", ...(from ? { checkpoint_id: from } : {}) } };
  for (let step = 0; step < steps; step += 1) {
    const id = idAt(msecsOf(step));
    // A chain from a chosen checkpoint starts as `updateState` does (a branch, stored whatever the head is).
    const source = from !== undefined && step === 0 ? "update" : step % 2 === 0 ? "input" : "loop";
    config = await saver.put(config, { ...emptyCheckpoint(), id }, { source, step, parents: {} }, {});
    stored.push(id);
  }
  return stored;
}

const storage = backendStorage("twlist");
const open = (backend: Backend) => createCheckpointer(resolveMemoryConfig(storage(backend, "fresh"), {})) as ThreadwiseSaver;

describe.each(["in_memory", "sqlite", "postgres"] as const)("list orders by store order, not by id: %s", (backend) => {
  it("a chain written by two writers, one 5 minutes behind: the parent chain from the head, with before, filter and limit", async () => {
    const saver = open(backend);
    const thread = newThread();
    try {
      // Turn by turn, writer A (right clock) then writer B (behind): B's ids sort before A's.
      const stored = await chain(saver, thread, 8, (step) => START_MS + step * 1000 - (step % 2 === 1 ? BEHIND_MS : 0));
      expect([...stored].sort()).not.toEqual(stored);
      const newestFirst = [...stored].reverse();
      expect(await listed(saver, thread)).toEqual(newestFirst);
      expect(await listed(saver, thread, { limit: 3 })).toEqual(newestFirst.slice(0, 3));
      const named = { configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: stored[5] } };
      expect(await listed(saver, thread, { before: named })).toEqual(stored.slice(0, 5).reverse());
      expect(await listed(saver, thread, { before: named, limit: 2 })).toEqual([stored[4], stored[3]]);
      expect(await listed(saver, thread, { filter: { source: "loop" } })).toEqual(newestFirst.filter((_, i) => i % 2 === 0));
      expect(await listed(saver, thread, { before: named, filter: { source: "input" }, limit: 2 })).toEqual([stored[4], stored[2]]);
      // `before` naming a checkpoint of another thread: by id, as LangGraph's savers do.
      const other = { configurable: { thread_id: "other", checkpoint_ns: "", checkpoint_id: stored[2] } };
      expect(await listed(saver, thread, { before: other })).toEqual(newestFirst.filter((id) => id < (stored[2] as string)));
      expect(await listed(saver, thread, { limit: 0 })).toEqual([]);
      // getTuple of the thread is its head whatever the ids say.
      expect((await saver.getTuple({ configurable: { thread_id: thread, checkpoint_ns: "" } }))?.checkpoint.id).toBe(stored[7]);
    } finally {
      await saver.close?.();
    }
  });

  it("fork siblings in the order they were stored, the later first, whatever their ids", async () => {
    const saver = open(backend);
    const thread = newThread();
    try {
      const [root] = await chain(saver, thread, 1, () => START_MS);
      // Two branches from the root: the first stamped ahead, the second (stored later) behind.
      const ahead = await chain(saver, thread, 2, (step) => START_MS + 1000 + step * 1000, root);
      const behind = await chain(saver, thread, 2, (step) => START_MS - BEHIND_MS + step * 1000, root);
      expect(await listed(saver, thread)).toEqual([...[...behind].reverse(), ...[...ahead].reverse(), root]);
      expect(await listed(saver, thread, { limit: 1 })).toEqual([behind[1]]);
    } finally {
      await saver.close?.();
    }
  });

  it("limit reads only that many checkpoints of a long thread, whose history it does not walk", async () => {
    const saver = open(backend);
    const thread = newThread();
    try {
      const stored = await chain(saver, thread, 40, (step) => START_MS + step * 1000 - (step % 3 === 1 ? BEHIND_MS : 0));
      // What the wrapped saver hands back, counted per checkpoint, and the sequence rows the registry reads.
      let read = 0;
      const getTuple = saver.inner.getTuple.bind(saver.inner);
      const innerList = saver.inner.list.bind(saver.inner);
      vi.spyOn(saver.inner, "getTuple").mockImplementation(async (config) => {
        const tuple = await getTuple(config);
        if (tuple) read += 1;
        return tuple;
      });
      vi.spyOn(saver.inner, "list").mockImplementation(async function* (config, options) {
        for await (const tuple of innerList(config, options)) {
          read += 1;
          yield tuple as CheckpointTuple;
        }
      });
      let rows = 0;
      const storeOrder = saver.registry.storeOrder.bind(saver.registry);
      vi.spyOn(saver.registry, "storeOrder").mockImplementation(async (threadId, query) => {
        const page = await storeOrder(threadId, query);
        rows += page.length;
        return page;
      });
      expect(await listed(saver, thread, { limit: 1 })).toEqual([stored[39]]);
      expect({ read, rows }).toEqual({ read: 1, rows: 1 });
      read = 0;
      rows = 0;
      const named = { configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: stored[20] } };
      expect(await listed(saver, thread, { before: named, limit: 2 })).toEqual([stored[19], stored[18]]);
      expect({ read, rows }).toEqual({ read: 2, rows: 2 });
    } finally {
      vi.restoreAllMocks();
      await saver.close?.();
    }
  });
});

/** Checkpoints stamped by a writer whose clock jumps back at step 2: their id order is not their store order. */
const OLD_MSECS = (step: number) => START_MS + step * 1000 - (step === 2 ? BEHIND_MS : 0);
/** Checkpoints stored after the migration by a writer further behind: their ids sort before every old one. */
const NEW_MSECS = (step: number) => START_MS - 2 * BEHIND_MS + step * 1000;

/** A store of version 6 holds `old`; after its migration, the old list as before (by id) and the new ones after them. */
async function expectMigrated(saver: ThreadwiseSaver, thread: string, old: string[]): Promise<void> {
  const byId = [...old].sort().reverse();
  expect(byId).not.toEqual([...old].reverse());
  expect(await listed(saver, thread)).toEqual(byId);
  const added = await chain(saver, thread, 3, NEW_MSECS, byId[0]);
  expect(await listed(saver, thread)).toEqual([...[...added].reverse(), ...byId]);
  expect(await listed(saver, thread, { limit: 4 })).toEqual([...[...added].reverse(), byId[0]]);
}

/** Version 7's store-order table as its release created it: a rowid table, its key and its order index each a B-tree of their own. */
const SEQ_TABLE_V7 = `CREATE TABLE threadwise_checkpoint_seq (
  thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
CREATE INDEX threadwise_checkpoint_seq_order ON threadwise_checkpoint_seq (thread_id, seq, checkpoint_id, checkpoint_ns)`;

describe("a SQLite file of schema version 7 is migrated to 8 on open", () => {
  it("the store-order table becomes WITHOUT ROWID with every number kept: a skewed chain lists in store order, new checkpoints after", async () => {
    const config = storage("sqlite", "fresh");
    const path = (config as { sqlitePath: string }).sqlitePath;
    const first = createCheckpointer(resolveMemoryConfig(config, {})) as ThreadwiseSaver;
    const thread = newThread();
    // Store order differs from id order (step 2 stamped behind), so numbers copied and numbers made again by id differ.
    const old = await chain(first, thread, 5, OLD_MSECS);
    const fork = await chain(first, thread, 2, (step) => START_MS - 2 * BEHIND_MS + step * 1000, old[1]);
    await first.close?.();
    const before = new Database(path);
    const rows = () => before.prepare("SELECT * FROM threadwise_checkpoint_seq ORDER BY thread_id, seq").all();
    const numbers = rows();
    expect(numbers).toHaveLength(7);
    // Back to version 7's layout, the same rows.
    before.exec(`ALTER TABLE threadwise_checkpoint_seq RENAME TO seq_copy; DROP INDEX threadwise_checkpoint_seq_order;
      ${SEQ_TABLE_V7}; INSERT INTO threadwise_checkpoint_seq SELECT thread_id, checkpoint_ns, checkpoint_id, seq FROM seq_copy;
      DROP TABLE seq_copy; UPDATE threadwise_schema_version SET version = 7 WHERE component = 'threadwise'`);
    const layout = () => ({
      withoutRowid: (before.prepare("PRAGMA main.table_list('threadwise_checkpoint_seq')").get() as { wr: number }).wr,
      // The table's B-trees: each a root page of the file's schema.
      btrees: before
        .prepare("SELECT name FROM sqlite_schema WHERE tbl_name = 'threadwise_checkpoint_seq' AND rootpage > 0 ORDER BY name")
        .pluck()
        .all(),
      version: before.prepare("SELECT version FROM threadwise_schema_version WHERE component = 'threadwise'").pluck().get(),
    });
    expect(layout()).toEqual({
      withoutRowid: 0,
      btrees: ["sqlite_autoindex_threadwise_checkpoint_seq_1", "threadwise_checkpoint_seq", "threadwise_checkpoint_seq_order"],
      version: 7,
    });
    expect(rows()).toEqual(numbers);
    const saver = createCheckpointer(resolveMemoryConfig(config, {})) as ThreadwiseSaver;
    try {
      await saver.ready();
      expect(layout()).toEqual({
        withoutRowid: 1,
        btrees: ["threadwise_checkpoint_seq", "threadwise_checkpoint_seq_order"],
        version: SQLITE_SCHEMA_VERSION,
      });
      expect(SQLITE_SCHEMA_VERSION).toBe(9);
      expect(rows()).toEqual(numbers);
      const stored = [...old, ...fork];
      expect(await listed(saver, thread)).toEqual([...stored].reverse());
      const named = { configurable: { thread_id: thread, checkpoint_ns: "", checkpoint_id: old[3] } };
      expect(await listed(saver, thread, { before: named })).toEqual([old[2], old[1], old[0]]);
      // A checkpoint stored again keeps its number; new ones are numbered after the copied ones.
      await saver.inner.put(
        { configurable: { thread_id: thread, checkpoint_ns: "" } },
        { ...emptyCheckpoint(), id: old[0] as string },
        { source: "loop", step: 0, parents: {} },
        {},
      );
      const added = await chain(saver, thread, 2, NEW_MSECS, fork[1]);
      expect(await listed(saver, thread)).toEqual([...[...added].reverse(), ...[...stored].reverse()]);
      expect(rows()).toEqual([
        ...numbers,
        ...added.map((id, i) => ({ thread_id: thread, checkpoint_ns: "", checkpoint_id: id, seq: 8 + i })),
      ]);
    } finally {
      before.close();
      await saver.close?.();
    }
  });
});

describe("a store of schema version 6 is migrated to 7", () => {
  it("SQLite: a file of version 6 opens at version 7 (and 8); what it held lists as before, new checkpoints after", async () => {
    const config = storage("sqlite", "fresh");
    const path = (config as { sqlitePath: string }).sqlitePath;
    const first = createCheckpointer(resolveMemoryConfig(config, {})) as ThreadwiseSaver;
    const thread = newThread();
    // The old checkpoints, in a file then brought back to version 6 (what version 7 added removed).
    const old = await chain(first, thread, 5, OLD_MSECS);
    await first.close?.();
    const db = new Database(path);
    db.exec(`DROP TRIGGER threadwise_checkpoint_seq_insert; DROP TABLE threadwise_checkpoint_seq;
      UPDATE threadwise_schema_version SET version = 6 WHERE component = 'threadwise'`);
    db.close();
    const saver = createCheckpointer(resolveMemoryConfig(config, {})) as ThreadwiseSaver;
    try {
      await saver.ready();
      const check = new Database(path, { readonly: true });
      expect(check.prepare("SELECT version FROM threadwise_schema_version WHERE component = 'threadwise'").pluck().get()).toBe(
        SQLITE_SCHEMA_VERSION,
      );
      expect(SQLITE_SCHEMA_VERSION).toBe(9);
      check.close();
      await expectMigrated(saver, thread, old);
    } finally {
      await saver.close?.();
    }
  });

  it("PostgreSQL: migrate applies threadwise:7 (and 8) to a schema of version 6; what it held lists as before, new checkpoints after", async () => {
    const config = storage("postgres") as { postgresDsn: string; postgresSchema: string };
    const first = open("postgres");
    const thread = newThread();
    const old = await chain(first, thread, 5, OLD_MSECS);
    await first.close?.();
    const client = new pg.Client({ connectionString: config.postgresDsn });
    await client.connect();
    const s = `"${config.postgresSchema}"`;
    try {
      await client.query(`DROP TRIGGER threadwise_checkpoint_seq ON ${s}.checkpoints; DROP FUNCTION ${s}.threadwise_checkpoint_seq_insert();
        DROP TABLE ${s}.threadwise_checkpoint_seq; DROP TABLE ${s}.threadwise_checkpoint_counter; UPDATE ${s}.threadwise_schema_version SET version = 6 WHERE component = 'threadwise'`);
    } finally {
      await client.end();
    }
    const v6Saver = open("postgres");
    await expect(v6Saver.ready()).rejects.toMatchObject({ code: "THREADWISE_SCHEMA_VERSION", found: 6 });
    await v6Saver.close?.();
    expect((await migrate({ dsn: config.postgresDsn, schema: config.postgresSchema })).applied).toEqual(["threadwise:7", "threadwise:8"]);
    expect(EXPECTED_SCHEMA.threadwise).toBe(8);
    const saver = open("postgres");
    try {
      await expectMigrated(saver, thread, old);
    } finally {
      await saver.close?.();
    }
  });

  it("in memory: a MemorySaver filled before its registry; what it held lists as before, new checkpoints after", async () => {
    const memory = new MemorySaver();
    const thread = newThread();
    let config: RunnableConfig = { configurable: { thread_id: thread, checkpoint_ns: "" } };
    const old: string[] = [];
    for (let step = 0; step < 5; step += 1) {
      const id = idAt(OLD_MSECS(step));
      config = await memory.put(config, { ...emptyCheckpoint(), id }, { source: "loop", step, parents: {} });
      old.push(id);
    }
    const saver = new ThreadwiseSaver(memory, new MemoryThreadRegistry(memory));
    await expectMigrated(saver, thread, old);
  });
});
