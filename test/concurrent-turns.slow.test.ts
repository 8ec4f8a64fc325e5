/**
 * Concurrent writers on one thread (spec R34): N separate Node processes (N = 2, 4, 8) each send M
 * turns to the same thread at the same time, on SQLite, PostgreSQL and PostgreSQL through
 * PgBouncer in transaction mode. Every turn either commits or is refused with the typed, retryable
 * `ThreadwiseConcurrentTurnError`; none is lost silently; nothing of a refused turn is stored; the
 * stored thread is one orphan-free sequence in which every answer saw exactly the turns committed
 * before it; a refused turn makes no model call (spec R38: model calls = committed turns). A
 * second round runs the same race through `withTurnRetry` with its defaults: every turn commits.
 *
 * Prints, per backend and N: turns sent / committed / refused / other errors / lost / duplicated,
 * and the model calls used.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "@threadwise/memory";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { AgentWorker, type WorkerReply } from "./fixtures/memory-worker-process.js";
import { freshDatabase } from "./support/postgres.js";

const WORKERS = [2, 4, 8];
const TURNS_PER_WORKER = 4;
/** Starting 8 tsx processes and 32 turns each round, on a 2-core machine. */
const TIMEOUT_MS = 600_000;
/** No window: each answer lists every user message the model saw, so the test can check it. */
// The preset's summary and recall are off: each turn is one model call, and the answers list every user message.
const STACK_ENV = { MEMORY_WINDOW_SIZE: "0", MEMORY_SUMMARIZE: "false", MEMORY_RECALL_MAX_TOKENS: "0" };
/** Eight tsx processes starting at once: minutes on a busy 2-core machine. */
const STARTUP_MS = 300_000;
/** Model latency per turn, in milliseconds, so turns of different processes overlap. */
const MODEL_DELAY_MS = 30;

interface Tally {
  sent: number;
  committed: number;
  refused: number;
  other: number;
  lost: number;
  /** Texts of refused turns found in the stored thread (a partial turn). */
  partial: number;
  /** User texts stored more than once. */
  duplicated: number;
  /** Model calls of all turns, retries included. */
  modelCalls: number;
}

/** Stored rows of the thread in the root namespace: checkpoint ids with parents, and the checkpoint ids writes point at. */
type Rows = { checkpoints: Array<{ id: string; parent: string | null }>; writeTargets: string[] };

/** Every checkpoint on one parent chain (no fork), and every pending write on a stored checkpoint. */
function expectOrphanFree(rows: Rows) {
  const ids = new Set(rows.checkpoints.map((c) => c.id));
  const children = new Map<string | null, number>();
  for (const c of rows.checkpoints) children.set(c.parent, (children.get(c.parent) ?? 0) + 1);
  const forks = [...children.values()].filter((n) => n > 1).length;
  const roots = rows.checkpoints.filter((c) => c.parent === null || !ids.has(c.parent)).length;
  const orphanWrites = rows.writeTargets.filter((id) => !ids.has(id)).length;
  expect({ forks, roots, orphanWrites }).toEqual({ forks: 0, roots: 1, orphanWrites: 0 });
  return { checkpoints: rows.checkpoints.length, forks, orphanWrites };
}

/** The stored messages alternate user/answer; each answer answers its user turn and saw exactly the user turns before it. */
function expectValidSequence(messages: Array<[string, string]>): string[] {
  const humans: string[] = [];
  for (let i = 0; i < messages.length; i += 2) {
    const [kind, said] = messages[i] as [string, string];
    const answer = messages[i + 1];
    expect(kind).toBe("human");
    humans.push(said);
    expect(answer?.[0]).toBe("ai");
    expect(answer?.[1]).toBe(`answer to "${said}" having seen ${humans.length} user messages: ${humans.join("|")}`);
  }
  return humans;
}

async function race(
  workers: AgentWorker[],
  thread: string,
  noRetry: boolean,
): Promise<{ tally: Tally; messages: Array<[string, string]> }> {
  const sent = workers.map((_, w) => Array.from({ length: TURNS_PER_WORKER }, (_, t) => `${thread} w${w} t${t}`));
  for (const [w, worker] of workers.entries())
    for (const text of sent[w] as string[]) worker.send(thread, text, { noRetry, delayMs: MODEL_DELAY_MS });
  const replies: Array<Array<{ text: string; reply: WorkerReply }>> = await Promise.all(
    workers.map(async (worker, w) => {
      const out: Array<{ text: string; reply: WorkerReply }> = [];
      for (const text of sent[w] as string[]) out.push({ text, reply: await worker.next(TIMEOUT_MS) });
      return out;
    }),
  );
  const all = replies.flat();
  const committed = all.filter((r) => r.reply.ok).map((r) => r.text);
  const refused = all.filter((r) => !r.reply.ok && r.reply.code === "THREADWISE_CONCURRENT_TURN").map((r) => r.text);
  const other = all.filter((r) => !r.reply.ok && r.reply.code !== "THREADWISE_CONCURRENT_TURN");
  const messages = (await (workers[0] as AgentWorker).inspect(thread)).messages ?? [];
  const storedTexts = expectValidSequence(messages);
  const stored = new Set(storedTexts);
  const tally: Tally = {
    sent: all.length,
    committed: committed.length,
    refused: refused.length,
    other: other.length,
    lost: committed.filter((text) => !stored.has(text)).length,
    partial: refused.filter((text) => stored.has(text)).length,
    duplicated: storedTexts.length - stored.size,
    modelCalls: all.reduce((sum, r) => sum + (r.reply.modelCalls ?? 0), 0),
  };
  expect(other.map((r) => r.reply.error)).toEqual([]);
  expect(stored.size).toBe(committed.length);
  return { tally, messages };
}

