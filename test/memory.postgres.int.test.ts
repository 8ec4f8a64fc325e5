/**
 * @threadwise/memory on PostgreSQL: migrations, the runtime role without DDL rights, schema-version
 * refusal, prune and retention (with a concurrent update), tombstones (spec R20-R25).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring } from "@threadwise/encryption";
import {
  createMemoryPool,
  EXPECTED_SCHEMA,
  memoryStack,
  migrate,
  prune,
  retention,
  type ThreadwiseSaver,
  ThreadwiseSchemaVersionError,
  ThreadwiseThreadDeletedError,
} from "@threadwise/memory";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres, withCredentials } from "./fixtures/memory-postgres.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const echo = () => scriptedModel((messages) => `echo:${text(messages.filter((m) => m.getType() === "human").at(-1) as BaseMessage)}`);

async function say(agent: ReturnType<typeof createAgent>, thread: string, words: string) {
  return agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: thread } });
}

async function rowsOf(url: string, schema: string, threadId: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const count = async (table: string) =>
      Number((await client.query(`SELECT count(*) AS n FROM "${schema}".${table} WHERE thread_id = $1`, [threadId])).rows[0].n);
    return {
      checkpoints: await count("checkpoints"),
      blobs: await count("checkpoint_blobs"),
      writes: await count("checkpoint_writes"),
      archived: await count("threadwise_archive"),
    };
  } finally {
    await client.end();
  }
}

async function sql(url: string, query: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(query, values)).rows;
  } finally {
    await client.end();
  }
}

describe.skipIf(skipUnlessRealPostgres("memory on PostgreSQL"))("memory on PostgreSQL: migrations, versions, prune, tombstones", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const stacks: ThreadwiseSaver[] = [];
  const open = (extra: Parameters<typeof memoryStack>[0] = {}) => {
    const stack = memoryStack({
      backend: "postgres",
      postgresDsn: db.url,
      postgresSchema: db.schema,
      pgPoolMax: testPoolMax(),
      allowPlaintext: true,
      env: {},
      ...extra,
    });
    if (stack.checkpointer) stacks.push(stack.checkpointer);
    return stack;
  };

  beforeAll(async () => {
    db = await freshDatabase("twmem");
  });
  afterAll(async () => {
    for (const saver of stacks) await saver.close().catch(() => undefined);
    await db.drop();
  });

  it("refuses to start on an empty database, naming the missing tables and the fix", async () => {
    const stack = open();
    const error = await stack.checkpointer?.ready().catch((e: unknown) => e);
    expect(ThreadwiseSchemaVersionError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseSchemaVersionError).found).toBeNull();
    expect((error as Error).message).toContain("checkpoints");
    expect((error as Error).message).toContain("threadwise migrate");
    // An agent on it fails the same way on its first call, and creates nothing.
    const agentError = await say(createAgent({ model: echo(), ...stack }), "t", "hi").catch((e: unknown) => e);
    expect(ThreadwiseSchemaVersionError.isInstance(agentError)).toBe(true);
    const tables = await sql(db.url, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [db.schema]);
    expect(tables).toEqual([]);
  });

  it("migrate creates every table at the expected versions, and is idempotent", async () => {
    const first = await migrate({ dsn: db.url, schema: db.schema });
    expect(first.applied).toEqual([
      "checkpoint:0",
      "checkpoint:1",
      "checkpoint:2",
      "checkpoint:3",
      "checkpoint:4",
      "store:0",
      "store:1",
      "store:2",
      "store:3",
      "threadwise:1",
      "threadwise:2",
      "threadwise:3",
      "threadwise:4",
      "threadwise:5",
      "threadwise:6",
      "threadwise:7",
      "threadwise:8",
    ]);
    expect(first).toMatchObject({ checkpoint: EXPECTED_SCHEMA.checkpoint, store: 3, threadwise: EXPECTED_SCHEMA.threadwise });
    const second = await migrate({ dsn: db.url, schema: db.schema });
    expect(second.applied).toEqual([]);
    const tables = (await sql(db.url, "SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [db.schema])).map(
      (r) => r.table_name,
    );
    expect(tables.sort()).toEqual(
      [
        "checkpoint_blobs",
        "checkpoint_migrations",
        "checkpoint_writes",
        "checkpoints",
        "store",
        "store_migrations",
        "threadwise_archive",
        "threadwise_checkpoint_counter",
        "threadwise_checkpoint_seq",
        "threadwise_operations",
        "threadwise_schema_version",
        "threadwise_threads",
      ].sort(),
    );
  });

  it("runs several turns once migrated", async () => {
    const stack = open();
    await stack.checkpointer?.ready();
    const agent = createAgent({ model: echo(), ...stack });
    await say(agent, "alive", "one");
    await say(agent, "alive", "two");
    const state = await agent.graph.getState({ configurable: { thread_id: "alive" } });
    expect((state.values as { messages: BaseMessage[] }).messages.map(text)).toEqual(["one", "echo:one", "two", "echo:two"]);
    const registered = await sql(db.url, `SELECT thread_id, deleted_at FROM "${db.schema}".threadwise_threads WHERE thread_id = 'alive'`);
    expect(registered).toEqual([{ thread_id: "alive", deleted_at: null }]);
  });

  it("checks versions tolerantly: newer (additive) schemas run, older or breaking ones are refused", async () => {
    const schema = `"${db.schema}"`;
    // An additive upstream migration (a newer PostgresSaver's setup(): a new column, v 5).
    await sql(db.url, `ALTER TABLE ${schema}.checkpoints ADD COLUMN IF NOT EXISTS upstream_extra TEXT`);
    await sql(db.url, `INSERT INTO ${schema}.checkpoint_migrations (v) VALUES (5)`);
    // A newer threadwise's additive migration.
    await sql(db.url, `UPDATE ${schema}.threadwise_schema_version SET version = 99 WHERE component = 'threadwise'`);
    const stack = open();
    await expect(stack.checkpointer?.ready()).resolves.toBeUndefined();
    const agent = createAgent({ model: echo(), ...stack });
    await say(agent, "newer-schema", "hi");
    expect((await agent.graph.getState({ configurable: { thread_id: "newer-schema" } })).values.messages.map(text)).toEqual([
      "hi",
      "echo:hi",
    ]);

    // A newer threadwise that made a breaking change is refused.
    await sql(db.url, `UPDATE ${schema}.threadwise_schema_version SET version = 99 WHERE component = 'threadwise_compatible_from'`);
    const breaking = await open()
      .checkpointer?.ready()
      .catch((e: unknown) => e);
    expect(ThreadwiseSchemaVersionError.isInstance(breaking)).toBe(true);
    expect(breaking).toMatchObject({
      component: "threadwise",
      expected: EXPECTED_SCHEMA.threadwise,
      found: 99,
      code: "THREADWISE_SCHEMA_VERSION",
    });
    expect((breaking as Error).message).toContain("from version 99");
    await sql(db.url, `UPDATE ${schema}.threadwise_schema_version SET version = 1 WHERE component = 'threadwise_compatible_from'`);
    await sql(db.url, `UPDATE ${schema}.threadwise_schema_version SET version = $1 WHERE component = 'threadwise'`, [
      EXPECTED_SCHEMA.threadwise,
    ]);

    // Older than this release needs: a missing PostgresSaver step, or pending threadwise migrations.
    await sql(db.url, `DELETE FROM ${schema}.checkpoint_migrations WHERE v >= 4`);
    const older = await open()
      .checkpointer?.ready()
      .catch((e: unknown) => e);
    expect(older).toMatchObject({ component: "checkpoint", expected: 4, found: 3 });
    await sql(db.url, `INSERT INTO ${schema}.checkpoint_migrations (v) VALUES (4), (5)`);
    await sql(db.url, `UPDATE ${schema}.threadwise_schema_version SET version = 0 WHERE component = 'threadwise'`);
    const pending = await open()
      .checkpointer?.ready()
      .catch((e: unknown) => e);
    expect(pending).toMatchObject({ component: "threadwise", expected: EXPECTED_SCHEMA.threadwise, found: 0 });
    await sql(db.url, `UPDATE ${schema}.threadwise_schema_version SET version = $1 WHERE component = 'threadwise'`, [
      EXPECTED_SCHEMA.threadwise,
    ]);
    await expect(open().checkpointer?.ready()).resolves.toBeUndefined();
  });

  it("migrate leaves PostgresSaver's tables to PostgresSaver.setup(): on a schema it set up, only threadwise's steps run", async () => {
    const schema = `tw_setup_${randomUUID().slice(0, 8)}`;
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await new PostgresSaver(pool, undefined, { schema }).setup();
    } finally {
      await pool.end();
    }
    const result = await migrate({ dsn: db.url, schema });
    expect(result).toEqual({
      applied: [
        "store:0",
        "store:1",
        "store:2",
        "store:3",
        "threadwise:1",
        "threadwise:2",
        "threadwise:3",
        "threadwise:4",
        "threadwise:5",
        "threadwise:6",
        "threadwise:7",
        "threadwise:8",
      ],
      checkpoint: 4,
      store: 3,
      threadwise: EXPECTED_SCHEMA.threadwise,
    });
    const versions = await sql(db.url, `SELECT component, version FROM "${schema}".threadwise_schema_version ORDER BY component`);
    expect(versions).toEqual([
      { component: "threadwise", version: EXPECTED_SCHEMA.threadwise },
      { component: "threadwise_compatible_from", version: 1 },
    ]);
    expect((await migrate({ dsn: db.url, schema })).applied).toEqual([]);
    await sql(db.url, `DROP SCHEMA "${schema}" CASCADE`);
  });

  it("prune: dry run lists threads with row counts and deletes nothing; --apply deletes and tombstones", async () => {
    const stack = open();
    const agent = createAgent({ model: echo(), ...stack });
    for (const id of ["p-old-1", "p-old-2", "p-new"]) await say(agent, id, "hi");
    await sql(
      db.url,
      `UPDATE "${db.schema}".threadwise_threads SET updated_at = now() - interval '40 days' WHERE thread_id LIKE 'p-old-%'`,
    );
    const target = { dsn: db.url, schema: db.schema };
    const dry = await prune({ ...target, olderThanDays: 30 });
    expect(dry.dryRun).toBe(true);
    expect(dry.candidates.map((c) => c.threadId)).toEqual(["p-old-1", "p-old-2"]);
    const before = await rowsOf(db.url, db.schema, "p-old-1");
    expect(before.checkpoints).toBeGreaterThan(0);
    expect(before.blobs).toBeGreaterThan(0);
    expect(dry.candidates[0]).toMatchObject(before);
    // Each candidate shows its own last write (was 1970-01-01 for every thread: the row counts'
    // placeholder date overwrote it), and a thread written now is no candidate by id with a cutoff.
    const [stored] = await sql(db.url, `SELECT updated_at FROM "${db.schema}".threadwise_threads WHERE thread_id = 'p-old-1'`);
    expect(dry.candidates[0]?.updatedAt.getTime()).toBe((stored.updated_at as Date).getTime());
    expect((await prune({ ...target, threadId: "p-new" })).candidates[0]?.updatedAt.getTime()).toBeGreaterThan(Date.now() - 3_600_000);
    expect((await prune({ ...target, threadId: "p-new", olderThanDays: 30 })).candidates).toEqual([]);
    expect(await rowsOf(db.url, db.schema, "p-old-1")).toEqual(before);

    const applied = await prune({ ...target, olderThanDays: 30, apply: true });
    expect(applied.outcomes.map((o) => [o.threadId, o.status])).toEqual([
      ["p-old-1", "deleted"],
      ["p-old-2", "deleted"],
    ]);
    expect(applied.outcomes[0]?.counts).toEqual(before);
    expect(await rowsOf(db.url, db.schema, "p-old-1")).toEqual({ checkpoints: 0, blobs: 0, writes: 0, archived: 0 });
    expect((await rowsOf(db.url, db.schema, "p-new")).checkpoints).toBeGreaterThan(0);
    const tombs = await sql(
      db.url,
      `SELECT thread_id, deleted_reason FROM "${db.schema}".threadwise_threads WHERE deleted_at IS NOT NULL ORDER BY 1`,
    );
    expect(tombs).toEqual([
      { thread_id: "p-old-1", deleted_reason: "prune" },
      { thread_id: "p-old-2", deleted_reason: "prune" },
    ]);
    // By id: dry run, then apply.
    expect((await prune({ ...target, threadId: "p-new" })).candidates.map((c) => c.threadId)).toEqual(["p-new"]);
    expect((await rowsOf(db.url, db.schema, "p-new")).checkpoints).toBeGreaterThan(0);
    expect((await prune({ ...target, threadId: "p-new", apply: true })).totals.threads).toBe(1);
  });

  it("a deleted thread id cannot be created again, by this process or a new one (tombstone)", async () => {
    const agent = createAgent({ model: echo(), ...open() });
    const error = await say(agent, "p-old-1", "I'm back").catch((e: unknown) => e);
    expect(ThreadwiseThreadDeletedError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("p-old-1");
    expect(await rowsOf(db.url, db.schema, "p-old-1")).toEqual({ checkpoints: 0, blobs: 0, writes: 0, archived: 0 });
    // deleteThread through the checkpointer: same result.
    const stack = open();
    await say(createAgent({ model: echo(), ...stack }), "via-api", "x");
    await stack.checkpointer?.deleteThread("via-api");
    expect(await rowsOf(db.url, db.schema, "via-api")).toEqual({ checkpoints: 0, blobs: 0, writes: 0, archived: 0 });
    const again = await say(createAgent({ model: echo(), ...open() }), "via-api", "y").catch((e: unknown) => e);
    expect((again as { code?: string }).code).toBe("THREADWISE_THREAD_DELETED");
    // The scope is the database and schema: another schema may use the same thread id.
    await migrate({ dsn: db.url, schema: "scope_b" });
    const other = open({ postgresSchema: "scope_b" });
    await say(createAgent({ model: echo(), ...other }), "via-api", "fresh start");
    const fresh = await createAgent({ model: echo(), ...other }).graph.getState({ configurable: { thread_id: "via-api" } });
    expect((fresh.values as { messages: BaseMessage[] }).messages.map(text)).toEqual(["fresh start", "echo:fresh start"]);
  });

  it("with a keyring the tables hold no plaintext; deletion and tombstones work the same", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tw-pg-keyring-"));
    try {
      const keyringPath = join(dir, "keyring.json");
      createKeyring(keyringPath);
      const sentinel = `sentinel-${randomUUID()}`;
      // Written first: a plaintext saver refuses every write once the store holds sealed records (R38).
      const plain = `plain-${randomUUID()}`;
      await say(createAgent({ model: echo(), ...open() }), "plain", plain);
      const stack = open({ keyringPath, allowPlaintext: false });
      const agent = createAgent({ model: echo(), ...stack });
      await say(agent, "sealed", `my code word is ${sentinel}`);
      const state = await agent.graph.getState({ configurable: { thread_id: "sealed" } });
      expect(JSON.stringify(state.values)).toContain(sentinel);
      const dump = await sql(
        db.url,
        `SELECT (SELECT coalesce(string_agg(checkpoint::text || metadata::text, ''), '') FROM "${db.schema}".checkpoints) ||
                (SELECT coalesce(string_agg(encode(coalesce(blob, ''::bytea), 'escape'), ''), '') FROM "${db.schema}".checkpoint_blobs) ||
                (SELECT coalesce(string_agg(encode(blob, 'escape'), ''), '') FROM "${db.schema}".checkpoint_writes) AS all_text`,
      );
      expect(String(dump[0].all_text).length).toBeGreaterThan(0);
      expect(String(dump[0].all_text)).not.toContain(sentinel);
      // Control: the same scan finds the sentinel written (before the sealed rows) without a keyring.
      const blobs = await sql(
        db.url,
        `SELECT string_agg(encode(coalesce(blob, ''::bytea), 'escape'), '') AS t FROM "${db.schema}".checkpoint_blobs`,
      );
      expect(String(blobs[0].t)).toContain(plain);
      expect((await stack.checkpointer?.deleteThreadWithOutcome("sealed"))?.status).toBe("deleted");
      expect(await rowsOf(db.url, db.schema, "sealed")).toEqual({ checkpoints: 0, blobs: 0, writes: 0, archived: 0 });
      expect(ThreadwiseThreadDeletedError.isInstance(await say(agent, "sealed", "again").catch((e: unknown) => e))).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("registers threads written before the threadwise tables existed (plain PostgresSaver data)", async () => {
    const saver = new PostgresSaver(new pg.Pool({ connectionString: db.url, max: 1 }), undefined, { schema: db.schema });
    const agent = createAgent({ model: echo(), checkpointer: saver });
    await say(agent, "legacy", "old data");
    await saver.end();
    const dry = await prune({ dsn: db.url, schema: db.schema, olderThanDays: 1, now: () => new Date(Date.now() + 86_400_000 + 60_000) });
    expect(dry.candidates.map((c) => c.threadId)).toContain("legacy");
  });
});

describe.skipIf(skipUnlessRealPostgres("memory runtime role / retention race"))("memory on a real PostgreSQL server", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const role = `tw_rt_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
  const password = `pw_${randomUUID().replace(/-/g, "")}`;
  let runtimeUrl: string;
  const savers: ThreadwiseSaver[] = [];

  beforeAll(async () => {
    db = await freshDatabase("twrole");
    await sql(db.url, `CREATE ROLE ${role} LOGIN PASSWORD '${password}' NOCREATEDB NOCREATEROLE`);
    runtimeUrl = withCredentials(db.url, role, password);
    await migrate({ dsn: db.url, grantTo: role });
  });
  afterAll(async () => {
    for (const saver of savers) await saver.close().catch(() => undefined);
    await db.drop();
    await sql(db.url.replace(/\/[^/?]+(\?|$)/, "/postgres$1"), `DROP ROLE IF EXISTS ${role}`);
  });

  const open = () => {
    const stack = memoryStack({ backend: "postgres", postgresDsn: runtimeUrl, allowPlaintext: true, env: {} });
    if (stack.checkpointer) savers.push(stack.checkpointer);
    return stack;
  };

  it("migrate (DDL role) then run with a runtime role that has no DDL rights", async () => {
    const stack = open();
    await stack.checkpointer?.ready();
    const agent = createAgent({ model: echo(), ...stack });
    await say(agent, "r1", "one");
    await say(agent, "r1", "two");
    const state = await agent.graph.getState({ configurable: { thread_id: "r1" } });
    expect((state.values as { messages: BaseMessage[] }).messages.map(text)).toEqual(["one", "echo:one", "two", "echo:two"]);
    // The role really cannot run DDL: PostgresSaver.setup() and a CREATE TABLE are refused.
    const saver = PostgresSaver.fromConnString(runtimeUrl);
    await expect(saver.setup()).rejects.toMatchObject({ code: "42501" });
    await saver.end();
    await expect(sql(runtimeUrl, "CREATE TABLE public.sneaky (x int)")).rejects.toMatchObject({ code: "42501" });
    // Ops work with the runtime role too (no DDL needed).
    expect((await prune({ dsn: runtimeUrl, threadId: "r1" })).candidates).toHaveLength(1);
  });

  it("an idle connection killed by the server is dropped with a warning, not a crash; the next query reconnects", async () => {
    const warnings: string[] = [];
    const pool = createMemoryPool(runtimeUrl, { logger: { info() {}, warn: (m) => void warnings.push(m) } });
    try {
      await pool.query("SELECT 1");
      expect(pool.idleCount).toBe(1);
      await sql(db.url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1 AND state = 'idle'", [role]);
      for (let i = 0; i < 50 && warnings.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(warnings).toEqual(["threadwise memory: an idle PostgreSQL connection was closed; it will be replaced"]);
      expect(warnings.join()).not.toContain(password);
      expect((await pool.query("SELECT 2 AS n")).rows).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
    }
  });

  it("a runtime role on an unmigrated schema is refused before any DDL", async () => {
    const stack = memoryStack({ backend: "postgres", postgresDsn: runtimeUrl, postgresSchema: "not_there", allowPlaintext: true, env: {} });
    if (stack.checkpointer) savers.push(stack.checkpointer);
    await expect(stack.checkpointer?.ready()).rejects.toMatchObject({ code: "THREADWISE_SCHEMA_VERSION", found: null });
  });

  it("retention re-checks each candidate under its row lock: a thread updated meanwhile survives", async () => {
    const agent = createAgent({ model: echo(), ...open() });
    await say(agent, "idle-updated", "hi");
    await say(agent, "idle-stale", "hi");
    await sql(db.url, `UPDATE threadwise_threads SET updated_at = now() - interval '40 days' WHERE thread_id LIKE 'idle-%'`);

    // Another replica writes to "idle-updated" and holds its row lock while retention runs.
    const writer = new pg.Client({ connectionString: runtimeUrl });
    await writer.connect();
    await writer.query("BEGIN");
    await writer.query("UPDATE threadwise_threads SET updated_at = now() WHERE thread_id = 'idle-updated'");
    const running = retention({ dsn: runtimeUrl, days: 30 });
    // Wait until retention has listed both candidates and is blocked on the locked row.
    for (let i = 0; i < 200; i += 1) {
      const waiting = await sql(
        db.url,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'threadwise' AND wait_event_type = 'Lock'",
      );
      if (waiting[0].n > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await writer.query("COMMIT");
    await writer.end();
    const report = await running;
    const byId = Object.fromEntries(report.outcomes.map((o) => [o.threadId, o.status]));
    expect(byId).toEqual({ "idle-updated": "updated", "idle-stale": "deleted" });
    expect(report.candidates.map((c) => c.threadId).sort()).toEqual(["idle-stale", "idle-updated"]);
    expect((await rowsOf(db.url, "public", "idle-updated")).checkpoints).toBeGreaterThan(0);
    expect(await rowsOf(db.url, "public", "idle-stale")).toEqual({ checkpoints: 0, blobs: 0, writes: 0, archived: 0 });
    // The survivor keeps working; the deleted one is a tombstone.
    await say(agent, "idle-updated", "still here");
    const error = await say(agent, "idle-stale", "hello?").catch((e: unknown) => e);
    expect(ThreadwiseThreadDeletedError.isInstance(error)).toBe(true);
  });

  it("a write racing a deletion either lands before it or meets the tombstone, never resurrects the thread", async () => {
    const agent = createAgent({ model: echo(), ...open() });
    await say(agent, "race", "hi");
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    await locker.query("BEGIN");
    await locker.query("SELECT 1 FROM threadwise_threads WHERE thread_id = 'race' FOR UPDATE");
    // The write blocks on the lock, like one racing retention; then the deletion commits.
    const write = say(agent, "race", "racing").catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await locker.query("DELETE FROM checkpoint_writes WHERE thread_id = 'race'");
    await locker.query("DELETE FROM checkpoint_blobs WHERE thread_id = 'race'");
    await locker.query("DELETE FROM checkpoints WHERE thread_id = 'race'");
    await locker.query("UPDATE threadwise_threads SET deleted_at = now(), deleted_reason = 'test' WHERE thread_id = 'race'");
    await locker.query("COMMIT");
    await locker.end();
    expect(ThreadwiseThreadDeletedError.isInstance(await write)).toBe(true);
    expect(await rowsOf(db.url, "public", "race")).toEqual({ checkpoints: 0, blobs: 0, writes: 0, archived: 0 });
  });
});
