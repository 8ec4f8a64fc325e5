/**
 * The three backends of `createCheckpointer` / `memoryStack` (`in_memory`, `sqlite`, `postgres`)
 * on storage private to the calling test file: one helper for the stack options
 * ({@link backendStorage}) and the `ThreadwiseSaver`s built on them ({@link threadwiseSavers}).
 * For the raw SqliteSaver / PostgresSaver reopened on one storage, see `reopenable-savers.ts`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuid6 } from "@langchain/langgraph-checkpoint";
import { createCheckpointer, type MemoryConfigInput, migrate, resolveMemoryConfig, type ThreadwiseSaver } from "@threadwise/memory";
import { afterAll, beforeAll } from "vitest";
import { freshDatabase, testPoolMax } from "./postgres.js";

export type Backend = "in_memory" | "sqlite" | "postgres";
export const BACKENDS: readonly Backend[] = ["in_memory", "sqlite", "postgres"];

/** Which SQLite file {@link backendStorage}'s options name: the suite's one file, or a new one. */
export type SqliteFile = "shared" | "fresh";

/**
 * Storage private to the calling file, as the config options of each backend: `in_memory`; a
 * SQLite file in a temp directory (`tw-<prefix>-...`: the suite's one file, or with `"fresh"` a
 * new file per call); one fresh PostgreSQL database (or PGlite schema, `<prefix>_...`) migrated
 * with `threadwise migrate`, without a keyring (`allowPlaintext`). Call it at the top level of a
 * test file: it registers the `beforeAll` that creates and migrates the database and the
 * `afterAll` that drops it and removes the directory.
 */
export function backendStorage(prefix: string): (backend: Backend, file?: SqliteFile) => MemoryConfigInput {
  const dir = mkdtempSync(join(tmpdir(), `tw-${prefix}-`));
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  beforeAll(async () => {
    db = await freshDatabase(prefix);
    await migrate({ dsn: db.url, schema: db.schema });
  }, 120_000);
  afterAll(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });
  const sqlitePath = join(dir, `${uuid6(-1)}.db`);
  return (backend, file = "shared") => {
    if (backend === "in_memory") return { backend };
    if (backend === "sqlite") return { backend, sqlitePath: file === "shared" ? sqlitePath : join(dir, `${uuid6(-1)}.db`) };
    if (!db) throw new Error("backendStorage: the PostgreSQL database is made in beforeAll; ask for its options inside a test");
    return { backend, postgresDsn: db.url, postgresSchema: db.schema, pgPoolMax: testPoolMax(), allowPlaintext: true };
  };
}

/**
 * `[name, open]` per backend, on {@link backendStorage}: each `open()` gives a new saver, on a new
 * SQLite file or on the file's one PostgreSQL database. Call it at the top level of a test file.
 */
export function threadwiseSavers(prefix: string): Array<[Backend, () => ThreadwiseSaver]> {
  const storage = backendStorage(prefix);
  return BACKENDS.map((backend) => [
    backend,
    () => createCheckpointer(resolveMemoryConfig(storage(backend, "fresh"), {})) as ThreadwiseSaver,
  ]);
}
