/**
 * `threadwise keyring reencrypt --encrypt-plaintext` seals a store written without a keyring
 * (newuser38 left it: only the API, `reencrypt({ saver, encryptPlaintext: true })`, could, and the
 * CLI failed on the first plaintext record with `plaintext-record`). On SQLite and PostgreSQL, with
 * English and Korean turns: without the flag the command fails and its error names the flag; a dry
 * run with it counts the records under `(plaintext)` and writes nothing; with it every stored row
 * is ciphertext and a stack opened with the keyring reads the thread. The PostgreSQL suite needs a
 * real server (required in CI).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring } from "@threadwise/encryption";
import { type MemoryStackOptions, memoryStack, migrate } from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { cliRun } from "./support/cli-run.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-seal-plain-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = (argv: string[]) => cliRun(argv);

const SENTINELS = { en: `locker-code-${randomUUID().slice(0, 8)}`, ko: `사물함번호-${randomUUID().slice(0, 8)}` };
const TURNS = [`My locker code is ${SENTINELS.en}.`, `제 사물함 번호는 ${SENTINELS.ko}예요.`];

/** Writes one thread of English and Korean turns with `options`, then closes the stack. */
async function writeThread(options: MemoryStackOptions): Promise<void> {
  const stack = memoryStack({ ...options, env: {} });
  const agent = createAgent({ model: scriptedModel(() => "noted"), ...stack });
  for (const text of TURNS) await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: "plain" } });
  await stack.checkpointer?.close();
}

/** The thread as a stack opened with the keyring reads it. */
async function readThread(options: MemoryStackOptions): Promise<string> {
  const stack = memoryStack({ ...options, env: {} });
  try {
    const state = await createAgent({ model: scriptedModel(() => "x"), ...stack }).graph.getState({ configurable: { thread_id: "plain" } });
    return JSON.stringify(state.values);
  } finally {
    await stack.checkpointer?.close();
  }
}

/** The flow on one target: refused without the flag, counted by a dry run, sealed with it. */
async function sealsPlaintext(target: string[], rawRows: () => Promise<string>) {
  const refused = await cli(["keyring", "reencrypt", ...target]);
  expect(refused.code).not.toBe(0);
  expect(refused.stderr).toContain("THREADWISE_DECRYPTION_FAILED");
  expect(refused.stderr).toContain("found a plaintext value");
  expect(refused.stderr).toContain("--encrypt-plaintext");

  const before = await rawRows();
  for (const sentinel of Object.values(SENTINELS)) expect(before).toContain(sentinel);
  const dry = await cli(["keyring", "reencrypt", ...target, "--encrypt-plaintext", "--dry-run", "--json"]);
  expect(dry.code).toBe(0);
  const counted = JSON.parse(dry.stdout) as { checkpoints: { rewritten: number; recordsByKid: Record<string, number> } };
  expect(counted.checkpoints.recordsByKid["(plaintext)"]).toBeGreaterThan(0);
  expect(counted.checkpoints.rewritten).toBeGreaterThan(0);
  expect(await rawRows()).toBe(before);

  const applied = await cli(["keyring", "reencrypt", ...target, "--encrypt-plaintext"]);
  expect(applied.code).toBe(0);
  expect(applied.stdout).toMatch(/re-sealed [1-9]\d* of \d+ rows to kid k1 \(records by kid before: \(plaintext\): \d+/);
  const after = await rawRows();
  for (const sentinel of Object.values(SENTINELS)) expect(after).not.toContain(sentinel);
  // Idempotent: nothing is left in plaintext, so a run without the flag now passes and seals nothing.
  const again = await cli(["keyring", "reencrypt", ...target, "--dry-run"]);
  expect(again.code).toBe(0);
  expect(again.stdout).toMatch(/would re-seal 0 of/);
  expect(again.stdout).not.toContain("(plaintext)");
}

describe("keyring reencrypt --encrypt-plaintext on SQLite", () => {
  it("seals a thread written without a keyring; a stack with the keyring then reads it (en, ko)", async () => {
    const sqlitePath = join(dir, "plain.sqlite");
    await writeThread({ backend: "sqlite", sqlitePath });
    const keyringPath = join(dir, "sqlite-keyring.json");
    createKeyring(keyringPath, { kid: "k1" });
    const rawRows = async () => {
      const db = new Database(sqlitePath, { readonly: true });
      try {
        const rows = [
          ...db.prepare("SELECT checkpoint, metadata FROM checkpoints").all(),
          ...db.prepare("SELECT value FROM writes").all(),
        ] as Record<string, Buffer | string>[];
        return rows
          .map((row) =>
            Object.values(row)
              .map((v) => Buffer.from(v).toString("utf8"))
              .join("|"),
          )
          .join("\n");
      } finally {
        db.close();
      }
    };
    await sealsPlaintext(["--sqlite", sqlitePath, "--keyring", keyringPath], rawRows);
    const read = await readThread({ backend: "sqlite", sqlitePath, keyringPath });
    for (const sentinel of Object.values(SENTINELS)) expect(read).toContain(sentinel);
  });
});

describe.skipIf(skipUnlessRealPostgres("keyring reencrypt --encrypt-plaintext"))(
  "keyring reencrypt --encrypt-plaintext on PostgreSQL",
  () => {
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      db = await freshDatabase("twsealpl");
      await migrate({ dsn: db.url, schema: db.schema });
    });
    afterAll(async () => {
      await db?.drop();
    });

    it("seals a thread written under allowPlaintext; a stack with the keyring then reads it (en, ko)", async () => {
      const on = { backend: "postgres", postgresDsn: db.url, postgresSchema: db.schema } as const;
      await writeThread({ ...on, allowPlaintext: true });
      const keyringPath = join(dir, "pg-keyring.json");
      createKeyring(keyringPath, { kid: "k1" });
      const rawRows = async () => {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        try {
          const texts: string[] = [];
          for (const sql of [
            `SELECT checkpoint::text || metadata::text AS t FROM "${db.schema}".checkpoints`,
            `SELECT encode(blob, 'escape') AS t FROM "${db.schema}".checkpoint_blobs WHERE blob IS NOT NULL`,
            `SELECT encode(blob, 'escape') AS t FROM "${db.schema}".checkpoint_writes`,
          ])
            for (const row of (await client.query<{ t: string }>(sql)).rows) texts.push(row.t);
          // Escaped bytea shows non-ASCII bytes as octal: decode it to UTF-8 for the Korean sentinel.
          return texts
            .map((t) =>
              Buffer.from(
                t.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(Number.parseInt(o, 8))),
                "latin1",
              ).toString("utf8"),
            )
            .join("\n");
        } finally {
          await client.end();
        }
      };
      await sealsPlaintext(["--dsn", db.url, "--schema", db.schema, "--keyring", keyringPath], rawRows);
      const read = await readThread({ ...on, keyringPath });
      for (const sentinel of Object.values(SENTINELS)) expect(read).toContain(sentinel);
    });
  },
);
