/**
 * Crashes and clocks (spec R38), with separate Node processes on SQLite, PostgreSQL and
 * PostgreSQL through PgBouncer (transaction mode):
 *
 * - A writer SIGKILLed in the middle of a turn (its model call hangs) blocks its thread only until
 *   its lease runs out (default 10 s; the heartbeat that kept it alive died with the process). The
 *   next turn is refused meanwhile with `turn-in-progress` before any model call, then commits
 *   through `withTurnRetry`'s defaults. Prints the time from the kill to that commit.
 * - Writers whose `Date.now` is 20 s and 1 h ahead of or behind the others (LangGraph's checkpoint
 *   ids are time-based UUIDs from that clock) take turns with a correctly set writer, one after the
 *   other and at the same time: no turn is refused for the skew, and every stored checkpoint is on
 *   the head's chain (0 stranded).
 *
 * Reproduce: `pnpm vitest run test/turn-lease.slow.test.ts` (with THREADWISE_TEST_POSTGRES_URL and
 * THREADWISE_TEST_PGBOUNCER_URL set for the PostgreSQL rows).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "@threadwise/memory";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { AgentWorker } from "./fixtures/memory-worker-process.js";
import { freshDatabase } from "./support/postgres.js";

/** Starting several tsx processes per backend on a 2-core machine. */
const TIMEOUT_MS = 300_000;
// The preset's summary and recall are off: each turn is one model call, and the answers list every user message.
const STACK_ENV = { MEMORY_WINDOW_SIZE: "0", MEMORY_SUMMARIZE: "false", MEMORY_RECALL_MAX_TOKENS: "0" };
/** Default lease of the stack (DEFAULT_TURN_LEASE_MS). */
const DEFAULT_LEASE_MS = 10_000;
/** Several tsx processes starting at once on 2 cores. */
const STARTUP_MS = 300_000;
const SKEWS_MS = [20_000, -20_000, 3_600_000, -3_600_000];

type Chain = Array<{ id: string; parent: string | null }>;

/** Checkpoints of the root namespace not on the head's parent chain. */
function stranded(chain: Chain, head: string | null): number {
  const parentOf = new Map(chain.map((c) => [c.id, c.parent]));
  const onChain = new Set<string>();
  for (let id = head; id !== null && id !== undefined; id = parentOf.get(id) ?? null) onChain.add(id);
  return chain.filter((c) => !onChain.has(c.id)).length;
}

async function crashBlocksFor(backend: string, env: NodeJS.ProcessEnv) {
  const [victim, next] = [new AgentWorker(env), new AgentWorker(env)];
  try {
    await Promise.all([victim.inspect("warmup-a", STARTUP_MS), next.inspect("warmup-b", STARTUP_MS)]);
    const thread = `${backend}-crash`;
    await victim.turn(thread, "first turn");
    victim.send(thread, "slow: a long story", { noRetry: true });
    expect((await victim.next()).event).toBe("model-started");
    await victim.kill();
    const killedAt = performance.now();
    next.send(thread, "right after the crash", { noRetry: true });
    const refused = await next.next();
    next.send(thread, "after the lease");
    const committed = await next.next(60_000);
    const blockedMs = performance.now() - killedAt;
    console.log(
      `[turn lease] ${backend}: SIGKILL mid-turn; next turn refused (${refused.reason}, lease ends within ${refused.leaseExpiresInMs} ms, ${refused.modelCalls} model calls); committed through withTurnRetry ${Math.round(blockedMs)} ms after the kill with ${committed.modelCalls} model call(s)`,
    );
    expect({ ok: refused.ok, reason: refused.reason, modelCalls: refused.modelCalls }).toEqual({
      ok: false,
      reason: "turn-in-progress",
      modelCalls: 0,
    });
    expect(refused.leaseExpiresInMs).toBeLessThanOrEqual(DEFAULT_LEASE_MS);
    expect({ ok: committed.ok, modelCalls: committed.modelCalls }).toEqual({ ok: true, modelCalls: 1 });
  } finally {
    await Promise.all([next.stop(), victim.kill()]);
  }
}

