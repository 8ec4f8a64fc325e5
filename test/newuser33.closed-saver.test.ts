/**
 * A run on a checkpointer after its `close()` (memoryStack's SQLite and PostgreSQL savers, and the
 * in-memory one) fails with `ThreadwiseClosedError` naming the saver that was closed and the
 * operation refused, before any model call. Was: better-sqlite3's raw `TypeError: The database
 * connection is not open`, pg's "Cannot use a pool after calling end on the pool", or (in memory)
 * a run that went on as if nothing was closed. English and Korean turns.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ThreadwiseError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { type MemoryStackOptions, memoryStack, migrate, ThreadwiseClosedError } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-closed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function suite(options: () => MemoryStackOptions, saverName: string) {
  for (const [language, first, second] of [
    ["English", "I fly to Busan on Friday.", "When do I fly?"],
    ["Korean", "금요일에 부산으로 가요.", "언제 가요?"],
  ] as const)
    it(`${language}: invoke, getState and close after close() fail with ThreadwiseClosedError`, async () => {
      let calls = 0;
      const model = scriptedModel(() => {
        calls += 1;
        return "noted";
      });
      const stack = memoryStack({ windowSize: false, env: {}, ...options() });
      const agent = createAgent({ model, tools: [], ...stack });
      const config = { configurable: { thread_id: `closed-${language}` } };
      await agent.invoke({ messages: [{ role: "user", content: first }] }, config);
      await stack.checkpointer?.close();
      const error = await agent.invoke({ messages: [{ role: "user", content: second }] }, config).catch((e: unknown) => e);
      const closed = ThreadwiseClosedError.find(error);
      expect(closed, String(error)).toBeInstanceOf(ThreadwiseClosedError);
      expect(ThreadwiseError.isInstance(closed)).toBe(true);
      expect(closed?.code).toBe("THREADWISE_CLOSED");
      expect(closed?.resource).toBe(saverName);
      expect(closed?.message).toContain(saverName);
      expect(closed?.message).toContain("close()");
      expect(calls).toBe(1);
      const state = await agent.graph.getState(config).catch((e: unknown) => e);
      expect(ThreadwiseClosedError.find(state)?.operation).toBe("getTuple");
      // A second close() is a no-op, as for a file or a pool.
      await expect(stack.checkpointer?.close()).resolves.toBeUndefined();
    });
}

describe("a closed memoryStack checkpointer: SQLite", () => {
  suite(() => ({ backend: "sqlite", sqlitePath: join(dir, `${Math.random()}.sqlite`) }), "memory.checkpointer (sqlite)");
});

describe("a closed memoryStack checkpointer: in_memory", () => {
  suite(() => ({ backend: "in_memory" }), "memory.checkpointer (in_memory)");
});

describe.skipIf(skipUnlessRealPostgres("closed saver on PostgreSQL"))("a closed memoryStack checkpointer: PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twclosed");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => db?.drop());
  suite(
    () => ({ backend: "postgres", postgresDsn: db.url, postgresSchema: db.schema, allowPlaintext: true }),
    "memory.checkpointer (postgres)",
  );
});
