/**
 * Two separate Node processes serve one thread, alternating turns, on a shared SQLite file and on
 * PostgreSQL, with facts and summaries on; the stored thread, facts and summary must equal a
 * single-process run of the same turns (no in-process
 * state another replica would miss). Spec R22.
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
const TURNS = ["my name is Ada", "I live in Busan", "what is my name?", "where do I live?", "thanks", "bye"];

/** Facts and a summary are on, so their state must also survive the hand-over between processes. */
const STACK_ENV = { MEMORY_FACTS_MODE: "heuristic", MEMORY_SUMMARIZE: "true", MEMORY_WINDOW_SIZE: "2", MEMORY_SUMMARIZE_THRESHOLD: "6" };

interface Outcome {
  messages: Array<[string, string]>;
  facts: string[][];
  summary: { text?: string; coveredCount?: number } | undefined;
}

/** The stored thread as `reader` reads it, without ids and timestamps. */
async function readBack(reader: AgentWorker, thread: string): Promise<Outcome> {
  const reply = await reader.inspect(thread);
  const state = reply.state ?? {};
  const facts = ((state._threadwise_facts as { facts?: Array<{ key: string; value: string }> } | undefined)?.facts ?? []).map((f) => [
    f.key,
    f.value,
  ]);
  const summary = (state._threadwise_summary as { summary?: { text: string; coveredCount: number } } | undefined)?.summary;
  return { messages: reply.messages ?? [], facts, summary: summary && { text: summary.text, coveredCount: summary.coveredCount } };
}

async function alternate(env: NodeJS.ProcessEnv, thread: string) {
  const a = new AgentWorker(env);
  const b = new AgentWorker(env);
  try {
    for (const [i, text] of TURNS.entries()) await (i % 2 === 0 ? a : b).turn(thread, text);
    // The last turn ran in b; a reads what b wrote.
    return await readBack(a, thread);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

async function single(env: NodeJS.ProcessEnv, thread: string) {
  const a = new AgentWorker(env);
  try {
    for (const text of TURNS) await a.turn(thread, text);
    return await readBack(a, thread);
  } finally {
    await a.stop();
  }
}

function expectSameThread(twoProcess: Outcome, oneProcess: Outcome) {
  expect(twoProcess).toEqual(oneProcess);
  expect(twoProcess.messages).toHaveLength(TURNS.length * 2);
  expect(twoProcess.messages.at(-1)?.[1]).toMatch(/^answer to "bye"/);
  expect(twoProcess.facts).toEqual(
    expect.arrayContaining([
      ["user|name", "Ada"],
      ["user|residence", "Busan"],
    ]),
  );
  expect(twoProcess.summary?.text?.length ?? 0).toBeGreaterThan(0);
}

describe("two processes alternating turns on one thread", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-two-process-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(
    "SQLite: same final state as a single process",
    async () => {
      const env = { MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: join(dir, "shared.sqlite"), ...STACK_ENV };
      const [two, one] = [await alternate(env, "shared"), await single(env, "solo")];
      expectSameThread(two, one);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});

// Two processes each hold a pooled connection: PGlite (one connection at a time) cannot serve that.
describe.skipIf(skipUnlessRealPostgres("PostgreSQL across processes"))("two processes alternating turns on one thread: PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twtwo");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => db.drop());

  it(
    "same final state as a single process",
    async () => {
      const env = {
        MEMORY_BACKEND: "postgres",
        POSTGRES_MEMORY_DSN: db.url,
        MEMORY_PG_SCHEMA: db.schema,
        MEMORY_PG_POOL_MAX: String(testPoolMax()),
        MEMORY_ALLOW_PLAINTEXT: "true",
        ...STACK_ENV,
      };
      const [two, one] = [await alternate(env, "shared"), await single(env, "solo")];
      expectSameThread(two, one);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
