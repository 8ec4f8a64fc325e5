/**
 * User memory on PostgreSQL (issue 26, spec R40): `threadwise migrate` creates PostgresStore's
 * tables; `memoryStack({ userMemory: true })` on `postgres` recalls across a user's threads from
 * them, directly and through PgBouncer in transaction mode; sealed values hold no plaintext; an
 * erase (`eraseUser`, `threadwise erase-user --threads --apply`) leaves the user's sentinel in no
 * row of any table of the schema, and in no byte of a SQLite file. Needs a real PostgreSQL server
 * and PgBouncer: required in CI (never skipped there), skipped locally without them, with the reason.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring } from "@threadwise/encryption";
import { createMemoryPool, eraseUser, memoryStack, migrate, postgresUserStore, runCli, userMemoryRetention } from "@threadwise/memory";
import { userNamespace } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const requestText = (messages: BaseMessage[]) =>
  messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
const dir = mkdtempSync(join(tmpdir(), "tw-user-memory-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Stack = ReturnType<typeof memoryStack>;
function agentOf(stack: Stack) {
  const model = scriptedModel(() => "noted");
  return { model, agent: createAgent({ model, ...stack }) };
}
const say = (agent: ReturnType<typeof agentOf>["agent"], content: string, thread: string, user: string) =>
  agent.invoke({ messages: [new HumanMessage(content)] }, { configurable: { thread_id: thread, user_id: user } });

/**
 * Rows of every table of `schema` whose text holds `needle`, as text or inside a `bytea` column
 * (whose text form is hex: checkpoint blobs and writes), per table (tables with none left out).
 */
