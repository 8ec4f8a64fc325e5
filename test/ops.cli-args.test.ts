/**
 * The CLI argument matrix (spec R23, issue 13): numbers are decimal digits only, day counts are
 * >= 1 (an empty `--older-than-days` once read as 0 and deleted every thread), `--schema` is a
 * plain identifier checked before any connection, `--thread-id` follows the one thread-id rule.
 * Each refused case has its expected exit code and error code, and deletes nothing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { CLI_USAGE_EXIT_CODE, memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliRun } from "./support/cli-run.js";

const dir = mkdtempSync(join(tmpdir(), "tw-cli-args-"));
const sqlitePath = join(dir, "memory.sqlite");
/** Nothing listens there: a case that reached a connection would fail with a connection error instead. */
const DEAD_DSN = "postgresql://app:pw@127.0.0.1:1/app_memory";

const cli = cliRun;

beforeAll(async () => {
  const stack = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
  const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
  await agent.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: "kept" } });
  await stack.checkpointer?.close();
  expect((await cli(["keyring", "create", join(dir, "k.json")])).code).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** [argv, env, exit code, text the error must contain (the error code and the flag)] */
type Case = [string[], NodeJS.ProcessEnv, number, string[]];
const USAGE = CLI_USAGE_EXIT_CODE;
const INVALID = "THREADWISE_INVALID_OPTION";
const BAD_ID = "THREADWISE_INVALID_THREAD_ID";
const prune = (...args: string[]) => ["prune", "--sqlite", sqlitePath, ...args];

