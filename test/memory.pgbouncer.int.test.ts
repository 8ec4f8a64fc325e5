/**
 * The memory backend through PgBouncer in transaction mode (spec R22): threads, prune and
 * retention work when every transaction may land on another server connection; named prepared
 * statements are refused before they are sent; an idle pool holds no connection.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createMemoryPool, EXPECTED_SCHEMA, memoryStack, migrate, prune } from "@threadwise/memory";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const bouncer = pgbouncerUrl("memory through PgBouncer");
const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

describe.skipIf(bouncer === undefined)("memory through PgBouncer (transaction mode)", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let url: string;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await freshDatabase("twbounce");
    await migrate({ dsn: db.url });
    url = sameDatabase(bouncer as string, db.url);
    pool = createMemoryPool(url, { mode: "transaction", idleTimeoutMillis: 300 });
  });
  afterAll(async () => {
    await pool.end();
    await db.drop();
  });

  it("runs concurrent threads over several turns", async () => {
    const stack = memoryStack({ backend: "postgres", postgresDsn: url, pgPoolMode: "transaction", allowPlaintext: true, pool, env: {} });
    await stack.checkpointer?.ready();
    const model = scriptedModel((messages) => `seen ${messages.filter((m) => m.getType() === "human").length}`);
    const agent = createAgent({ model, ...stack });
    const threads = ["b1", "b2", "b3"];
    for (const turn of [1, 2, 3])
      await Promise.all(
        threads.map((thread) =>
          agent.invoke({ messages: [new HumanMessage(`${thread}-${turn}`)] }, { configurable: { thread_id: thread } }),
        ),
      );
    for (const thread of threads) {
      const state = await agent.graph.getState({ configurable: { thread_id: thread } });
      expect((state.values as { messages: BaseMessage[] }).messages.map(text)).toEqual([
        `${thread}-1`,
        "seen 1",
        `${thread}-2`,
        "seen 2",
        `${thread}-3`,
        "seen 3",
      ]);
    }
  });

  it("refuses named prepared statements before sending them", async () => {
    const error = await Promise.resolve()
      .then(() => pool.query({ name: "reused", text: "SELECT 1" }))
      .catch((e: unknown) => e);
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe("MEMORY_PG_POOL_MODE");
    const client = await pool.connect();
    try {
      expect(() => client.query({ name: "reused", text: "SELECT 1" })).toThrow(/named prepared statements/);
      expect((await client.query("SELECT $1::int AS n", [7])).rows).toEqual([{ n: 7 }]);
    } finally {
      client.release();
    }
  });

  it("prune dry run and apply work through the bouncer (row locks inside transactions)", async () => {
    const target = { dsn: url, poolMode: "transaction" as const };
    const dry = await prune({ ...target, threadId: "b1" });
    expect(dry.candidates.map((c) => c.threadId)).toEqual(["b1"]);
    expect(dry.candidates[0]?.checkpoints).toBeGreaterThan(0);
    const applied = await prune({ ...target, threadId: "b1", apply: true });
    expect(applied.outcomes.map((o) => o.status)).toEqual(["deleted"]);
    expect((await prune({ ...target, threadId: "b1" })).candidates).toEqual([]);
  });

  it("migrate runs through PgBouncer: concurrent runs take turns, each step once, and no lock is left on a server connection", async () => {
    const fresh = await freshDatabase("twbmig");
    const empty = await freshDatabase("twbmig");
    const viaBouncer = sameDatabase(bouncer as string, fresh.url);
    const emptyViaBouncer = sameDatabase(bouncer as string, empty.url);
    const direct = new pg.Client({ connectionString: fresh.url });
    await direct.connect();
    const advisoryLocks = async () =>
      (
        await direct.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND database IN (SELECT oid FROM pg_database WHERE datname = ANY($1))",
          [[fresh.url, empty.url].map((url) => new URL(url).pathname.slice(1))],
        )
      ).rows[0]?.n;
    try {
      const first = await migrate({ dsn: viaBouncer });
      expect(first.threadwise).toBe(EXPECTED_SCHEMA.threadwise);
      // A session lock taken through transaction pooling stays on the server connection PgBouncer
      // keeps: the next migrate landing elsewhere would wait for it forever.
      expect(await advisoryLocks()).toBe(0);
      expect((await migrate({ dsn: fresh.url })).applied).toEqual([]);
      // Two runs at once on an empty database: one waits for the other, every step applied once.
      const [a, b] = await Promise.all([migrate({ dsn: emptyViaBouncer }), migrate({ dsn: emptyViaBouncer })]);
      const steps = [...a.applied, ...b.applied];
      expect(steps.filter((step) => step.startsWith("threadwise:")).sort()).toEqual(
        [...Array(EXPECTED_SCHEMA.threadwise).keys()].map((i) => `threadwise:${i + 1}`).sort(),
      );
      expect(new Set(steps).size).toBe(steps.length);
      expect(await advisoryLocks()).toBe(0);
    } finally {
      await direct.end();
      await fresh.drop();
      await empty.drop();
    }
  }, 60_000);

  it("holds no connection once idle (minimum 0), at most 5 by default", async () => {
    expect(createMemoryPool(url).options.max).toBe(5);
    expect(pool.options.min).toBe(0);
    await pool.query("SELECT 1");
    expect(pool.totalCount).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(pool.totalCount).toBe(0);
  });
});
