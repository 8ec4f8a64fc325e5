/**
 * PostgreSQL for tests. Every suite that needs a server gets its own database, so suites can run
 * in parallel without seeing each other's threads.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterAll, inject } from "vitest";

/** URL of the server from the global setup (a real server in CI, PGlite locally when unset). */
export function postgresUrl(): string {
  return inject("postgresUrl");
}

/**
 * This test file's own embedded PGlite server, started on first use and stopped after the file.
 * `PGLiteSocketServer` refuses a connection past its `maxConnections` (default 1: "Connection
 * terminated unexpectedly"), so a suite that opens a second pool (another replica) or a client
 * beside its pool failed, and so did suites whose connections overlapped on the global setup's
 * one server. Here several connections are taken ({@link FILE_SERVER_CONNECTIONS}); PGlite is one
 * session, and pglite-socket 0.2 runs one connection's transaction to its end before another's
 * queries, so transactions stay whole (no real concurrency: suites that need it use
 * `requireRealPostgres()`). One server per file keeps files from queueing behind each other.
 */
const FILE_SERVER_CONNECTIONS = 8;
let fileServer: Promise<{ url: string; stop: () => Promise<void> }> | undefined;

async function startFileServer(): Promise<{ url: string; stop: () => Promise<void> }> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: FILE_SERVER_CONNECTIONS });
  await server.start();
  return {
    url: `postgresql://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}

afterAll(async () => {
  const started = fileServer;
  fileServer = undefined;
  if (started) await (await started).stop();
});

/** The server this file's databases live on: a real server's URL, or this file's own PGlite. */
async function serverUrl(): Promise<string> {
  if (!isPglite()) return postgresUrl();
  fileServer ??= startFileServer();
  return (await fileServer).url;
}

/**
 * `application_name` of every connection a suite makes through PgBouncer (`pgbouncerUrl()` puts
 * it in the URL, which wins over a pool's own name). PgBouncer keeps the server sessions it opened
 * after the suite's clients left (`server_idle_timeout`, 600 s by default; its admin console is not
 * ours to `KILL` them), and they carry the name of the last client linked to them. No client of
 * this process is on such a session, so {@link freshDatabase}'s `drop()` does not wait for them.
 */
export const PGBOUNCER_APPLICATION_NAME = "threadwise-test-via-pgbouncer";

/** `true` when the tests run against embedded PGlite (one connection at a time). */
export function isPglite(): boolean {
  return inject("postgresKind") === "pglite";
}

/** Pool size the suites may use: 1 on PGlite, which serves one connection at a time. */
export function testPoolMax(): number {
  return isPglite() ? 1 : 5;
}

/**
 * Creates a fresh database (or, on PGlite, a fresh schema) and returns a connection string and a
 * cleanup function. On PGlite the string selects the schema through `options=-csearch_path`.
 */
export async function freshDatabase(prefix = "tw"): Promise<{ url: string; schema: string; drop: () => Promise<void> }> {
  const base = await serverUrl();
  const name = `${prefix}_${randomUUID().replace(/-/g, "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    if (isPglite()) {
      await admin.query(`CREATE SCHEMA ${name}`);
      return {
        url: base,
        schema: name,
        // PGlite serves one connection at a time and may still be closing the suite's pool when
        // the drop connects: retry a few times rather than fail the suite in its cleanup.
        drop: async () => {
          for (let attempt = 1; ; attempt++) {
            const c = new pg.Client({ connectionString: base });
            try {
              await c.connect();
              await c.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`);
              await c.end();
              return;
            } catch (error) {
              await c.end().catch(() => {});
              if (attempt >= 5) throw error;
              await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
            }
          }
        },
      };
    }
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    schema: "public",
    // `FORCE` terminates the sessions still open on the database. A suite's `pool.end()` resolves
    // once its clients sent their goodbye, before the server closed them: a session terminated
    // then sends the ending client a FATAL error (57P01) that nobody listens for any more, an
    // uncaught exception in the test run (seen under load, test/encryption.tamper-matrix.int).
    // So the drop first waits (up to 2 s) for the database's other sessions to close by themselves:
    // a suite closes its pools, savers and stores before it drops, so only ending ones are left.
    // PgBouncer's server sessions are not waited for: no client of this process is on them, and
    // PgBouncer keeps them open. They are named {@link PGBOUNCER_APPLICATION_NAME}, or, one it
    // opened ahead of demand and never linked to a client, have no name and never ran a statement.
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      try {
        for (let waited = 0; waited < 2_000; waited += 50) {
          const { rows } = await c.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE datname = $1 AND pid <> pg_backend_pid() AND application_name <> $2
               AND NOT (application_name = '' AND query = '' AND state = 'idle')`,
            [name, PGBOUNCER_APPLICATION_NAME],
          );
          if ((rows[0]?.n ?? 0) === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}
