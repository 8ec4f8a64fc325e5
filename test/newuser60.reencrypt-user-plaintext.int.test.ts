/**
 * `reencryptUserItems` could not seal user-memory items stored in plaintext (newuser39 left it):
 * the checkpoints of a store written without a keyring could be sealed (`reencrypt({
 * encryptPlaintext })`, `threadwise keyring reencrypt --encrypt-plaintext`), but its user memory
 * stayed plaintext, and a stack opened with the keyring then refused every such user's memory
 * (`plaintext-record`: each turn went on without it). Now `reencryptUserItems(store, codec, {
 * encryptPlaintext: true })` seals them, and the CLI's `--encrypt-plaintext` does so on PostgreSQL.
 * On SQLite (the stack's file, user memory in a store passed in code) and PostgreSQL (the stack's
 * PostgresStore, through the CLI), English and Korean: a dry run counts them and writes nothing;
 * after the run no stored value holds the sentinel text, a stack with the keyring recalls it in a
 * new thread, and a second run has nothing left. The PostgreSQL suite needs a real server
 * (required in CI).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { ThreadwiseUnknownOptionError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, loadKeyring } from "@threadwise/encryption";
import { type MemoryStackOptions, memoryStack, migrate } from "@threadwise/memory";
import { reencryptUserItems, UserItemCodec } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { cliRun } from "./support/cli-run.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-nu60-seal-items-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SENTINELS = { en: `locker-${randomUUID().slice(0, 8)}`, ko: `사물함-${randomUUID().slice(0, 8)}` };
const TURNS = [`My gym locker code is ${SENTINELS.en}.`, `제 헬스장 사물함 번호는 ${SENTINELS.ko}예요.`];
const QUESTIONS = ["What is my gym locker code?", "제 헬스장 사물함 번호가 뭐였죠?"];
const USER = "mina";

const text = (messages: BaseMessage[]) =>
  messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");

/** Writes thread "a" of the user with `options` (no keyring), then closes the stack. */
async function writeUser(options: MemoryStackOptions): Promise<void> {
  const stack = memoryStack({ ...options, userMemory: true, logger: false, env: {} });
  const agent = createAgent({ model: scriptedModel(() => "noted"), ...stack });
  for (const turn of TURNS) await agent.invoke({ messages: [new HumanMessage(turn)] }, { configurable: { thread_id: "a", user_id: USER } });
  await stack.checkpointer?.close();
}

/** What the model received in a new thread of the user, with the keyring: one request per question. */
async function askNewThread(options: MemoryStackOptions): Promise<string> {
  const seen: string[] = [];
  const stack = memoryStack({ ...options, userMemory: true, logger: false, env: {} });
  const model = scriptedModel((messages: BaseMessage[]) => {
    seen.push(text(messages));
    return "ok";
  });
  try {
    const agent = createAgent({ model, ...stack });
    for (const question of QUESTIONS)
      await agent.invoke({ messages: [new HumanMessage(question)] }, { configurable: { thread_id: `b-${randomUUID()}`, user_id: USER } });
  } finally {
    await stack.checkpointer?.close();
  }
  return seen.join("\n");
}

/** Every stored user-memory value of the store, as text. */
async function storedValues(store: BaseStore): Promise<string> {
  const namespaces = await store.listNamespaces({ prefix: ["threadwise"] });
  const values: string[] = [];
  for (const namespace of namespaces)
    for (const item of await store.search(namespace, { limit: 1000 })) values.push(JSON.stringify(item.value));
  return values.join("\n");
}

