/**
 * Clock skew under racing turns (spec R38; left by ops32): two writer processes on one thread, one
 * whose `Date.now` is 5 minutes behind (LangGraph's checkpoint ids are time-based UUIDs from the
 * writer's clock, so its checkpoints sort before the other's), send their turns at the same time,
 * round after round, through `withTurnRetry`, with the archive on. Checked from a third reader:
 * - every turn committed, each with one model call: a refused attempt calls no model;
 * - the thread export (`readThread`: archive, then hot part) holds each user message once, each
 *   followed by its own answer, each writer's turns in the order it sent them, whoever's clock
 *   stamped them; `getState`'s messages are that export's hot part (the archive is on, but with
 *   summaries off nothing moves to it in these few turns: the export reads it, empty);
 * - `getStateHistory` (the saver's `list`), read by a fresh reader, is the head's parent chain,
 *   newest first: it orders by store order, not by checkpoint id (the writer behind stamps older
 *   ids; listed by id, 3-4 of 24 checkpoints were out of place on every backend before version 7).
 * SQLite and PostgreSQL, English and Korean.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type MemoryStackOptions, memoryStack, migrate } from "@threadwise/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { AgentWorker, type WorkerReply } from "./fixtures/memory-worker-process.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const TIMEOUT_MS = 300_000;
const STARTUP_MS = 240_000;
const BEHIND_MS = -5 * 60_000;
const ROUNDS = 3;
const STACK_ENV = {
  MEMORY_ARCHIVE: "true",
  MEMORY_SUMMARIZE: "false",
  MEMORY_WINDOW_SIZE: "2",
  MEMORY_RECALL_MAX_TOKENS: "0",
  MEMORY_TURN_LEASE_MS: "5000",
};
const WORDS = {
  en: (who: string, round: number) => `${who} asks about train ${round}`,
  ko: (who: string, round: number) => `${who}가 ${round}번 기차를 물어봐요`,
} as const;

async function racingTurns(env: NodeJS.ProcessEnv, options: MemoryStackOptions, language: "en" | "ko") {
  const correct = new AgentWorker(env);
  const behind = new AgentWorker({ ...env, THREADWISE_TEST_CLOCK_SKEW_MS: String(BEHIND_MS) });
  const thread = `skew-${language}`;
  try {
    await Promise.all([correct.inspect("warmup-a", STARTUP_MS), behind.inspect("warmup-b", STARTUP_MS)]);
    const replies: WorkerReply[] = [];
    const sent: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const [a, b] = [WORDS[language]("A", round), WORDS[language]("B", round)];
      sent.push(a, b);
      correct.send(thread, a);
      behind.send(thread, b);
      replies.push(...(await Promise.all([correct.next(120_000), behind.next(120_000)])));
    }
    expect(replies.map((r) => [r.ok, r.modelCalls])).toEqual(sent.map(() => [true, 1]));

    const seen = await correct.inspect(thread);
    const exported = (seen.thread ?? []).map(([type, text]) => [type, text]);
    const humans = exported.filter(([type]) => type === "human").map(([, text]) => text);
    expect([...humans].sort()).toEqual([...sent].sort());
    // Each user message is followed by its own answer (the model saw the window only), and each
    // writer's turns, sent one after the other, are in the order it sent them.
    expect(exported.map(([type, text], i) => (type === "ai" ? text?.startsWith(`answer to "${exported[i - 1]?.[1]}"`) : type))).toEqual(
      humans.flatMap(() => ["human", true]),
    );
    for (const who of ["A", "B"]) {
      const own = Array.from({ length: ROUNDS }, (_, round) => WORDS[language](who, round));
      expect(humans.filter((text) => own.includes(text as string))).toEqual(own);
    }
    expect(seen.messages).toEqual(exported.slice(exported.length - (seen.messages?.length ?? 0)));
    expect((seen.thread ?? []).map(([, , id]) => id).slice(-(seen.hotIds?.length ?? 0))).toEqual(seen.hotIds);

    // The history as a fresh reader lists it: the head's parent chain, newest first.
    const reader = memoryStack({ ...options, summarize: false, recallMaxTokens: false, logger: false, env: {} });
    const listed: Array<{ id: string; parent: string | undefined }> = [];
    for await (const tuple of reader.checkpointer!.list({ configurable: { thread_id: thread, checkpoint_ns: "" } }))
      listed.push({ id: String(tuple.config.configurable?.checkpoint_id), parent: tuple.parentConfig?.configurable?.checkpoint_id });
    await reader.checkpointer?.close();
    const outOfChain = listed.filter((c, i) => i + 1 < listed.length && c.parent !== listed[i + 1]?.id).length;
    console.log(
      `[clock skew racing] ${env.MEMORY_BACKEND} ${language}: ${replies.length} turns, ${exported.length} messages exported (${seen.archivedIds?.length} archived), ${listed.length} checkpoints listed, ${outOfChain} not followed by their parent`,
    );
    expect(listed.length).toBeGreaterThan(replies.length);
    for (let i = 0; i + 1 < listed.length; i += 1) expect(listed[i]?.parent).toBe(listed[i + 1]?.id);
  } finally {
    await Promise.all([correct.stop(), behind.stop()]);
  }
}

describe("racing turns, one writer 5 minutes behind: SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-skew-race-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  for (const language of ["en", "ko"] as const) {
    const file = join(dir, `${language}.sqlite`);
    it(
      `getState, readThread and getStateHistory in each writer's order, each answer after its message; a refused attempt calls no model (${language})`,
      () =>
        racingTurns(
          { MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: file, ...STACK_ENV },
          { backend: "sqlite", sqlitePath: file, archive: true },
          language,
        ),
      TIMEOUT_MS,
    );
  }
});

describe.skipIf(skipUnlessRealPostgres("PostgreSQL across processes"))("racing turns, one writer 5 minutes behind: PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twskewrace");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => db.drop());
  for (const language of ["en", "ko"] as const)
    it(
      `getState, readThread and getStateHistory in each writer's order, each answer after its message; a refused attempt calls no model (${language})`,
      () =>
        racingTurns(
          {
            MEMORY_BACKEND: "postgres",
            POSTGRES_MEMORY_DSN: db.url,
            MEMORY_PG_SCHEMA: db.schema,
            MEMORY_PG_POOL_MAX: String(testPoolMax()),
            MEMORY_ALLOW_PLAINTEXT: "true",
            ...STACK_ENV,
          },
          { backend: "postgres", postgresDsn: db.url, postgresSchema: db.schema, allowPlaintext: true, archive: true },
          language,
        ),
      TIMEOUT_MS,
    );
});
