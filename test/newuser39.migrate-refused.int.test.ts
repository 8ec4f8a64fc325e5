/**
 * `migrate` on a database it may not change: a read-only one (a hot standby, or
 * `default_transaction_read_only` on the database) and a role without DDL rights (the runtime's).
 * Before, PostgreSQL's own error came out (`cannot execute CREATE SCHEMA in a read-only
 * transaction`, SQLSTATE 25006; `permission denied for database`, 42501), naming nothing of the
 * command's; now a `ThreadwiseConfigError` naming `migrate.dsn` says what to run instead, with
 * PostgreSQL's error as its cause, and the database is left as it was (one transaction, rolled
 * back). The CLI exits 2 with that message. Needs a real PostgreSQL server (required in CI).
 */
import { randomUUID } from "node:crypto";
import { migrate, ThreadwiseConfigError } from "@threadwise/memory";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres, withCredentials } from "./fixtures/memory-postgres.js";
import { cliRun } from "./support/cli-run.js";
import { freshDatabase } from "./support/postgres.js";

/** The tables of `schema` in the database of `url`. */
async function tables(url: string, schema: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1",
      [schema],
    );
    return rows.map((r) => r.name);
  } finally {
    await client.end();
  }
}

/** `url` on the server's `postgres` database. */
function onServer(url: string): string {
  const target = new URL(url);
  target.pathname = "/postgres";
  return target.toString();
}

async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

describe.skipIf(skipUnlessRealPostgres("migrate on a database it may not change"))("migrate refused by the database", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  const role = `tw_nu39_${randomUUID().replace(/-/g, "").slice(0, 8)}`;
  beforeAll(async () => {
    db = await freshDatabase("twmigro");
    await sql(db.url, `CREATE ROLE ${role} LOGIN PASSWORD 'runtime-pw'`);
  });
  afterAll(async () => {
    await db?.drop();
    if (db) await sql(onServer(db.url), `DROP ROLE IF EXISTS ${role}`).catch(() => undefined);
  });

  it("a role without DDL rights: migrate.dsn, cause 42501, nothing created", async () => {
    const runtime = withCredentials(db.url, role, "runtime-pw");
    const schema = "tw_nu39_app";
    const error = await migrate({ dsn: runtime, schema }).catch((e: unknown) => e);
    expect(ThreadwiseConfigError.isInstance(error), String(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe("migrate.dsn");
    expect((error as Error).message).toContain("DDL rights");
    expect((error as Error).message).not.toContain("runtime-pw");
    expect(((error as Error).cause as { code?: string }).code).toBe("42501");
    expect(await tables(db.url, schema)).toEqual([]);
  });

  it("a read-only database: migrate.dsn, cause 25006, nothing created; the CLI exits 2 saying so", async () => {
    const name = new URL(db.url).pathname.slice(1);
    await sql(db.url, `ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    const error = await migrate({ dsn: db.url, schema: db.schema }).catch((e: unknown) => e);
    expect(ThreadwiseConfigError.isInstance(error), String(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe("migrate.dsn");
    expect((error as Error).message).toContain("read-only");
    expect(((error as Error).cause as { code?: string }).code).toBe("25006");
    expect(await tables(db.url, db.schema)).toEqual([]);

    const { code, stderr } = await cliRun(["migrate", "--dsn", db.url, "--schema", db.schema]);
    expect(code).toBe(2);
    expect(stderr).toContain("migrate.dsn");
    expect(stderr).toContain("read-only");
    // From another database: a session in this one is read-only too.
    await sql(onServer(db.url), `ALTER DATABASE ${name} RESET default_transaction_read_only`);
  });
});