describe("reencryptUserItems({ encryptPlaintext }) beside a SQLite file", () => {
  it("seals the user-memory items written without a keyring; a keyring stack recalls them in a new thread (en, ko)", async () => {
    const sqlitePath = join(dir, "plain.sqlite");
    const store = new InMemoryStore();
    await writeUser({ backend: "sqlite", sqlitePath, store });
    const keyringPath = join(dir, "sqlite-keyring.json");
    createKeyring(keyringPath, { kid: "k1" });
    const codec = new UserItemCodec({ keyring: loadKeyring(keyringPath, {}), agentId: "default", principalId: "default" });

    const before = await storedValues(store);
    for (const sentinel of Object.values(SENTINELS)) expect(before).toContain(sentinel);
    // Without the option the items stay plaintext (what a rotation run did before).
    const left = await reencryptUserItems(store, codec);
    expect(left.plaintext).toBeGreaterThan(0);
    expect(left.sealedPlaintext).toBe(0);
    const dry = await reencryptUserItems(store, codec, { encryptPlaintext: true, dryRun: true });
    expect(dry).toEqual({ byKid: {}, resealed: 0, plaintext: left.plaintext, sealedPlaintext: 0, unopenable: 0 });
    expect(await storedValues(store)).toBe(before);

    const done = await reencryptUserItems(store, codec, { encryptPlaintext: true });
    expect(done).toEqual({ byKid: {}, resealed: 0, plaintext: left.plaintext, sealedPlaintext: left.plaintext, unopenable: 0 });
    const after = await storedValues(store);
    for (const sentinel of Object.values(SENTINELS)) expect(after).not.toContain(sentinel);
    expect((await reencryptUserItems(store, codec, { encryptPlaintext: true, dryRun: true })).byKid).toEqual({ k1: left.plaintext });

    // The checkpoints by the CLI (the file), then a keyring stack on the file and the store.
    const sealed = await cliRun(["keyring", "reencrypt", "--sqlite", sqlitePath, "--keyring", keyringPath, "--encrypt-plaintext"]);
    expect(sealed.code).toBe(0);
    const seen = await askNewThread({ backend: "sqlite", sqlitePath, keyringPath, store });
    for (const sentinel of Object.values(SENTINELS)) expect(seen).toContain(sentinel);
    const again = await reencryptUserItems(store, codec, { encryptPlaintext: true });
    expect([again.plaintext, again.sealedPlaintext, again.resealed]).toEqual([0, 0, 0]);
  });

  it("refuses a misspelt option by name instead of ignoring it", async () => {
    const keyringPath = join(dir, "typo-keyring.json");
    createKeyring(keyringPath, { kid: "k1" });
    const codec = new UserItemCodec({ keyring: loadKeyring(keyringPath, {}), agentId: "default", principalId: "default" });
    const error = await reencryptUserItems(new InMemoryStore(), codec, { encryptPlainText: true } as never).catch((e: unknown) => e);
    expect(ThreadwiseUnknownOptionError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseUnknownOptionError).option).toBe("reencryptUserItems.encryptPlainText");
    expect((error as Error).message).toContain("encryptPlaintext");
  });
});

describe.skipIf(skipUnlessRealPostgres("keyring reencrypt --encrypt-plaintext of user memory"))(
  "keyring reencrypt --encrypt-plaintext seals user memory on PostgreSQL",
  () => {
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      db = await freshDatabase("twnu60pl");
      await migrate({ dsn: db.url, schema: db.schema });
    });
    afterAll(async () => {
      await db?.drop();
    });

    it("a dry run counts the plaintext items; the run seals them; a keyring stack recalls them in a new thread (en, ko)", async () => {
      const on = { backend: "postgres", postgresDsn: db.url, postgresSchema: db.schema } as const;
      await writeUser({ ...on, allowPlaintext: true });
      const keyringPath = join(dir, "pg-keyring.json");
      createKeyring(keyringPath, { kid: "k1" });
      const storeRows = async () => {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          return (await client.query<{ t: string }>(`SELECT value::text AS t FROM "${db.schema}".store`)).rows.map((r) => r.t).join("\n");
        } finally {
          await client.end();
        }
      };
      const target = ["keyring", "reencrypt", "--dsn", db.url, "--schema", db.schema, "--keyring", keyringPath];
      const before = await storeRows();
      for (const sentinel of Object.values(SENTINELS)) expect(before).toContain(sentinel);

      const dry = await cliRun([...target, "--encrypt-plaintext", "--dry-run", "--json"]);
      expect(dry.code).toBe(0);
      const counted = JSON.parse(dry.stdout) as { userMemory: { plaintext: number; sealedPlaintext: number } };
      expect(counted.userMemory.plaintext).toBeGreaterThan(0);
      expect(counted.userMemory.sealedPlaintext).toBe(0);
      expect(await storeRows()).toBe(before);

      const applied = await cliRun([...target, "--encrypt-plaintext"]);
      expect(applied.code).toBe(0);
      expect(applied.stdout).toContain(`sealed ${counted.userMemory.plaintext} plaintext item(s)`);
      const after = await storeRows();
      for (const sentinel of Object.values(SENTINELS)) expect(after).not.toContain(sentinel);

      const seen = await askNewThread({ ...on, keyringPath });
      for (const sentinel of Object.values(SENTINELS)) expect(seen).toContain(sentinel);
      const again = await cliRun([...target, "--dry-run", "--json"]);
      expect(again.code).toBe(0);
      const left = JSON.parse(again.stdout) as { userMemory: { plaintext: number; byKid: Record<string, number> } };
      expect(left.userMemory.plaintext).toBe(0);
      // The sealed items, plus what the new threads' turns wrote (sealed with k1 too).
      expect(left.userMemory.byKid.k1).toBeGreaterThanOrEqual(counted.userMemory.plaintext);
      expect(Object.keys(left.userMemory.byKid)).toEqual(["k1"]);
    });
  },
);
