/**
 * Rotation end to end (R29) on SqliteSaver, PostgresSaver and MemorySaver: records written under
 * an old kid read after a new kid becomes active; `reencrypt` moves every record to the active kid;
 * the old kid is retired and every checkpoint of every thread still reads. Changing the agent id
 * is refused.
 */
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { scriptedModel } from "@threadwise/core/testing";
import {
  createKeyring,
  type EncryptedCheckpointSaver,
  encryptCheckpointer,
  type ReencryptProgress,
  reencrypt,
  retireKey,
  rotateKeyring,
  ThreadwiseAgentMismatchError,
  ThreadwiseDecryptionError,
} from "@threadwise/encryption";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir } from "../packages/encryption/src/test-support.js";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

const dir = tempDir();
const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function say(checkpointer: BaseCheckpointSaver, threadId: string, text: string): Promise<void> {
  const agent = createAgent({ model: scriptedModel((messages) => `echo ${messages.length}`), checkpointer });
  await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: threadId } });
}

/** Every checkpoint of the thread, opened: its message texts. Throws if any record does not open. */
async function history(saver: BaseCheckpointSaver, threadId: string): Promise<string[][]> {
  const out: string[][] = [];
  for await (const tuple of saver.list({ configurable: { thread_id: threadId } })) {
    const messages = (tuple.checkpoint.channel_values.messages ?? []) as Array<{ content: unknown }>;
    out.push(messages.map((m) => String(m.content)));
  }
  return out;
}

interface Backend {
  name: string;
  /** A fresh inner saver over the same storage each call. */
  open: () => Promise<BaseCheckpointSaver>;
}

let sqliteRun = 0;
let pool: pg.Pool | undefined;
let pgSchema = "";
let pgRun = 0;
const memory = new MemorySaver();

const backends: Backend[] = [
  {
    name: "SqliteSaver",
    open: async () => SqliteSaver.fromConnString(join(dir, `rotation-${sqliteRun}.db`)),
  },
  {
    name: "PostgresSaver",
    open: async () => {
      if (!pool) {
        const database = await freshDatabase("twrot");
        pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
        pgSchema = database.schema;
        const p = pool;
        cleanups.push(async () => {
          if (isPglite()) await p.query(`DROP SCHEMA IF EXISTS "${pgSchema}" CASCADE`);
          await p.end();
          if (!isPglite()) await database.drop();
        });
      }
      const saver = new PostgresSaver(pool, undefined, { schema: `${pgSchema}_${pgRun}` });
      await saver.setup();
      return saver;
    },
  },
  { name: "MemorySaver", open: async () => memory },
];

describe.each(backends)("rotation on $name", (backend) => {
  it("reads old and new kids, reencrypts everything to the active kid, then works without the old kid", async () => {
    sqliteRun += 1;
    pgRun += 1;
    const keyringPath = join(dir, `${backend.name}-${sqliteRun}`, "keyring.json");
    createKeyring(keyringPath, { kid: "old" });
    const options = { keyring: keyringPath, agentId: "support" };
    const threads = [`a-${sqliteRun}`, `b-${sqliteRun}`];

    const before = encryptCheckpointer(await backend.open(), options);
    for (const thread of threads) {
      await say(before, thread, `hello from ${thread}`);
      await say(before, thread, `second from ${thread}`);
    }

    rotateKeyring(keyringPath, { kid: "new" });
    const during = encryptCheckpointer(await backend.open(), options);
    expect(during.activeKid).toBe("new");
    // Reads with either kid: the old records still open, new ones are sealed with "new".
    await say(during, threads[0] as string, "third after rotation");
    const expected = Object.fromEntries(await Promise.all(threads.map(async (t) => [t, await history(during, t)])));
    expect(expected[threads[0] as string]?.[0]).toEqual([
      `hello from ${threads[0]}`,
      "echo 1",
      `second from ${threads[0]}`,
      "echo 3",
      "third after rotation",
      "echo 5",
    ]);

    const survey = await reencrypt({ saver: during, dryRun: true });
    expect(survey.recordsByKid.old).toBeGreaterThan(0);
    expect(survey.recordsByKid.new).toBeGreaterThan(0);
    expect(survey.rewritten).toBeGreaterThan(0);

    const progress: ReencryptProgress[] = [];
    const result = await reencrypt({ saver: during, batchSize: 3, onProgress: (p) => progress.push(p) });
    expect(result.activeKid).toBe("new");
    expect(result.rewritten).toBe(survey.rewritten);
    expect(progress.length).toBeGreaterThan(2);
    for (const table of new Set(progress.map((p) => p.table))) {
      const steps = progress.filter((p) => p.table === table);
      expect(steps.at(-1)?.scanned).toBe(steps.at(-1)?.total);
      expect(steps.map((p) => p.scanned)).toEqual([...steps.map((p) => p.scanned)].sort((a, b) => a - b));
    }

    const again = await reencrypt({ saver: during, dryRun: true });
    expect(again.rewritten).toBe(0);
    expect(Object.keys(again.recordsByKid)).toEqual(["new"]);

    retireKey(keyringPath, "old");
    const after = encryptCheckpointer(await backend.open(), options);
    for (const thread of threads) expect(await history(after, thread)).toEqual(expected[thread]);
    await say(after, threads[1] as string, "after retirement");
    expect((await history(after, threads[1] as string))[0]?.slice(-2)).toEqual(["after retirement", "echo 5"]);

    // Changing the agent id of encrypted data is refused by name.
    const otherAgent = encryptCheckpointer(await backend.open(), { ...options, agentId: "billing" });
    await expect(otherAgent.getTuple({ configurable: { thread_id: threads[0] } })).rejects.toBeInstanceOf(ThreadwiseAgentMismatchError);
    for (const saver of [before, during, after, otherAgent] as EncryptedCheckpointSaver[])
      (saver.inner as Partial<SqliteSaver>).db?.close();
  });
});

