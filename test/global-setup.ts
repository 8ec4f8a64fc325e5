/**
 * Provides a PostgreSQL server to the suites that need one, as env THREADWISE_TEST_POSTGRES_URL.
 *
 * - Set it yourself (CI does, after starting PostgreSQL 15) to use a real server.
 * - Unset, outside CI: an embedded PGlite server is started on loopback, so `pnpm test` needs no
 *   setup. It takes one connection at a time; suites that need real concurrency say so and use
 *   `requireRealPostgres()`.
 * - Unset in CI: the run fails, so the PostgreSQL suites can never be skipped silently there.
 */
import type { TestProject } from "vitest/node";

let stop: (() => Promise<void>) | undefined;

export async function setup(project: TestProject): Promise<void> {
  let url = process.env.THREADWISE_TEST_POSTGRES_URL;
  let kind = "server";
  if (!url) {
    if (process.env.CI) throw new Error("THREADWISE_TEST_POSTGRES_URL must be set in CI (.ci/run starts PostgreSQL and exports it)");
    const { PGlite } = await import("@electric-sql/pglite");
    const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
    const db = await PGlite.create();
    const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
    await server.start();
    const address = server.getServerConn();
    url = `postgresql://postgres:postgres@${address}/postgres?sslmode=disable`;
    kind = "pglite";
    stop = async () => {
      await server.stop();
      await db.close();
    };
    console.warn(`[threadwise tests] THREADWISE_TEST_POSTGRES_URL unset: using embedded PGlite at ${address}`);
  }
  process.env.THREADWISE_TEST_POSTGRES_URL = url;
  process.env.THREADWISE_TEST_POSTGRES_KIND = kind;
  project.provide("postgresUrl", url);
  project.provide("postgresKind", kind);
}

export async function teardown(): Promise<void> {
  await stop?.();
}

declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string;
    postgresKind: string;
  }
}
