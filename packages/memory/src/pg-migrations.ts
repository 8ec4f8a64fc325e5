import { setTimeout as sleep } from "node:timers/promises";
import { parseOptions, ThreadwiseConfigError } from "@threadwise/core";
import type pg from "pg";
import { z } from "zod/v4";
import { connectionLostReason, ThreadwiseConnectionLostError } from "./connection-lost-error.js";
import { loadPg, loadPostgresSaver } from "./optional-peers.js";
import { assertSchemaName, pgTables } from "./pg-thread-registry.js";
import { ThreadwiseSchemaVersionError } from "./schema-version-error.js";
import { postgresUserStore, storeTables } from "./user-memory-store.js";

/**
 * threadwise's own migrations, in order; position + 1 is the version recorded for component
 * `threadwise` in `threadwise_schema_version`. PostgresSaver's tables are not here: `migrate`
 * lets `PostgresSaver.setup()` create and migrate them. Policy: a migration only adds (tables,
 * columns with defaults, indexes), so a runtime of an older release keeps working on a newer
 * schema during a rolling deploy; one that does not must be listed in
 * {@link BREAKING_THREADWISE_VERSIONS}.
 */
function threadwiseMigrations(schema: string): string[] {
  const t = pgTables(schema);
  return [
    `CREATE TABLE IF NOT EXISTS ${t.threads} (
      thread_id TEXT PRIMARY KEY,
      created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
      deleted_at TIMESTAMPTZ,
      deleted_reason TEXT);
     CREATE INDEX IF NOT EXISTS threadwise_threads_idle ON ${t.threads} (updated_at) WHERE deleted_at IS NULL;
     CREATE INDEX IF NOT EXISTS checkpoint_writes_thread ON ${t.writes} (thread_id);
     CREATE INDEX IF NOT EXISTS checkpoint_blobs_thread ON ${t.blobs} (thread_id)`,
    // 2: the turn lease of concurrent writers (spec R34; see ARCHITECTURE.md).
    `ALTER TABLE ${t.threads} ADD COLUMN IF NOT EXISTS turn_open_at TIMESTAMPTZ`,
    // 3: the head the database records, the heartbeat lease on the database's clock, operation ids (spec R38).
    `ALTER TABLE ${t.threads} ADD COLUMN IF NOT EXISTS head_id TEXT,
       ADD COLUMN IF NOT EXISTS head_version BIGINT NOT NULL DEFAULT 0,
       ADD COLUMN IF NOT EXISTS lease_until TIMESTAMPTZ,
       ADD COLUMN IF NOT EXISTS lease_started_at TIMESTAMPTZ;
     CREATE TABLE IF NOT EXISTS ${t.operations} (
       thread_id TEXT NOT NULL,
       operation_id TEXT NOT NULL,
       checkpoint_id TEXT NOT NULL,
       created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       PRIMARY KEY (thread_id, operation_id))`,
    // 4: archived messages (issue 27): what left a thread's hot checkpoint, by tenant, thread and message id.
    `CREATE TABLE IF NOT EXISTS ${t.archive} (
       tenant_id TEXT NOT NULL,
       thread_id TEXT NOT NULL,
       message_id TEXT NOT NULL,
       seq BIGINT NOT NULL,
       stamp BIGINT NOT NULL,
       record TEXT NOT NULL,
       archived_at TIMESTAMPTZ NOT NULL DEFAULT now(),
       PRIMARY KEY (tenant_id, thread_id, message_id));
     CREATE INDEX IF NOT EXISTS threadwise_archive_stamp ON ${t.archive} (tenant_id, thread_id, stamp);
     CREATE INDEX IF NOT EXISTS threadwise_archive_thread ON ${t.archive} (thread_id)`,
    // 5: an archive write reads the thread's highest seq from an index, not from every row of the thread.
    `CREATE INDEX IF NOT EXISTS threadwise_archive_seq ON ${t.archive} (tenant_id, thread_id, seq)`,
    // 6: the tenant of each thread (its first root checkpoint's saver), for eraseTenant.
    `ALTER TABLE ${t.threads} ADD COLUMN IF NOT EXISTS tenant_id TEXT;
     CREATE INDEX IF NOT EXISTS threadwise_threads_tenant ON ${t.threads} (tenant_id, thread_id) WHERE deleted_at IS NULL`,
    // 7: the store order (spec R38): each checkpoint's insertion sequence in its thread, given by a
    // trigger inside PostgresSaver's own INSERT (no statement or round trip of threadwise's per
    // step; a runtime of an older release gets it too). A checkpoint stored again (its ON CONFLICT
    // update) fires no insert trigger and keeps its number. The trigger is made first: it locks
    // `checkpoints` against writers until the migration commits, so the numbering of what is
    // already stored (by id in each thread, the order it was listed in) misses none. The function
    // runs as its owner (SECURITY DEFINER, names qualified): a runtime role not yet granted the new
    // table (an older release's, mid-deploy) still stores checkpoints; reading the order needs SELECT.
    `CREATE TABLE IF NOT EXISTS ${t.checkpointSeq} (
       thread_id TEXT NOT NULL,
       checkpoint_ns TEXT NOT NULL DEFAULT '',
       checkpoint_id TEXT NOT NULL,
       seq BIGINT NOT NULL,
       PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id));
     CREATE INDEX IF NOT EXISTS threadwise_checkpoint_seq_order ON ${t.checkpointSeq} (thread_id, seq, checkpoint_id, checkpoint_ns);
     CREATE OR REPLACE FUNCTION "${schema}".threadwise_checkpoint_seq_insert() RETURNS trigger LANGUAGE plpgsql
       SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
     BEGIN
       INSERT INTO ${t.checkpointSeq} (thread_id, checkpoint_ns, checkpoint_id, seq)
         SELECT NEW.thread_id, NEW.checkpoint_ns, NEW.checkpoint_id, coalesce(max(seq), 0) + 1
         FROM ${t.checkpointSeq} WHERE thread_id = NEW.thread_id
         ON CONFLICT DO NOTHING;
       RETURN NULL;
     END $fn$;
     DROP TRIGGER IF EXISTS threadwise_checkpoint_seq ON ${t.checkpoints};
     CREATE TRIGGER threadwise_checkpoint_seq AFTER INSERT ON ${t.checkpoints}
       FOR EACH ROW EXECUTE FUNCTION "${schema}".threadwise_checkpoint_seq_insert();
     INSERT INTO ${t.checkpointSeq} (thread_id, checkpoint_ns, checkpoint_id, seq)
       SELECT thread_id, checkpoint_ns, checkpoint_id, row_number() OVER (PARTITION BY thread_id ORDER BY checkpoint_id, checkpoint_ns)
       FROM ${t.checkpoints}
       ON CONFLICT DO NOTHING`,
    // 8: the store order under concurrent writers. Version 7's trigger read the thread's max(seq),
    // which two transactions inserting into one thread at once (writers outside threadwise's
    // registry, which otherwise serializes a thread's writers on its row) both read before either
    // committed: a tie, then listed by checkpoint id, a writer's clock. Now each thread has a
    // counter row, which the trigger updates (row-locked to the transaction's end): the next writer
    // of the thread waits for it and numbers after it, or, if it rolled back, takes its number. A
    // transaction lock, so it holds through PgBouncer in transaction mode; no round trip of its own.
    // First both tables are locked against writers (waiting for those in progress, which used
    // version 7's function) until the migration commits; every insert after runs the new function
    // (older runtimes' too: the trigger calls it). Ties left by version 7 are numbered apart in the
    // order they were listed (seq, then id); each thread's counter starts at its highest number.
    `LOCK TABLE ${t.checkpoints}, ${t.checkpointSeq} IN SHARE ROW EXCLUSIVE MODE;
     CREATE TABLE IF NOT EXISTS ${t.checkpointCounter} (thread_id TEXT PRIMARY KEY, seq BIGINT NOT NULL);
     UPDATE ${t.checkpointSeq} s SET seq = r.n
       FROM (SELECT thread_id, checkpoint_ns, checkpoint_id,
               row_number() OVER (PARTITION BY thread_id ORDER BY seq, checkpoint_id, checkpoint_ns) AS n
             FROM ${t.checkpointSeq}
             WHERE thread_id IN (SELECT thread_id FROM ${t.checkpointSeq} GROUP BY thread_id, seq HAVING count(*) > 1)) r
       WHERE s.thread_id = r.thread_id AND s.checkpoint_ns = r.checkpoint_ns AND s.checkpoint_id = r.checkpoint_id AND s.seq <> r.n;
     INSERT INTO ${t.checkpointCounter} (thread_id, seq)
       SELECT thread_id, max(seq) FROM ${t.checkpointSeq} GROUP BY thread_id
       ON CONFLICT (thread_id) DO UPDATE SET seq = greatest(${t.checkpointCounter}.seq, EXCLUDED.seq);
     CREATE OR REPLACE FUNCTION "${schema}".threadwise_checkpoint_seq_insert() RETURNS trigger LANGUAGE plpgsql
       SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $fn$
     DECLARE given BIGINT;
     BEGIN
       UPDATE ${t.checkpointCounter} SET seq = seq + 1 WHERE thread_id = NEW.thread_id RETURNING seq INTO given;
       IF NOT FOUND THEN
         -- The thread's first checkpoint (or a counter removed): from its highest number. A
         -- concurrent first writer's row makes this insert wait for it, then count on from it.
         INSERT INTO ${t.checkpointCounter} AS c (thread_id, seq)
           VALUES (NEW.thread_id, (SELECT coalesce(max(seq), 0) + 1 FROM ${t.checkpointSeq} WHERE thread_id = NEW.thread_id))
           ON CONFLICT (thread_id) DO UPDATE SET seq = c.seq + 1
           RETURNING seq INTO given;
       END IF;
       INSERT INTO ${t.checkpointSeq} (thread_id, checkpoint_ns, checkpoint_id, seq)
         VALUES (NEW.thread_id, NEW.checkpoint_ns, NEW.checkpoint_id, given)
         ON CONFLICT DO NOTHING;
       RETURN NULL;
     END $fn$`,
  ];
}