async function sentinelRows(url: string, schema: string, needle: string): Promise<Record<string, number>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 AND table_type = 'BASE TABLE'",
      [schema],
    );
    const hits: Record<string, number> = {};
    for (const { table_name } of rows) {
      const r = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM "${schema}"."${table_name}" t WHERE t::text LIKE $1 OR t::text LIKE $2`,
        [`%${needle}%`, `%${Buffer.from(needle, "utf8").toString("hex")}%`],
      );
      if (Number(r.rows[0]?.n) > 0) hits[table_name] = Number(r.rows[0]?.n);
    }
    return hits;
  } finally {
    await client.end();
  }
}

// `migrate` holds its lock on one connection while the setups use another: a real server (required in CI).
describe.skipIf(skipUnlessRealPostgres("user memory on PostgreSQL"))("user memory on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let pool: pg.Pool;
  const stacks: Stack[] = [];
  beforeAll(async () => {
    db = await freshDatabase("twuser");
    const result = await migrate({ dsn: db.url, schema: db.schema });
    expect(result.applied).toEqual(expect.arrayContaining(["store:0", "store:3"]));
    expect(result.store).toBe(3);
    pool = createMemoryPool(db.url, { max: testPoolMax() });
  });
  afterAll(async () => {
    for (const stack of stacks) await stack.checkpointer?.close();
    await pool?.end();
    await db?.drop();
  });
  const stackOf = (extra: Parameters<typeof memoryStack>[0] = {}) => {
    const stack = memoryStack({
      backend: "postgres",
      postgresDsn: db.url,
      postgresSchema: db.schema,
      allowPlaintext: true,
      userMemory: true,
      pool,
      env: {},
      ...extra,
    });
    stacks.push(stack);
    return stack;
  };

  it("migrate reports the store as current the second time", async () => {
    const again = await migrate({ dsn: db.url, schema: db.schema });
    expect(again.applied).toEqual([]);
    expect(again.store).toBe(3);
  });

  it("recalls across a user's threads from PostgresStore, and never another user's", async () => {
    const stack = stackOf();
    expect(stack.store?.constructor.name).toBe("PostgresStore");
    await stack.checkpointer?.ready();
    const { agent, model } = agentOf(stack);
    await say(agent, "I'm vegetarian, and I moved to Busan last month.", "pg-t1", "pg-u1");
    await say(agent, "Where do I live now?", "pg-t2", "pg-u1");
    expect(requestText(model.calls.at(-1)?.messages as BaseMessage[])).toContain("Busan");
    await say(agent, "Where do I live now?", "pg-t3", "pg-u10");
    expect(requestText(model.calls.at(-1)?.messages as BaseMessage[])).not.toContain("Busan");
  });

  it("erase-user --threads --apply leaves the user's sentinel in no row of any table", async () => {
    const stack = stackOf();
    const { agent } = agentOf(stack);
    const sentinel = `ERASE${randomUUID().slice(0, 8)}`;
    const keep = `KEEP${randomUUID().slice(0, 8)}`;
    for (const thread of ["e-t1", "e-t2", "e-t3"]) await say(agent, `My locker code is ${sentinel}, thread ${thread}.`, thread, "erase-u1");
    await say(agent, `My locker code is ${keep}.`, "other-t1", "erase-u2");
    const before = await sentinelRows(db.url, db.schema, sentinel);
    expect(Object.keys(before).sort()).toEqual(expect.arrayContaining(["checkpoint_blobs", "store"]));
    const dry = await eraseUser({ dsn: db.url, schema: db.schema, userId: "erase-u1", threads: true });
    expect(dry).toMatchObject({ dryRun: true, threadIds: ["e-t1", "e-t2", "e-t3"] });
    let out = "";
    const code = await runCli(
      ["erase-user", "--dsn", db.url, "--schema", db.schema, "--user-id", "erase-u1", "--threads", "--apply", "--json"],
      {
        env: {},
        stdout: (text) => (out += text),
        stderr: (text) => console.error(text),
      },
    );
    expect(code).toBe(0);
    const report = JSON.parse(out) as { items: number; threads: Array<{ status: string }> };
    expect(report.items).toBeGreaterThan(0);
    expect(report.threads.map((t) => t.status)).toEqual(["deleted", "deleted", "deleted"]);
    const after = await sentinelRows(db.url, db.schema, sentinel);
    console.log(`[user memory erase] postgres: sentinel rows before ${JSON.stringify(before)}, after ${JSON.stringify(after)}`);
    expect(after).toEqual({});
    // The other user's memory is untouched.
    expect(Object.keys(await sentinelRows(db.url, db.schema, keep))).toContain("store");
  });

  it("seals every value with the keyring: the store table holds no plaintext", async () => {
    const keyringPath = join(dir, `keyring-${randomUUID()}.json`);
    createKeyring(keyringPath);
    const stack = stackOf({ keyringPath, allowPlaintext: false });
    const { agent, model } = agentOf(stack);
    // Last: once sealed records are in the database, a plaintext stack refuses to write beside them.
    const sentinel = `SEALED${randomUUID().slice(0, 8)}`;
    await say(agent, `My locker code is ${sentinel}.`, "seal-t1", "seal-u1");
    await say(agent, "What is my locker code?", "seal-t2", "seal-u1");
    expect(requestText(model.calls.at(-1)?.messages as BaseMessage[])).toContain(sentinel);
    expect(await sentinelRows(db.url, db.schema, sentinel)).toEqual({});
  });
});

describe.skipIf(skipUnlessRealPostgres("user-memory retention on PostgresStore"))("user-memory retention on PostgresStore", () => {
  it("reaches every user's namespace past the first listing page, though PostgresStore stops listing the ones it empties", async () => {
    const db = await freshDatabase("twuserret");
    await migrate({ dsn: db.url, schema: db.schema });
    const pool = createMemoryPool(db.url, { max: testPoolMax() });
    try {
      const store = postgresUserStore(pool, { schema: db.schema, dsn: db.url, max: testPoolMax() });
      const users = 1234;
      const base = Date.now();
      const hour = 3_600_000;
      // One insert, with the times set: users with an odd number wrote again an hour later, so at
      // the first cutoff their namespaces stay and the others' empty (and leave PostgresStore's listing).
      for (const tenant of ["ret", "ret-other"])
        await pool.query(
          `INSERT INTO "${db.schema}".store (namespace_path, key, value, created_at, updated_at)
           SELECT $1::text || lpad(i::text, 4, '0') || ':items', 'm:1', '{"v":1}'::jsonb, $2::timestamptz, CASE WHEN i % 2 = 1 THEN $3::timestamptz ELSE $2::timestamptz END
           FROM generate_series(0, $4::int - 1) AS i`,
          [`${userNamespace({ tenantId: tenant, userId: "u" }).slice(0, 4).join(":")}:u`, new Date(base), new Date(base + hour), users],
        );
      const count = async (tenant: string) =>
        Number(
          (
            await pool.query<{ n: string }>(`SELECT count(*) AS n FROM "${db.schema}".store WHERE namespace_path LIKE $1`, [
              `threadwise:user-memory:v1:${tenant}:%`,
            ])
          ).rows[0]?.n,
        );
      expect(await count("ret")).toBe(users);
      const report = await userMemoryRetention({ store, days: 1, tenantId: "ret", now: () => new Date(base + 86_400_000 + hour / 2) });
      expect(report.deleted).toBe(users / 2);
      expect(await count("ret")).toBe(users / 2);
      expect(await count("ret-other")).toBe(users);
      const all = await userMemoryRetention({ store, days: 1, tenantId: "ret", now: () => new Date(base + 86_400_000 + 2 * hour) });
      expect(all.deleted).toBe(users / 2);
      expect(await count("ret")).toBe(0);
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});

describe("user memory through PgBouncer (transaction mode)", () => {
  const bouncer = pgbouncerUrl("user memory through PgBouncer");
  it.skipIf(bouncer === undefined)("recalls across threads with every transaction on any server connection", async () => {
    const db = await freshDatabase("twuserb");
    await migrate({ dsn: db.url });
    const url = sameDatabase(bouncer as string, db.url);
    const pool = createMemoryPool(url, { mode: "transaction", idleTimeoutMillis: 300 });
    try {
      const stack = memoryStack({
        backend: "postgres",
        postgresDsn: url,
        pgPoolMode: "transaction",
        allowPlaintext: true,
        userMemory: true,
        pool,
        env: {},
      });
      const { agent, model } = agentOf(stack);
      await Promise.all(["b-u1", "b-u2", "b-u3"].map((user) => say(agent, `I moved to ${user}-city last month.`, `${user}-t1`, user)));
      await Promise.all(["b-u1", "b-u2", "b-u3"].map((user) => say(agent, "Where did I move?", `${user}-t2`, user)));
      const texts = model.calls.slice(3).map((call) => requestText(call.messages as BaseMessage[]));
      for (const user of ["b-u1", "b-u2", "b-u3"]) expect(texts.filter((t) => t.includes(`${user}-city`))).toHaveLength(1);
      await stack.checkpointer?.close();
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});

describe("user memory beside a SQLite file", () => {
  it("erase-user --threads deletes the user's threads: the sentinel is in no byte of the file or its WAL", async () => {
    const file = join(dir, "erase.sqlite");
    const stack = memoryStack({ backend: "sqlite", sqlitePath: file, userMemory: true, env: {} });
    const { agent } = agentOf(stack);
    const sentinel = `SQLITE-${randomUUID()}`;
    for (const thread of ["s-t1", "s-t2"]) await say(agent, `My locker code is ${sentinel}. ${"x".repeat(2000)}`, thread, "sq-u1");
    await say(agent, "keep me", "s-other", "sq-u2");
    const scan = () => {
      let hits = 0;
      for (const path of [file, `${file}-wal`, `${file}-shm`]) {
        if (!existsSync(path)) continue;
        const data = readFileSync(path);
        for (let at = data.indexOf(sentinel); at >= 0; at = data.indexOf(sentinel, at + 1)) hits += 1;
      }
      return hits;
    };
    const before = scan();
    expect(before).toBeGreaterThan(0);
    const report = await eraseUser({ sqlitePath: file, store: stack.store, userId: "sq-u1", threads: true, apply: true });
    expect(report.threadIds).toEqual(["s-t1", "s-t2"]);
    expect(report.threads.map((t) => t.status)).toEqual(["deleted", "deleted"]);
    const after = scan();
    console.log(`[user memory erase] sqlite: sentinel hits before ${before}, after ${after}`);
    expect(after).toBe(0);
    expect(await stack.store?.search(["threadwise"], { limit: 10 })).toSatisfy((items: unknown[]) =>
      items.every((item) => !JSON.stringify(item).includes(sentinel)),
    );
    await stack.checkpointer?.close();
  });
});
