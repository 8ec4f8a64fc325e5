/**
 * `threadwise export` (newuser34): there was no export command (`unknown command 'export'`, exit 1).
 * It prints the whole thread (archived and hot messages, in order, each once) as JSON in LangChain's
 * stored-message shape, on SQLite and PostgreSQL, plaintext and sealed with a keyring, with Korean
 * and English text; unknown, deleted and bad-checkpoint exports are refused naming the flag (exit 2),
 * a missing or wrong keyring fails (exit 1). Also: an unknown command exits 2, as the README's
 * exit-code rule says for a refused command line (was commander's 1).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage, mapStoredMessagesToChatMessages, type StoredMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { CLI_USAGE_EXIT_CODE, type MemoryConfigInput, memoryStack, migrate, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliRun } from "./support/cli-run.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-cli-export-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = cliRun;

const TURNS = 10;
const userText = (k: number) => (k % 2 === 0 ? `제 사물함 번호는 ${k}${k}이에요 (turn ${k})` : `my locker is number ${k} (turn ${k})`);
const answerText = (k: number) => (k % 2 === 0 ? `알겠습니다, ${k}번 답변` : `noted, answer ${k}`);
/** The conversation the agent had, independent of any read-back: user then answer, per turn. */
const EXPECTED = Array.from({ length: TURNS }, (_, i) => [
  ["human", userText(i + 1)],
  ["ai", answerText(i + 1)],
]).flat();

/** Runs TURNS turns on `thread` with the archive on and a window of 2, so most messages leave the checkpoint for the archive. */
async function converse(options: MemoryConfigInput & { env?: NodeJS.ProcessEnv }, thread: string) {
  const stack = memoryStack({
    archive: true,
    windowSize: 2,
    summarizeThreshold: 4,
    logger: false,
    env: {},
    models: { summarize: scriptedModel((_m, k) => `summary ${k + 1}`) },
    ...options,
  });
  const agent = createAgent({ model: scriptedModel((_m, k) => answerText(k + 1)), ...stack });
  const config = { configurable: { thread_id: thread } };
  const checkpoints: string[] = [];
  for (let k = 1; k <= TURNS; k += 1) {
    await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: userText(k) })] }, config);
    checkpoints.push(String((await agent.graph.getState(config)).config.configurable?.checkpoint_id));
  }
  const saver = stack.checkpointer as ThreadwiseSaver;
  const archived = (await saver.archivedMessages(thread)).length;
  const hot = ((await agent.graph.getState(config)).values.messages as BaseMessage[]).length;
  await saver.close();
  return { archived, hot, checkpoints };
}

const shape = (messages: StoredMessage[]) =>
  mapStoredMessagesToChatMessages(messages)
    .filter((m) => m.getType() === "human" || m.getType() === "ai")
    .map((m) => [m.getType(), messageText(m)]);