function report(
  backend: string,
  n: number,
  mode: string,
  tally: Tally,
  store: { checkpoints: number; forks: number; orphanWrites: number },
) {
  console.log(
    `[concurrent turns] ${backend} N=${n} x M=${TURNS_PER_WORKER} (${mode}): sent ${tally.sent}, committed ${tally.committed}, refused ${tally.refused} (ThreadwiseConcurrentTurnError), other errors ${tally.other}, lost ${tally.lost}, duplicated ${tally.duplicated}, partial ${tally.partial}, model calls ${tally.modelCalls}; stored ${store.checkpoints} checkpoints, forks ${store.forks}, orphan writes ${store.orphanWrites}`,
  );
}

/** The race at every N, then once through withTurnRetry at the largest N, on one backend. */
async function runBackend(backend: string, env: NodeJS.ProcessEnv, rowsOf: (thread: string) => Promise<Rows>) {
  const workers = Array.from({ length: Math.max(...WORKERS) }, () => new AgentWorker(env));
  try {
    // Every worker is up (tsx started, stack built) before the race begins.
    await Promise.all(workers.map((worker, i) => worker.inspect(`${backend}-warmup-${i}`, STARTUP_MS)));
    for (const n of WORKERS) {
      const thread = `${backend}-race-${n}`;
      const { tally } = await race(workers.slice(0, n), thread, true);
      const store = expectOrphanFree(await rowsOf(thread));
      report(backend, n, "no retry", tally, store);
      expect(tally.committed + tally.refused).toBe(tally.sent);
      expect(tally.lost).toBe(0);
      expect(tally.partial).toBe(0);
      expect(tally.duplicated).toBe(0);
      expect(tally.committed).toBeGreaterThanOrEqual(1);
      // Refused turns were refused before their model call (turnAdmission).
      expect(tally.modelCalls).toBe(tally.committed);
    }
    const n = Math.max(...WORKERS);
    const thread = `${backend}-retry-${n}`;
    const { tally } = await race(workers.slice(0, n), thread, false);
    const store = expectOrphanFree(await rowsOf(thread));
    report(backend, n, "withTurnRetry", tally, store);
    expect(tally).toMatchObject({ committed: tally.sent, refused: 0, lost: 0, partial: 0, duplicated: 0, modelCalls: tally.sent });
  } catch (error) {
    // The failure itself, not a worker that could not stop because of it.
    await Promise.allSettled(workers.map((worker) => worker.kill()));
    throw error;
  }
  await Promise.all(workers.map((worker) => worker.stop()));
}

describe("N processes x M turns on one thread: SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-concurrent-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    "every turn commits or is refused with the typed error; none lost; the thread is one sequence",
    async () => {
      const file = join(dir, "shared.sqlite");
      await runBackend("sqlite", { MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: file, ...STACK_ENV }, async (thread) => {
        const db = new Database(file, { readonly: true });
        try {
          const checkpoints = db
            .prepare(
              "SELECT checkpoint_id AS id, parent_checkpoint_id AS parent FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''",
            )
            .all(thread) as Rows["checkpoints"];
          const writes = db.prepare("SELECT DISTINCT checkpoint_id AS id FROM writes WHERE thread_id = ?").all(thread) as Array<{
            id: string;
          }>;
          return { checkpoints, writeTargets: writes.map((w) => w.id) };
        } finally {
          db.close();
        }
      });
    },
    TIMEOUT_MS,
  );
});

async function pgRows(url: string, thread: string): Promise<Rows> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const checkpoints = await client.query<{ id: string; parent: string | null }>(
      "SELECT checkpoint_id AS id, parent_checkpoint_id AS parent FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = ''",
      [thread],
    );
    const writes = await client.query<{ id: string }>("SELECT DISTINCT checkpoint_id AS id FROM checkpoint_writes WHERE thread_id = $1", [
      thread,
    ]);
    return { checkpoints: checkpoints.rows, writeTargets: writes.rows.map((w) => w.id) };
  } finally {
    await client.end();
  }
}

describe.skipIf(skipUnlessRealPostgres("concurrent turns on PostgreSQL"))("N processes x M turns on one thread: PostgreSQL", () => {
  it(
    "directly and through PgBouncer (transaction mode)",
    async () => {
      const db = await freshDatabase("twrace");
      try {
        await migrate({ dsn: db.url });
        const pgEnv = { MEMORY_BACKEND: "postgres", MEMORY_ALLOW_PLAINTEXT: "true", MEMORY_PG_POOL_MAX: "2", ...STACK_ENV };
        await runBackend("postgres", { ...pgEnv, POSTGRES_MEMORY_DSN: db.url }, (thread) => pgRows(db.url, thread));
        const bouncer = pgbouncerUrl("concurrent turns through PgBouncer");
        if (bouncer) {
          const url = sameDatabase(bouncer, db.url);
          await runBackend("pgbouncer", { ...pgEnv, POSTGRES_MEMORY_DSN: url, MEMORY_PG_POOL_MODE: "transaction" }, (thread) =>
            pgRows(db.url, thread),
          );
        }
      } finally {
        await db.drop();
      }
    },
    TIMEOUT_MS * 2,
  );
});
