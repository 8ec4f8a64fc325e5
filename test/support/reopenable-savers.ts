/**
 * Savers that can be opened again on the same storage, as a restarted process would: a SqliteSaver
 * on one file, a PostgresSaver on one database (or PGlite schema). For restart tests.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import pg from "pg";
import { freshDatabase, isPglite, testPoolMax } from "./postgres.js";

/** One kind of storage: `open()` gives a new saver on the same storage each time. */
export interface ReopenableSaver {
  name: "SqliteSaver" | "PostgresSaver";
  open: () => Promise<BaseCheckpointSaver>;
}

/**
 * The two persistent savers, named for `describe.each`, on storage private to the caller (`prefix`
 * names the temp directory and database). Pass `cleanup` to `afterAll`.
 */
export function reopenableSavers(prefix: string): { cases: ReopenableSaver[]; cleanup: () => Promise<void> } {
  const cleanups: Array<() => Promise<void> | void> = [];
  const sqliteDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  cleanups.push(() => rmSync(sqliteDir, { recursive: true, force: true }));
  let postgres: { pool: pg.Pool; schema: string } | undefined;
  const cases: ReopenableSaver[] = [
    { name: "SqliteSaver", open: async () => SqliteSaver.fromConnString(join(sqliteDir, `${prefix}.db`)) },
    {
      name: "PostgresSaver",
      open: async () => {
        if (!postgres) {
          const database = await freshDatabase(prefix.replace(/[^a-z0-9]/g, ""));
          const pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
          postgres = { pool, schema: database.schema };
          cleanups.push(async () => {
            if (isPglite()) await pool.query(`DROP SCHEMA IF EXISTS "${database.schema}" CASCADE`);
            await pool.end();
            if (!isPglite()) await database.drop();
          });
        }
        const saver = new PostgresSaver(postgres.pool, undefined, { schema: postgres.schema });
        await saver.setup();
        return saver;
      },
    },
  ];
  return {
    cases,
    cleanup: async () => {
      for (const cleanup of cleanups.reverse()) await cleanup();
    },
  };
}
