/**
 * The store order under concurrent writers on PostgreSQL (spec R38): writers that insert into one
 * thread in the same instant get distinct numbers, in the order they stored (a writer's own
 * checkpoints, stored one after another, number upward). Each put is a bare PostgresSaver's
 * (LangGraph's own saver on the same tables, or a writer outside threadwise's registry, which
 * would otherwise serialize a thread's writers on its row): nothing but the trigger orders them.
 * Two pools, direct and through PgBouncer in transaction mode. A schema of version 7 whose thread
 * already holds ties is migrated to 8: the ties are numbered apart in the order they were listed.
 */
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { EXPECTED_SCHEMA, migrate } from "@threadwise/memory";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const skip = skipUnlessRealPostgres("store order under concurrent writers");
const bouncer = skip ? undefined : pgbouncerUrl("store order under concurrent writers");
/** Concurrent writers, each storing its checkpoints one after another. */
const WRITERS = 8;
const PER_WRITER = 12;

describe.skipIf(skip)("the store order under concurrent writers (PostgreSQL)", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  let admin: pg.Pool;
  beforeAll(async () => {
    db = await freshDatabase("twseq");
    await migrate({ dsn: db.url, schema: db.schema });
    admin = new pg.Pool({ connectionString: db.url, max: 1 });
  }, 120_000);
  afterAll(async () => {
    await admin?.end();
    await db?.drop();
  });

  /** `WRITERS` writers over two pools on `urls`, all on one thread; returns each writer's ids in the order it stored them. */
  async function race(urls: [string, string], thread: string): Promise<string[][]> {
    const pools = urls.map((url) => new pg.Pool({ connectionString: url, max: WRITERS / 2 }));
    try {
      const savers = pools.map((pool) => new PostgresSaver(pool, undefined, { schema: db.schema }));
      return await Promise.all(
        Array.from({ length: WRITERS }, async (_, writer) => {
          const saver = savers[writer % 2] as PostgresSaver;
          const ids: string[] = [];
          for (let step = 0; step < PER_WRITER; step += 1) {
            const id = uuid6(writer);
            await saver.put(
              { configurable: { thread_id: thread, checkpoint_ns: "" } },
              { ...emptyCheckpoint(), id },
              { source: "loop", step, parents: {} },
              {},
            );
            ids.push(id);
          }
          return ids;
        }),
      );
    } finally {
      await Promise.all(pools.map((pool) => pool.end()));
    }
  }

  async function numbers(thread: string): Promise<Map<string, number>> {
    const { rows } = await admin.query<{ checkpoint_id: string; seq: string }>(
      `SELECT checkpoint_id, seq FROM "${db.schema}".threadwise_checkpoint_seq WHERE thread_id = $1`,
      [thread],
    );
    return new Map(rows.map((row) => [row.checkpoint_id, Number(row.seq)]));
  }

  async function expectUniqueInStoreOrder(thread: string, stored: string[][]): Promise<void> {
    const seq = await numbers(thread);
    expect(seq.size).toBe(WRITERS * PER_WRITER);
    // Distinct and without gaps: 1..n.
    expect([...seq.values()].sort((a, b) => a - b)).toEqual(Array.from({ length: WRITERS * PER_WRITER }, (_, i) => i + 1));
    // Each writer's checkpoints number upward, the order it stored them in.
    for (const ids of stored) {
      const own = ids.map((id) => seq.get(id) as number);
      expect(own).toEqual([...own].sort((a, b) => a - b));
    }
  }

  it("two pools on the server: every checkpoint of the thread gets its own number, in store order", async () => {
    const thread = `race-${uuid6(-1)}`;
    await expectUniqueInStoreOrder(thread, await race([db.url, db.url], thread));
  });

  it.skipIf(bouncer === undefined)("one pool direct, one through PgBouncer (transaction mode): the same", async () => {
    const thread = `race-bouncer-${uuid6(-1)}`;
    await expectUniqueInStoreOrder(thread, await race([db.url, sameDatabase(bouncer as string, db.url)], thread));
  });

  it("migrate to 8 on a live database: a version-7 writer's insert in progress is numbered before the counter starts", async () => {
    const thread = `live-${uuid6(-1)}`;
    const s = `"${db.schema}"`;
    // Back to version 7: its trigger function (the thread's highest number + 1), no counter.
    await admin.query(
      `DROP TABLE ${s}.threadwise_checkpoint_counter;
       CREATE OR REPLACE FUNCTION ${s}.threadwise_checkpoint_seq_insert() RETURNS trigger LANGUAGE plpgsql
         SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
       BEGIN
         INSERT INTO ${s}.threadwise_checkpoint_seq (thread_id, checkpoint_ns, checkpoint_id, seq)
           SELECT NEW.thread_id, NEW.checkpoint_ns, NEW.checkpoint_id, coalesce(max(seq), 0) + 1
           FROM ${s}.threadwise_checkpoint_seq WHERE thread_id = NEW.thread_id
           ON CONFLICT DO NOTHING;
         RETURN NULL;
       END $fn$;
       UPDATE ${s}.threadwise_schema_version SET version = 7 WHERE component = 'threadwise'`,
    );
    const insert = `INSERT INTO ${s}.checkpoints (thread_id, checkpoint_ns, checkpoint_id, checkpoint, metadata) VALUES ($1, '', $2, '{"ts": "2026-12-05T12:00:00.000Z"}', '{}')`;
    const first = uuid6(-1);
    await admin.query(insert, [thread, first]);
    // A writer of version 7, its insert numbered and not committed while migrate runs.
    const writer = new pg.Client({ connectionString: db.url });
    await writer.connect();
    const inFlight = uuid6(-1);
    try {
      await writer.query("BEGIN");
      await writer.query(insert, [thread, inFlight]);
      const pending = migrate({ dsn: db.url, schema: db.schema });
      // Until migrate finishes or waits for a lock (the writer's): no timing assumed either way.
      let state = "running";
      void pending.then(
        () => {
          state = "done";
        },
        () => {
          state = "failed";
        },
      );
      while (state === "running") {
        const { rows } = await admin.query(
          "SELECT 1 FROM pg_stat_activity WHERE application_name = 'threadwise-migrate' AND wait_event_type = 'Lock'",
        );
        if (rows.length > 0) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      await writer.query("COMMIT");
      expect((await pending).applied).toEqual(["threadwise:8"]);
    } finally {
      await writer.end();
    }
    const after = uuid6(-1);
    await admin.query(insert, [thread, after]);
    const seq = await numbers(thread);
    expect([first, inFlight, after].map((id) => seq.get(id))).toEqual([1, 2, 3]);
  });

  it("migrate to 8 numbers a version-7 thread's ties apart, in the order they were listed, and later ones after", async () => {
    const thread = `ties-${uuid6(-1)}`;
    const s = `"${db.schema}"`;
    const ids = Array.from({ length: 4 }, () => uuid6(-1));
    // What a race under version 7 left: two pairs of ties (listed by id within a tie).
    for (const [i, id] of ids.entries())
      await admin.query(
        `INSERT INTO ${s}.threadwise_checkpoint_seq (thread_id, checkpoint_ns, checkpoint_id, seq) VALUES ($1, '', $2, $3)
         ON CONFLICT (thread_id, checkpoint_ns, checkpoint_id) DO UPDATE SET seq = EXCLUDED.seq`,
        [thread, id, i < 2 ? 1 : 2],
      );
    await admin.query(
      `DROP TABLE ${s}.threadwise_checkpoint_counter;
       UPDATE ${s}.threadwise_schema_version SET version = 7 WHERE component = 'threadwise'`,
    );
    expect((await migrate({ dsn: db.url, schema: db.schema })).applied).toEqual(["threadwise:8"]);
    expect(EXPECTED_SCHEMA.threadwise).toBe(8);
    const saver = new PostgresSaver(new pg.Pool({ connectionString: db.url, max: 1 }), undefined, { schema: db.schema });
    const later = uuid6(-1);
    try {
      await saver.put(
        { configurable: { thread_id: thread, checkpoint_ns: "" } },
        { ...emptyCheckpoint(), id: later },
        {
          source: "loop",
          step: 5,
          parents: {},
        } as never,
        {},
      );
    } finally {
      await saver.end();
    }
    const seq = await numbers(thread);
    expect([...ids, later].map((id) => seq.get(id))).toEqual([1, 2, 3, 4, 5]);
  });
});
