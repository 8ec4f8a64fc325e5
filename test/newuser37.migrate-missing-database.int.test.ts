/**
 * `threadwise migrate` on a DSN whose database does not exist, a new user's usual first step
 * (migrate makes tables, not databases), says so and what to do, as a `ThreadwiseConfigError`
 * naming `migrate.dsn` (CLI exit 2), not pg's bare `database "x" does not exist` (exit 1). Found
 * by newuser37 on a fresh clone. Needs a real server: PGlite serves any database name.
 */
import { randomUUID } from "node:crypto";
import { migrate, runCli, ThreadwiseConfigError } from "@threadwise/memory";
import { describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { postgresUrl } from "./support/postgres.js";

const skip = skipUnlessRealPostgres("migrate into a database that does not exist");

describe.skipIf(skip)("migrate into a database that does not exist", () => {
  const missing = () => {
    const url = new URL(postgresUrl());
    url.pathname = `/tw_missing_${randomUUID().slice(0, 8)}`;
    return url.toString();
  };

  it("migrate() throws ThreadwiseConfigError naming migrate.dsn, with the database's name and what to do", async () => {
    const dsn = missing();
    const error = await migrate({ dsn }).catch((caught: unknown) => caught);
    expect(ThreadwiseConfigError.isInstance(error), String(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe("migrate.dsn");
    expect((error as Error).message).toContain(`database "${new URL(dsn).pathname.slice(1)}" does not exist`);
    expect((error as Error).message).toContain("create it first");
  });

  it("the CLI exits 2 with the hint, the password not printed", async () => {
    let stderr = "";
    const code = await runCli(["migrate", "--dsn", missing()], {
      env: {},
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
      },
    });
    expect(code).toBe(2);
    expect(stderr).toContain("THREADWISE_INVALID_OPTION: migrate.dsn:");
    expect(stderr).toContain("CREATE DATABASE");
    const password = new URL(postgresUrl()).password;
    if (password) expect(stderr).not.toContain(`:${password}@`);
  });
});
