/**
 * A process killed between the archive write and the checkpoint write (issue 27): the worker
 * stores a batch in the archive, then hangs before the model call whose checkpoint would remove
 * the batch from the hot part, and is SIGKILLed. Restarted on the same store, the thread read back
 * (`readThread`) holds every committed message once, in order (0 lost, 0 duplicated), although the
 * batch is in both places; the next turn archives it again (same rows) and removes it, and the
 * thread is still whole. SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_ARCHIVE_BATCH_MESSAGES, migrate } from "@threadwise/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { AgentWorker, type WorkerReply } from "./fixtures/memory-worker-process.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const PROCESS_TEST_TIMEOUT_MS = 240_000;
/** Window 2, first summary at 4 messages: archiving starts once 22 groups plus a batch (DEFAULT_ARCHIVE_BATCH_MESSAGES) are stored (within the 40 turns below). */
const STACK_ENV = {
  MEMORY_ARCHIVE: "true",
  MEMORY_SUMMARIZE: "true",
  MEMORY_WINDOW_SIZE: "2",
  MEMORY_SUMMARIZE_THRESHOLD: "4",
  MEMORY_RECALL_MAX_TOKENS: "0",
  MEMORY_TURN_LEASE_MS: "2000",
};
const THREAD = "crash-archive";

const ids = (reply: WorkerReply) => (reply.thread ?? []).map(([, , id]) => id);
const withoutIds = (reply: WorkerReply) => (reply.thread ?? []).map(([type, text]) => [type, text]);

async function killBetweenWrites(env: NodeJS.ProcessEnv) {
  const first = new AgentWorker({ ...env, THREADWISE_TEST_HANG_AFTER_ARCHIVE: "1" });
  let committed: Array<[string, string]> = [];
  let archivedIds: string[] = [];
  let lastText = "";
  for (let k = 1; k <= 40; k += 1) {
    lastText = `note ${k}: the code word is word${k}`;
    first.send(THREAD, lastText);
    const reply = await first.next();
    if (reply.event === "archived") {
      archivedIds = (reply as WorkerReply & { archivedIds: string[] }).archivedIds;
      break;
    }
    expect(reply.ok).toBe(true);
    committed = reply.messages ?? [];
  }
  expect(archivedIds.length).toBeGreaterThanOrEqual(DEFAULT_ARCHIVE_BATCH_MESSAGES);
  await first.kill();
  expect(first.child.signalCode).toBe("SIGKILL");

  const second = new AgentWorker(env);
  try {
    const after = await second.inspect(THREAD);
    await second.turn(THREAD, "one more");
    const next = await second.inspect(THREAD);
    return { committed, archivedIds, lastText, after, next };
  } finally {
    await second.stop();
  }
}

function expectWhole(result: Awaited<ReturnType<typeof killBetweenWrites>>) {
  const { committed, archivedIds, lastText, after, next } = result;
  // The batch is in both places: archived, and still in the checkpoint (the removal never came).
  expect(after.archivedIds).toEqual(archivedIds);
  expect(archivedIds.every((id) => after.hotIds?.includes(id))).toBe(true);
  // Read back: every committed message once, in order, then at most the killed turn's user message.
  const thread = withoutIds(after);
  expect(thread.slice(0, committed.length)).toEqual(committed);
  expect(thread.slice(committed.length)).toEqual(thread.length === committed.length ? [] : [["human", lastText]]);
  expect(new Set(ids(after)).size).toBe(ids(after).length);
  // The next turn archives the batch again and removes it: still whole, nothing twice, hot part smaller.
  const nextThread = withoutIds(next);
  expect(nextThread.slice(0, thread.length)).toEqual(thread);
  expect(nextThread.at(-2)).toEqual(["human", "one more"]);
  expect(new Set(ids(next)).size).toBe(ids(next).length);
  expect(next.archivedIds?.slice(0, archivedIds.length)).toEqual(archivedIds);
  expect(archivedIds.some((id) => next.hotIds?.includes(id))).toBe(false);
}

describe("SIGKILL between the archive write and the checkpoint write", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-archive-crash-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    "SQLite: 0 messages lost, 0 duplicated; the next turn completes the move",
    async () => {
      expectWhole(await killBetweenWrites({ MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: join(dir, "crash.sqlite"), ...STACK_ENV }));
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

describe.skipIf(skipUnlessRealPostgres("PostgreSQL across processes"))(
  "SIGKILL between the archive and checkpoint writes: PostgreSQL",
  () => {
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      db = await freshDatabase("twarchcrash");
      await migrate({ dsn: db.url, schema: db.schema });
    });
    afterAll(async () => db.drop());

    it(
      "0 messages lost, 0 duplicated; the next turn completes the move",
      async () => {
        expectWhole(
          await killBetweenWrites({
            MEMORY_BACKEND: "postgres",
            POSTGRES_MEMORY_DSN: db.url,
            MEMORY_PG_SCHEMA: db.schema,
            MEMORY_PG_POOL_MAX: String(testPoolMax()),
            MEMORY_ALLOW_PLAINTEXT: "true",
            ...STACK_ENV,
          }),
        );
      },
      PROCESS_TEST_TIMEOUT_MS,
    );
  },
);
