/**
 * The `threadwise` CLI (spec R21-R25): help, config dumps and errors never show a DSN password or
 * key material; prune is a dry run unless --apply; retention; keyring create; migrate.
 */
import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres, withCredentials } from "./fixtures/memory-postgres.js";
import { cliRun } from "./support/cli-run.js";
import { freshDatabase } from "./support/postgres.js";

const SECRET = `S3cr3t-${randomUUID().slice(0, 8)}`;
const SECRET_ENV = {
  POSTGRES_MEMORY_DSN: `postgresql://app:${SECRET}@127.0.0.1:1/app_memory`,
  POSTGRES_MIGRATION_DSN: `postgresql://owner:${SECRET}@127.0.0.1:1/app_memory`,
};

async function cli(argv: string[], env: NodeJS.ProcessEnv = {}) {
  const run = await cliRun(argv, env);
  return { ...run, all: run.stdout + run.stderr };
}

const dir = mkdtempSync(join(tmpdir(), "tw-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("no secrets out (R25)", () => {
  it("--help of every command shows no DSN or password, even with DSNs in env", async () => {
    for (const argv of [
      ["--help"],
      ["migrate", "--help"],
      ["prune", "--help"],
      ["retention", "--help"],
      ["config", "--help"],
      ["keyring", "--help"],
    ]) {
      const out = await cli(argv, SECRET_ENV);
      expect(out.code).toBe(0);
      expect(out.all).toContain("Usage: threadwise");
      expect(out.all).not.toContain(SECRET);
      expect(out.all).not.toContain("127.0.0.1:1");
    }
  });

  it("the built binary's --help (a real process) shows no secret", () => {
    const bin = resolve(import.meta.dirname, "../packages/memory/src/bin.ts");
    const result = spawnSync(process.execPath, ["--import", "tsx", bin, "prune", "--help"], {
      env: { PATH: process.env.PATH, ...SECRET_ENV },
      encoding: "utf8",
      cwd: resolve(import.meta.dirname, ".."),
    });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain("--older-than-days");
    expect(result.stdout + result.stderr).not.toContain(SECRET);
  });

  it("config prints the resolved config with the password redacted; accepts --backend in-memory", async () => {
    const out = await cli(["config"], { ...SECRET_ENV, MEMORY_BACKEND: "sqlite", MEMORY_WINDOW_SIZE: "9" });
    expect(out.code).toBe(0);
    const dumped = JSON.parse(out.stdout);
    expect(dumped).toMatchObject({ backend: "sqlite", windowSize: 9, postgresDsn: "postgresql://app:***@127.0.0.1:1/app_memory" });
    expect(out.all).not.toContain(SECRET);
    const hyphen = await cli(["config", "--backend", "in-memory"], {});
    expect(JSON.parse(hyphen.stdout).backend).toBe("in_memory");
  });

  it("errors from a failing connection are printed without the password", async () => {
    for (const argv of [
      ["migrate"],
      ["prune", "--older-than-days", "1"],
      ["migrate", "--dsn", `postgresql://x:${SECRET}@127.0.0.1:notaport/db`],
    ]) {
      const out = await cli(argv, SECRET_ENV);
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(/^threadwise: /);
      expect(out.all).not.toContain(SECRET);
    }
  });

  it("a config error names the variable, not its secret neighbours", async () => {
    const out = await cli(["config"], { ...SECRET_ENV, MEMORY_BACKEND: "in-memory" });
    expect(out.code).toBe(2); // a bad value, refused before anything ran
    expect(out.stderr).toContain("MEMORY_BACKEND");
    expect(out.stderr).toContain("in_memory");
    expect(out.all).not.toContain(SECRET);
  });
});

