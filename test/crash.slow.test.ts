/**
 * Crash and restart: an agent process is killed with SIGKILL in the middle of a turn (the model
 * hangs), restarted on the same store, and every committed turn, the summary and the facts are intact; the
 * thread then continues. SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrate } from "@threadwise/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { AgentWorker } from "./fixtures/memory-worker-process.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

/** Each worker process starts tsx and the whole stack: seconds each on a busy machine. */
const PROCESS_TEST_TIMEOUT_MS = 240_000;
const COMMITTED = ["My name is Ada", "I live in Busan", "I work at Acme", "I have a cat named Miso"];
const FACTS_KEY = "_threadwise_facts";
const SUMMARY_KEY = "_threadwise_summary";
/** Window 2, first summary at 6 messages: the committed turns already have a summary. */
// A turn killed mid-run keeps new turns out for MEMORY_TURN_LEASE_MS (spec R34); the restarted worker retries past it.
const STACK_ENV = {
  MEMORY_FACTS_MODE: "heuristic",
  MEMORY_SUMMARIZE: "true",
  MEMORY_WINDOW_SIZE: "2",
  MEMORY_SUMMARIZE_THRESHOLD: "6",
  MEMORY_TURN_LEASE_MS: "2000",
};

interface FactSlot {
  facts: Array<{ key: string; value: string }>;
}

function stateKey(reply: { state?: Record<string, unknown> }, key: string): unknown {
  return reply.state ? reply.state[key] : undefined;
}

function factsOf(reply: { state?: Record<string, unknown> }): string[][] {
  const slot = stateKey(reply, FACTS_KEY) as FactSlot | undefined;
  return (slot?.facts ?? []).map((f) => [f.key, f.value]);
}

async function crashAndRestart(env: NodeJS.ProcessEnv) {
  const first = new AgentWorker(env);
  for (const text of COMMITTED) await first.turn("crashy", text);
  const before = await first.inspect("crashy");
  first.send("crashy", "slow: tell me a long story");
  expect((await first.next()).event).toBe("model-started");
  await first.kill();
  expect(first.child.signalCode).toBe("SIGKILL");

  const second = new AgentWorker(env);
  try {
    const after = await second.inspect("crashy");
    const next = await second.turn("crashy", "where do I live?");
    return { before, after, next };
  } finally {
    await second.stop();
  }
}

function expectIntact(result: Awaited<ReturnType<typeof crashAndRestart>>) {
  const { before, after, next } = result;
  const committed = before.messages ?? [];
  expect(committed).toHaveLength(COMMITTED.length * 2);
  // Every committed turn is there, byte for byte, in order.
  expect(after.messages?.slice(0, committed.length)).toEqual(committed);
  // What the killed turn left is at most its user message: never a partial answer.
  expect(after.messages?.slice(committed.length)).toEqual(
    after.messages?.length === committed.length ? [] : [["human", "slow: tell me a long story"]],
  );
  // Facts committed before the crash are intact.
  const factsBefore = factsOf(before);
  expect(factsBefore).toEqual(
    expect.arrayContaining([
      ["user|name", "Ada"],
      ["user|residence", "Busan"],
    ]),
  );
  const factsAfter = factsOf(after);
  expect(factsAfter).toEqual(expect.arrayContaining(factsBefore));
  // The summary made before the crash is intact.
  const summaryBefore = stateKey(before, SUMMARY_KEY) as { summary?: { text: string; coveredThroughId: string | null } } | undefined;
  expect(summaryBefore?.summary?.text.length ?? 0).toBeGreaterThan(0);
  expect(stateKey(after, SUMMARY_KEY)).toEqual(summaryBefore);
  // The thread continues: the new turn is answered and stored after every committed turn.
  expect(next.messages?.slice(0, committed.length)).toEqual(committed);
  expect(next.messages?.at(-2)).toEqual(["human", "where do I live?"]);
  expect(next.messages?.at(-1)?.[1]).toMatch(/^answer to "where do I live\?"/);
}

describe("SIGKILL in the middle of a turn, then restart", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-crash-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    "SQLite: committed turns, summary and facts intact; the thread continues",
    async () => {
      expectIntact(await crashAndRestart({ MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: join(dir, "crash.sqlite"), ...STACK_ENV }));
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

// Two processes each hold a pooled connection: PGlite (one connection at a time) cannot serve that.
describe.skipIf(skipUnlessRealPostgres("PostgreSQL across processes"))("SIGKILL in the middle of a turn, then restart: PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twcrash");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => db.drop());

  it(
    "committed turns, summary and facts intact; the thread continues",
    async () => {
      expectIntact(
        await crashAndRestart({
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
});
