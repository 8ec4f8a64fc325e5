/**
 * Fail-closed (spec R26, issue 13): a SQLite file written with a keyring, opened by memoryStack
 * without one, refuses the first read with `ThreadwiseSealedStoreError` (`THREADWISE_KEYRING_REQUIRED`)
 * instead of running on ciphertext strings and appending plaintext rows, and refuses every write,
 * a new thread's included (spec R38), on SQLite and PostgreSQL. A blank keyring path in env is an
 * error, not "no encryption".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, ThreadwiseKeyringError } from "@threadwise/encryption";
import { memoryStack, migrate, ThreadwiseSealedStoreError } from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-fail-closed-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("an encrypted store opened without a keyring", () => {
  it("refuses to read it and writes nothing", async () => {
    const file = join(dir, "sealed.sqlite");
    const keyring = join(dir, "keyring.json");
    createKeyring(keyring);
    const sealed = memoryStack({ backend: "sqlite", sqlitePath: file, keyringPath: keyring, env: {} });
    const say = (stack: typeof sealed, words: string) =>
      createAgent({ model: scriptedModel(() => "ok"), ...stack }).invoke(
        { messages: [new HumanMessage(words)] },
        { configurable: { thread_id: "t" } },
      );
    await say(sealed, "my secret");
    await sealed.checkpointer?.close();
    const rows = () => {
      const db = new Database(file, { readonly: true });
      try {
        return (db.prepare("SELECT (SELECT count(*) FROM checkpoints) + (SELECT count(*) FROM writes) AS n").get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const before = rows();
    const plain = memoryStack({ backend: "sqlite", sqlitePath: file, env: {} });
    const error = await say(plain, "hello").catch((e: unknown) => e);
    await plain.checkpointer?.close();
    expect(ThreadwiseSealedStoreError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("THREADWISE_MEMORY_KEYRING");
    expect(rows()).toBe(before);
    // A new thread is not written in plaintext beside the sealed rows either.
    const fresh = memoryStack({ backend: "sqlite", sqlitePath: file, env: {} });
    const refused = await createAgent({ model: scriptedModel(() => "ok"), ...fresh })
      .invoke({ messages: [new HumanMessage("new thread")] }, { configurable: { thread_id: "new" } })
      .catch((e: unknown) => e);
    await fresh.checkpointer?.close();
    expect(ThreadwiseSealedStoreError.isInstance(refused) && refused.scope).toBe("store");
    expect(rows()).toBe(before);
  });

  it.skipIf(skipUnlessRealPostgres("sealed PostgreSQL store without its keyring"))(
    "PostgreSQL: a new thread is refused too, nothing written",
    async () => {
      const db = await freshDatabase("twsealed");
      try {
        await migrate({ dsn: db.url });
        const keyring = join(dir, "pg-keyring.json");
        createKeyring(keyring);
        const say = (stack: ReturnType<typeof memoryStack>, thread: string) =>
          createAgent({ model: scriptedModel(() => "ok"), ...stack }).invoke(
            { messages: [new HumanMessage("my secret")] },
            { configurable: { thread_id: thread } },
          );
        const sealed = memoryStack({ backend: "postgres", postgresDsn: db.url, keyringPath: keyring, env: {} });
        await say(sealed, "t");
        await sealed.checkpointer?.close();
        const count = async () => {
          const client = new pg.Client({ connectionString: db.url });
          await client.connect();
          try {
            const { rows } = await client.query(
              "SELECT (SELECT count(*) FROM checkpoints) + (SELECT count(*) FROM checkpoint_writes) + (SELECT count(*) FROM checkpoint_blobs) AS n",
            );
            return Number(rows[0].n);
          } finally {
            await client.end();
          }
        };
        const before = await count();
        const plain = memoryStack({ backend: "postgres", postgresDsn: db.url, allowPlaintext: true, env: {} });
        const error = await say(plain, "new").catch((e: unknown) => e);
        await plain.checkpointer?.close();
        expect(ThreadwiseSealedStoreError.isInstance(error) && error.scope).toBe("store");
        expect(await count()).toBe(before);
      } finally {
        await db.drop();
      }
    },
  );

  it("a blank THREADWISE_MEMORY_KEYRING is refused, not read as unset", () => {
    expect(() => memoryStack({ backend: "sqlite", sqlitePath: join(dir, "x.sqlite"), env: { THREADWISE_MEMORY_KEYRING: "   " } })).toThrow(
      /THREADWISE_MEMORY_KEYRING: is set but blank/,
    );
  });

  it.each([
    ["env", { env: { THREADWISE_MEMORY_KEYRING: join(dir, "none.json") } }, "THREADWISE_MEMORY_KEYRING"],
    ["code", { keyringPath: join(dir, "none.json"), env: {} }, "memory.keyringPath"],
    [
      "code and env naming the same file",
      { keyringPath: join(dir, "none.json"), env: { THREADWISE_MEMORY_KEYRING: join(dir, "none.json") } },
      "THREADWISE_MEMORY_KEYRING",
    ],
  ])("a missing keyring file named in %s: the error names that setting", (_, options, source) => {
    let error: unknown;
    try {
      memoryStack({ backend: "sqlite", sqlitePath: join(dir, "src.sqlite"), ...options });
    } catch (thrown) {
      error = thrown;
    }
    expect(ThreadwiseKeyringError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseKeyringError).source).toBe(source);
    expect((error as Error).message).toContain(`keyring ${join(dir, "none.json")} (from ${source}): cannot be read (ENOENT)`);
  });
});