const CASES: Case[] = [
  [prune("--older-than-days", "", "--apply"), {}, USAGE, [INVALID, "--older-than-days", '""']],
  [prune("--older-than-days", "0", "--apply"), {}, USAGE, [INVALID, "--older-than-days", "from 1"]],
  [prune("--older-than-days", "0x10", "--apply"), {}, USAGE, [INVALID, "--older-than-days", "decimal digits"]],
  [prune("--older-than-days", "1e3", "--apply"), {}, USAGE, [INVALID, "--older-than-days"]],
  [prune("--older-than-days", "7.5", "--apply"), {}, USAGE, [INVALID, "--older-than-days"]],
  [prune("--older-than-days", " 7", "--apply"), {}, USAGE, [INVALID, "--older-than-days"]],
  [prune("--older-than-days", "+7", "--apply"), {}, USAGE, [INVALID, "--older-than-days"]],
  [prune("--older-than-days", "0b11", "--apply"), {}, USAGE, [INVALID, "--older-than-days"]],
  [prune("--older-than-days", "99999999999999999999", "--apply"), {}, USAGE, [INVALID, "--older-than-days"]],
  [prune("--thread-id", "", "--apply"), {}, USAGE, [BAD_ID, "non-empty"]],
  [prune("--thread-id", "a\u0000b", "--apply"), {}, USAGE, [BAD_ID, "NUL"]],
  [prune("--thread-id", "x\uD800", "--apply"), {}, USAGE, [BAD_ID, "surrogate"]],
  [prune("--thread-id", "x".repeat(257), "--apply"), {}, USAGE, [BAD_ID, "256 bytes"]],
  [["prune", "--dsn", DEAD_DSN, "--schema", "public; DROP TABLE checkpoints", "--older-than-days", "1"], {}, USAGE, [INVALID, "--schema"]],
  [["prune", "--dsn", DEAD_DSN, "--schema", "1abc", "--older-than-days", "1"], {}, USAGE, [INVALID, "--schema"]],
  [["prune", "--dsn", DEAD_DSN, "--schema", "", "--older-than-days", "1"], {}, USAGE, [INVALID, "--schema"]],
  [["prune", "--dsn", DEAD_DSN, "--schema", "a".repeat(64), "--older-than-days", "1"], {}, USAGE, [INVALID, "--schema"]],
  [["prune", "--dsn", DEAD_DSN, "--older-than-days", "1"], { MEMORY_PG_SCHEMA: 'x"; DROP' }, USAGE, [INVALID, "schema"]],
  [["migrate", "--dsn", DEAD_DSN, "--schema", "bad-name"], {}, USAGE, [INVALID, "--schema"]],
  [["retention", "--sqlite", sqlitePath, "--days", "0"], {}, USAGE, [INVALID, "--days"]],
  [["retention", "--sqlite", sqlitePath, "--days", "1e3"], {}, USAGE, [INVALID, "--days"]],
  [["retention", "--sqlite", sqlitePath, "--days", ""], {}, USAGE, [INVALID, "--days"]],
  [["retention", "--sqlite", sqlitePath], { MEMORY_RETENTION_DAYS: "0x10" }, USAGE, [INVALID, "MEMORY_RETENTION_DAYS"]],
  [["retention", "--sqlite", sqlitePath], { MEMORY_RETENTION_DAYS: "" }, USAGE, [INVALID, "MEMORY_RETENTION_DAYS"]],
  [["retention", "--sqlite", sqlitePath], {}, USAGE, [INVALID, "--days"]],
  // A store, DSN or keyring missing is a usage error naming the flag (was: a bare Error or the driver's
  // "unable to open database file", exit 1), and a mistyped SQLite path is never created.
  [["prune", "--sqlite", join(dir, "typo.sqlite"), "--older-than-days", "30"], {}, USAGE, [INVALID, "--sqlite", join(dir, "typo.sqlite")]],
  [["retention", "--sqlite", join(dir, "typo.sqlite"), "--days", "30"], {}, USAGE, [INVALID, "--sqlite", "MEMORY_SQLITE_PATH"]],
  [["migrate"], {}, USAGE, [INVALID, "--dsn", "POSTGRES_MIGRATION_DSN"]],
  [["keyring", "reencrypt", "--sqlite", sqlitePath], {}, USAGE, [INVALID, "--keyring", "THREADWISE_MEMORY_KEYRING"]],
  [["keyring", "reencrypt", "--keyring", join(dir, "k.json")], {}, USAGE, [INVALID, "--dsn", "POSTGRES_MEMORY_DSN"]],
  [
    ["keyring", "reencrypt", "--keyring", join(dir, "k.json"), "--sqlite", sqlitePath, "--batch-size", "1e3"],
    {},
    USAGE,
    [INVALID, "--batch-size"],
  ],
  [["keyring", "reencrypt", "--keyring", join(dir, "k.json"), "--dsn", DEAD_DSN, "--schema", "a b"], {}, USAGE, [INVALID, "--schema"]],
  // user-memory-retention works on the PostgresStore only: --help no longer offers --sqlite.
  // Commander's refusals are usage errors too (was its own exit 1, while the README says a refused command line exits 2).
  [["user-memory-retention", "--sqlite", sqlitePath, "--days", "3"], {}, USAGE, ["unknown option '--sqlite'"]],
  [prune("--olderthan", "3"), {}, USAGE, ["unknown option"]],
  [prune("--older-than-days"), {}, USAGE, ["argument missing"]],
  [["exprot", "--sqlite", sqlitePath], {}, USAGE, ["unknown command 'exprot'"]],
  [["erase-user", "--sqlite", sqlitePath], {}, USAGE, ["required option '--user-id <id>'"]],
];

describe("CLI argument matrix", () => {
  it.each(CASES.map((c, i) => [i, ...c] as const))("case %i: %j refused with exit %i", async (_i, argv, env, exit, fragments) => {
    const out = await cli([...argv], env);
    expect(out.code).toBe(exit);
    for (const fragment of fragments) expect(out.stderr).toContain(fragment);
    // Refused before any connection: never a driver error.
    expect(out.stderr).not.toMatch(/ECONNREFUSED|connect/);
  });

  it("deleted nothing, and valid values still work", async () => {
    const dry = await cli(prune("--older-than-days", "30"));
    expect(dry.code).toBe(0);
    expect((await cli(prune("--thread-id", "kept"))).stdout).toContain("dry run: 1 thread(s)");
    expect(existsSync(join(dir, "typo.sqlite"))).toBe(false);
    console.log(
      `[cli matrix] ${CASES.length} refused argument cases, ${CASES.filter((c) => c[2] === USAGE).length} with exit ${USAGE}; thread "kept" survived`,
    );
  });

  it("--version prints the package's version", async () => {
    const { version } = JSON.parse(readFileSync(join(import.meta.dirname, "../packages/memory/package.json"), "utf8")) as {
      version: string;
    };
    for (const flag of ["--version", "-V"]) expect(await cli([flag])).toEqual({ code: 0, stdout: `${version}\n`, stderr: "" });
  });
});
