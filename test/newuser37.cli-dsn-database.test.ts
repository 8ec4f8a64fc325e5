/**
 * The CLI refuses a DSN that names no database (newuser36 left it: the docs said "name the
 * database in every DSN", the code took `postgresql://owner@db` and connected to the role's default
 * database, `postgres`, while `memoryStack` adds `<project>_memory` to the same DSN, and
 * `threadwise export`, which resolves the stack's config, did too: two commands, two databases).
 * Every command that takes a PostgreSQL DSN refuses it before any connection (the port below has
 * no server: a case that connected would fail with a connection error instead), naming `--dsn` or
 * the variable it came from and the stack's database, and never printing the password.
 */
import { CLI_USAGE_EXIT_CODE, dsnNamesDatabase, withDefaultDatabase } from "@threadwise/memory";
import { describe, expect, it } from "vitest";
import { cliRun } from "./support/cli-run.js";

const NO_DB = [
  "postgresql://owner:s3cret@127.0.0.1:1",
  "postgresql://owner:s3cret@127.0.0.1:1/",
  "postgres://owner:s3cret@127.0.0.1:1/?sslmode=disable",
];
const WITH_DB = "postgresql://owner:s3cret@127.0.0.1:1/shop_memory";

const cli = cliRun;

/** Each command with a PostgreSQL target, the variable its DSN defaults to, and its other required flags. */
const COMMANDS: [string, string, string[]][] = [
  ["migrate", "POSTGRES_MIGRATION_DSN", []],
  ["prune", "POSTGRES_MEMORY_DSN", ["--older-than-days", "30"]],
  ["retention", "POSTGRES_MEMORY_DSN", ["--days", "30"]],
  ["export", "POSTGRES_MEMORY_DSN", ["--thread-id", "t1"]],
  ["erase-user", "POSTGRES_MEMORY_DSN", ["--user-id", "mina"]],
  ["erase-tenant", "POSTGRES_MEMORY_DSN", ["--tenant-id", "acme"]],
  ["user-memory-retention", "POSTGRES_MEMORY_DSN", ["--days", "30"]],
];

describe("the CLI and a DSN without a database name", () => {
  it.each(COMMANDS)("%s --dsn <no database> is refused naming --dsn and the stack's database", async (command, _variable, rest) => {
    for (const dsn of NO_DB) {
      const { code, stderr } = await cli([command, "--dsn", dsn, ...rest], { THREADWISE_PROJECT: "shop" });
      expect(code, `${command} ${dsn}`).toBe(CLI_USAGE_EXIT_CODE);
      expect(stderr).toContain("THREADWISE_INVALID_OPTION: --dsn: names no database");
      expect(stderr).toContain("shop_memory");
      expect(stderr).not.toContain("s3cret");
    }
  });

  it.each(COMMANDS)("%s with its env variable naming no database is refused naming the variable", async (command, variable, rest) => {
    const { code, stderr } = await cli([command, ...rest], { [variable]: NO_DB[0], THREADWISE_PROJECT: "shop" });
    expect(code).toBe(CLI_USAGE_EXIT_CODE);
    expect(stderr).toContain(`THREADWISE_INVALID_OPTION: ${variable}: names no database`);
    expect(stderr).not.toContain("s3cret");
  });

  it.each(COMMANDS)(
    "%s with a DSN naming its database goes on to connect (and fails there: no server)",
    async (command, _variable, rest) => {
      const { code, stderr } = await cli([command, "--dsn", WITH_DB, ...rest], {});
      expect(stderr).not.toContain("names no database");
      expect(code).toBe(1);
    },
  );

  it("the stack's rule and the CLI's read a DSN's database the same way", () => {
    for (const dsn of NO_DB) {
      expect(dsnNamesDatabase(dsn)).toBe(false);
      expect(dsnNamesDatabase(withDefaultDatabase(dsn, "shop_memory"))).toBe(true);
    }
    expect(dsnNamesDatabase(WITH_DB)).toBe(true);
    expect(withDefaultDatabase(WITH_DB, "other")).toBe(WITH_DB);
    expect(withDefaultDatabase(NO_DB[2] as string, "shop_memory")).toBe("postgres://owner:s3cret@127.0.0.1:1/shop_memory?sslmode=disable");
  });
});
