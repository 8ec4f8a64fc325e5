/**
 * A process killed at a write of a turn with the archive and summaries on (crash-after-model's
 * kill, on an archived thread): the worker's model answers, then the saver's next write hangs
 * (`THREADWISE_TEST_HANG_AFTER_MODEL`), before anything of the answer is stored (`before-writes`)
 * or once its writes (the answer, the summary when one was due) are stored (`after-writes`), and
 * the process is SIGKILLed; in the Korean cases its clock is 5 minutes ahead or behind. Another
 * process at once: its turn without retry is refused `turn-in-progress` with a lease ending
 * within `MEMORY_TURN_LEASE_MS`, with no model call; through `withTurnRetry` it commits. Then a
 * writer 5 minutes behind and the other take turns. Read back whole (`readThread`: archive, then
 * hot part): every committed message once, in order, at most the killed turn's user message (and
 * its answer right after it), then the later turns in the order they were sent; no id twice.
 * SQLite, PostgreSQL and PgBouncer in transaction mode.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "@threadwise/memory";
import { afterAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { AgentWorker, type WorkerReply } from "./fixtures/memory-worker-process.js";
import { freshDatabase } from "./support/postgres.js";

const TIMEOUT_MS = 300_000;
const STARTUP_MS = 240_000;
const LEASE_MS = 3000;
const SKEW_MS = 5 * 60_000;
const STACK_ENV = {
  MEMORY_ARCHIVE: "true",
  MEMORY_SUMMARIZE: "true",
  MEMORY_WINDOW_SIZE: "2",
  MEMORY_SUMMARIZE_THRESHOLD: "4",
  MEMORY_RECALL_MAX_TOKENS: "0",
  MEMORY_TURN_LEASE_MS: String(LEASE_MS),
};
/** Committed before the kill: enough for the archive to hold a batch (archive-crash's 22 groups plus a batch). */
const COMMITTED = 30;
const WORDS = {
  en: {
    note: (k: number) => `note ${k}: the code word is word${k}`,
    killed: "answered: tell me about trains",
    after: (k: number) => `after ${k}`,
  },
  ko: {
    note: (k: number) => `메모 ${k}: 암호는 단어${k}예요`,
    killed: "answered: 기차 얘기 해 주세요",
    after: (k: number) => `이후 ${k}번째`,
  },
} as const;
const MODES = ["before-writes", "after-writes"] as const;

const pairs = (reply: WorkerReply) => (reply.thread ?? []).map(([type, text]) => [type, text] as [string, string]);
const ids = (reply: WorkerReply) => (reply.thread ?? []).map(([, , id]) => id);