/**
 * Versions of threadwise migrations that are not additive: a runtime expecting an older version
 * cannot run on a schema at or past one of them. Recorded by `migrate` as component
 * `threadwise_compatible_from` (the highest such version, else 1).
 */
export const BREAKING_THREADWISE_VERSIONS: readonly number[] = [];

/**
 * Schema versions this release runs against (spec R21), each the lowest accepted: a schema at a
 * higher version passes the check, so an additive upstream migration (a new PostgresSaver
 * release's `setup()`) or a newer threadwise's additive one never stops the runtime.
 */
export const EXPECTED_SCHEMA = {
  /**
   * Lowest `max(v)` in PostgresSaver's `checkpoint_migrations`: the version
   * `@langchain/langgraph-checkpoint-postgres` 1.0.x records after `setup()` (its five steps, v 0-4).
   */
  checkpoint: 4,
  /** `version` of component `threadwise` in `threadwise_schema_version`: this release's own migrations. */
  threadwise: threadwiseMigrations("public").length,
} as const;

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** DSN of a role with DDL rights (env `POSTGRES_MIGRATION_DSN`). */
  dsn: string;
  /** Schema to create the tables in. @default "public" */
  schema?: string;
  /**
   * Runtime role(s) to grant `USAGE` on the schema and `SELECT, INSERT, UPDATE, DELETE` on every
   * memory table, and nothing else (no DDL).
   */
  grantTo?: string | string[];
}