describe("prune and retention on SQLite", () => {
  const sqlitePath = join(dir, "ops.sqlite");
  beforeAll(async () => {
    const stack = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
    const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
    for (const id of ["t-a", "t-b"]) await agent.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: id } });
    await stack.checkpointer?.close();
  });

  it("prune without --apply lists and keeps; with --apply deletes and says so", async () => {
    const dry = await cli(["prune", "--sqlite", sqlitePath, "--thread-id", "t-a"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/^t-a\t\S+\t\d+\t0\t\d+\t0$/m);
    expect(dry.stdout).toContain("dry run: 1 thread(s) would be deleted");
    expect(dry.stdout).toContain("--apply");
    expect((await cli(["prune", "--sqlite", sqlitePath, "--thread-id", "t-a", "--json"])).stdout).toContain('"dryRun": true');
    const applied = await cli(["prune", "--sqlite", sqlitePath, "--thread-id", "t-a", "--apply"]);
    expect(applied.stdout).toMatch(/^t-a\tdeleted\t\d+\t0\t\d+\t0$/m);
    expect(applied.stdout).toContain("deleted 1 thread(s)");
    expect((await cli(["prune", "--sqlite", sqlitePath, "--thread-id", "t-a"])).stdout).toContain('thread "t-a" was already deleted at');
  });

  it("prune needs a selector; retention needs days", async () => {
    expect((await cli(["prune", "--sqlite", sqlitePath])).stderr).toContain("--older-than-days");
    expect((await cli(["retention", "--sqlite", sqlitePath])).stderr).toContain("MEMORY_RETENTION_DAYS");
    expect((await cli(["prune", "--sqlite", sqlitePath, "--older-than-days", "-1"])).code).not.toBe(0);
  });

  it("retention deletes only threads idle that long (MEMORY_RETENTION_DAYS)", async () => {
    const none = await cli(["retention", "--sqlite", sqlitePath], { MEMORY_RETENTION_DAYS: "30" });
    expect(none.stdout).toContain("deleted 0 thread(s)");
    const db = new (await import("better-sqlite3")).default(sqlitePath);
    db.prepare("UPDATE threadwise_threads SET updated_at = ? WHERE thread_id = 't-b'").run(Date.now() - 31 * 86_400_000);
    db.close();
    const some = await cli(["retention", "--sqlite", sqlitePath, "--days", "30"]);
    expect(some.stdout).toMatch(/^t-b\tdeleted/m);
  });
});

describe("keyring create", () => {
  it("writes a 0600 keyring and prints no key material", async () => {
    const path = join(dir, "dev", "keyring.json");
    const out = await cli(["keyring", "create", path]);
    expect(out.code).toBe(0);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const keyring = JSON.parse(readFileSync(path, "utf8")) as { active_kid: string; keys: Record<string, string> };
    const key = keyring.keys[keyring.active_kid] as string;
    expect(Buffer.from(key, "base64")).toHaveLength(32);
    expect(out.stdout).toContain(keyring.active_kid);
    expect(out.all).not.toContain(key);
    // Never overwritten.
    expect((await cli(["keyring", "create", path])).code).toBe(1);
    expect(JSON.parse(readFileSync(path, "utf8")).keys[keyring.active_kid]).toBe(key);
  });
});

