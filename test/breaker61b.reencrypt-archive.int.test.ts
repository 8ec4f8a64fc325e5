/**
 * Rotation as the encryption README's steps give it (rotate, reencrypt, a dry run that counts only
 * the active kid, retire the old kid) on a store whose threads have archived messages
 * (`memoryStack({ archive: true })`): `threadwise keyring reencrypt` re-sealed the checkpoint tables
 * only, so the archive (`threadwise_archive`) stayed on the old kid, the dry run did not count it,
 * and after `retireKey` a fresh process could not read the thread (`unknown-kid`). Now the command
 * re-seals archived messages and rewrite markers too, counts them per kid, and after retiring the
 * old kid the whole thread (archive and hot part, Korean and English) reads in a fresh stack.
 * With `--encrypt-plaintext` archived messages stored without a keyring are sealed too (their text
 * is in no row afterwards). SQLite and PostgreSQL (a real server; required in CI).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, retireKey, rotateKeyring, sealedKid } from "@threadwise/encryption";
import { type MemoryStackOptions, memoryStack, migrate, type ThreadwiseSaver } from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { archivedStackOptions } from "./support/archived-stack.js";
import { cliRun } from "./support/cli-run.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-b61b-reencrypt-archive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SENTINELS = { en: `locker-${randomUUID().slice(0, 8)}`, ko: `사물함-${randomUUID().slice(0, 8)}` };
const BASE_TURNS = [
  `My locker code is ${SENTINELS.en}.`,
  `제 사물함 번호는 ${SENTINELS.ko}예요.`,
  "What is the weather like?",
  "오늘 날씨 어때요?",
  "Tell me about trains.",
  "기차 얘기 해 주세요.",
];
/** Twelve turns: enough for summarize to cover the first ones and the archive to take them. */
const TURNS = [...BASE_TURNS, ...BASE_TURNS.map((text, i) => `${text} (${i + 7})`)];
const THREAD = "rotated";

const stackOptions = archivedStackOptions;

/** Writes the thread (its first turns end up archived), then closes the stack; the archived count. */
async function writeThread(options: MemoryStackOptions): Promise<number> {
  const stack = memoryStack(options);
  const agent = createAgent({ model: scriptedModel((_m, k) => `답 answer ${k + 1}`), ...stack });
  for (const text of TURNS) await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: THREAD } });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const archived = (await saver.archivedMessages(THREAD)).length;
  await saver.close();
  return archived;
}

/** The whole thread (archive, then hot part) as a fresh stack reads it. */
async function readThread(options: MemoryStackOptions): Promise<string[]> {
  const stack = memoryStack(options);
  const saver = stack.checkpointer as ThreadwiseSaver;
  try {
    return (await saver.readThread({ configurable: { thread_id: THREAD } })).map(messageText);
  } finally {
    await saver.close();
  }
}

/** rotate, reencrypt, dry run (only the new kid), retire the old kid: the thread still reads whole. */
async function rotatesArchive(options: MemoryStackOptions, keyring: string, target: string[], cliEnv: NodeJS.ProcessEnv = {}) {
  const archived = await writeThread(options);
  expect(archived).toBeGreaterThan(0);
  const before = await readThread(options);
  expect(before.filter((_t, i) => i % 2 === 0)).toEqual(TURNS);
  rotateKeyring(keyring, { kid: "k2" });
  const applied = await cliRun(["keyring", "reencrypt", "--keyring", keyring, ...target, "--json"], cliEnv);
  expect(applied.code, applied.stderr).toBe(0);
  retireKey(keyring, "k1");
  // The oracle: a fresh stack with only the new kid reads the whole thread as before.
  expect(await readThread(options)).toEqual(before);
  const report = JSON.parse(applied.stdout) as { archive?: { recordsByKid: Record<string, number>; rewritten: number } };
  expect(report.archive?.recordsByKid.k1).toBeGreaterThanOrEqual(archived);
  expect(report.archive?.rewritten).toBeGreaterThanOrEqual(archived);
  const dry = await cliRun(["keyring", "reencrypt", "--keyring", keyring, ...target, "--dry-run", "--json"], cliEnv);
  expect(dry.code, dry.stderr).toBe(0);
  const counted = JSON.parse(dry.stdout) as {
    checkpoints: { recordsByKid: Record<string, number> };
    archive?: { recordsByKid: Record<string, number>; rewritten: number };
  };
  expect(Object.keys(counted.checkpoints.recordsByKid)).toEqual(["k2"]);
  expect(Object.keys(counted.archive?.recordsByKid ?? {})).toEqual(["k2"]);
  expect(counted.archive?.rewritten).toBe(0);
}