async function skewedWriters(
  backend: string,
  env: NodeJS.ProcessEnv,
  chainOf: (thread: string) => Promise<{ chain: Chain; head: string | null }>,
) {
  const correct = new AgentWorker(env);
  const skewed = SKEWS_MS.map((ms) => new AgentWorker({ ...env, THREADWISE_TEST_CLOCK_SKEW_MS: String(ms) }));
  try {
    await Promise.all([correct, ...skewed].map((w, i) => w.inspect(`warmup-${i}`, STARTUP_MS)));
    for (const [i, worker] of skewed.entries()) {
      const skew = SKEWS_MS[i] as number;
      const thread = `${backend}-skew-${skew}`;
      // One after the other, no retry: a refusal here would be the skew's doing.
      const replies = [];
      for (let turn = 0; turn < 3; turn += 1) {
        correct.send(thread, `correct ${turn}`, { noRetry: true });
        replies.push(await correct.next());
        worker.send(thread, `skewed ${turn}`, { noRetry: true });
        replies.push(await worker.next());
      }
      // At the same time, through withTurnRetry.
      correct.send(thread, "correct together");
      worker.send(thread, "skewed together");
      replies.push(await correct.next(), await worker.next());
      const refused = replies.filter((r) => !r.ok);
      const { chain, head } = await chainOf(thread);
      const messages = (await correct.inspect(thread)).messages ?? [];
      const lost = replies.length - messages.filter(([kind]) => kind === "human").length;
      console.log(
        `[clock skew] ${backend} writer ${skew > 0 ? "+" : ""}${skew / 1000} s: ${replies.length} turns, refused ${refused.length}, lost ${lost}, stranded checkpoints ${stranded(chain, head)} of ${chain.length}`,
      );
      expect(refused.map((r) => r.error)).toEqual([]);
      expect({ lost, stranded: stranded(chain, head) }).toEqual({ lost: 0, stranded: 0 });
      // The sequential turns were stored in the order they were taken, whatever the writers' clocks.
      expect(
        messages
          .filter(([kind]) => kind === "human")
          .map(([, said]) => said)
          .slice(0, 6),
      ).toEqual(["correct 0", "skewed 0", "correct 1", "skewed 1", "correct 2", "skewed 2"]);
    }
  } finally {
    await Promise.all([correct, ...skewed].map((w) => w.stop()));
  }
}

describe("crashes and clocks: SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-lease-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "shared.sqlite");
  const env = { MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: file, ...STACK_ENV };

  it("a writer killed mid-turn blocks its thread until its lease ends, no longer", () => crashBlocksFor("sqlite", env), TIMEOUT_MS);

  it(
    "writers 20 s and 1 h ahead and behind: no turn refused, none stranded",
    () =>
      skewedWriters("sqlite", env, async (thread) => {
        const db = new Database(file, { readonly: true });
        try {
          const chain = db
            .prepare(
              "SELECT checkpoint_id AS id, parent_checkpoint_id AS parent FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''",
            )
            .all(thread) as Chain;
          const head = db.prepare("SELECT head_id FROM threadwise_threads WHERE thread_id = ?").pluck().get(thread) as string | null;
          return { chain, head };
        } finally {
          db.close();
        }
      }),
    TIMEOUT_MS,
  );
});

async function pgChain(url: string, thread: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const chain = await client.query<{ id: string; parent: string | null }>(
      "SELECT checkpoint_id AS id, parent_checkpoint_id AS parent FROM checkpoints WHERE thread_id = $1 AND checkpoint_ns = ''",
      [thread],
    );
    const head = await client.query<{ head_id: string | null }>("SELECT head_id FROM threadwise_threads WHERE thread_id = $1", [thread]);
    return { chain: chain.rows, head: head.rows[0]?.head_id ?? null };
  } finally {
    await client.end();
  }
}

describe.skipIf(skipUnlessRealPostgres("crashes and clocks on PostgreSQL"))("crashes and clocks: PostgreSQL and PgBouncer", () => {
  it(
    "killed writer and skewed clocks, directly and through PgBouncer",
    async () => {
      const db = await freshDatabase("twlease");
      try {
        await migrate({ dsn: db.url });
        const pgEnv = { MEMORY_BACKEND: "postgres", MEMORY_ALLOW_PLAINTEXT: "true", MEMORY_PG_POOL_MAX: "2", ...STACK_ENV };
        const direct = { ...pgEnv, POSTGRES_MEMORY_DSN: db.url };
        await crashBlocksFor("postgres", direct);
        await skewedWriters("postgres", direct, (thread) => pgChain(db.url, thread));
        const bouncer = pgbouncerUrl("crashes and clocks through PgBouncer");
        if (bouncer) {
          const viaBouncer = { ...pgEnv, POSTGRES_MEMORY_DSN: sameDatabase(bouncer, db.url), MEMORY_PG_POOL_MODE: "transaction" };
          await crashBlocksFor("pgbouncer", viaBouncer);
          await skewedWriters("pgbouncer", viaBouncer, (thread) => pgChain(db.url, thread));
        }
      } finally {
        await db.drop();
      }
    },
    TIMEOUT_MS * 2,
  );
});
