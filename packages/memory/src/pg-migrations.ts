import pg from "pg";
import { pgTables } from "./pg-thread-registry.js";
import { ThreadwiseSchemaVersionError } from "./schema-version-error.js";

/**
 * PostgresSaver's own migrations (`@langchain/langgraph-checkpoint-postgres` 1.0.x, 5 steps),
 * restated so `migrate` can run them in one transaction. Their position is the version recorded
 * in `checkpoint_migrations`, exactly as `PostgresSaver.setup()` records it, so either tool sees
 * the other's work as done.
 */
function checkpointMigrations(schema: string): string[] {
  const t = pgTables(schema);
  return [
    `CREATE TABLE IF NOT EXISTS ${t.checkpointMigrations} (v INTEGER PRIMARY KEY)`,
    `CREATE TABLE IF NOT EXISTS ${t.checkpoints} (
      thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
      parent_checkpoint_id TEXT, type TEXT, checkpoint JSONB NOT NULL, metadata JSONB NOT NULL DEFAULT '{}',
      PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id))`,
    `CREATE TABLE IF NOT EXISTS ${t.blobs} (
      thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', channel TEXT NOT NULL,
      version TEXT NOT NULL, type TEXT NOT NULL, blob BYTEA,
      PRIMARY KEY (thread_id, checkpoint_ns, channel, version))`,
    `CREATE TABLE IF NOT EXISTS ${t.writes} (
      thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
      task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, type TEXT, blob BYTEA NOT NULL,
      PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx))`,
    `ALTER TABLE ${t.blobs} ALTER COLUMN blob DROP NOT NULL`,
  ];
}

/** threadwise's own migrations; position + 1 is the version recorded in `threadwise_schema_version`. */
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
  ];
}