/** What {@link migrate} did. */
export interface MigrateResult {
  /** Steps applied now, e.g. `checkpoint:0`, `store:0`, `threadwise:1`; empty when already current. */
  applied: string[];
  checkpoint: number;
  /** PostgresStore's `max(v)` in `store_migrations` (user memory's tables, spec R40). */
  store: number;
  threadwise: number;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** {@link MigrateOptions} as a strict schema: unknown keys and names that are not plain SQL identifiers are refused. */
export const migrateOptionsSchema = z.strictObject({
  dsn: z.string().min(1, "required: a PostgreSQL DSN of a role with DDL rights"),
  schema: z.string().regex(IDENT, "not a plain SQL identifier").optional(),
  grantTo: z
    .union([z.string().regex(IDENT, "not a plain role name"), z.array(z.string().regex(IDENT, "not a plain role name"))])
    .optional(),
});

/** Pauses before each new attempt of {@link migrate} after a lost connection, in ms (3 attempts in all). */
export const MIGRATE_RETRY_DELAYS_MS: readonly number[] = [250, 1_000];

/**
 * Brings the schema up to date (spec R21), for a role with DDL rights; the runtime never calls it.
 * Everything runs on one connection in one transaction, which commits or rolls back whole:
 *
 * 1. The transaction takes the advisory lock `threadwise.migrate`, held to its end, so concurrent
 *    runs take turns. Nothing needs session state, so it works through PgBouncer in transaction
 *    mode (a session lock taken there stayed on a server connection after `migrate` left, and
 *    the next run waited for it forever) and on one-session engines (PGlite).
 * 2. `PostgresSaver.setup()` creates the schema and PostgresSaver's tables and runs its own
 *    migrations, recorded in its `checkpoint_migrations` table; then `PostgresStore.setup()` does
 *    the same for the store of user memory (`store`, recorded in `store_migrations`; no vector
 *    index). threadwise does not restate that DDL, so a newer
 *    `@langchain/langgraph-checkpoint-postgres` migrates its tables itself. Both run on the
 *    transaction's connection, each statement in a savepoint.
 * 3. threadwise's own pending migrations (the versioned list above, recorded in
 *    `threadwise_schema_version`), registration of threads written before threadwise's tables
 *    existed, and, with `grantTo`, the runtime role's DML rights.
 *
 * A connection lost on the way (`ECONNRESET`, a server restart, PgBouncer closing it) rolls the
 * whole run back, so `migrate` starts over, up to 3 attempts ({@link MIGRATE_RETRY_DELAYS_MS}
 * apart), then throws.
 *
 * @returns the steps applied now (`checkpoint:<v>` for PostgresSaver's, `threadwise:<v>` for
 *   threadwise's) and the versions reached.
 * @throws ThreadwiseConfigError for a schema or role that is not a plain SQL identifier, and
 *   (`option` `migrate.dsn`) when the DSN names a database that does not exist: create it first.
 * @throws ThreadwiseConnectionLostError (`operation` "migrate", `reason` the last loss) when the
 *   connection was lost on every attempt; the message says to re-run `threadwise migrate`.
 * @throws ThreadwiseConfigError (`option` `migrate.dsn`, the PostgreSQL error as `cause`) when the
 *   database or role is read-only (SQLSTATE 25006: a hot standby, `default_transaction_read_only`)
 *   or the role lacks DDL rights (42501); nothing is changed (one transaction, rolled back).
 * @throws ThreadwiseMissingPeerError when `pg` or `@langchain/langgraph-checkpoint-postgres` is not installed.
 * @example
 * await migrate({ dsn: process.env.POSTGRES_MIGRATION_DSN!, grantTo: "app_runtime" });
 */
export async function migrate(given: MigrateOptions): Promise<MigrateResult> {
  const options = parseOptions("migrate", migrateOptionsSchema, given);
  const schema = options.schema ?? "public";
  assertSchemaName(schema, "migrate.schema");
  const grantees = [options.grantTo ?? []].flat();
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await migrateOnce(options.dsn, schema, grantees);
    } catch (error) {
      // 3D000 (invalid_catalog_name): the DSN's database does not exist. migrate makes tables, not
      // databases, and a new user's first migrate usually meets this: say what to do.
      if ((error as { code?: unknown } | null)?.code === "3D000")
        throw new ThreadwiseConfigError(
          "migrate.dsn",
          `${(error as Error).message}: migrate creates the schema's tables, not the database; create it first (\`createdb <name>\`, or \`CREATE DATABASE <name>\` as a role allowed to), then run migrate again. Nothing was changed`,
          { cause: error },
        );
      const refused = refusedWrite(error);
      if (refused !== undefined) throw new ThreadwiseConfigError("migrate.dsn", refused, { cause: error });
      const reason = connectionLostReason(error);
      if (reason === undefined) throw error;
      const pause = MIGRATE_RETRY_DELAYS_MS[attempt - 1];
      if (pause === undefined)
        throw new ThreadwiseConnectionLostError(
          "migrate",
          attempt,
          reason,
          "migrate runs in one transaction, so nothing was applied by the lost attempts: re-run `threadwise migrate` once PostgreSQL is reachable",
          { cause: error },
        );
      await sleep(pause);
    }
  }
}

