/**
 * A process killed between a model call and the checkpoint that would store its answer (spec R34,
 * R38; brief item 2b): the worker's model answers a turn, then the saver's next write hangs
 * (`THREADWISE_TEST_HANG_AFTER_MODEL`), before anything is written (`before-writes`) or once the
 * answer's `putWrites` is stored (`after-writes`), and the process is SIGKILLed. Another process,
 * at once:
 * - its turn sent without retry is refused `turn-in-progress` before any model call, naming a lease
 *   that ends within the default `turnLeaseMs` (no lock longer than the lease);
 * - the same turn through `withTurnRetry`'s defaults commits with one model call;
 * - the stored thread holds every committed turn byte for byte, in order, then at most the killed
 *   turn's user message (and its answer, only right after it), then the new turn and its answer:
 *   no message twice, no id twice, user and assistant alternating.
 * SQLite and PostgreSQL (directly and through PgBouncer in transaction mode), English and Korean;
 * in the Korean cases the killed writer's clock is an hour ahead (`before-writes`) or behind
 * (`after-writes`) of the next one's (`THREADWISE_TEST_CLOCK_SKEW_MS`: LangGraph's checkpoint ids
 * come from it): the lease still ends within `turnLeaseMs` and the thread keeps its order.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "@threadwise/memory";
import { afterAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { AgentWorker } from "./fixtures/memory-worker-process.js";
import { freshDatabase } from "./support/postgres.js";

/** Each worker process starts tsx and the whole stack: seconds each on a busy machine. */
const TIMEOUT_MS = 300_000;
const STARTUP_MS = 240_000;
/** Default lease of the stack (DEFAULT_TURN_LEASE_MS): the longest a dead writer may hold its thread. */
const DEFAULT_LEASE_MS = 10_000;
/** No window, no summary, no recall: each turn is one model call and the answer lists every user message it saw. */
const STACK_ENV = { MEMORY_WINDOW_SIZE: "0", MEMORY_SUMMARIZE: "false", MEMORY_RECALL_MAX_TOKENS: "0" };
const WORDS = {
  en: { committed: ["my name is Ada", "I live in Busan"], killed: "answered: tell me about trains", next: "where do I live?" },
  ko: { committed: ["제 이름은 에이다예요", "부산에 살아요"], killed: "answered: 기차 얘기 해 주세요", next: "제가 어디 살죠?" },
} as const;
const MODES = ["before-writes", "after-writes"] as const;