describe("retiring a kid before reencrypt", () => {
  it("makes the old records fail with unknown-kid instead of disappearing", async () => {
    const keyringPath = join(dir, "early", "keyring.json");
    createKeyring(keyringPath, { kid: "old" });
    const file = join(dir, "early.db");
    const options = { keyring: keyringPath, agentId: "support" };
    await say(encryptCheckpointer(SqliteSaver.fromConnString(file), options), "t", "hello");
    rotateKeyring(keyringPath, { kid: "new" });
    retireKey(keyringPath, "old");
    const saver = encryptCheckpointer(SqliteSaver.fromConnString(file), options);
    const error = await saver.getTuple({ configurable: { thread_id: "t" } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadwiseDecryptionError);
    expect((error as ThreadwiseDecryptionError).problem).toBe("unknown-kid");
    expect((error as ThreadwiseDecryptionError).kid).toBe("old");
    await expect(reencrypt({ saver })).rejects.toBeInstanceOf(ThreadwiseDecryptionError);
  });
});

describe("migrating a plaintext store with reencrypt({ encryptPlaintext: true })", () => {
  const SENTINEL = `PLAINTEXT-SENTINEL-${Date.now()}`;
  const hits = (text: string) => text.split(SENTINEL).length - 1;

  it("SqliteSaver: refuses plaintext by default, encrypts it on request, reads back the same thread", async () => {
    const file = join(dir, "legacy.db");
    const plain = SqliteSaver.fromConnString(file);
    await say(plain, "legacy", `my secret is ${SENTINEL}`);
    await say(plain, "legacy", "and more");
    const before = await history(plain, "legacy");
    plain.db.close();
    const keyringPath = join(dir, "legacy", "keyring.json");
    createKeyring(keyringPath, { kid: "k1" });
    const saver = encryptCheckpointer(SqliteSaver.fromConnString(file), { keyring: keyringPath, agentId: "support" });

    const refused = await saver.getTuple({ configurable: { thread_id: "legacy" } }).catch((e: unknown) => e);
    expect((refused as ThreadwiseDecryptionError).problem).toBe("plaintext-record");
    await expect(reencrypt({ saver })).rejects.toMatchObject({ problem: "plaintext-record" });
    const survey = await reencrypt({ saver, dryRun: true, encryptPlaintext: true });
    expect(Object.keys(survey.recordsByKid)).toEqual(["(plaintext)"]);

    const result = await reencrypt({ saver, encryptPlaintext: true, batchSize: 2 });
    expect(result.rewritten).toBe(survey.rewritten);
    expect(await history(saver, "legacy")).toEqual(before);
    await say(saver, "legacy", "continues encrypted");
    expect((await history(saver, "legacy"))[0]?.at(-2)).toBe("continues encrypted");
    // Freed pages and the WAL keep old plaintext until SQLite reclaims them: checkpoint and VACUUM.
    saver.inner.db.exec("VACUUM");
    saver.inner.db.pragma("wal_checkpoint(TRUNCATE)");
    const bytes = ["", "-wal"].map((suffix) => (existsSync(file + suffix) ? readFileSync(file + suffix).toString("latin1") : "")).join("");
    expect(hits(bytes)).toBe(0);
    saver.inner.db.close();
  });

  it("PostgresSaver and MemorySaver: every record ends sealed and the threads read", async () => {
    pgRun += 1;
    const keyringPath = join(dir, "legacy-pg", "keyring.json");
    createKeyring(keyringPath, { kid: "k1" });
    const fresh = new MemorySaver();
    const postgres = backends.find((b) => b.name === "PostgresSaver") as Backend;
    for (const backend of [postgres, { name: "MemorySaver", open: async () => fresh }]) {
      const plain = await backend.open();
      await say(plain, `legacy-${backend.name}`, `my secret is ${SENTINEL}`);
      const before = await history(plain, `legacy-${backend.name}`);
      const saver = encryptCheckpointer(await backend.open(), { keyring: keyringPath, agentId: "support" });
      await reencrypt({ saver, encryptPlaintext: true });
      const again = await reencrypt({ saver, dryRun: true });
      expect(again.rewritten).toBe(0);
      expect(Object.keys(again.recordsByKid)).toEqual(["k1"]);
      expect(await history(saver, `legacy-${backend.name}`)).toEqual(before);
    }
  });
});
