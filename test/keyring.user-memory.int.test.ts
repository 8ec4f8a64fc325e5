/**
 * Key rotation through the CLI covers user memory (spec R29, R40): on PostgreSQL,
 * `threadwise keyring reencrypt` re-seals every user's items in the stack's PostgresStore as well
 * as the checkpoints; its dry run counts them per kid and changes nothing; after it the old kid is
 * retired and a fresh stack still recalls each user's memory (English and Korean). Needs a real PostgreSQL server (required in CI).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, retireKey, rotateKeyring } from "@threadwise/encryption";
import { createMemoryPool, memoryStack, migrate, runCli } from "@threadwise/memory";
import { createAgent } from "langchain";
import type pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-rotate-um-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const requestText = (messages: BaseMessage[]) =>
  messages.map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");

async function cli(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(args, { env: {}, stdout: (text) => (stdout += text), stderr: (text) => (stderr += text) });
  if (code !== 0) throw new Error(`threadwise ${args[0]} ${args[1]} exited ${code}: ${stderr}`);
  return { code, stdout };
}

describe.skipIf(skipUnlessRealPostgres("keyring reencrypt of user memory"))("keyring reencrypt of user memory on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const pools: pg.Pool[] = [];
  const closers: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    db = await freshDatabase("twrotum");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => {
    for (const close of closers) await close();
    for (const pool of pools) await pool.end();
    await db?.drop();
  });
  /** A stack as a fresh process builds it: its own pool, its own codec and caches. */
  const stackOf = (keyringPath: string) => {
    const pool = createMemoryPool(db.url, { max: testPoolMax() });
    pools.push(pool);
    const stack = memoryStack({
      backend: "postgres",
      postgresDsn: db.url,
      postgresSchema: db.schema,
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
      `user memory: re-sealed 0 item(s) to kid new (items by kid before: old: ${rows?.length}); ${rows?.length} item(s) left as they are`,
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
});