/** The export checks every backend runs: whole thread once in order, --checkpoint-id, --out, refusals. */
async function exportChecks(store: string[], env: NodeJS.ProcessEnv, keyringFlag: string[], run: Awaited<ReturnType<typeof converse>>) {
  expect(run.archived).toBeGreaterThan(0); // the thread really spans archive and checkpoint
  expect(run.hot).toBeLessThan(EXPECTED.length);
  const whole = await cli(["export", ...store, ...keyringFlag, "--thread-id", "t1"], env);
  expect(whole.stderr).toBe("");
  expect(whole.code).toBe(0);
  const exported = JSON.parse(whole.stdout) as { threadId: string; checkpointId: string; messages: StoredMessage[] };
  expect(exported.threadId).toBe("t1");
  expect(exported.checkpointId).toBe(run.checkpoints.at(-1));
  expect(shape(exported.messages)).toEqual(EXPECTED);
  const ids = exported.messages.map((m) => m.data.id);
  expect(new Set(ids).size).toBe(ids.length);
  console.log(
    `[export] ${store[0] ?? "env DSN"}: ${exported.messages.length} messages exported, ${run.archived} archived + ${run.hot} hot`,
  );

  // As of turn 3's checkpoint: that thread, not the later turns.
  const early = await cli(["export", ...store, ...keyringFlag, "--thread-id", "t1", "--checkpoint-id", run.checkpoints[2] as string], env);
  expect(early.code).toBe(0);
  expect(shape(JSON.parse(early.stdout).messages)).toEqual(EXPECTED.slice(0, 6));

  const file = join(dir, `export-${Math.random().toString(36).slice(2)}.json`);
  const toFile = await cli(["export", ...store, ...keyringFlag, "--thread-id", "t1", "--out", file], env);
  expect(toFile.code).toBe(0);
  expect(toFile.stdout).toContain(`exported ${exported.messages.length} message(s) of thread "t1"`);
  expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(exported);
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const again = await cli(["export", ...store, ...keyringFlag, "--thread-id", "t1", "--out", file], env);
  expect(again.code).toBe(CLI_USAGE_EXIT_CODE);
  expect(again.stderr).toContain("THREADWISE_INVALID_OPTION: --out");

  const unknown = await cli(["export", ...store, ...keyringFlag, "--thread-id", "nobody"], env);
  expect(unknown.code).toBe(CLI_USAGE_EXIT_CODE);
  expect(unknown.stderr).toMatch(/THREADWISE_INVALID_OPTION: --thread-id.*"nobody" was not found/);
  expect(unknown.stdout).toBe("");

  const badCheckpoint = await cli(["export", ...store, ...keyringFlag, "--thread-id", "t1", "--checkpoint-id", "no-such-checkpoint"], env);
  expect(badCheckpoint.code).toBe(CLI_USAGE_EXIT_CODE);
  expect(badCheckpoint.stderr).toMatch(/THREADWISE_INVALID_OPTION: --checkpoint-id.*"t1" has no checkpoint "no-such-checkpoint"/);

  const pruned = await cli(["prune", ...store, "--thread-id", "t2", "--apply"], env);
  expect(pruned.code).toBe(0);
  const deleted = await cli(["export", ...store, ...keyringFlag, "--thread-id", "t2"], env);
  expect(deleted.code).toBe(CLI_USAGE_EXIT_CODE);
  expect(deleted.stderr).toMatch(/THREADWISE_INVALID_OPTION: --thread-id.*"t2" was deleted at .*nothing to export/);
  return exported;
}

