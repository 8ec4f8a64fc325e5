/**
 * Two separate Node processes serve one thread, alternating turns, on a shared SQLite file and on
 * PostgreSQL; the stored thread must equal a single-process run of the same turns (no in-process
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

const TURNS = ["my name is Ada", "I live in Busan", "what is my name?", "where do I live?", "thanks", "bye"];

async function alternate(env: NodeJS.ProcessEnv, thread: string) {
  const a = new AgentWorker(env);
  const b = new AgentWorker(env);
  try {
    let last: Array<[string, string]> = [];
    for (const [i, text] of TURNS.entries()) last = (await (i % 2 === 0 ? a : b).turn(thread, text)).messages ?? [];
    return last;
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
}

async function single(env: NodeJS.ProcessEnv, thread: string) {
  const a = new AgentWorker(env);
  try {
    let last: Array<[string, string]> = [];
    for (const text of TURNS) last = (await a.turn(thread, text)).messages ?? [];
    return last;
  } finally {
    await a.stop();
  }
}

function expectSameThread(twoProcess: Array<[string, string]>, oneProcess: Array<[string, string]>) {
  expect(twoProcess).toEqual(oneProcess);
  expect(twoProcess).toHaveLength(TURNS.length * 2);
  // Each answer saw every earlier user message, whichever process wrote them.
  expect(twoProcess.at(-1)?.[1]).toBe(`answer to "bye" having seen 6 user messages: ${TURNS.join("|")}`);
}

describe("two processes alternating turns on one thread", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-two-process-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("SQLite: same final state as a single process", async () => {
    const env = { MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: join(dir, "shared.sqlite") };
    const [two, one] = [await alternate(env, "shared"), await single(env, "solo")];
    expectSameThread(two, one);
  });
});

// Two processes each hold a pooled connection: PGlite (one connection at a time) cannot serve that.
describe.skipIf(skipUnlessRealPostgres("PostgreSQL across processes"))("two processes alternating turns on one thread: PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twtwo");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => db.drop());

  it("same final state as a single process", async () => {
    const env = {
      MEMORY_BACKEND: "postgres",
      POSTGRES_MEMORY_DSN: db.url,
      MEMORY_PG_SCHEMA: db.schema,
      MEMORY_PG_POOL_MAX: String(testPoolMax()),
      MEMORY_ALLOW_PLAINTEXT: "true",
    };
    const [two, one] = [await alternate(env, "shared"), await single(env, "solo")];
    expectSameThread(two, one);
  });
});