describe("encryption through memoryStack, and keyring rotate + reencrypt", () => {
  it("stores ciphertext with a keyring; after rotate + reencrypt every record is on the new kid and the thread reads", async () => {
    const keyringPath = join(dir, "enc", "keyring.json");
    const sqlitePath = join(dir, "enc.sqlite");
    expect((await cli(["keyring", "create", keyringPath, "--kid", "old"])).code).toBe(0);
    const sentinel = `sentinel-${randomUUID()}`;
    const stack = memoryStack({ backend: "sqlite", sqlitePath, keyringPath, env: {} });
    const agent = createAgent({ model: scriptedModel(() => `noted ${sentinel}`), ...stack });
    await agent.invoke({ messages: [new HumanMessage(`remember ${sentinel}`)] }, { configurable: { thread_id: "enc" } });
    await stack.checkpointer?.close();
    const bytes = () =>
      Buffer.concat([
        readFileSync(sqlitePath),
        ...["-wal"].map((x) => {
          try {
            return readFileSync(sqlitePath + x);
          } catch {
            return Buffer.alloc(0);
          }
        }),
      ]);
    expect(bytes().includes(sentinel)).toBe(false);

    expect((await cli(["keyring", "rotate", keyringPath, "--kid", "new"])).stdout).toContain("active kid new");
    const dry = await cli(["keyring", "reencrypt", "--sqlite", sqlitePath, "--keyring", keyringPath, "--dry-run"]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/dry run: would re-seal [1-9]\d* of \d+ rows to kid new \(records by kid before: old: \d+/);
    // A SQLite target reaches no user memory: the report says so and names the way in code.
    expect(dry.stdout).toContain("user memory: not reached");
    expect(dry.stdout).toContain("reencryptUserItems(store, codec)");
    const applied = await cli(["keyring", "reencrypt", "--sqlite", sqlitePath, "--keyring", keyringPath]);
    expect(applied.stdout).toMatch(/re-sealed [1-9]\d* of \d+ rows to kid new/);
    const again = await cli(["keyring", "reencrypt", "--sqlite", sqlitePath, "--keyring", keyringPath, "--dry-run"]);
    expect(again.stdout).toMatch(/would re-seal 0 of/);
    for (const out of [dry, applied, again]) expect(out.all).not.toContain(JSON.parse(readFileSync(keyringPath, "utf8")).keys.new);

    const reopened = memoryStack({ backend: "sqlite", sqlitePath, keyringPath, env: {} });
    const state = await createAgent({ model: scriptedModel(() => "x"), ...reopened }).graph.getState({
      configurable: { thread_id: "enc" },
    });
    expect(JSON.stringify(state.values)).toContain(sentinel);
    await reopened.checkpointer?.close();
  });
});

describe.skipIf(skipUnlessRealPostgres("threadwise migrate/prune CLI with a password"))("CLI on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const role = `tw_cli_${randomUUID().replace(/-/g, "").slice(0, 8)}`;
  let dsn: string;
  beforeAll(async () => {
    db = await freshDatabase("twcli");
    const admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    // A role that owns the database, so it may run the migration; its password is the secret.
    await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD '${SECRET}'`);
    await admin.query(`GRANT CREATE ON DATABASE ${new URL(db.url).pathname.slice(1)} TO ${role}`);
    await admin.query(`GRANT CREATE, USAGE ON SCHEMA public TO ${role}`);
    await admin.end();
    dsn = withCredentials(db.url, role, SECRET);
  });
  afterAll(async () => {
    await db.drop();
    const admin = new pg.Client({ connectionString: db.url.replace(/\/[^/?]+(\?|$)/, "/postgres$1") });
    await admin.connect();
    await admin.query(`DROP ROLE IF EXISTS ${role}`);
    await admin.end();
  });

  it("migrate, then prune with --dsn: output never shows the password", async () => {
    const migrated = await cli(["migrate"], { POSTGRES_MIGRATION_DSN: dsn });
    expect(migrated.stdout).toContain("applied checkpoint:0");
    expect((await cli(["migrate", "--dsn", dsn])).stdout).toContain("schema already current");
    const stack = memoryStack({ backend: "postgres", postgresDsn: dsn, allowPlaintext: true, env: {} });
    await createAgent({ model: scriptedModel(() => "ok"), ...stack }).invoke(
      { messages: [new HumanMessage("hi")] },
      { configurable: { thread_id: "pg-1" } },
    );
    await stack.checkpointer?.close();
    const dry = await cli(["prune", "--dsn", dsn, "--thread-id", "pg-1"]);
    expect(dry.stdout).toMatch(/^pg-1\t\S+\t\d+\t\d+\t\d+\t0$/m);
    const wrong = await cli(["prune", "--dsn", dsn.replace(SECRET, `${SECRET}x`), "--thread-id", "pg-1"]);
    expect(wrong.code).toBe(1);
    for (const out of [migrated, dry, wrong]) expect(out.all).not.toContain(SECRET);
  });
});