async function killAfterModel(env: NodeJS.ProcessEnv, mode: (typeof MODES)[number], lang: keyof typeof WORDS, thread: string) {
  const w = WORDS[lang];
  const skewMs = lang === "ko" ? (mode === "before-writes" ? 3_600_000 : -3_600_000) : 0;
  const victim = new AgentWorker({ ...env, THREADWISE_TEST_HANG_AFTER_MODEL: mode, THREADWISE_TEST_CLOCK_SKEW_MS: String(skewMs) });
  const next = new AgentWorker(env);
  try {
    await Promise.all([victim.inspect("warmup-a", STARTUP_MS), next.inspect("warmup-b", STARTUP_MS)]);
    await victim.turn(thread, w.committed[0]);
    await next.turn(thread, w.committed[1]);
    const committed = (await next.inspect(thread)).messages ?? [];
    expect(committed).toHaveLength(4);
    expect(committed.filter(([type]) => type === "human").map(([, text]) => text)).toEqual([...w.committed]);

    victim.send(thread, w.killed, { noRetry: true });
    expect((await victim.next()).event).toBe("model-answered");
    await victim.kill();
    expect(victim.child.signalCode).toBe("SIGKILL");

    next.send(thread, w.next, { noRetry: true });
    const refused = await next.next();
    next.send(thread, w.next);
    const done = await next.next(60_000);
    const after = (await next.inspect(thread)).messages ?? [];
    console.log(
      `[crash after model] ${thread} (killed writer's clock ${skewMs / 3_600_000} h off): refused ${refused.reason} (lease ends within ${refused.leaseExpiresInMs} ms, ${refused.modelCalls} model calls); then ${done.ok ? "committed" : done.error} with ${done.modelCalls} model call(s); ${after.length} messages stored`,
    );
    expect({ ok: refused.ok, reason: refused.reason, modelCalls: refused.modelCalls }).toEqual({
      ok: false,
      reason: "turn-in-progress",
      modelCalls: 0,
    });
    expect(refused.leaseExpiresInMs).toBeLessThanOrEqual(DEFAULT_LEASE_MS);
    expect({ ok: done.ok, modelCalls: done.modelCalls }).toEqual({ ok: true, modelCalls: 1 });

    // Committed turns intact, then what the killed turn left, then the new turn.
    expect(after.slice(0, committed.length)).toEqual(committed);
    const left = after.slice(committed.length, -2);
    expect([[], [["human", w.killed]]]).toContainEqual(left.filter(([type]) => type === "human"));
    expect(left.length === 0 || left[0]?.[0] === "human").toBe(true);
    if (left.length === 2) expect(left[1]).toEqual(["ai", expect.stringMatching(/^answer to "answered: /)]);
    expect(left.length).toBeLessThanOrEqual(2);
    expect(after.at(-2)).toEqual(["human", w.next]);
    expect(after.at(-1)?.[1]).toMatch(new RegExp(`^answer to "${w.next.replace("?", "\\?")}"`));
    // Nothing twice.
    const humans = after.filter(([type]) => type === "human").map(([, text]) => text);
    expect(new Set(humans).size).toBe(humans.length);
    // The new turn's answer saw the committed user messages and the new one (the killed one merged into it or before it).
    expect(after.at(-1)?.[1]).toContain(w.committed[0]);
    expect(after.at(-1)?.[1]).toContain(w.committed[1]);
  } finally {
    await Promise.all([next.stop(), victim.kill()]);
  }
}

const CASES = MODES.flatMap((mode) => (["en", "ko"] as const).map((lang) => ({ mode, lang })));

describe("SIGKILL between a model call and its checkpoint: SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-crash-model-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: join(dir, "shared.sqlite"), ...STACK_ENV };
  for (const { mode, lang } of CASES)
    it(
      `${mode}, ${lang}: the next process is refused within the lease, then commits; nothing lost or twice`,
      () => killAfterModel(env, mode, lang, `sqlite-${mode}-${lang}`),
      TIMEOUT_MS,
    );
});

describe.skipIf(skipUnlessRealPostgres("a crash after the model call on PostgreSQL"))(
  "SIGKILL between a model call and its checkpoint: PostgreSQL and PgBouncer",
  () => {
    it(
      "each mode and language, directly and through PgBouncer",
      async () => {
        const db = await freshDatabase("twcrashmodel");
        try {
          await migrate({ dsn: db.url });
          const pgEnv = { MEMORY_BACKEND: "postgres", MEMORY_ALLOW_PLAINTEXT: "true", MEMORY_PG_POOL_MAX: "2", ...STACK_ENV };
          const bouncer = pgbouncerUrl("a crash after the model call through PgBouncer");
          const targets: Array<[string, NodeJS.ProcessEnv]> = [["postgres", { ...pgEnv, POSTGRES_MEMORY_DSN: db.url }]];
          if (bouncer)
            targets.push([
              "pgbouncer",
              { ...pgEnv, POSTGRES_MEMORY_DSN: sameDatabase(bouncer, db.url), MEMORY_PG_POOL_MODE: "transaction" },
            ]);
          for (const [name, env] of targets)
            for (const { mode, lang } of CASES) await killAfterModel(env, mode, lang, `${name}-${mode}-${lang}`);
        } finally {
          await db.drop();
        }
      },
      TIMEOUT_MS * 4,
    );
  },
);