describe("threadwise export on SQLite", () => {
  const plainPath = join(dir, "plain.sqlite");
  const sealedPath = join(dir, "sealed.sqlite");
  const keyring = join(dir, "keyring.json");
  const otherKeyring = join(dir, "other-keyring.json");
  let plain: Awaited<ReturnType<typeof converse>>;
  let sealed: Awaited<ReturnType<typeof converse>>;
  beforeAll(async () => {
    expect((await cli(["keyring", "create", keyring])).code).toBe(0);
    expect((await cli(["keyring", "create", otherKeyring])).code).toBe(0);
    plain = await converse({ backend: "sqlite", sqlitePath: plainPath }, "t1");
    await converse({ backend: "sqlite", sqlitePath: plainPath }, "t2");
    sealed = await converse({ backend: "sqlite", sqlitePath: sealedPath, keyringPath: keyring }, "t1");
    await converse({ backend: "sqlite", sqlitePath: sealedPath, keyringPath: keyring }, "t2");
  }, 120_000);

  it("plaintext: the whole thread once, in order; as of a checkpoint; to a file; refusals name the flag", async () => {
    await exportChecks(["--sqlite", plainPath], {}, [], plain);
  });

  it("sealed with a keyring: exports with --keyring (or env); fails closed without it or with another", async () => {
    // The sentinel text is sealed at rest, yet the export reads it back.
    expect(readFileSync(sealedPath).includes(Buffer.from("사물함"))).toBe(false);
    await exportChecks(["--sqlite", sealedPath], {}, ["--keyring", keyring], sealed);
    const fromEnv = await cli(["export", "--sqlite", sealedPath, "--thread-id", "t1"], { THREADWISE_MEMORY_KEYRING: keyring });
    expect(fromEnv.code).toBe(0);
    expect(shape(JSON.parse(fromEnv.stdout).messages)).toEqual(EXPECTED);

    const none = await cli(["export", "--sqlite", sealedPath, "--thread-id", "t1"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("THREADWISE_KEYRING_REQUIRED");
    expect(none.stdout).toBe("");
    const wrong = await cli(["export", "--sqlite", sealedPath, "--thread-id", "t1", "--keyring", otherKeyring]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^threadwise: THREADWISE_DECRYPTION_FAILED: .*"t1".*not in the keyring/);
    expect(wrong.stdout).toBe("");
    const missingKeyring = await cli(["export", "--sqlite", sealedPath, "--thread-id", "t1", "--keyring", join(dir, "typo.json")]);
    expect(missingKeyring.code).not.toBe(0);
    expect(missingKeyring.stderr).toContain("--keyring");
  });

  it("--tenant-id: a thread written as another tenant exports whole with its tenant (archived messages are keyed under it)", async () => {
    const path = join(dir, "tenant.sqlite");
    const run = await converse({ backend: "sqlite", sqlitePath: path, env: { THREADWISE_MEMORY_TENANT_ID: "acme" } }, "t1");
    expect(run.archived).toBeGreaterThan(0);
    const withTenant = await cli(["export", "--sqlite", path, "--thread-id", "t1", "--tenant-id", "acme"]);
    expect(withTenant.code).toBe(0);
    expect(shape(JSON.parse(withTenant.stdout).messages)).toEqual(EXPECTED);
    const fromEnv = await cli(["export", "--sqlite", path, "--thread-id", "t1"], { THREADWISE_MEMORY_TENANT_ID: "acme" });
    expect(shape(JSON.parse(fromEnv.stdout).messages)).toEqual(EXPECTED);
    // Read as another tenant, the archived part would be missing (was: exit 0 with the 9 hot messages of 20).
    const other = await cli(["export", "--sqlite", path, "--thread-id", "t1"]);
    expect(other.code).toBe(CLI_USAGE_EXIT_CODE);
    expect(other.stderr).toMatch(/THREADWISE_INVALID_OPTION: --tenant-id.*"t1" has archived messages, none under tenant "default"/);
    expect(other.stdout).toBe("");
  });

  it("a mistyped --sqlite is refused and never created; a bad --thread-id is refused before opening anything", async () => {
    const typo = join(dir, "typo.sqlite");
    const missing = await cli(["export", "--sqlite", typo, "--thread-id", "t1"]);
    expect(missing.code).toBe(CLI_USAGE_EXIT_CODE);
    expect(missing.stderr).toContain("--sqlite");
    expect(existsSync(typo)).toBe(false);
    const badId = await cli(["export", "--sqlite", plainPath, "--thread-id", ""]);
    expect(badId.code).toBe(CLI_USAGE_EXIT_CODE);
    expect(badId.stderr).toContain("THREADWISE_INVALID_THREAD_ID");
    const noStore = await cli(["export", "--thread-id", "t1"]);
    expect(noStore.code).toBe(CLI_USAGE_EXIT_CODE);
    expect(noStore.stderr).toContain("THREADWISE_INVALID_OPTION: --dsn");
  });
});

describe("threadwise export on PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const keyring = join(dir, "pg-keyring.json");
  let run: Awaited<ReturnType<typeof converse>>;
  beforeAll(async () => {
    db = await freshDatabase("twexport");
    await migrate({ dsn: db.url, schema: db.schema });
    expect((await cli(["keyring", "create", keyring])).code).toBe(0);
    const options = {
      backend: "postgres" as const,
      postgresDsn: db.url,
      postgresSchema: db.schema,
      pgPoolMax: testPoolMax(),
      keyringPath: keyring,
    };
    run = await converse(options, "t1");
    await converse(options, "t2");
  }, 120_000);
  afterAll(async () => db?.drop());

  it("sealed: the whole thread once, in order, with the DSN from env; refusals name the flag; no keyring fails closed", async () => {
    const env = { POSTGRES_MEMORY_DSN: db.url, MEMORY_PG_SCHEMA: db.schema };
    await exportChecks([], env, ["--keyring", keyring], run);
    const withFlags = await cli(["export", "--dsn", db.url, "--schema", db.schema, "--keyring", keyring, "--thread-id", "t1"]);
    expect(withFlags.code).toBe(0);
    expect(shape(JSON.parse(withFlags.stdout).messages)).toEqual(EXPECTED);
    const none = await cli(["export", "--dsn", db.url, "--schema", db.schema, "--thread-id", "t1"]);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("THREADWISE_KEYRING_REQUIRED");
  });
});

describe("exit codes", () => {
  it("an unknown command, flag or missing value exits 2 (a refused command line, as the README says); --help exits 0", async () => {
    const unknown = await cli(["exprot", "--thread-id", "t1"]);
    expect(unknown.code).toBe(CLI_USAGE_EXIT_CODE);
    expect(unknown.stderr).toContain("unknown command 'exprot'");
    expect((await cli(["export", "--sqlite", join(dir, "plain.sqlite"), "--thread-id", "t1", "--nope"])).code).toBe(CLI_USAGE_EXIT_CODE);
    expect((await cli(["export", "--sqlite", join(dir, "plain.sqlite")])).stderr).toContain("required option '--thread-id <id>'");
    expect((await cli(["export", "--sqlite", join(dir, "plain.sqlite")])).code).toBe(CLI_USAGE_EXIT_CODE);
    const help = await cli(["export", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--checkpoint-id");
  });
});
