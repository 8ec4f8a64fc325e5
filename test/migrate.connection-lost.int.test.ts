/**
 * `migrate` when the connection to PostgreSQL is dropped mid-run (ECONNRESET seen under load in
 * a `beforeAll`): migrate runs in one transaction, so a lost connection rolls it all back and
 * migrate starts over and completes; when every attempt loses its connection it throws `ThreadwiseConnectionLostError`
 * saying to re-run `threadwise migrate`, and what it did is whole. And a memory pool: a connection
 * reset under a lent client fails the query, never the process.
 */
import {
  connectionLostReason,
  createMemoryPool,
  EXPECTED_SCHEMA,
  MIGRATE_RETRY_DELAYS_MS,
  migrate,
  readVersions,
  ThreadwiseConnectionLostError,
} from "@threadwise/memory";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";
import { resettingProxy } from "./support/resetting-proxy.js";

async function versionsOf(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await readVersions(client);
  } finally {
    await client.end();
  }
}

describe.skipIf(skipUnlessRealPostgres("migrate with a dropped connection"))("migrate with a dropped connection", () => {
  it("a connection reset at migrate's first query: migrate starts over and brings the schema up to date", async () => {
    const db = await freshDatabase("twreset");
    const proxy = await resettingProxy(db.url, (connection, query) => connection === 0 && query === 0);
    try {
      const result = await migrate({ dsn: proxy.url });
      expect(proxy.resets).toBe(1);
      expect(result.applied.filter((step) => step.startsWith("threadwise:"))).toHaveLength(EXPECTED_SCHEMA.threadwise);
      expect(await versionsOf(db.url)).toMatchObject({
        checkpoint: EXPECTED_SCHEMA.checkpoint,
        threadwise: EXPECTED_SCHEMA.threadwise,
        missingTables: [],
      });
      expect((await migrate({ dsn: db.url })).applied).toEqual([]);
    } finally {
      await proxy.close();
      await db.drop();
    }
  });

  it("a reset in the middle (PostgresSaver's steps half done): the run is rolled back and redone, each step recorded once", async () => {
    const db = await freshDatabase("twreset");
    // Query 12 of the first run is inside PostgresSaver.setup(), after some of its steps.
    const proxy = await resettingProxy(db.url, (connection, query) => connection === 0 && query === 12);
    try {
      const result = await migrate({ dsn: proxy.url });
      expect(proxy.resets).toBe(1);
      expect(result).toMatchObject({ checkpoint: EXPECTED_SCHEMA.checkpoint, threadwise: EXPECTED_SCHEMA.threadwise });
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ v: number; n: number }>(
          "SELECT v, count(*)::int AS n FROM checkpoint_migrations GROUP BY v ORDER BY v",
        );
        expect(rows.every((row) => row.n === 1)).toBe(true);
        expect(rows.map((row) => row.v)).toEqual([...Array(EXPECTED_SCHEMA.checkpoint + 1).keys()]);
      } finally {
        await client.end();
      }
    } finally {
      await proxy.close();
      await db.drop();
    }
  });

  it("lost on every attempt: ThreadwiseConnectionLostError naming the reason and the command to re-run", async () => {
    const db = await freshDatabase("twreset");
    const proxy = await resettingProxy(db.url, () => true);
    try {
      const error = await migrate({ dsn: proxy.url }).catch((thrown: unknown) => thrown);
      expect(ThreadwiseConnectionLostError.isInstance(error)).toBe(true);
      const lost = error as ThreadwiseConnectionLostError;
      expect(lost.operation).toBe("migrate");
      expect(lost.attempts).toBe(MIGRATE_RETRY_DELAYS_MS.length + 1);
      expect(lost.reason).toMatch(/ECONNRESET|connection-terminated/);
      expect(lost.message).toContain("re-run `threadwise migrate`");
      expect(lost.message).not.toContain("postgres:postgres");
      expect(proxy.resets).toBe(MIGRATE_RETRY_DELAYS_MS.length + 1);
      expect(proxy.connections).toBe(MIGRATE_RETRY_DELAYS_MS.length + 1);
      // Nothing was half-applied: a run once the database is reachable completes.
      expect((await migrate({ dsn: db.url })).threadwise).toBe(EXPECTED_SCHEMA.threadwise);
    } finally {
      await proxy.close();
      await db.drop();
    }
  });
});

describe.skipIf(skipUnlessRealPostgres("a memory pool with a dropped connection"))("a memory pool with a dropped connection", () => {
  // pg emits `error` on a lent client (pool.connect(), as PostgresSaver and the registries use)
  // whose connection is reset mid-query; pg-pool listens only while the client is idle, so the
  // event was unhandled and ended the process (vitest: "Unhandled Errors ... read ECONNRESET").
  it("a connection reset while a lent client queries fails that query, not the process", async () => {
    const db = await freshDatabase("twreset");
    const proxy = await resettingProxy(db.url, (connection, query) => connection === 0 && query === 0);
    const pool = createMemoryPool(proxy.url, { logger: false });
    try {
      const client = await pool.connect();
      const error = await client.query("SELECT 1").catch((thrown: unknown) => thrown);
      client.release(true);
      expect(connectionLostReason(error)).toBeDefined();
      expect((await pool.query<{ n: number }>("SELECT 2 AS n")).rows).toEqual([{ n: 2 }]);
    } finally {
      await pool.end();
      await proxy.close();
      await db.drop();
    }
  });
});
