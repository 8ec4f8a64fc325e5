/**
 * `updateState` on the namespace of a task whose subgraph has not checkpointed yet (the parent
 * paused before its `agent` node), on PostgreSQL directly and through PgBouncer in transaction mode:
 * the cases `test/subgraph-checkpoint-id.test.ts` runs on in_memory and SQLite. The stack matches
 * the namespace against the task LangGraph derives from the parent's newest checkpoint
 * (`threadwise-saver.ts`), stores the update, and the thread reads as plain LangGraph's (a
 * `MemorySaver` and no stack); a task id the parent does not have next, or a task listed before
 * the parent's state changed, is refused naming the namespace, nothing stored. English and Korean,
 * archive off and on, every request valid for the strict validator's providers.
 */
import { ThreadwiseConfigError } from "@threadwise/core";
import { PROVIDERS, validateProviderRequest } from "@threadwise/core/testing";
import { migrate } from "@threadwise/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase } from "./fixtures/memory-postgres.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";
import { notStartedUpdate, type Storage, TEXT } from "./support/subgraph-pending.js";

const bouncer = pgbouncerUrl("pending-subgraph update through PgBouncer");
let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
beforeAll(async () => {
  db = await freshDatabase("twsubpend");
  await migrate({ dsn: db.url, schema: db.schema });
}, 120_000);
afterAll(async () => {
  await db?.drop();
});

const LANES: Array<[string, boolean, Storage]> = [
  [
    "postgres",
    false,
    () => ({
      backend: "postgres",
      postgresDsn: db?.url,
      postgresSchema: db?.schema,
      pgPoolMax: testPoolMax(),
      allowPlaintext: true,
    }),
  ],
  [
    "pgbouncer",
    bouncer === undefined,
    () => ({
      backend: "postgres",
      postgresDsn: sameDatabase(bouncer as string, db?.url as string),
      pgPoolMode: "transaction",
      allowPlaintext: true,
    }),
  ],
];

const valid = (requests: unknown[][]) => {
  for (const request of requests.flat())
    expect(validateProviderRequest(request as never, { providers: PROVIDERS, noPrefill: true })).toEqual([]);
};

describe.each(LANES)("updateState on a task whose subgraph has not checkpointed yet (%s)", (_lane, skip, storage) => {
  describe.skipIf(skip).each([false, true])("archive %s", (archive) => {
    it.each(["en", "ko"] as const)(
      "lands where LangGraph puts it; another task id of the node is refused naming the namespace (%s)",
      async (lang) => {
        const plain = await notStartedUpdate(true, false, lang, "task");
        expect(plain.texts).toEqual([TEXT[lang][0], TEXT[lang][2], `ok: ${TEXT[lang][2]}`]);
        const stacked = await notStartedUpdate(false, archive, lang, "task", "edge", 0, storage);
        expect(stacked.outcome).toBeUndefined();
        expect(stacked.texts).toEqual(plain.texts);
        expect(stacked.next).toEqual(plain.next);
        const refused = await notStartedUpdate(false, archive, lang, "other", "edge", 0, storage);
        const error = ThreadwiseConfigError.find(refused.outcome);
        expect(error?.option).toBe("configurable.checkpoint_ns");
        expect(error?.message).toContain(`namespace "${refused.ns}"`);
        expect(error?.message).toContain("nothing was stored");
        expect(refused.texts).toEqual([TEXT[lang][0], `ok: ${TEXT[lang][0]}`]);
        valid([stacked.requests, refused.requests]);
      },
    );
  });

  describe.skipIf(skip)("a Send task, a thread over the window, a task listed before the parent changed (archive on)", () => {
    it.each(["en", "ko"] as const)("each gives plain LangGraph's thread or is refused as on SQLite (%s)", async (lang) => {
      const plainSend = await notStartedUpdate(true, false, lang, "task", "send");
      const send = await notStartedUpdate(false, true, lang, "task", "send", 0, storage);
      expect(send.outcome).toBeUndefined();
      expect(send.texts).toEqual(plainSend.texts);
      expect(send.next).toEqual(plainSend.next);
      const plainLong = await notStartedUpdate(true, false, lang, "task", "edge", 5);
      const long = await notStartedUpdate(false, true, lang, "task", "edge", 5, storage);
      expect(long.outcome).toBeUndefined();
      expect(long.texts).toEqual(plainLong.texts);
      expect(long.next).toEqual(plainLong.next);
      const plainStale = await notStartedUpdate(true, false, lang, "stale");
      const stale = await notStartedUpdate(false, true, lang, "stale", "edge", 0, storage);
      expect(ThreadwiseConfigError.find(stale.outcome)?.option).toBe("configurable.checkpoint_ns");
      expect(stale.texts).toEqual(plainStale.texts);
      expect(stale.next).toEqual(plainStale.next);
      valid([send.requests, long.requests, stale.requests]);
    });
  });
});