async function killAtWrite(env: NodeJS.ProcessEnv, mode: (typeof MODES)[number], lang: keyof typeof WORDS, thread: string) {
  const w = WORDS[lang];
  const skew = lang === "ko" ? (mode === "before-writes" ? SKEW_MS : -SKEW_MS) : 0;
  const victim = new AgentWorker({ ...env, THREADWISE_TEST_HANG_AFTER_MODEL: mode, THREADWISE_TEST_CLOCK_SKEW_MS: String(skew) });
  const next = new AgentWorker(env);
  const behind = new AgentWorker({ ...env, THREADWISE_TEST_CLOCK_SKEW_MS: String(-SKEW_MS) });
  try {
    await Promise.all([
      victim.inspect("warmup-a", STARTUP_MS),
      next.inspect("warmup-b", STARTUP_MS),
      behind.inspect("warmup-c", STARTUP_MS),
    ]);
    for (let k = 0; k < COMMITTED; k += 1) await (k % 2 === 0 ? victim : next).turn(thread, w.note(k));
    const committed = await next.inspect(thread);
    expect(committed.archivedIds?.length).toBeGreaterThan(0);
    const before = pairs(committed);
    expect(before.filter(([type]) => type === "human")).toHaveLength(COMMITTED);

    victim.send(thread, w.killed, { noRetry: true });
    expect((await victim.next(120_000)).event).toBe("model-answered");
    await victim.kill();
    expect(victim.child.signalCode).toBe("SIGKILL");

    next.send(thread, w.after(0), { noRetry: true });
    const refused = await next.next();
    expect({ ok: refused.ok, reason: refused.reason, modelCalls: refused.modelCalls }).toEqual({
      ok: false,
      reason: "turn-in-progress",
      modelCalls: 0,
    });
    expect(refused.leaseExpiresInMs).toBeLessThanOrEqual(LEASE_MS);
    next.send(thread, w.after(0));
    const done = await next.next(120_000);
    // Committed (its model calls include the summarizer's when a summary was due: the worker's model serves both).
    expect(done.ok, done.error).toBe(true);
    // Then a writer 5 minutes behind and the other take turns.
    for (let k = 1; k <= 4; k += 1) await (k % 2 === 1 ? behind : next).turn(thread, w.after(k));

    const after = await next.inspect(thread);
    const read = pairs(after);
    console.log(
      `[crash with archive] ${thread} (killed writer's clock ${skew / 60_000} min off): refused ${refused.reason} within ${refused.leaseExpiresInMs} ms; ${read.length} messages read back, ${after.archivedIds?.length} archived`,
    );
    expect(read.slice(0, before.length)).toEqual(before);
    const left = read.slice(before.length, read.length - 10);
    expect(left.length).toBeLessThanOrEqual(2);
    if (left.length > 0) expect(left[0]).toEqual(["human", w.killed]);
    if (left.length === 2) expect(left[1]?.[0]).toBe("ai");
    const later = read.slice(read.length - 10);
    expect(later.map(([type]) => type)).toEqual(Array.from({ length: 5 }, () => ["human", "ai"]).flat());
    expect(later.filter(([type]) => type === "human").map(([, text]) => text)).toEqual([0, 1, 2, 3, 4].map(w.after));
    expect(new Set(ids(after)).size).toBe(ids(after).length);
  } finally {
    await Promise.all([next.stop(), behind.stop(), victim.kill()]);
  }
}

const CASES = MODES.flatMap((mode) => (["en", "ko"] as const).map((lang) => ({ mode, lang })));

describe("SIGKILL at a turn's write with the archive on: SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-b62b-crash-archive-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: join(dir, "shared.sqlite"), ...STACK_ENV };
  for (const { mode, lang } of CASES)
    it(
      `${mode}, ${lang}: refused within the lease, then committed; nothing lost or twice; skewed writers keep the order`,
      () => killAtWrite(env, mode, lang, `sqlite-${mode}-${lang}`),
      TIMEOUT_MS,
    );
});

describe.skipIf(skipUnlessRealPostgres("a crash with the archive on PostgreSQL"))(
  "SIGKILL at a turn's write with the archive on: PostgreSQL and PgBouncer",
  () => {
    it(
      "each mode and language, directly and through PgBouncer",
      async () => {
        const db = await freshDatabase("twb62bcrash");
        try {
          await migrate({ dsn: db.url });
          const pgEnv = { MEMORY_BACKEND: "postgres", MEMORY_ALLOW_PLAINTEXT: "true", MEMORY_PG_POOL_MAX: "2", ...STACK_ENV };
          const bouncer = pgbouncerUrl("a crash with the archive through PgBouncer");
          const targets: Array<[string, NodeJS.ProcessEnv]> = [["postgres", { ...pgEnv, POSTGRES_MEMORY_DSN: db.url }]];
          if (bouncer)
            targets.push([
              "pgbouncer",
              { ...pgEnv, POSTGRES_MEMORY_DSN: sameDatabase(bouncer, db.url), MEMORY_PG_POOL_MODE: "transaction" },
            ]);
          for (const [name, env] of targets)
            for (const { mode, lang } of CASES) await killAtWrite(env, mode, lang, `${name}-${mode}-${lang}`);
        } finally {
          await db.drop();
        }
      },
      TIMEOUT_MS * 4,
    );
  },
);
