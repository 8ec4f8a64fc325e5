/**
 * PostgreSQL for tests. Every suite that needs a server gets its own database, so suites can run
 * in parallel without seeing each other's threads.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

/** URL of the server from the global setup (a real server in CI, PGlite locally when unset). */
export function postgresUrl(): string {
  return inject("postgresUrl");
}

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
  const base = postgresUrl();
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
    drop: async () => {
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
