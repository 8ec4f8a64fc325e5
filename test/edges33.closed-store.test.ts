/**
 * The user-memory store memoryStack makes is closed with the stack's checkpointer: afterwards a
 * call of it, or a run that reaches it (an agent given `stack.store` with another checkpointer),
 * fails with the checkpointer's typed error, `ThreadwiseClosedError` naming `memory.store
 * (<backend>)`, before any model call; on PostgreSQL its pool is ended. Was: the store went on
 * (in memory) or kept its own pool open, and a run went on. A store the user passed is not
 * closed. English and Korean turns.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { type MemoryStackOptions, memoryStack, migrate, ThreadwiseClosedError } from "@threadwise/memory";
import { userMemory } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-closed-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const turns = [
  ["English", "I fly to Busan on Friday.", "When do I fly?"],
  ["Korean", "금요일에 부산으로 가요.", "언제 가요?"],
] as const;

function suite(options: () => MemoryStackOptions, backend: string) {
  for (const [language, first, second] of turns)
    it(`${language}: the stack's own store refuses calls and runs after close()`, async () => {
      let calls = 0;
      const model = scriptedModel(() => {
        calls += 1;
        return "noted";
      });
      const stack = memoryStack({ windowSize: false, env: {}, logger: false, userMemory: true, ...options() });
      const agent = createAgent({ model, tools: [], ...stack });
      const user = { configurable: { thread_id: `t-${language}`, user_id: `u-${language}` } };
      await agent.invoke({ messages: [{ role: "user", content: first }] }, user);
      const before = calls;
      await stack.checkpointer?.close();
      const get = await stack.store?.get(["threadwise"], "x").catch((e: unknown) => e);
      const refused = ThreadwiseClosedError.find(get);
      expect(refused, String(get)).toBeInstanceOf(ThreadwiseClosedError);
      expect(refused?.resource).toBe(`memory.store (${backend})`);
      expect(refused?.operation).toBe("get");
      // A run of the stack fails (its checkpointer is closed); one that reaches the store through
      // userMemory with another checkpointer fails on the store, not going on without user memory.
      const run0 = await agent.invoke({ messages: [{ role: "user", content: second }] }, user).catch((e: unknown) => e);
      expect(ThreadwiseClosedError.find(run0)).toBeInstanceOf(ThreadwiseClosedError);
      const other = createAgent({
        model,
        tools: [],
        middleware: [userMemory({ logger: false })],
        checkpointer: new MemorySaver(),
        store: stack.store,
      });
      const run = await other
        .invoke(
          { messages: [{ role: "user", content: second }] },
          { configurable: { thread_id: `o-${language}`, user_id: `u-${language}` } },
        )
        .catch((e: unknown) => e);
      expect(ThreadwiseClosedError.find(run)?.resource, String(run)).toBe(`memory.store (${backend})`);
      expect(calls).toBe(before);
      await expect(stack.checkpointer?.close()).resolves.toBeUndefined();
    });
}

describe("memoryStack's own user-memory store after close(): in_memory", () => {
  suite(() => ({ backend: "in_memory" }), "in_memory");
});

describe("memoryStack's own user-memory store after close(): sqlite", () => {
  suite(() => ({ backend: "sqlite", sqlitePath: join(dir, `${Math.random()}.sqlite`) }), "sqlite");
});

describe("a store the user passed is not closed with the stack", () => {
  it("stays usable after close()", async () => {
    const store = new InMemoryStore();
    const stack = memoryStack({ env: {}, logger: false, userMemory: true, store });
    await store.put(["a"], "k", { v: "값" });
    await stack.checkpointer?.close();
    expect((await store.get(["a"], "k"))?.value).toEqual({ v: "값" });
    expect(stack.store).toBe(store);
  });
});

describe.skipIf(skipUnlessRealPostgres("closed user-memory store on PostgreSQL"))(
  "memoryStack's own user-memory store after close(): postgres",
  () => {
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      db = await freshDatabase("twclosedstore");
      await migrate({ dsn: db.url, schema: db.schema });
    });
    afterAll(async () => db?.drop());
    suite(() => ({ backend: "postgres", postgresDsn: db.url, postgresSchema: db.schema, allowPlaintext: true }), "postgres");
  },
);
