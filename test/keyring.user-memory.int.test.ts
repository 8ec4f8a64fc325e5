/**
 * Key rotation through the CLI covers user memory (spec R29, R40): on PostgreSQL,
 * `threadwise keyring reencrypt` re-seals every user's items in the stack's PostgresStore as well
 * as the checkpoints; its dry run counts them per kid and changes nothing; after it the old kid is
 * retired and a fresh stack still recalls each user's memory (English and Korean). Through PgBouncer
 * in transaction mode the command's pool takes `MEMORY_PG_POOL_MODE` (a bad value is refused naming
 * it), and `--json` prints the checkpoints' and user memory's counts, plaintext and unopenable
 * items apart. Needs a real PostgreSQL server (required in CI).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, retireKey, rotateKeyring } from "@threadwise/encryption";
import { createMemoryPool, memoryStack, migrate, postgresUserStore, runCli } from "@threadwise/memory";
import { resolveUserMemoryOptions, UserMemoryEngine } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-rotate-um-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const requestText = (messages: BaseMessage[]) =>
  messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");

async function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, { env, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  if (code !== 0) throw new Error(`threadwise ${args[0]} ${args[1]} exited ${code}: ${stderr}`);
  return { code, stdout };
}

describe.skipIf(skipUnlessRealPostgres("keyring reencrypt of user memory"))("keyring reencrypt of user memory on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const pools: pg.Pool[] = [];
  const closers: Array<() => Promise<void>> = [];
  const drops: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    db = await freshDatabase("twrotum");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => {
    for (const close of closers) await close();
    for (const pool of pools) await pool.end();
    for (const drop of drops) await drop();
    await db?.drop();
  });
  /** A stack as a fresh process builds it: its own pool, its own codec and caches. */
  const stackOf = (keyringPath: string, on: { url: string; schema: string } = db, given?: pg.Pool) => {
    const pool = given ?? createMemoryPool(on.url, { max: testPoolMax() });
    if (!given) pools.push(pool);
    const stack = memoryStack({
      backend: "postgres",
      postgresDsn: on.url,
      postgresSchema: on.schema,
      keyringPath,
      userMemory: true,
      pool,
      env: {},
    });
    closers.push(async () => void (await stack.checkpointer?.close()));
    const model = scriptedModel(() => "noted");
    const agent = createAgent({ model, ...stack });
    const say = (content: string, thread: string, user: string) =>
      agent.invoke({ messages: [new HumanMessage(content)] }, { configurable: { thread_id: thread, user_id: user } });
    return { model, say };
  };
  const storeRows = async () =>
    (
      await pools[0]?.query<{ row: string }>(`SELECT namespace_path || key || value::text AS row FROM "${db.schema}".store ORDER BY 1`)
    )?.rows.map((r) => r.row);

  it("re-seals every user's items, so the old kid can be retired and a fresh stack recalls them (en, ko)", async () => {
    const keyringPath = join(dir, `keyring-${randomUUID()}.json`);
    createKeyring(keyringPath, { kid: "old" });
    const users = [
      {
        user: "rot-en",
        says: ["My locker code is ROTEN7.", "My cat is named Nabi."],
        ask: "What is my locker code and my cat's name?",
        want: ["ROTEN7", "Nabi"],
      },
      {
        user: "사용자:가/1",
        says: ["제 사물함 번호는 ROTKO9예요.", "저는 부산에 살아요."],
        ask: "제 사물함 번호와 사는 곳이 뭐예요?",
        want: ["ROTKO9", "부산"],
      },
    ];
    const before = stackOf(keyringPath);
    for (const u of users) for (const [i, text] of u.says.entries()) await before.say(text, `${u.user}-t${i + 1}`, u.user);

    rotateKeyring(keyringPath, { kid: "new" });
    const target = ["--dsn", db.url, "--schema", db.schema, "--keyring", keyringPath];
    const rows = await storeRows();
    expect(rows?.length).toBeGreaterThan(0);
    const dry = await cli(["keyring", "reencrypt", ...target, "--dry-run"]);
    const counted = /user memory: dry run: would re-seal (\d+) item\(s\) to kid new \(items by kid before: old: (\d+)\)\n/.exec(dry.stdout);
    expect(counted, dry.stdout).not.toBeNull();
    expect(Number(counted?.[1])).toBe(rows?.length);
    expect(Number(counted?.[2])).toBe(rows?.length);
    // The dry run changed nothing.
    expect(await storeRows()).toEqual(rows);

    // Sealed for principal "default": another id opens none of them; they stay, and the run fails naming the flag.
    let wrongOut = "";
    let wrongErr = "";
    const wrong = await runCli(["keyring", "reencrypt", ...target, "--principal-id", "someone-else"], {
      env: {},
      stdout: (text) => (wrongOut += text),
      stderr: (text) => (wrongErr += text),
    });
    expect(wrong).toBe(2);
    expect(wrongOut).toContain(
      `user memory: re-sealed 0 item(s) to kid new (items by kid before: old: ${rows?.length}); ${rows?.length} item(s) under an old kid do not open (sealed for another keyring, --agent-id or --principal-id, or tampered) and stay on it\n`,
    );
    expect(wrongErr).toContain("--principal-id");
    expect(await storeRows()).toEqual(rows);

    const applied = await cli(["keyring", "reencrypt", ...target]);
    expect(applied.stdout).toContain(
      `user memory: re-sealed ${rows?.length} item(s) to kid new (items by kid before: old: ${rows?.length})\n`,
    );
    const again = await cli(["keyring", "reencrypt", ...target, "--dry-run"]);
    expect(again.stdout).toContain(
      `user memory: dry run: would re-seal 0 item(s) to kid new (items by kid before: new: ${rows?.length})\n`,
    );
    expect(again.stdout).toMatch(/would re-seal 0 of \d+ rows to kid new/);

    retireKey(keyringPath, "old");
    const after = stackOf(keyringPath);
    for (const u of users) {
      await after.say(u.ask, `${u.user}-t9`, u.user);
      const seen = requestText(after.model.calls.at(-1)?.messages as BaseMessage[]);
      for (const word of u.want) expect(seen).toContain(word);
    }
  });

  it("through PgBouncer in transaction mode (MEMORY_PG_POOL_MODE), with --json: counts per kid, plaintext and unopenable apart (en, ko)", async (ctx) => {
    const bouncer = pgbouncerUrl("keyring reencrypt through PgBouncer");
    if (!bouncer) return ctx.skip();
    // A database of its own: the first test's records are on kids this keyring never had.
    const own = await freshDatabase("twrotpgb");
    drops.push(() => own.drop());
    await migrate({ dsn: own.url, schema: own.schema });
    const ownPool = createMemoryPool(own.url, { max: testPoolMax() });
    pools.push(ownPool);
    const keyringPath = join(dir, `keyring-${randomUUID()}.json`);
    createKeyring(keyringPath, { kid: "k-old" });
    const before = stackOf(keyringPath, own, ownPool);
    await before.say("My badge number is BOUNCE5.", "bounce-en-t1", "bounce-en");
    await before.say("제 사물함 번호는 BOUNCE6이에요.", "bounce-ko-t1", "bounce-사용자");
    // A plaintext row in a user's namespace (written with no keyring): counted apart, left as it is.
    await new UserMemoryEngine(resolveUserMemoryOptions({ env: {} })).commit(
      postgresUserStore(ownPool, { schema: own.schema, dsn: own.url, max: testPoolMax() }),
      { tenantId: "default", userId: "bounce-plain" },
      { threadId: "bounce-plain-t1", messages: [{ id: "p1", text: "I live in Daejeon." }], now: new Date().toISOString() },
    );
    const count = async (like: string) =>
      Number(
        (await ownPool.query<{ n: string }>(`SELECT count(*) AS n FROM "${own.schema}".store WHERE namespace_path LIKE $1`, [like])).rows[0]
          ?.n,
      );
    const plain = await count("%bounce-plain%");
    const all = await count("%");
    expect(plain).toBeGreaterThan(0);
    rotateKeyring(keyringPath, { kid: "k-new" });
    const target = ["--dsn", sameDatabase(bouncer, own.url), "--schema", own.schema, "--keyring", keyringPath, "--json"];
    const env = { MEMORY_PG_POOL_MODE: "transaction" };

    const bad = await runCli(["keyring", "reencrypt", ...target, "--dry-run"], {
      env: { MEMORY_PG_POOL_MODE: "bouncer" },
      stdout: () => undefined,
      stderr: (text) => expect(text).toContain("MEMORY_PG_POOL_MODE"),
    });
    expect(bad).toBe(2);

    const dry = JSON.parse((await cli(["keyring", "reencrypt", ...target, "--dry-run"], env)).stdout);
    expect(dry).toMatchObject({ dryRun: true, activeKid: "k-new", checkpoints: { activeKid: "k-new" } });
    expect(dry.userMemory).toMatchObject({ resealed: 0, plaintext: plain, unopenable: 0 });
    expect(dry.userMemory.byKid).toEqual({ "k-old": all - plain });
    const applied = JSON.parse((await cli(["keyring", "reencrypt", ...target], env)).stdout);
    expect(applied.userMemory).toMatchObject({ resealed: dry.userMemory.byKid["k-old"], plaintext: plain, unopenable: 0 });
    expect(applied.checkpoints.rewritten).toBe(dry.checkpoints.rewritten);
    const again = JSON.parse((await cli(["keyring", "reencrypt", ...target, "--dry-run"], env)).stdout);
    expect(again.userMemory.byKid["k-old"]).toBeUndefined();
    expect(again.checkpoints.rewritten).toBe(0);
  });
});