/** The archive rows' records, with the payload of each plaintext one (`[type, base64]`) decoded. */
function archiveText(records: readonly string[]): string {
  return records
    .map((record) => {
      try {
        const parsed = JSON.parse(record) as unknown;
        if (Array.isArray(parsed) && typeof parsed[1] === "string")
          return `${record}\n${Buffer.from(parsed[1], "base64").toString("utf8")}`;
      } catch {
        // not JSON: kept as it is
      }
      return record;
    })
    .join("\n");
}

describe("keyring reencrypt reaches the archive: SQLite", () => {
  it("rotate, reencrypt, retire the old kid: a fresh stack reads the archived turns (en/ko)", async () => {
    const sqlitePath = join(dir, "sealed.sqlite");
    const keyring = join(dir, "sealed-keyring.json");
    createKeyring(keyring, { kid: "k1" });
    await rotatesArchive(stackOptions({ backend: "sqlite", sqlitePath, keyringPath: keyring }), keyring, ["--sqlite", sqlitePath]);
  });

  it("--encrypt-plaintext seals plaintext archived messages: their text is in no archive row", async () => {
    const sqlitePath = join(dir, "plain.sqlite");
    const keyring = join(dir, "plain-keyring.json");
    createKeyring(keyring, { kid: "k1" });
    const plain = stackOptions({ backend: "sqlite", sqlitePath, allowPlaintext: true });
    const archived = await writeThread(plain);
    expect(archived).toBeGreaterThan(0);
    const before = await readThread(plain);
    const rows = () => {
      const db = new Database(sqlitePath, { readonly: true });
      try {
        return archiveText((db.prepare("SELECT record FROM threadwise_archive").all() as Array<{ record: string }>).map((r) => r.record));
      } finally {
        db.close();
      }
    };
    expect(rows()).toContain(SENTINELS.en);
    const applied = await cliRun(["keyring", "reencrypt", "--keyring", keyring, "--sqlite", sqlitePath, "--encrypt-plaintext"]);
    expect(applied.code, applied.stderr).toBe(0);
    const after = rows();
    for (const sentinel of Object.values(SENTINELS)) expect(after).not.toContain(sentinel);
    expect(await readThread(stackOptions({ backend: "sqlite", sqlitePath, keyringPath: keyring }))).toEqual(before);
  });
});

describe.skipIf(skipUnlessRealPostgres("keyring reencrypt of the archive on PostgreSQL"))(
  "keyring reencrypt reaches the archive: PostgreSQL",
  () => {
    it("rotate, reencrypt, retire the old kid: a fresh stack reads the archived turns (en/ko); directly and through PgBouncer", async () => {
      const bouncer = pgbouncerUrl("keyring reencrypt of the archive through PgBouncer");
      for (const via of bouncer ? ["postgres", "pgbouncer"] : ["postgres"]) {
        const db = await freshDatabase("twb61barch");
        try {
          await migrate({ dsn: db.url });
          const keyring = join(dir, `pg-keyring-${via}.json`);
          createKeyring(keyring, { kid: "k1" });
          // The command's pool through PgBouncer's transaction mode, as MEMORY_PG_POOL_MODE says.
          const [dsn, cliEnv] =
            via === "pgbouncer" ? [sameDatabase(bouncer as string, db.url), { MEMORY_PG_POOL_MODE: "transaction" }] : [db.url, {}];
          await rotatesArchive(
            stackOptions({ backend: "postgres", postgresDsn: db.url, keyringPath: keyring }),
            keyring,
            ["--dsn", dsn],
            cliEnv,
          );
          // No archived row is still under k1 (checked on the rows, not the report).
          const pool = new pg.Pool({ connectionString: db.url, max: 1 });
          try {
            const { rows } = await pool.query<{ record: string }>("SELECT record FROM threadwise_archive");
            expect(rows.length).toBeGreaterThan(0);
            expect(rows.filter((r) => r.record.startsWith("twe1:")).map((r) => sealedKid(r.record))).toEqual(rows.map(() => "k2"));
          } finally {
            await pool.end();
          }
        } finally {
          await db.drop();
        }
      }
    }, 300_000);
  },
);