const ignore = () => undefined;

/**
 * What to do when PostgreSQL refused migrate's writes for a reason of the DSN's, not the data's:
 * 25006 (read_only_sql_transaction: a hot standby, or `default_transaction_read_only` on the
 * database or role) and 42501 (insufficient_privilege: a role without DDL rights, such as the
 * runtime's). `undefined` for any other error. migrate runs in one transaction, so nothing was
 * changed either way.
 */
function refusedWrite(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as Error).message;
  if (code === "25006")
    return `${message}: the database or role is read-only (a hot standby replica, or default_transaction_read_only on the database or role); run migrate against the primary, with a role that may write. Nothing was changed`;
  if (code === "42501")
    return `${message}: the DSN's role may not change this schema; run migrate with a role that has DDL rights on the database (its owner: POSTGRES_MIGRATION_DSN), and give the runtime role its rights with --grant-to. Nothing was changed`;
  return undefined;
}

/**
 * `client` (inside migrate's transaction) as the one connection of a pool, for PostgresSaver's
 * and PostgresStore's `setup()`. Each statement runs in a savepoint, so one that fails (their
 * probe of a missing `*_migrations` table, which they catch) leaves the transaction usable, as it
 * would on a connection of its own; `end()` leaves the connection to migrate.
 */
function heldPool(client: pg.Client): pg.Pool {
  const query = async (...args: unknown[]) => {
    await client.query("SAVEPOINT threadwise_migrate_step");
    try {
      const result = await (client.query as (...a: unknown[]) => Promise<unknown>)(...args);
      await client.query("RELEASE SAVEPOINT threadwise_migrate_step");
      return result;
    } catch (error) {
      await client.query("ROLLBACK TO SAVEPOINT threadwise_migrate_step").catch(ignore);
      throw error;
    }
  };
  const lent = { query, release: ignore };
  const pool = { query, connect: async () => lent, end: async () => undefined, on: () => pool };
  return pool as unknown as pg.Pool;
}

