/**
 * The message archive on PostgreSQL (issue 27): migration 4 creates `threadwise_archive`; a whole
 * replayed conversation keeps every message (read back, in order, equal to a run without the
 * archive), the checkpoint stays bounded, every model call and summarizer call (views, summary and
 * recall blocks: recall finds an archived detail) is the one a run without the archive makes, a
 * second saver (another pool, as another replica) reads the same thread, and deleting the thread
 * removes its archived rows.
 */
import { memoryStack, migrate, type ThreadwiseSaver } from "@threadwise/memory";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { replay, THREAD } from "./support/archive-replay.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

describe("message archive: PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twarch");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => db.drop());

  const pgOptions = () => ({
    backend: "postgres" as const,
    postgresDsn: db.url,
    postgresSchema: db.schema,
    pgPoolMax: testPoolMax(),
    allowPlaintext: true,
  });

  it("keeps every message, bounds the checkpoint, sends the same requests; deletion removes the archive", async () => {
    const plain = await replay({ archive: false, backend: "in_memory" });
    const archived = await replay({ archive: true, ...pgOptions() });
    expect(archived.archived).toBeGreaterThanOrEqual(20);
    expect(archived.hot).toBeLessThan(plain.thread.length / 2);
    expect(archived.thread).toEqual(plain.thread);
    expect(archived.requests).toEqual(plain.requests);
    expect(archived.systems).toEqual(plain.systems);
    expect(archived.summaries).toEqual(plain.summaries);
    const asked = archived.requests.map((request) => request.at(-1)?.includes("turn 44")).lastIndexOf(true);
    expect(archived.systems[asked]).toContain("4417");

    // Another replica's saver, which never cached the thread, reads the newest archived rows only (one query) and decodes the same.
    const replica = memoryStack({ ...pgOptions(), archive: true, logger: false, env: {} }).checkpointer as ThreadwiseSaver;
    const ids = (messages: readonly { id?: string }[]) => messages.map((m) => m.id);
    const whole = ids(await archived.checkpointer.archivedMessages(THREAD));
    expect(ids(await replica.archivedMessages(THREAD, { last: 3 }))).toEqual(whole.slice(-3));
    await replica.close();

    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const rows = await client.query(`SELECT count(*)::int AS n FROM "${db.schema}".threadwise_archive WHERE thread_id = $1`, [THREAD]);
      expect(rows.rows[0]?.n).toBe(archived.archived);
      await (archived.checkpointer as ThreadwiseSaver).deleteThread(THREAD);
      const after = await client.query(`SELECT count(*)::int AS n FROM "${db.schema}".threadwise_archive WHERE thread_id = $1`, [THREAD]);
      expect(after.rows[0]?.n).toBe(0);
      expect(await archived.checkpointer.readThread({ configurable: { thread_id: THREAD } })).toEqual([]);
    } finally {
      await client.end();
      await archived.checkpointer.close();
    }
    // Two 48-turn replays, one on PostgreSQL: about 20 s in CI, longer on a loaded machine.
  }, 180_000);
});
