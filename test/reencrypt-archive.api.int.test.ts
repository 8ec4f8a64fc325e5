/**
 * Key rotation by the API, as the encryption README's steps give it: `reencrypt({ saver })` from
 * `@threadwise/encryption` rewrites the checkpoint tables only, so a store whose threads have
 * archived messages (`memoryStack({ archive: true })`) kept them on the old kid and `retireKey`
 * made them unreadable (`unknown-kid`); the CLI re-sealed the archive, the API had no way to.
 * `reencryptArchive({ saver })` from `@threadwise/memory` does it in the saver's own database; its
 * dry run counts the archive per kid. SQLite and PostgreSQL (a real server; required in CI); en/ko.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, encryptCheckpointer, reencrypt, retireKey, rotateKeyring } from "@threadwise/encryption";
import * as memory from "@threadwise/memory";
import { type MemoryStackOptions, memoryStack, migrate, type ThreadwiseSaver } from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { archivedStackOptions } from "./support/archived-stack.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-reencrypt-archive-api-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TURNS = ["My locker code is 4417.", "제 사물함 번호는 4417이에요.", "What is the weather like?", "오늘 날씨 어때요?"];
const THREAD = "rotated-by-api";

/** `reencryptArchive` as the package exports it (undefined before it was). */
const reencryptArchive = (memory as Record<string, unknown>).reencryptArchive as typeof memory.reencryptArchive;

async function writeThread(options: MemoryStackOptions): Promise<number> {
  const stack = memoryStack(options);
  const agent = createAgent({ model: scriptedModel((_m, k) => `답 answer ${k + 1}`), ...stack });
  for (const text of [...TURNS, ...TURNS.map((t, i) => `${t} (${i + 5})`), ...TURNS.map((t, i) => `${t} (${i + 9})`)])
    await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: THREAD } });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const archived = (await saver.archivedMessages(THREAD)).length;
  await saver.close();
  return archived;
}

async function readThread(options: MemoryStackOptions): Promise<string[]> {
  const saver = memoryStack(options).checkpointer as ThreadwiseSaver;
  try {
    return (await saver.readThread({ configurable: { thread_id: THREAD } })).map(messageText);
  } finally {
    await saver.close();
  }
}

/** rotate; reencrypt and reencryptArchive on one saver; a dry run on the active kid only; retire k1: the thread reads whole. */
async function rotatesByApi(options: MemoryStackOptions, keyring: string, inner: () => SqliteSaver | PostgresSaver) {
  const archived = await writeThread(options);
  expect(archived).toBeGreaterThan(0);
  const before = await readThread(options);
  rotateKeyring(keyring, { kid: "k2" });
  const saver = encryptCheckpointer(inner(), { keyring, agentId: "default" }, {});
  await reencrypt({ saver });
  expect(typeof reencryptArchive).toBe("function");
  const applied = await reencryptArchive({ saver, batchSize: 3 });
  expect(applied.recordsByKid.k1).toBeGreaterThanOrEqual(archived);
  expect(applied.rewritten).toBe(applied.recordsByKid.k1);
  const dry = await reencryptArchive({ saver, dryRun: true });
  expect(Object.keys(dry.recordsByKid)).toEqual(["k2"]);
  expect(dry).toMatchObject({ scanned: applied.scanned, rewritten: 0 });
  retireKey(keyring, "k1");
  expect(await readThread(options)).toEqual(before);
}

describe("reencryptArchive: key rotation by the API reaches the archive", () => {
  it("SQLite: reencrypt + reencryptArchive, then retire the old kid: a fresh stack reads the archived turns (en/ko)", async () => {
    const sqlitePath = join(dir, "api.sqlite");
    const keyring = join(dir, "api-keyring.json");
    createKeyring(keyring, { kid: "k1" });
    const db = new Database(sqlitePath);
    try {
      await rotatesByApi(archivedStackOptions({ backend: "sqlite", sqlitePath, keyringPath: keyring }), keyring, () => new SqliteSaver(db));
    } finally {
      db.close();
    }
  });

  it("refuses a misspelt option and a saver not from encryptCheckpointer before reading a row; a file with no archive is zero rows", async () => {
    const keyring = join(dir, "opt-keyring.json");
    createKeyring(keyring, { kid: "k1" });
    const db = new Database(join(dir, "empty.sqlite"));
    try {
      const saver = encryptCheckpointer(new SqliteSaver(db), { keyring, agentId: "default" }, {});
      await expect(reencryptArchive({ saver, dryrun: true } as never)).rejects.toMatchObject({
        key: "dryrun",
        option: "reencryptArchive.dryrun",
      });
      await expect(reencryptArchive({ saver: new SqliteSaver(db) } as never)).rejects.toMatchObject({
        code: "THREADWISE_REENCRYPT_UNSUPPORTED",
      });
      expect(await reencryptArchive({ saver })).toEqual({ scanned: 0, rewritten: 0, recordsByKid: {} });
    } finally {
      db.close();
    }
  });
});

describe.skipIf(skipUnlessRealPostgres("reencryptArchive on PostgreSQL"))("reencryptArchive on PostgreSQL", () => {
  it("reencrypt + reencryptArchive, then retire the old kid: a fresh stack reads the archived turns (en/ko)", async () => {
    const db = await freshDatabase("twarchapi");
    const pool = new pg.Pool({ connectionString: db.url, max: 2 });
    try {
      await migrate({ dsn: db.url });
      const keyring = join(dir, "pg-keyring.json");
      createKeyring(keyring, { kid: "k1" });
      await rotatesByApi(
        archivedStackOptions({ backend: "postgres", postgresDsn: db.url, keyringPath: keyring }),
        keyring,
        () => new PostgresSaver(pool),
      );
    } finally {
      await pool.end();
      await db.drop();
    }
  }, 300_000);
});
