import { ThreadwiseConfigError } from "@threadwise/core";
import { SEALED_METADATA_KEY } from "@threadwise/encryption";
import type pg from "pg";
import { PgTransactionScope } from "./pg-transaction-scope.js";
import { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
import { normalizeThreadId } from "./thread-id.js";
import {
  ARCHIVE_CLEARED_MESSAGE_ID,
  type ArchiveMark,
  type ArchiveRow,
  assertCommit,
  assertWrites,
  type CheckpointCommit,
  type CommitLocked,
  claimCommit,
  NO_ROWS,
  type StoredCheckpoint,
  type StoreOrderQuery,
  type ThreadDeleteOptions,
  type ThreadDeleteOutcome,
  type ThreadHead,
  type ThreadInfo,
  type ThreadRegistry,
  type ThreadRowCounts,
  type WritesTarget,
} from "./thread-registry.js";

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Checks a PostgreSQL schema name before it is put into any SQL: a plain identifier (letters,
 * digits, `_`, not starting with a digit, at most 63 characters, PostgreSQL's limit). Every
 * statement threadwise builds quotes it, but only a name that passes this reaches one.
 * @throws ThreadwiseConfigError naming `option`.
 */
export function assertSchemaName(schema: string, option = "schema"): string {
  if (typeof schema !== "string" || !SCHEMA_NAME.test(schema))
    throw new ThreadwiseConfigError(
      option,
      `${JSON.stringify(schema)} is not a plain SQL identifier (letters, digits and _, not starting with a digit, at most 63)`,
    );
  return schema;
}

/**
 * Schema-qualified names of every table the memory schema holds.
 * @throws ThreadwiseConfigError when `schema` is not a plain identifier ({@link assertSchemaName}).
 */
export function pgTables(schema: string) {
  assertSchemaName(schema);
  const q = (table: string) => `"${schema}".${table}`;
  return {
    checkpoints: q("checkpoints"),
    blobs: q("checkpoint_blobs"),
    writes: q("checkpoint_writes"),
    checkpointMigrations: q("checkpoint_migrations"),
    threads: q("threadwise_threads"),
    operations: q("threadwise_operations"),
    archive: q("threadwise_archive"),
    checkpointSeq: q("threadwise_checkpoint_seq"),
    checkpointCounter: q("threadwise_checkpoint_counter"),
    schemaVersion: q("threadwise_schema_version"),
  };
}

/** One statement of a {@link batch}: SQL text with `$n` placeholders, and their values. */
interface Statement {
  text: string;
  values?: readonly unknown[];
}

/**
 * `value` as a SQL literal, for a statement sent in a {@link batch} (the simple query protocol
 * binds no parameters): a string quoted by pg's own `escapeLiteral`, a boolean, a finite number,
 * `null`. `undefined` for any other value and for a string holding NUL, which a query text cannot
 * carry (as a bound parameter PostgreSQL refuses it with its own error).
 */
function literal(client: pg.PoolClient, value: unknown): string | undefined {
  if (value === null) return "NULL";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (typeof value === "number") return Number.isFinite(value) ? `(${String(value)})` : undefined;
  if (typeof value === "string") return value.includes("\0") ? undefined : client.escapeLiteral(value);
  return undefined;
}

/**
 * Runs `statements` in order on `client` and returns one result per statement, in one round trip:
 * their texts joined into one simple-query string, each `$n` replaced by its value as a
 * {@link literal}. PostgreSQL runs them in turn, each with its own snapshot (READ COMMITTED: a
 * read after the statement taking the row lock sees what committed before the lock was granted),
 * and stops at the first error, which rejects the call: as when they are sent one by one, which
 * is what happens when a value cannot be a literal. Every round trip is a socket write and read
 * of this process (a put was 7 round trips, a batch of pending writes 5; now 4 and 3).
 */
async function batch(client: pg.PoolClient, statements: readonly Statement[]): Promise<pg.QueryResult[]> {
  const texts: string[] = [];
  for (const { text, values = [] } of statements) {
    const literals = values.map((value) => literal(client, value));
    if (literals.some((value) => value === undefined)) {
      const results: pg.QueryResult[] = [];
      for (const statement of statements) results.push(await client.query(statement.text, statement.values as unknown[] | undefined));
      return results;
    }
    texts.push(values.length === 0 ? text : text.replace(/\$(\d+)/g, (_, n: string) => literals[Number(n) - 1] as string));
  }
  if (texts.length === 1) return [await client.query(texts[0] as string)];
  const results = (await client.query(texts.join(";\n"))) as unknown as pg.QueryResult[];
  return results;
}

/** Archived rows one statement of an archive write carries at most (3 values a row beside 3 shared: far below PostgreSQL's 65,535 parameters when sent bound). */
const ARCHIVE_INSERT_ROWS = 256;

/** The registry columns a write reads under the row lock; times in milliseconds by `clock_timestamp()`. */
interface ThreadRow {
  head_id: string | null;
  head_version: string | number;
  /** Milliseconds the lease still runs (negative: expired; `null`: none). */
  lease_ms: number | null;
  /** Milliseconds since the leased run started. */
  running_ms: number | null;
}

/**
 * {@link ThreadRegistry} on PostgreSQL: table `threadwise_threads` (one row per thread; a row
 * with `deleted_at` set is a tombstone). Only unnamed statements and transaction-scoped locks are
 * used, so it works through PgBouncer in transaction mode.
 *
 * Writes (spec R24, R34): {@link PgThreadRegistry.commitCheckpoint} and
 * {@link PgThreadRegistry.commitWrites} open one transaction, lock the thread's row with the
 * `INSERT ... ON CONFLICT DO UPDATE` of `touch` (which also finds a tombstone), run the checks,
 * then the wrapped saver's own statements through {@link PgTransactionScope} on the same
 * connection, and commit. `BEGIN`, the lock and the reads under it (where the archive stands,
 * whether the checkpoint of pending writes is stored) go in one round trip, and so do the head
 * move and `COMMIT` ({@link batch}): a put costs the round trips of a plain PostgresSaver's. A deletion takes the same row lock, so it waits for an in-flight write
 * and the write after it meets the tombstone.
 *
 * Heads and leases (spec R38): `head_id`/`head_version` move in the write's transaction, and
 * every lease time is PostgreSQL's `clock_timestamp()`, never a writer's clock.
 */
export class PgThreadRegistry implements ThreadRegistry {
  readonly kind = "postgres";
  readonly #pool: pg.Pool;
  readonly #t: ReturnType<typeof pgTables>;

  /** Routes the wrapped saver's statements into the registry's write transaction. */
  readonly scope: PgTransactionScope;
  /** The pool, or inside a write transaction its connection: archive reads there see (and wait for) what the transaction locked. */
  readonly #reader: pg.Pool;

  /**
   * @param pool the real pool (the wrapped PostgresSaver gets `scope.pool(pool)`).
   * @param scope shared with the saver; a new one when omitted.
   */
  constructor(pool: pg.Pool, schema = "public", scope: PgTransactionScope = new PgTransactionScope()) {
    this.#pool = pool;
    this.#t = pgTables(schema);
    this.scope = scope;
    this.#reader = scope.pool(pool);
  }

  async commitCheckpoint<T>(threadId: string, commit: CheckpointCommit, write: (locked: CommitLocked) => Promise<T>): Promise<T> {
    // Where the archive stands is read right after the statement taking the lock, in its round trip
    // (archive writes of the thread take the same lock, so it holds until the commit).
    const tenant = commit.checkpointNs === "" ? commit.archiveTenantId : undefined;
    const mark = tenant === undefined ? undefined : this.#archiveMarkStatement(normalizeThreadId(threadId), tenant);
    return this.#inTransaction(
      threadId,
      async (client, row, read, beforeCommit) => {
        const operationCheckpointId =
          commit.operationId === undefined ? undefined : await this.#operationCheckpointId(client, threadId, commit.operationId);
        const leased = row.lease_ms !== null && row.lease_ms > 0;
        assertCommit(threadId, commit, {
          headId: commit.checkpointNs === "" ? (await this.#headOf(threadId, row, client))?.checkpointId : undefined,
          leaseRemainingMs: leased ? (row.lease_ms as number) : undefined,
          runningForMs: leased ? (row.running_ms ?? 0) : undefined,
          operationCheckpointId,
        });
        const locked: CommitLocked = read ? { archiveMark: archiveMarkOf(read) } : {};
        const result = await this.scope.run(client, () => write(locked));
        if (commit.checkpointNs === "") {
          beforeCommit.push({
            text: `UPDATE ${this.#t.threads} SET head_id = $2, head_version = head_version + 1, tenant_id = coalesce(tenant_id, $6),
             lease_until = CASE WHEN $3 THEN clock_timestamp() + make_interval(secs => $4::float8 / 1000) END,
             lease_started_at = CASE WHEN $3 THEN CASE WHEN $5 THEN clock_timestamp() ELSE coalesce(lease_started_at, clock_timestamp()) END END,
             turn_open_at = CASE WHEN $3 THEN clock_timestamp() END
           WHERE thread_id = $1`,
            values: [
              threadId,
              commit.checkpointId,
              commit.leavesTurnOpen,
              commit.turnLeaseMs,
              commit.startsRun || !leased,
              commit.archiveTenantId ?? null,
            ],
          });
          if (commit.operationId !== undefined)
            beforeCommit.push({
              text: `INSERT INTO ${this.#t.operations} (thread_id, operation_id, checkpoint_id) VALUES ($1, $2, $3)`,
              values: [threadId, commit.operationId, commit.checkpointId],
            });
        }
        return result;
      },
      mark,
    );
  }

  async storeOrder(threadId: string, query: StoreOrderQuery = {}): Promise<StoredCheckpoint[]> {
    const seq = this.#t.checkpointSeq;
    // The sequence's index only, newest first (one round trip; see StoreOrderQuery).
    const { rows } = await this.#reader.query<{ checkpointNs: string; checkpointId: string; seq: string }>(
      `WITH named AS (SELECT seq, checkpoint_id FROM ${seq}
          WHERE thread_id = $1 AND checkpoint_id = $3 AND ($4::text IS NULL OR checkpoint_ns = $4) LIMIT 1)
        SELECT checkpoint_ns AS "checkpointNs", checkpoint_id AS "checkpointId", seq FROM ${seq}
        WHERE thread_id = $1 AND ($2::text IS NULL OR checkpoint_ns = $2)
          AND ($3::text IS NULL OR CASE WHEN EXISTS (SELECT 1 FROM named)
            THEN (seq, checkpoint_id) < (SELECT seq, checkpoint_id FROM named) ELSE checkpoint_id < $3 END)
          AND ($5::bigint IS NULL OR (seq, checkpoint_id) < ($5::bigint, $6::text))
          AND ($8::text IS NULL OR checkpoint_id < $8)
        ORDER BY seq DESC, checkpoint_id DESC LIMIT $7`,
      [
        normalizeThreadId(threadId),
        query.checkpointNs ?? null,
        query.before?.checkpointId ?? null,
        query.before?.checkpointNs ?? null,
        query.after?.seq ?? null,
        query.after?.checkpointId ?? null,
        query.limit ?? null,
        query.idBelow ?? null,
      ],
    );
    return rows.map((row) => ({ checkpointNs: row.checkpointNs, checkpointId: row.checkpointId, seq: Number(row.seq) }));
  }

  async head(threadId: string): Promise<ThreadHead | undefined> {
    const id = normalizeThreadId(threadId);
    const { rows } = await this.#pool.query<Pick<ThreadRow, "head_id" | "head_version">>(
      `SELECT head_id, head_version FROM ${this.#t.threads} WHERE thread_id = $1`,
      [id],
    );
    return this.#headOf(id, rows[0], this.#pool);
  }

  async renewLease(threadId: string, checkpointId: string, turnLeaseMs: number): Promise<boolean> {
    const id = normalizeThreadId(threadId);
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#t.threads} SET lease_until = clock_timestamp() + make_interval(secs => $3::float8 / 1000), turn_open_at = clock_timestamp()
       WHERE thread_id = $1 AND head_id = $2 AND lease_until IS NOT NULL AND deleted_at IS NULL`,
      [id, checkpointId, turnLeaseMs],
    );
    return (rowCount ?? 0) > 0;
  }

  async claimTurn(threadId: string, checkpointId: string, turnLeaseMs: number): Promise<boolean> {
    return this.#inTransaction(threadId, async (client, row) => {
      const id = normalizeThreadId(threadId);
      const leased = row.lease_ms !== null && row.lease_ms > 0;
      // A live lease refuses a run resumed anywhere, the head or a branch, before its first call.
      assertCommit(id, claimCommit(checkpointId, turnLeaseMs), {
        headId: checkpointId,
        leaseRemainingMs: leased ? (row.lease_ms as number) : undefined,
        runningForMs: leased ? (row.running_ms ?? 0) : undefined,
        operationCheckpointId: undefined,
      });
      if ((await this.#headOf(id, row, client))?.checkpointId !== checkpointId) return false;
      await client.query(
        `UPDATE ${this.#t.threads} SET lease_until = clock_timestamp() + make_interval(secs => $2::float8 / 1000),
           lease_started_at = clock_timestamp(), turn_open_at = clock_timestamp() WHERE thread_id = $1`,
        [id, turnLeaseMs],
      );
      return true;
    });
  }

  async endTurn(threadId: string, checkpointId: string): Promise<boolean> {
    const id = normalizeThreadId(threadId);
    const { rowCount } = await this.#pool.query(
      `UPDATE ${this.#t.threads} SET lease_until = NULL, lease_started_at = NULL, turn_open_at = NULL
       WHERE thread_id = $1 AND head_id = $2 AND lease_until IS NOT NULL`,
      [id, checkpointId],
    );
    return (rowCount ?? 0) > 0;
  }

  /** The first checkpoint of the run that stored operation `operationId` on the thread, if one did (read in the thread's transaction, `client`). */
  async #operationCheckpointId(client: pg.PoolClient, threadId: string, operationId: string): Promise<string | undefined> {
    const { rows } = await client.query<{ checkpoint_id: string }>(
      `SELECT checkpoint_id FROM ${this.#t.operations} WHERE thread_id = $1 AND operation_id = $2`,
      [threadId, operationId],
    );
    return rows[0]?.checkpoint_id;
  }

  /** The recorded head; for a thread stored before heads were recorded, its newest checkpoint id (version 0). */
  async #headOf(
    threadId: string,
    row: Pick<ThreadRow, "head_id" | "head_version"> | undefined,
    client: pg.Pool | pg.PoolClient,
  ): Promise<ThreadHead | undefined> {
    if (row?.head_id) return { checkpointId: row.head_id, version: Number(row.head_version) };
    const { rows } = await client.query<{ id: string | null }>(
      `SELECT max(checkpoint_id) AS id FROM ${this.#t.checkpoints} WHERE thread_id = $1 AND checkpoint_ns = ''`,
      [threadId],
    );
    const newest = rows[0]?.id;
    return newest ? { checkpointId: newest, version: 0 } : undefined;
  }

  async commitWrites(threadId: string, target: WritesTarget, write: () => Promise<void>): Promise<boolean> {
    // Whether the checkpoint is stored is read right after the statement taking the lock, in its round trip.
    const stored: Statement = {
      text: `SELECT 1 FROM ${this.#t.checkpoints} WHERE thread_id = $1 AND checkpoint_ns = $2 AND checkpoint_id = $3`,
      values: [threadId, target.checkpointNs, target.checkpointId],
    };
    return this.#inTransaction(
      threadId,
      async (client, row, read, beforeCommit) => {
        const { operation } = target;
        const stored = operation === undefined ? undefined : await this.#operationCheckpointId(client, threadId, operation.operationId);
        if (operation !== undefined)
          assertWrites(threadId, target, {
            headId: (await this.#headOf(threadId, row, client))?.checkpointId,
            operationCheckpointId: stored,
          });
        if (!read?.rowCount) return false;
        await this.scope.run(client, write);
        if (operation?.record && stored === undefined)
          beforeCommit.push({
            text: `INSERT INTO ${this.#t.operations} (thread_id, operation_id, checkpoint_id) VALUES ($1, $2, $3)`,
            values: [threadId, operation.operationId, target.checkpointId],
          });
        if (target.endsTurn && target.checkpointNs === "")
          beforeCommit.push({
            text: `UPDATE ${this.#t.threads} SET lease_until = NULL, lease_started_at = NULL, turn_open_at = NULL WHERE thread_id = $1 AND head_id = $2`,
            values: [threadId, target.checkpointId],
          });
        return true;
      },
      stored,
    );
  }

  /** Where the thread's archive under `tenantId` stands: each max() from its index; the marker row's seq is 0. */
  #archiveMarkStatement(threadId: string, tenantId: string): Statement {
    return {
      text: `SELECT coalesce(max(stamp), 0) AS stamp, coalesce(max(seq), 0) AS seq FROM ${this.#t.archive} WHERE tenant_id = $1 AND thread_id = $2`,
      values: [tenantId, threadId],
    };
  }

  /**
   * BEGIN, lock the thread's row (refusing a tombstone), run `task`, COMMIT; ROLLBACK on any error.
   * `read`, a read of what the write needs, runs right after the statement taking the lock, and the
   * statements `task` pushes to `beforeCommit` right before COMMIT, each in the same round trip
   * ({@link batch}): `task` gets `read`'s result.
   */
  async #inTransaction<T>(
    threadId: string,
    task: (client: pg.PoolClient, row: ThreadRow, read: pg.QueryResult | undefined, beforeCommit: Statement[]) => Promise<T>,
    read?: Statement,
  ): Promise<T> {
    const id = normalizeThreadId(threadId);
    const client = await this.#pool.connect();
    try {
      const [, locked, readResult] = await batch(client, [
        { text: "BEGIN" },
        {
          text: `INSERT INTO ${this.#t.threads} (thread_id) VALUES ($1)
         ON CONFLICT (thread_id) DO UPDATE SET updated_at = now() WHERE ${this.#t.threads}.deleted_at IS NULL
         RETURNING head_id, head_version,
           (extract(epoch FROM lease_until - clock_timestamp()) * 1000)::float8 AS lease_ms,
           (extract(epoch FROM clock_timestamp() - lease_started_at) * 1000)::float8 AS running_ms`,
          values: [id],
        },
        ...(read ? [read] : []),
      ]);
      const row = locked?.rows[0] as ThreadRow | undefined;
      if (row === undefined) {
        await client.query("ROLLBACK");
        throw new ThreadwiseThreadDeletedError(id, (await this.tombstone(id))?.deletedAt);
      }
      const beforeCommit: Statement[] = [];
      const result = await task(client, row, readResult, beforeCommit);
      // An aborted transaction (a failed statement whose error was swallowed) answers COMMIT with ROLLBACK.
      if ((await batch(client, [...beforeCommit, { text: "COMMIT" }])).at(-1)?.command === "ROLLBACK")
        throw new Error(`the write transaction of thread ${JSON.stringify(id)} was rolled back`);
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async touch(threadId: string): Promise<void> {
    threadId = normalizeThreadId(threadId);
    // One statement: ON CONFLICT DO UPDATE waits for a concurrent delete holding the row lock and
    // then re-reads the newest row, so a write can never slip past a tombstone.
    const result = await this.#pool.query(
      `INSERT INTO ${this.#t.threads} (thread_id) VALUES ($1)
       ON CONFLICT (thread_id) DO UPDATE SET updated_at = now() WHERE ${this.#t.threads}.deleted_at IS NULL
       RETURNING thread_id`,
      [threadId],
    );
    if (result.rowCount === 0) {
      const tomb = await this.tombstone(threadId);
      throw new ThreadwiseThreadDeletedError(threadId, tomb?.deletedAt);
    }
  }

  async listIdle(idleBefore: Date, limit = 10_000): Promise<ThreadInfo[]> {
    await this.#adoptUnregistered();
    const { rows } = await this.#pool.query<{ thread_id: string; updated_at: Date }>(
      `SELECT thread_id, updated_at FROM ${this.#t.threads}
       WHERE deleted_at IS NULL AND updated_at < $1 ORDER BY updated_at, thread_id LIMIT $2`,
      [idleBefore, limit],
    );
    const counts = await this.#counts(rows.map((row) => row.thread_id));
    return rows.map((row) => ({ threadId: row.thread_id, updatedAt: row.updated_at, ...(counts.get(row.thread_id) ?? NO_ROWS) }));
  }

  async describe(threadId: string): Promise<ThreadInfo | undefined> {
    threadId = normalizeThreadId(threadId);
    await this.#adoptUnregistered(threadId);
    const { rows } = await this.#pool.query<{ updated_at: Date }>(
      `SELECT updated_at FROM ${this.#t.threads} WHERE thread_id = $1 AND deleted_at IS NULL`,
      [threadId],
    );
    const row = rows[0];
    if (!row) return undefined;
    return { threadId, updatedAt: row.updated_at, ...((await this.#counts([threadId])).get(threadId) ?? NO_ROWS) };
  }

  async tenantThreads(tenantId: string, limit: number, after?: string): Promise<ThreadInfo[]> {
    await this.#adoptUnregistered();
    const { rows } = await this.#pool.query<{ thread_id: string; updated_at: Date }>(
      `SELECT t.thread_id, t.updated_at FROM ${this.#t.threads} t
       WHERE t.deleted_at IS NULL AND ($3::text IS NULL OR t.thread_id > $3) AND (t.tenant_id = $1 OR (t.tenant_id IS NULL
         AND EXISTS (SELECT 1 FROM ${this.#t.archive} a WHERE a.tenant_id = $1 AND a.thread_id = t.thread_id)))
       ORDER BY t.thread_id LIMIT $2`,
      [tenantId, limit, after ?? null],
    );
    const counts = await this.#counts(rows.map((row) => row.thread_id));
    return rows.map((row) => ({ threadId: row.thread_id, updatedAt: row.updated_at, ...(counts.get(row.thread_id) ?? NO_ROWS) }));
  }

  async unattributedThreads(): Promise<number> {
    await this.#adoptUnregistered();
    const { rows } = await this.#pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${this.#t.threads} t WHERE t.deleted_at IS NULL AND t.tenant_id IS NULL
         AND NOT EXISTS (SELECT 1 FROM ${this.#t.archive} a WHERE a.thread_id = t.thread_id)`,
    );
    return Number(rows[0]?.n ?? 0);
  }

  async deleteTenantArchive(tenantId: string, limit: number): Promise<number> {
    const stray = `SELECT a.thread_id, a.message_id FROM ${this.#t.archive} a WHERE a.tenant_id = $1 AND NOT EXISTS (
      SELECT 1 FROM ${this.#t.threads} t WHERE t.thread_id = a.thread_id AND t.deleted_at IS NULL AND (t.tenant_id = $1 OR t.tenant_id IS NULL))`;
    if (limit === 0) {
      const { rows } = await this.#pool.query<{ n: string }>(`SELECT count(*) AS n FROM (${stray}) s`, [tenantId]);
      return Number(rows[0]?.n ?? 0);
    }
    const result = await this.#pool.query(
      `DELETE FROM ${this.#t.archive} WHERE tenant_id = $1 AND (thread_id, message_id) IN (${stray} LIMIT $2)`,
      [tenantId, limit],
    );
    return result.rowCount ?? 0;
  }

  async deleteThread(threadId: string, options: ThreadDeleteOptions = {}): Promise<ThreadDeleteOutcome> {
    threadId = normalizeThreadId(threadId);
    const client = await this.#pool.connect();
    try {
      await client.query("BEGIN");
      await this.#adoptUnregistered(threadId, client);
      const { rows } = await client.query<{ updated_at: Date; deleted_at: Date | null }>(
        `SELECT updated_at, deleted_at FROM ${this.#t.threads} WHERE thread_id = $1 FOR UPDATE`,
        [threadId],
      );
      const row = rows[0];
      let status: ThreadDeleteOutcome["status"] | undefined;
      if (!row) status = "not_found";
      else if (row.deleted_at) status = "already_deleted";
      else if (options.idleBefore && row.updated_at >= options.idleBefore) status = "updated";
      if (status) {
        await client.query("ROLLBACK");
        return { threadId, status, counts: NO_ROWS };
      }
      const writes = await client.query(`DELETE FROM ${this.#t.writes} WHERE thread_id = $1`, [threadId]);
      await client.query(`DELETE FROM ${this.#t.operations} WHERE thread_id = $1`, [threadId]);
      const archived = await client.query(`DELETE FROM ${this.#t.archive} WHERE thread_id = $1`, [threadId]);
      const blobs = await client.query(`DELETE FROM ${this.#t.blobs} WHERE thread_id = $1`, [threadId]);
      const checkpoints = await client.query(`DELETE FROM ${this.#t.checkpoints} WHERE thread_id = $1`, [threadId]);
      await client.query(`DELETE FROM ${this.#t.checkpointSeq} WHERE thread_id = $1`, [threadId]);
      await client.query(`DELETE FROM ${this.#t.checkpointCounter} WHERE thread_id = $1`, [threadId]);
      await client.query(
        `UPDATE ${this.#t.threads} SET deleted_at = now(), deleted_reason = $2, turn_open_at = NULL, lease_until = NULL, head_id = NULL WHERE thread_id = $1`,
        [threadId, options.reason ?? "api"],
      );
      await client.query("COMMIT");
      return {
        threadId,
        status: "deleted",
        counts: {
          checkpoints: checkpoints.rowCount ?? 0,
          blobs: blobs.rowCount ?? 0,
          writes: writes.rowCount ?? 0,
          archived: archived.rowCount ?? 0,
        },
      };
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async archiveMessages(threadId: string, tenantId: string, rows: ReadonlyArray<{ messageId: string; record: string }>): Promise<number> {
    const id = normalizeThreadId(threadId);
    // Two round trips (was four): where the archive stands is read with the lock (the thread's row
    // is locked, so archive writes of one thread take turns), and the rows go with COMMIT.
    return this.#inTransaction(
      threadId,
      async (_client, _row, read, beforeCommit) => {
        const top = archiveMarkOf(read as pg.QueryResult);
        const stamp = top.stamp + 1;
        for (let start = 0; start < rows.length; start += ARCHIVE_INSERT_ROWS) {
          const values: unknown[] = [tenantId, id, stamp];
          const tuples = rows.slice(start, start + ARCHIVE_INSERT_ROWS).map((row, i) => {
            values.push(row.messageId, top.seq + start + i + 1, row.record);
            const n = values.length;
            return `($1, $2, $${n - 2}, $${n - 1}::bigint, $3::bigint, $${n})`;
          });
          beforeCommit.push({
            text: `INSERT INTO ${this.#t.archive} (tenant_id, thread_id, message_id, seq, stamp, record) VALUES ${tuples.join(", ")}
         ON CONFLICT (tenant_id, thread_id, message_id) DO UPDATE SET record = EXCLUDED.record, stamp = EXCLUDED.stamp`,
            values,
          });
        }
        return stamp;
      },
      this.#archiveMarkStatement(id, tenantId),
    );
  }

  async clearArchive(threadId: string, tenantId: string, firstId: string): Promise<void> {
    // Runs inside commitCheckpoint's write: the scoped pool is the transaction's connection.
    const id = normalizeThreadId(threadId);
    await this.#reader.query(
      `WITH gone AS (DELETE FROM ${this.#t.archive} WHERE tenant_id = $1 AND thread_id = $2 RETURNING stamp)
       INSERT INTO ${this.#t.archive} (tenant_id, thread_id, message_id, seq, stamp, record)
       SELECT $1, $2, $3, 0, max(stamp) + 1, $4 FROM gone HAVING count(*) > 0`,
      [tenantId, id, ARCHIVE_CLEARED_MESSAGE_ID, firstId],
    );
  }

  async archiveMark(threadId: string, tenantId: string): Promise<ArchiveMark> {
    const { text, values } = this.#archiveMarkStatement(normalizeThreadId(threadId), tenantId);
    return archiveMarkOf(await this.#reader.query<{ stamp: string; seq: string }>(text, values as unknown[]));
  }

  async archivedAmong(threadId: string, tenantId: string, messageIds: readonly string[]): Promise<string[]> {
    if (messageIds.length === 0) return [];
    const { rows } = await this.#reader.query<{ message_id: string }>(
      `SELECT message_id FROM ${this.#t.archive} WHERE tenant_id = $1 AND thread_id = $2 AND message_id = ANY($3::text[])`,
      [tenantId, normalizeThreadId(threadId), messageIds],
    );
    const found = new Set(rows.map((row) => row.message_id));
    return messageIds.filter((id) => found.has(id));
  }

  async readArchive(threadId: string, tenantId: string, afterStamp: number): Promise<{ stamp: number; rows: ArchiveRow[] }> {
    const id = normalizeThreadId(threadId);
    const { rows: top } = await this.#reader.query<{ stamp: string }>(
      `SELECT coalesce(max(stamp), 0) AS stamp FROM ${this.#t.archive} WHERE tenant_id = $1 AND thread_id = $2`,
      [tenantId, id],
    );
    const stamp = Number(top[0]?.stamp ?? 0);
    if (stamp <= afterStamp) return { stamp, rows: [] };
    const { rows } = await this.#reader.query<{ message_id: string; seq: string; stamp: string; record: string }>(
      `SELECT message_id, seq, stamp, record FROM ${this.#t.archive} WHERE tenant_id = $1 AND thread_id = $2 AND stamp > $3 ORDER BY seq`,
      [tenantId, id, afterStamp],
    );
    return {
      stamp,
      rows: rows.map((row) => ({ messageId: row.message_id, seq: Number(row.seq), stamp: Number(row.stamp), record: row.record })),
    };
  }

  async readArchiveTail(threadId: string, tenantId: string, last: number): Promise<ArchiveRow[]> {
    const { rows } = await this.#reader.query<{ message_id: string; seq: string; stamp: string; record: string }>(
      `SELECT message_id, seq, stamp, record FROM ${this.#t.archive}
       WHERE tenant_id = $1 AND thread_id = $2 AND message_id <> $3 ORDER BY seq DESC LIMIT $4`,
      [tenantId, normalizeThreadId(threadId), ARCHIVE_CLEARED_MESSAGE_ID, last],
    );
    return rows.reverse().map((row) => ({ messageId: row.message_id, seq: Number(row.seq), stamp: Number(row.stamp), record: row.record }));
  }

  async holdsSealedRecords(): Promise<boolean> {
    const { rowCount } = await this.#pool.query(`SELECT 1 FROM ${this.#t.checkpoints} WHERE metadata ? $1 LIMIT 1`, [SEALED_METADATA_KEY]);
    return (rowCount ?? 0) > 0;
  }

  async deletedAmong(threadIds: readonly string[]): Promise<string[]> {
    if (threadIds.length === 0) return [];
    const { rows } = await this.#pool.query<{ thread_id: string }>(
      `SELECT thread_id FROM ${this.#t.threads} WHERE thread_id = ANY($1::text[]) AND deleted_at IS NOT NULL`,
      [threadIds],
    );
    return rows.map((row) => row.thread_id);
  }

  async tombstone(threadId: string): Promise<{ deletedAt: Date; reason: string } | undefined> {
    threadId = normalizeThreadId(threadId);
    const { rows } = await this.#pool.query<{ deleted_at: Date; deleted_reason: string | null }>(
      `SELECT deleted_at, deleted_reason FROM ${this.#t.threads} WHERE thread_id = $1 AND deleted_at IS NOT NULL`,
      [threadId],
    );
    const row = rows[0];
    return row ? { deletedAt: row.deleted_at, reason: row.deleted_reason ?? "api" } : undefined;
  }

  /**
   * Registers threads that have checkpoints but no registry row (written before `migrate`, or by a
   * saver without threadwise), dating them by their newest checkpoint's `ts`.
   */
  async #adoptUnregistered(threadId?: string, client: pg.Pool | pg.PoolClient = this.#pool): Promise<void> {
    await client.query(
      `INSERT INTO ${this.#t.threads} (thread_id, created_at, updated_at)
       SELECT c.thread_id, min((c.checkpoint->>'ts')::timestamptz), max((c.checkpoint->>'ts')::timestamptz)
       FROM ${this.#t.checkpoints} c
       WHERE ($1::text IS NULL OR c.thread_id = $1)
         AND NOT EXISTS (SELECT 1 FROM ${this.#t.threads} t WHERE t.thread_id = c.thread_id)
       GROUP BY c.thread_id
       ON CONFLICT (thread_id) DO NOTHING`,
      [threadId ?? null],
    );
  }

  /** Row counts per thread; the thread's `updatedAt` is the registry row's, never part of these. */
  async #counts(threadIds: string[]): Promise<Map<string, ThreadRowCounts>> {
    const out = new Map<string, ThreadRowCounts>();
    if (threadIds.length === 0) return out;
    const { rows } = await this.#pool.query<{ thread_id: string; checkpoints: string; blobs: string; writes: string; archived: string }>(
      `SELECT id AS thread_id,
         (SELECT count(*) FROM ${this.#t.checkpoints} WHERE thread_id = id) AS checkpoints,
         (SELECT count(*) FROM ${this.#t.blobs} WHERE thread_id = id) AS blobs,
         (SELECT count(*) FROM ${this.#t.writes} WHERE thread_id = id) AS writes,
         (SELECT count(*) FROM ${this.#t.archive} WHERE thread_id = id) AS archived
       FROM unnest($1::text[]) AS id`,
      [threadIds],
    );
    for (const row of rows)
      out.set(row.thread_id, {
        checkpoints: Number(row.checkpoints),
        blobs: Number(row.blobs),
        writes: Number(row.writes),
        archived: Number(row.archived),
      });
    return out;
  }
}

/** The {@link ArchiveMark} an archive-mark read returned (bigint columns come back as strings). */
function archiveMarkOf(result: pg.QueryResult): ArchiveMark {
  const row = result.rows[0] as { stamp?: string | number; seq?: string | number } | undefined;
  return { stamp: Number(row?.stamp ?? 0), seq: Number(row?.seq ?? 0) };
}