/** Schema versions this release runs against (spec R21). */
export const EXPECTED_SCHEMA = {
  /** Highest `v` in PostgresSaver's `checkpoint_migrations`. */
  checkpoint: checkpointMigrations("public").length - 1,
  /** `version` of component `threadwise` in `threadwise_schema_version`. */
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
  /** Steps applied now, e.g. `checkpoint:0`, `threadwise:1`; empty when already current. */
  applied: string[];
  checkpoint: number;
  threadwise: number;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Runs every pending migration (spec R21) in one transaction under a transaction-scoped advisory
 * lock, so two concurrent `migrate` runs do not interleave; registers threads written before
 * threadwise's tables existed; grants the runtime role DML rights when `grantTo` is given. The
 * runtime never calls this.
 *
 * @throws Error from PostgreSQL when the role lacks DDL rights (message without the DSN).
 * @example
 * await migrate({ dsn: process.env.POSTGRES_MIGRATION_DSN!, grantTo: "app_runtime" });
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const schema = options.schema ?? "public";
  if (!IDENT.test(schema)) throw new Error(`schema: not a plain SQL identifier`);
  const grantees = [options.grantTo ?? []].flat();
  for (const role of grantees) if (!IDENT.test(role)) throw new Error(`grantTo: ${JSON.stringify(role)} is not a plain role name`);
  const t = pgTables(schema);
  const client = new pg.Client({ connectionString: options.dsn, application_name: "threadwise-migrate" });
  await client.connect();
  const applied: string[] = [];
  try {
    await client.query("BEGIN");
    await client.query("SELECT pg_advisory_xact_lock(hashtext('threadwise.migrate'))");
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    const checkpointSteps = checkpointMigrations(schema);
    const currentCheckpoint = (await readVersions(client, schema)).checkpoint ?? -1;
    for (let v = currentCheckpoint + 1; v < checkpointSteps.length; v += 1) {
      await client.query(checkpointSteps[v] as string);
      await client.query(`INSERT INTO ${t.checkpointMigrations} (v) VALUES ($1)`, [v]);
      applied.push(`checkpoint:${v}`);
    }
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${t.schemaVersion} (component TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const ownSteps = threadwiseMigrations(schema);
    const currentOwn = (await readVersions(client, schema)).threadwise ?? 0;
    for (let v = currentOwn + 1; v <= ownSteps.length; v += 1) {
      await client.query(ownSteps[v - 1] as string);
      await client.query(
        `INSERT INTO ${t.schemaVersion} (component, version) VALUES ('threadwise', $1)
         ON CONFLICT (component) DO UPDATE SET version = EXCLUDED.version, applied_at = now()`,
        [v],
      );
      applied.push(`threadwise:${v}`);
    }
    await client.query(
      `INSERT INTO ${t.threads} (thread_id, created_at, updated_at)
       SELECT thread_id, min((checkpoint->>'ts')::timestamptz), max((checkpoint->>'ts')::timestamptz)
       FROM ${t.checkpoints} GROUP BY thread_id ON CONFLICT (thread_id) DO NOTHING`,
    );
    for (const role of grantees) {
      await client.query(`GRANT USAGE ON SCHEMA "${schema}" TO "${role}"`);
      await client.query(`GRANT SELECT, INSERT, UPDATE, DELETE ON ${Object.values(t).join(", ")} TO "${role}"`);
    }
    await client.query("COMMIT");
    const versions = await readVersions(client, schema);
    return { applied, checkpoint: versions.checkpoint ?? -1, threadwise: versions.threadwise ?? 0 };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** Recorded versions; `null` where the version table is missing. */
export async function readVersions(
  client: pg.Client | pg.Pool | pg.PoolClient,
  schema = "public",
): Promise<{ checkpoint: number | null; threadwise: number | null; missingTables: string[] }> {
  const t = pgTables(schema);
  const names = Object.values(t);
  const { rows } = await client.query<{ name: string; present: boolean }>(
    "SELECT name, to_regclass(name) IS NOT NULL AS present FROM unnest($1::text[]) AS name",
    [names],
  );
  const missingTables = rows.filter((row) => !row.present).map((row) => row.name);
  let checkpoint: number | null = null;
  let threadwise: number | null = null;
  if (!missingTables.includes(t.checkpointMigrations)) {
    const result = await client.query<{ v: number | null }>(`SELECT max(v) AS v FROM ${t.checkpointMigrations}`);
    checkpoint = result.rows[0]?.v ?? null;
  }
  if (!missingTables.includes(t.schemaVersion)) {
    const result = await client.query<{ version: number }>(`SELECT version FROM ${t.schemaVersion} WHERE component = 'threadwise'`);
    threadwise = result.rows[0]?.version ?? null;
  }
  return { checkpoint, threadwise, missingTables };
}

/**
 * Checks, without any DDL, that the schema holds every table at the versions this release
 * expects (spec R21). Runs before the first read or write of a PostgreSQL memory backend.
 *
 * @throws ThreadwiseSchemaVersionError naming the component, the expected and found versions,
 *   and the missing tables.
 */
export async function assertSchemaVersion(pool: pg.Pool | pg.Client, schema = "public"): Promise<void> {
  const { checkpoint, threadwise, missingTables } = await readVersions(pool, schema);
  if (checkpoint !== EXPECTED_SCHEMA.checkpoint)
    throw new ThreadwiseSchemaVersionError(
      "checkpoint",
      EXPECTED_SCHEMA.checkpoint,
      checkpoint,
      missingTables.length > 0 ? `missing tables: ${missingTables.join(", ")}` : "PostgresSaver migrations differ",
    );
  if (threadwise !== EXPECTED_SCHEMA.threadwise)
    throw new ThreadwiseSchemaVersionError(
      "threadwise",
      EXPECTED_SCHEMA.threadwise,
      threadwise,
      missingTables.length > 0 ? `missing tables: ${missingTables.join(", ")}` : "threadwise migrations differ",
    );
  if (missingTables.length > 0)
    throw new ThreadwiseSchemaVersionError(
      "threadwise",
      EXPECTED_SCHEMA.threadwise,
      threadwise,
      `missing tables: ${missingTables.join(", ")}`,
    );
}
