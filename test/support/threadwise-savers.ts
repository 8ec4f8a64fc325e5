/**
 * The three backends of `createCheckpointer` (`in_memory`, `sqlite`, `postgres`) as
 * `ThreadwiseSaver`s, for `describe.each`. For the raw SqliteSaver / PostgresSaver reopened on one
 * storage, see `reopenable-savers.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuid6 } from "@langchain/langgraph-checkpoint";
import { createCheckpointer, migrate, resolveMemoryConfig, type ThreadwiseSaver } from "@threadwise/memory";
import { afterAll, beforeAll } from "vitest";
import { freshDatabase, testPoolMax } from "./postgres.js";

/**
 * `[name, open]` per backend, on storage private to the calling file: each `open()` gives a new
 * saver, on a new SQLite file in a temp directory (`tw-<prefix>-...`) or on one fresh PostgreSQL
 * database (or PGlite schema, `<prefix>_...`) migrated with `threadwise migrate`, without a
 * keyring (`allowPlaintext`). Call it at the top level of a test file: it registers the
 * `beforeAll` that creates and migrates the database and the `afterAll` that drops it and removes
 * the directory.
 */
export function threadwiseSavers(prefix: string): Array<[string, () => ThreadwiseSaver]> {
  const dir = mkdtempSync(join(tmpdir(), `tw-${prefix}-`));
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase(prefix);
    await migrate({ dsn: db.url, schema: db.schema });
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  return [
    ["in_memory", () => createCheckpointer(resolveMemoryConfig({ backend: "in_memory" }, {})) as ThreadwiseSaver],
    [
      "sqlite",
      () => createCheckpointer(resolveMemoryConfig({ backend: "sqlite", sqlitePath: join(dir, `${uuid6(-1)}.db`) }, {})) as ThreadwiseSaver,
    ],
    [
      "postgres",
      () =>
        createCheckpointer(
          resolveMemoryConfig(
            { backend: "postgres", postgresDsn: db.url, postgresSchema: db.schema, pgPoolMax: testPoolMax(), allowPlaintext: true },
            {},
          ),
        ) as ThreadwiseSaver,
    ],
  ];
}