async function migrateOnce(dsn: string, schema: string, grantees: readonly string[]): Promise<MigrateResult> {
  const { Client } = loadPg();
  const PostgresSaver = loadPostgresSaver();
  const t = pgTables(schema);
  const client = new Client({ connectionString: dsn, application_name: "threadwise-migrate" });
  // A lost connection is an `error` event, which unhandled would end the process; the query in
  // progress rejects instead, and migrate starts over.
  client.on("error", ignore);
  const applied: string[] = [];
  try {
    await client.connect();
    // One connection, one transaction: the lock is held to the end and needs no session state.
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext('threadwise.migrate'))");
    const pool = heldPool(client);
    const before = (await readVersions(client, schema)).checkpoint ?? -1;
    await new PostgresSaver(pool, undefined, { schema }).setup();
    const after = (await readVersions(client, schema)).checkpoint ?? -1;
    for (let v = before + 1; v <= after; v += 1) applied.push(`checkpoint:${v}`);
    const storeBefore = (await readVersions(client, schema)).store ?? -1;
    await postgresUserStore(pool, { schema, dsn, max: 1 }).setup();
    const storeAfter = (await readVersions(client, schema)).store ?? -1;
    for (let v = storeBefore + 1; v <= storeAfter; v += 1) applied.push(`store:${v}`);

    await client.query(
      `CREATE TABLE IF NOT EXISTS ${t.schemaVersion} (component TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const ownSteps = threadwiseMigrations(schema);
    const currentOwn = (await readVersions(client, schema)).threadwise ?? 0;
    const record = (component: string, version: number) =>
      client.query(
        `INSERT INTO ${t.schemaVersion} (component, version) VALUES ($1, $2)
         ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, applied_at = now()`,
        [component, version],
      );
    for (let v = currentOwn + 1; v <= ownSteps.length; v += 1) {
      await client.query(ownSteps[v - 1] as string);
      await record("threadwise", v);
      applied.push(`threadwise:${v}`);
    }
    if (currentOwn < ownSteps.length) await record(COMPATIBLE_FROM, compatibleFrom(Math.max(currentOwn, ownSteps.length)));
    await client.query(
      `INSERT INTO ${t.threads} (thread_id, created_at, updated_at)
       SELECT thread_id, min((checkpoint->>'ts')::timestamptz), max((checkpoint->>'ts')::timestamptz)
       FROM ${t.checkpoints} GROUP BY thread_id ON CONFLICT (thread_id) DO NOTHING`,
    );
    const st = storeTables(schema);
    for (const role of grantees) {
      await client.query(`GRANT USAGE ON SCHEMA "${schema}" TO "${role}"`);
      await client.query(
        `GRANT SELECT, INSERT, UPDATE, DELETE ON ${[...Object.values(t), st.store, st.storeMigrations].join(", ")} TO "${role}"`,
      );
    }
    await client.query("COMMIT");
    const versions = await readVersions(client, schema);
    return { applied, checkpoint: versions.checkpoint ?? -1, store: versions.store ?? -1, threadwise: versions.threadwise ?? 0 };
  } catch (error) {
    await client.query("ROLLBACK").catch(ignore);
    throw error;
  } finally {
    await client.end().catch(ignore);
  }
}

/** Component of `threadwise_schema_version` holding the lowest version a runtime may expect. */
const COMPATIBLE_FROM = "threadwise_compatible_from";

/** The lowest runtime version that can run on a schema at `version`: the newest breaking step at or below it, else 1. */
function compatibleFrom(version: number): number {
  return Math.max(1, ...BREAKING_THREADWISE_VERSIONS.filter((v) => v <= version));
}

/** Recorded versions; `null` where the version table is missing. */
export async function readVersions(
  client: pg.Client | pg.Pool | pg.PoolClient,
  schema = "public",
): Promise<{
  checkpoint: number | null;
  /** PostgresStore's version (`store_migrations`); `null` when its tables are missing (user memory needs them, nothing else does). */
  store: number | null;
  threadwise: number | null;
  threadwiseCompatibleFrom: number | null;
  missingTables: string[];
}> {
  const t = pgTables(schema);
  const names = Object.values(t);
  const { rows } = await client.query<{ name: string; present: boolean }>(
    "SELECT name, to_regclass(name) IS NOT NULL AS present FROM unnest($1::text[]) AS name",
    [names],
  );
  const missingTables = rows.filter((row) => !row.present).map((row) => row.name);
  let checkpoint: number | null = null;
  let threadwise: number | null = null;
  let threadwiseCompatibleFrom: number | null = null;
  if (!missingTables.includes(t.checkpointMigrations)) {
    const result = await client.query<{ v: number | null }>(`SELECT max(v) AS v FROM ${t.checkpointMigrations}`);
    checkpoint = result.rows[0]?.v ?? null;
  }
  if (!missingTables.includes(t.schemaVersion)) {
    const result = await client.query<{ component: string; version: number }>(
      `SELECT component, version FROM ${t.schemaVersion} WHERE component IN ('threadwise', '${COMPATIBLE_FROM}')`,
    );
    threadwise = result.rows.find((row) => row.component === "threadwise")?.version ?? null;
    threadwiseCompatibleFrom = result.rows.find((row) => row.component === COMPATIBLE_FROM)?.version ?? null;
  }
  const st = storeTables(schema);
  const storePresent = await client.query<{ present: boolean }>("SELECT to_regclass($1) IS NOT NULL AS present", [st.storeMigrations]);
  let store: number | null = null;
  if (storePresent.rows[0]?.present)
    store = (await client.query<{ v: number | null }>(`SELECT max(v) AS v FROM ${st.storeMigrations}`)).rows[0]?.v ?? null;
  return { checkpoint, store, threadwise, threadwiseCompatibleFrom, missingTables };
}

/**
 * Checks, without any DDL, that the schema holds every table this release uses at a version it
 * can run on (spec R21). Runs before the first read or write of a PostgreSQL memory backend.
 * Tolerant of newer schemas: PostgresSaver's version must be at least
 * {@link EXPECTED_SCHEMA}`.checkpoint` (an additive upstream migration passes), threadwise's at
 * least {@link EXPECTED_SCHEMA}`.threadwise`, unless a newer threadwise recorded a breaking
 * migration past this release (`threadwise_compatible_from`).
 *
 * @throws ThreadwiseSchemaVersionError naming the component, the expected and found versions,
 *   and the missing tables.
 */
export async function assertSchemaVersion(pool: pg.Pool | pg.Client, schema = "public"): Promise<void> {
  const { checkpoint, threadwise, threadwiseCompatibleFrom, missingTables } = await readVersions(pool, schema);
  const missing = missingTables.length > 0 ? `missing tables: ${missingTables.join(", ")}` : undefined;
  if (checkpoint === null || checkpoint < EXPECTED_SCHEMA.checkpoint)
    throw new ThreadwiseSchemaVersionError(
      "checkpoint",
      EXPECTED_SCHEMA.checkpoint,
      checkpoint,
      missing ?? "PostgresSaver's migrations are behind; `threadwise migrate` runs its setup()",
    );
  if (threadwise === null || threadwise < EXPECTED_SCHEMA.threadwise)
    throw new ThreadwiseSchemaVersionError(
      "threadwise",
      EXPECTED_SCHEMA.threadwise,
      threadwise,
      missing ?? "threadwise migrations are pending",
    );
  if (threadwiseCompatibleFrom !== null && threadwiseCompatibleFrom > EXPECTED_SCHEMA.threadwise)
    throw new ThreadwiseSchemaVersionError(
      "threadwise",
      EXPECTED_SCHEMA.threadwise,
      threadwise,
      `a newer threadwise made a breaking change (runtimes from version ${threadwiseCompatibleFrom} only); upgrade this one`,
    );
  if (missing) throw new ThreadwiseSchemaVersionError("threadwise", EXPECTED_SCHEMA.threadwise, threadwise, missing);
}
