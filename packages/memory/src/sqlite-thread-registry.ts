import { SEALED_METADATA_KEY } from "@threadwise/encryption";
import type Database from "better-sqlite3";
import { loadSqliteSaver } from "./optional-peers.js";
import { type SerialQueue, serialQueueOfFile } from "./serial-queue.js";
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
  type WritesTarget,
} from "./thread-registry.js";

/** Version of the threadwise tables in a SQLite file (`PRAGMA user_version` is left to others). */
export const SQLITE_SCHEMA_VERSION = 9;

/** SQLite's own clock in epoch milliseconds: the database side, not the writer's `Date.now` (spec R38). */
const DB_NOW_MS = "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)";
/**
 * The time of a statement of the per-step path, read inside it (no statement of its own): the
 * injected clock's reading bound as `@now`, else SQLite's clock. `julianday('now')` is the same
 * for every use within one statement, so the columns one statement sets agree.
 */
const NOW_MS = `coalesce(@now, ${DB_NOW_MS})`;
/** Archive mark columns ({@link ArchiveMark}) of the thread's archive under `@tenant`: two single-aggregate subqueries, each answered from its index. */
const ARCHIVE_MARK_COLUMNS = `(SELECT coalesce(max(stamp), 0) FROM threadwise_archive WHERE tenant_id = @tenant AND thread_id = @thread) AS stamp,
              (SELECT coalesce(max(seq), 0) FROM threadwise_archive WHERE tenant_id = @tenant AND thread_id = @thread) AS seq`;
/**
 * The statement that takes a write's lock: touches the thread's row (refusing a tombstone: no row
 * returned) and returns the head, the lease and the time. The SQL texts are built once (the
 * statement cache is keyed by them).
 */
const LOCK_ROW = `INSERT INTO threadwise_threads (thread_id, created_at, updated_at) VALUES (@thread, ${NOW_MS}, ${NOW_MS})
  ON CONFLICT (thread_id) DO UPDATE SET updated_at = excluded.updated_at WHERE deleted_at IS NULL
  RETURNING head_id, head_version, lease_until, lease_started_at, updated_at AS now, tenant_id`;
/** {@link LOCK_ROW} with where the archive under `@tenant` stands. */
const LOCK_ROW_WITH_MARK = `${LOCK_ROW}, ${ARCHIVE_MARK_COLUMNS}`;
/**
 * A root checkpoint's read of the thread's row, under `BEGIN IMMEDIATE` (the file's write lock
 * is held, so nothing changes it before the commit): the columns of {@link LOCK_ROW_WITH_MARK}
 * and `deleted_at`, without writing the row. The checkpoint's {@link MOVE_HEAD} then writes it
 * once, `updated_at` included (was: touched here and written again there, each write of
 * `updated_at`, a row write each). No row: a new thread,
 * created by {@link LOCK_ROW_WITH_MARK}.
 */
const READ_ROW = `SELECT head_id, head_version, lease_until, lease_started_at, ${NOW_MS} AS now, tenant_id, deleted_at
  FROM threadwise_threads WHERE thread_id = @thread`;
/** {@link READ_ROW} with where the archive under `@tenant` stands. */
const READ_ROW_WITH_MARK = `SELECT head_id, head_version, lease_until, lease_started_at, ${NOW_MS} AS now, tenant_id, deleted_at,
  ${ARCHIVE_MARK_COLUMNS} FROM threadwise_threads WHERE thread_id = @thread`;
/**
 * Which of the message ids in `@ids` (a JSON array) the thread's archive under `@tenant` holds, as
 * a JSON array: an input put's lookup ({@link CheckpointCommit.archiveLookupIds}), read by the
 * statement taking the lock (was: a statement of its own in every input put on a thread with an archive).
 */
const ARCHIVED_INPUT_COLUMN = `(SELECT json_group_array(message_id) FROM threadwise_archive
    WHERE tenant_id = @tenant AND thread_id = @thread AND message_id IN (SELECT value FROM json_each(@ids))) AS archived_input`;
/** {@link READ_ROW_WITH_MARK} with {@link ARCHIVED_INPUT_COLUMN}. */
const READ_ROW_WITH_MARK_AND_INPUT = `SELECT head_id, head_version, lease_until, lease_started_at, ${NOW_MS} AS now, tenant_id, deleted_at,
  ${ARCHIVE_MARK_COLUMNS}, ${ARCHIVED_INPUT_COLUMN} FROM threadwise_threads WHERE thread_id = @thread`;
/** {@link LOCK_ROW_WITH_MARK} with {@link ARCHIVED_INPUT_COLUMN}. */
const LOCK_ROW_WITH_MARK_AND_INPUT = `${LOCK_ROW_WITH_MARK}, ${ARCHIVED_INPUT_COLUMN}`;
/** {@link LOCK_ROW} with whether checkpoint `@checkpoint` of namespace `@ns` is stored (pending writes wait for it). */
const LOCK_ROW_WITH_STORED = `${LOCK_ROW},
  EXISTS (SELECT 1 FROM checkpoints WHERE thread_id = @thread AND checkpoint_ns = @ns AND checkpoint_id = @checkpoint) AS stored`;
/** The columns a root checkpoint's head move sets (see {@link MOVE_HEAD}). */
const MOVE_HEAD_COLUMNS = `updated_at = ${NOW_MS}, head_id = @head, head_version = head_version + 1,
    lease_until = CASE WHEN @open THEN ${NOW_MS} + @lease END,
    lease_started_at = CASE WHEN @open THEN CASE WHEN @fresh THEN ${NOW_MS} ELSE coalesce(lease_started_at, ${NOW_MS}) END END,
    turn_open_at = CASE WHEN @open THEN ${NOW_MS} END`;
/**
 * A root checkpoint's touch of the thread (`updated_at`, spec R23), move of the head and its lease
 * times, the clock's after the write (see {@link NOW_MS}). `tenant_id` is left out: SQLite
 * rewrites the entry of every index on a column an `UPDATE` sets, even to the same value, so
 * setting it at every checkpoint moved the `threadwise_threads_tenant` entry each time.
 */
const MOVE_HEAD = `UPDATE threadwise_threads SET ${MOVE_HEAD_COLUMNS} WHERE thread_id = @thread`;
/** {@link MOVE_HEAD} recording the thread's tenant: for a row without one (its first root checkpoint under a tenant). */
const MOVE_HEAD_SET_TENANT = `UPDATE threadwise_threads SET ${MOVE_HEAD_COLUMNS},
    tenant_id = coalesce(tenant_id, @tenant)
  WHERE thread_id = @thread`;
/**
 * A step's checkpoint moving the head in the statement that takes the thread's row (was: the row
 * read, then {@link MOVE_HEAD} after the write: one statement fewer per checkpoint). It moves only
 * when what {@link assertCommit} and the tombstone check would pass holds on the row: not deleted,
 * the head is the checkpoint's parent, and a run start finds no live lease; `@fresh` is read from
 * the row as the read's `leased` was. No row returned: nothing written, the caller reads the row
 * and checks as before (the refusal and its details are theirs). The lease times are the clock's
 * as the write begins, not after it (the write is the wrapped saver's `INSERT`, under the lock).
 */
const MOVE_HEAD_CHECKED = `UPDATE threadwise_threads SET ${MOVE_HEAD_COLUMNS.replace(
  "@fresh",
  `(@startsRun OR lease_until IS NULL OR lease_until <= ${NOW_MS})`,
)}
  WHERE thread_id = @thread AND deleted_at IS NULL AND head_id = @parent
    AND (NOT @startsRun OR lease_until IS NULL OR lease_until <= ${NOW_MS})
  RETURNING updated_at AS now, tenant_id, 1 AS moved`;
/** {@link MOVE_HEAD_CHECKED} with where the archive under `@tenant` stands. */
const MOVE_HEAD_CHECKED_WITH_MARK = `${MOVE_HEAD_CHECKED}, ${ARCHIVE_MARK_COLUMNS}`;
/** {@link MOVE_HEAD_CHECKED_WITH_MARK} with {@link ARCHIVED_INPUT_COLUMN}. */
const MOVE_HEAD_CHECKED_WITH_MARK_AND_INPUT = `${MOVE_HEAD_CHECKED_WITH_MARK}, ${ARCHIVED_INPUT_COLUMN}`;
/** The tenant of a thread recorded by its first root checkpoint under one, when {@link MOVE_HEAD_CHECKED} moved the head of a row without one. */
const SET_TENANT = "UPDATE threadwise_threads SET tenant_id = @tenant WHERE thread_id = @thread AND tenant_id IS NULL";
const INSERT_OPERATION = `INSERT INTO threadwise_operations (thread_id, operation_id, checkpoint_id, created_at)
  VALUES (@thread, @operation, @checkpoint, ${NOW_MS})`;
const RENEW_LEASE = `UPDATE threadwise_threads SET lease_until = ${NOW_MS} + @lease, turn_open_at = ${NOW_MS}
  WHERE thread_id = @thread AND head_id = @head AND lease_until IS NOT NULL AND deleted_at IS NULL`;
const ARCHIVE_MARK = `SELECT ${ARCHIVE_MARK_COLUMNS}`;
/** Archived rows one statement of {@link archiveInsert} writes at most (7 values a row: far below SQLite's variable limit). */
const ARCHIVE_INSERT_ROWS = 32;
/**
 * The upsert of `rows` archived rows in one statement: `@tenant`, `@thread`, `@stamp`, `@now`
 * shared, then each row's message id, seq and record. A message id archived again keeps its seq
 * and takes the new record and stamp.
 */
const archiveInsert = (rows: number): string => (ARCHIVE_INSERTS[rows] ??= archiveInsertText(rows));
/** {@link archiveInsert}'s texts by row count, each made once (the same string: its hash is kept for the statement map). */
const ARCHIVE_INSERTS: string[] = [];
const archiveInsertText = (rows: number) =>
  `INSERT INTO threadwise_archive (tenant_id, thread_id, message_id, seq, stamp, record, archived_at) VALUES ${Array.from(
    { length: rows },
    () => "(@tenant, @thread, ?, ?, @stamp, ?, @now)",
  ).join(", ")}
   ON CONFLICT (tenant_id, thread_id, message_id) DO UPDATE SET record = excluded.record, stamp = excluded.stamp`;

/**
 * The store order (spec R38, version 7): each checkpoint's insertion sequence in its thread, given
 * by the trigger below inside SqliteSaver's own `INSERT` (no statement of threadwise's per step; a
 * writer of an older release gets it too). A checkpoint stored again (SqliteSaver's `INSERT OR
 * REPLACE`) keeps its number: the trigger's insert skips a numbered one (an `OR IGNORE` would take
 * the outer statement's `OR REPLACE`). The index answers the thread's next number and its listing
 * newest first without reading any other row. Version 8: the table is `WITHOUT ROWID`, its rows
 * stored in its primary key's B-tree (was a rowid table, its key a second B-tree and the order
 * index a third: each checkpoint's number wrote three, now two; the same rows, lookups and
 * answers). The index keeps its name and columns, so a process of version 7 opening the file
 * creates nothing.
 */
const CHECKPOINT_SEQ_TABLES = `
CREATE TABLE IF NOT EXISTS threadwise_checkpoint_seq (
  thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL, checkpoint_id TEXT NOT NULL, seq INTEGER NOT NULL,
  PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS threadwise_checkpoint_seq_order ON threadwise_checkpoint_seq (thread_id, seq, checkpoint_id, checkpoint_ns);
CREATE TRIGGER IF NOT EXISTS threadwise_checkpoint_seq_insert AFTER INSERT ON checkpoints BEGIN
  INSERT INTO threadwise_checkpoint_seq (thread_id, checkpoint_ns, checkpoint_id, seq)
    SELECT NEW.thread_id, NEW.checkpoint_ns, NEW.checkpoint_id,
      (SELECT coalesce(max(seq), 0) + 1 FROM threadwise_checkpoint_seq WHERE thread_id = NEW.thread_id)
    WHERE NOT EXISTS (SELECT 1 FROM threadwise_checkpoint_seq
      WHERE thread_id = NEW.thread_id AND checkpoint_ns = NEW.checkpoint_ns AND checkpoint_id = NEW.checkpoint_id);
END`;
/**
 * The migration from version 7's rowid table to version 8's (see {@link CHECKPOINT_SEQ_TABLES}),
 * in the open's write transaction: the old table is renamed aside with its trigger and index
 * dropped, the new one created, every row copied with its number, the old table dropped.
 */
const CHECKPOINT_SEQ_WITHOUT_ROWID = `
DROP TRIGGER IF EXISTS threadwise_checkpoint_seq_insert;
DROP INDEX IF EXISTS threadwise_checkpoint_seq_order;
ALTER TABLE threadwise_checkpoint_seq RENAME TO threadwise_checkpoint_seq_v7;
${CHECKPOINT_SEQ_TABLES};
INSERT INTO threadwise_checkpoint_seq (thread_id, checkpoint_ns, checkpoint_id, seq)
  SELECT thread_id, checkpoint_ns, checkpoint_id, seq FROM threadwise_checkpoint_seq_v7;
DROP TABLE threadwise_checkpoint_seq_v7`;
/** The checkpoints stored before version 7, numbered in each thread by id (the order they were listed in), as the migration to 7 does. */
const NUMBER_STORED_CHECKPOINTS = `INSERT OR IGNORE INTO threadwise_checkpoint_seq (thread_id, checkpoint_ns, checkpoint_id, seq)
  SELECT thread_id, checkpoint_ns, checkpoint_id, row_number() OVER (PARTITION BY thread_id ORDER BY checkpoint_id, checkpoint_ns)
  FROM checkpoints`;
/**
 * {@link SqliteThreadRegistry.storeOrder}'s read: the sequence's index only, newest first (see
 * {@link StoreOrderQuery}). Its bound limit is written `+@limit`, as every `LIMIT` bound per call in
 * this file: SQLite (3.53, a STAT4 build as better-sqlite3's) reads a bare `LIMIT ?`'s value while
 * planning, so binding it again expires the statement and every run compiles it anew (the archive's
 * tail read cost twice what it does with `+?`); an expression is not read, the plan stays the
 * same and the statement is compiled once.
 */
const STORE_ORDER = `WITH named AS (SELECT seq, checkpoint_id FROM threadwise_checkpoint_seq
    WHERE thread_id = @thread AND checkpoint_id = @before AND (@beforeNs IS NULL OR checkpoint_ns = @beforeNs) LIMIT 1)
  SELECT checkpoint_ns AS checkpointNs, checkpoint_id AS checkpointId, seq FROM threadwise_checkpoint_seq
  WHERE thread_id = @thread AND (@ns IS NULL OR checkpoint_ns = @ns)
    AND (@before IS NULL OR CASE WHEN EXISTS (SELECT 1 FROM named)
      THEN (seq, checkpoint_id) < (SELECT seq, checkpoint_id FROM named) ELSE checkpoint_id < @before END)
    AND (@idBelow IS NULL OR checkpoint_id < @idBelow)
    AND (@afterSeq IS NULL OR (seq, checkpoint_id) < (@afterSeq, @afterId))
  ORDER BY seq DESC, checkpoint_id DESC LIMIT +@limit`;

/** The span of one `idle_hour` (see {@link IDLE_HOUR_TABLES}), ms. */
const IDLE_HOUR_MS = 3_600_000;
/** The `idle_hour` of the time `ms` (an SQL expression in epoch ms): its whole hours since the epoch, truncated (monotone in `ms`). */
const idleHourOf = (ms: string) => `CAST(${ms} / ${IDLE_HOUR_MS} AS INTEGER)`;
/**
 * Retention's index (spec R23, version 9): `threadwise_threads_idle` holds each live thread's
 * `idle_hour`, the hour of its `updated_at`, not `updated_at` itself (version 8). Every write of a
 * thread touches `updated_at`, and SQLite rewrites the entry of every index on a column an
 * `UPDATE` sets, so the index on `updated_at` wrote a page of its own at every commit (a WAL
 * frame, about 1 in 10 of a step's). `idle_hour` is set by these triggers only when the hour
 * changes, inside the statement that wrote `updated_at` (a writer of an older release too), so
 * within an hour a thread's writes leave the index as it is. `updated_at` stays exact: the listing
 * reads the index's hours up to `idleBefore`'s and filters on `updated_at` (see {@link LIST_IDLE});
 * the deletion's re-check reads `updated_at` as before.
 */
const IDLE_HOUR_TABLES = `
CREATE TRIGGER IF NOT EXISTS threadwise_threads_idle_hour_insert AFTER INSERT ON threadwise_threads
  WHEN NEW.idle_hour IS NOT ${idleHourOf("NEW.updated_at")} BEGIN
  UPDATE threadwise_threads SET idle_hour = ${idleHourOf("NEW.updated_at")} WHERE thread_id = NEW.thread_id;
END;
CREATE TRIGGER IF NOT EXISTS threadwise_threads_idle_hour_update AFTER UPDATE OF updated_at ON threadwise_threads
  WHEN NEW.idle_hour IS NOT ${idleHourOf("NEW.updated_at")} BEGIN
  UPDATE threadwise_threads SET idle_hour = ${idleHourOf("NEW.updated_at")} WHERE thread_id = NEW.thread_id;
END;
CREATE INDEX IF NOT EXISTS threadwise_threads_idle ON threadwise_threads (idle_hour) WHERE deleted_at IS NULL`;
/**
 * {@link SqliteThreadRegistry.listIdle}'s read: the live threads written before `@before`, oldest
 * first. The index gives the hours up to `@before`'s in order (`idle_hour` grows with
 * `updated_at`, so ordering by the hour first is ordering by `updated_at`); only the rows of the
 * last hour are sorted and filtered beyond it.
 */
const LIST_IDLE = `SELECT thread_id, updated_at FROM threadwise_threads
  WHERE deleted_at IS NULL AND idle_hour <= ${idleHourOf("@before")} AND updated_at < @before
  ORDER BY idle_hour, updated_at, thread_id LIMIT +@limit`;

/** SQL texts of the wrapped saver's statements {@link SqliteThreadRegistry.saverDatabase} keeps prepared, at most (SqliteSaver's `put` and `putWrites` use 3). */
const SAVER_STATEMENTS_MAX = 8;

/** How long a statement waits for another connection's lock before failing SQLITE_BUSY (`busy_timeout`), ms. */
const SQLITE_BUSY_TIMEOUT_MS = 5000;
/** Pause between two tries of a statement SQLite refused SQLITE_BUSY without waiting, ms. */
const BUSY_RETRY_MS = 20;

/**
 * Runs `task` (synchronous SQLite statements), again after {@link BUSY_RETRY_MS} each time SQLite
 * refuses it with SQLITE_BUSY (or one of its extended codes), until `timeoutMs` have passed; then
 * the last error is thrown. Blocks the thread while it waits, as better-sqlite3's busy wait does.
 */
function untilNotBusy(task: () => void, timeoutMs: number): void {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      task();
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (typeof code !== "string" || !code.startsWith("SQLITE_BUSY") || Date.now() >= deadline) throw error;
      Atomics.wait(pause, 0, 0, BUSY_RETRY_MS);
    }
  }
}

/** The registry columns a write reads under the lock, and the time it took the lock at. */
interface ThreadRow {
  head_id: string | null;
  head_version: number;
  lease_until: number | null;
  lease_started_at: number | null;
  now: number;
  /** The tenant recorded for the thread (its first root checkpoint's saver's); `null`: none yet. */
  tenant_id: string | null;
}

/** The statement taking a write's lock when it reads more than {@link LOCK_ROW} (one of its variants), with the parameters of the extra columns. */
interface LockStatement {
  sql: string;
  params: Record<string, string | number>;
  /**
   * `sql` only reads the thread's row (under `BEGIN IMMEDIATE`, so it holds until the commit; the
   * task writes it): the statement creating the row when there is none, returning the same columns.
   */
  create?: string;
  /**
   * A statement tried first that writes the row when the write may go on ({@link
   * MOVE_HEAD_CHECKED}); no row returned: `sql` (and `create`) take the row as without it.
   */
  attempt?: string;
}

/**
 * {@link ThreadRegistry} in the same SQLite file as SqliteSaver's `checkpoints` and `writes`
 * tables. Deletes run in `BEGIN IMMEDIATE` transactions, which take SQLite's write lock before
 * the re-check, so a concurrent write from another process is either before (the thread survives)
 * or after (it meets the tombstone). Times are milliseconds since the epoch.
 *
 * Writes (spec R24, R34): {@link SqliteThreadRegistry.commitCheckpoint} and
 * {@link SqliteThreadRegistry.commitWrites} run `BEGIN IMMEDIATE` (the file's write lock, so
 * other processes wait), the tombstone check and compare-and-set, the wrapped SqliteSaver's own
 * statements (its nested transactions become savepoints), and `COMMIT`. Transactions on one
 * file are queued in the process, across its connections ({@link serialQueueOfFile}), since they span `await`s. One
 * statement takes the thread's row: it touches it (refusing a tombstone) and returns the head,
 * the lease, the time and what the write needs besides (where the archive stands, whether the
 * checkpoint of pending writes is stored); times are read inside the statements that use them.
 * A root checkpoint on the head moves it in that statement, its checks in the statement's `WHERE`
 * ({@link MOVE_HEAD_CHECKED}); any other only reads the row (the write lock is already held), and
 * its head move writes it once, the touch included. So a step's checkpoint costs 3 statements of
 * its own and one write of the row, a batch of pending writes 3 (was 7 and 5). The wrapped SqliteSaver's
 * `INSERT`s stay prepared, and its write batch runs in the registry's transaction without a
 * savepoint of its own ({@link SqliteThreadRegistry.saverDatabase}).
 *
 * Deletion leaves nothing readable in the file (R24): `secure_delete` zeroes deleted rows and
 * freed pages, and each deletion ends with `wal_checkpoint(TRUNCATE)`, so the WAL's older frames
 * that held the text are gone too (unless another connection is reading at that moment; the next
 * deletion or checkpoint catches up).
 *
 * Heads and leases (spec R38): `head_id`/`head_version` move in the write's transaction; lease
 * times come from SQLite's clock (`julianday('now')`), never from a writer's `Date.now`.
 */
export class SqliteThreadRegistry implements ThreadRegistry {
  readonly kind = "sqlite";
  readonly #db: Database.Database;
  readonly #now: () => number;
  /** The injected clock (`options.now`), bound as `@now` ({@link NOW_MS}); `undefined`: SQLite's. */
  readonly #clock: (() => number) | undefined;
  readonly #queue: SerialQueue;
  /** Statements of the per-step path (every put, write, head and archive read, lease renewal), prepared once. */
  readonly #statements = new Map<string, Database.Statement>();
  /** {@link saverDatabase}, made at its first call. */
  #saverDatabase: Database.Database | undefined;
  /** Inside {@link #inTransaction}'s transaction, between its `BEGIN IMMEDIATE` and its `COMMIT` or `ROLLBACK`. */
  #writing = false;

  /**
   * Creates threadwise's tables if missing, after SqliteSaver's own (its `setup()`, so deletes
   * work before the first write and the saver's schema stays the saver's).
   */
  constructor(db: Database.Database, options: { now?: () => number } = {}) {
    this.#db = db;
    // First, before any statement takes a lock: another process creating or writing the file
    // makes this one wait up to 5 s, not fail at once (SqliteSaver's setup() below switches the
    // journal mode, which needs the file to itself; 8 processes opening one fresh file raced there).
    db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    const dbNow = db.prepare(`SELECT ${DB_NOW_MS} AS now`).pluck();
    this.#now = options.now ?? (() => dbNow.get() as number);
    this.#clock = options.now;
    this.#queue = serialQueueOfFile(db);
    // setup() is protected in the typings but idempotent and safe to call early. It switches the
    // file to WAL, which needs the file to itself: SQLite refuses that at once (SQLITE_BUSY, no
    // busy wait: waiting could deadlock) while another connection holds a write lock, as when
    // several processes open one fresh file together. So it is tried again until busy_timeout.
    untilNotBusy(() => {
      (new (loadSqliteSaver())(db) as unknown as { setup(): void }).setup();
      db.pragma("journal_mode = WAL");
    }, SQLITE_BUSY_TIMEOUT_MS);
    // Deleted rows are overwritten with zeros instead of staying readable in free pages (R24).
    db.pragma("secure_delete = ON");
    // One write transaction (BEGIN IMMEDIATE; busy_timeout waits for it): processes opening one
    // file at once each read the columns and add the missing ones in turn (was: two could both see
    // a column missing, and the second failed "duplicate column name: turn_open_at").
    db.transaction(() => this.#createTables(db)).immediate();
  }

  /** threadwise's tables and columns, those missing only, and its schema version: run in one write transaction. */
  #createTables(db: Database.Database): void {
    db.exec(`
CREATE TABLE IF NOT EXISTS threadwise_schema_version (component TEXT PRIMARY KEY, version INTEGER NOT NULL, applied_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS threadwise_threads (
  thread_id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  deleted_at INTEGER, deleted_reason TEXT);
`);
    // Version 2: the turn lease (spec R34). Files of version 1 gain the column in place.
    const columns = db.prepare("PRAGMA table_info(threadwise_threads)").all() as Array<{ name: string }>;
    if (!columns.some((column) => column.name === "turn_open_at"))
      db.exec("ALTER TABLE threadwise_threads ADD COLUMN turn_open_at INTEGER");
    // Version 3: the head, the heartbeat lease and operation ids (spec R38); additive.
    for (const [name, type] of [
      ["head_id", "TEXT"],
      ["head_version", "INTEGER NOT NULL DEFAULT 0"],
      ["lease_until", "INTEGER"],
      ["lease_started_at", "INTEGER"],
    ])
      if (!columns.some((column) => column.name === name)) db.exec(`ALTER TABLE threadwise_threads ADD COLUMN ${name} ${type}`);
    db.exec(`CREATE TABLE IF NOT EXISTS threadwise_operations (
  thread_id TEXT NOT NULL, operation_id TEXT NOT NULL, checkpoint_id TEXT NOT NULL, created_at INTEGER NOT NULL,
  PRIMARY KEY (thread_id, operation_id))`);
    // Version 4: archived messages (issue 27), keyed by tenant, thread and message id; additive.
    db.exec(`CREATE TABLE IF NOT EXISTS threadwise_archive (
  tenant_id TEXT NOT NULL, thread_id TEXT NOT NULL, message_id TEXT NOT NULL, seq INTEGER NOT NULL, stamp INTEGER NOT NULL,
  record TEXT NOT NULL, archived_at INTEGER NOT NULL, PRIMARY KEY (tenant_id, thread_id, message_id));
CREATE INDEX IF NOT EXISTS threadwise_archive_stamp ON threadwise_archive (tenant_id, thread_id, stamp);
CREATE INDEX IF NOT EXISTS threadwise_archive_thread ON threadwise_archive (thread_id);
-- Version 5: the next seq of an archive write is read from this index, not from every row of the thread.
CREATE INDEX IF NOT EXISTS threadwise_archive_seq ON threadwise_archive (tenant_id, thread_id, seq)`);
    // Version 6: the tenant of each thread (its first root checkpoint's saver), for eraseTenant; additive.
    if (!columns.some((column) => column.name === "tenant_id")) db.exec("ALTER TABLE threadwise_threads ADD COLUMN tenant_id TEXT");
    db.exec("CREATE INDEX IF NOT EXISTS threadwise_threads_tenant ON threadwise_threads (tenant_id, thread_id) WHERE deleted_at IS NULL");
    // Version 7: the store order (spec R38). A file of an older version numbers what it holds by id
    // (as it was listed), then the trigger numbers each checkpoint stored after, in the same
    // transaction as the trigger's creation, so none is stored in between.
    // Version 8: the same table WITHOUT ROWID; a file of version 7 has its rows copied over.
    const seqTable = db.prepare("PRAGMA main.table_list('threadwise_checkpoint_seq')").get() as { wr: number } | undefined;
    if (seqTable !== undefined && !seqTable.wr) db.exec(CHECKPOINT_SEQ_WITHOUT_ROWID);
    db.exec(CHECKPOINT_SEQ_TABLES);
    if (seqTable === undefined) db.exec(NUMBER_STORED_CHECKPOINTS);
    // Version 9: retention's index on the hour of `updated_at` (see IDLE_HOUR_TABLES). A file of an
    // older version has its index on `updated_at` replaced and every row's hour set (no trigger fires:
    // `updated_at` is not set).
    if (!columns.some((column) => column.name === "idle_hour"))
      db.exec(`ALTER TABLE threadwise_threads ADD COLUMN idle_hour INTEGER;
        UPDATE threadwise_threads SET idle_hour = ${idleHourOf("updated_at")};`);
    const indexed = db.prepare("SELECT name FROM pragma_index_info('threadwise_threads_idle')").pluck().all();
    if (indexed.length > 0 && indexed[0] !== "idle_hour") db.exec("DROP INDEX threadwise_threads_idle");
    db.exec(IDLE_HOUR_TABLES);
    db.prepare(
      `INSERT INTO threadwise_schema_version (component, version, applied_at) VALUES ('threadwise', ?, ?)
       ON CONFLICT (component) DO UPDATE SET version = excluded.version, applied_at = excluded.applied_at WHERE version < excluded.version`,
    ).run(SQLITE_SCHEMA_VERSION, this.#now());
  }

  /**
   * The connection as the wrapped SqliteSaver should hold it: the same handle, whose `prepare`
   * keeps the saver's `INSERT` statements prepared. SqliteSaver prepares its statement again at
   * every `put` and `putWrites` (parsing and compiling the SQL each time: 5 of a step's statements);
   * an `INSERT` it prepares is only ever `run`, so one prepared statement per SQL text serves every
   * call (SQLite prepares it again by itself after a schema change). At most
   * {@link SAVER_STATEMENTS_MAX} texts are kept; other statements (its reads, `list`'s SQL built
   * per call) are prepared as before. Its `transaction(fn)` runs `fn` without a savepoint inside
   * this registry's own write transaction (every write of `ThreadwiseSaver`'s), and as
   * better-sqlite3's transaction elsewhere. Every other property is the handle's own (the object
   * inherits from it), so `inTransaction` and pragmas are the connection's.
   */
  saverDatabase(): Database.Database {
    if (this.#saverDatabase) return this.#saverDatabase;
    const db = this.#db;
    const kept = new Map<string, Database.Statement>();
    const prepare = (sql: string): Database.Statement => {
      const cached = kept.get(sql);
      if (cached) return cached;
      const statement = db.prepare(sql);
      if (kept.size < SAVER_STATEMENTS_MAX && /^\s*INSERT\b/i.test(sql)) kept.set(sql, statement);
      return statement;
    };
    // SqliteSaver's `putWrites` runs its INSERTs in `db.transaction(fn)()`, a SAVEPOINT and its
    // RELEASE inside this registry's transaction (2 of a write batch's 6 statements). Inside it
    // `fn` runs as it is: any error it throws rejects the registry's task, whose ROLLBACK undoes
    // the whole transaction, its rows included, as ROLLBACK TO the savepoint did and more.
    // Outside (a call of the saver's own), better-sqlite3's transaction as before.
    const registry = this;
    const transaction = (fn: (...args: never[]) => unknown) =>
      function (this: unknown, ...args: never[]) {
        return registry.#writing && db.inTransaction ? fn.apply(this, args) : db.transaction(fn).apply(this, args);
      };
    this.#saverDatabase = Object.create(db, { prepare: { value: prepare }, transaction: { value: transaction } }) as Database.Database;
    return this.#saverDatabase;
  }

  /**
   * Hands the wrapped saver {@link saverDatabase} when it holds this registry's connection (a
   * SqliteSaver given to `ThreadwiseSaver` as it is, e.g. `SqliteSaver.fromConnString`), so its
   * writes reuse their prepared statements. Any other saver is left as it is.
   */
  adoptSaver(saver: object): void {
    const holder = saver as { db?: unknown };
    if (holder.db === this.#db) holder.db = this.saverDatabase();
  }

  /** `db.prepare(sql)`, once per SQL text. */
  #prepare(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  // Not `async` (nor commitWrites, archiveMessages): the queue's promise is returned as it is (an async wrapper adds two promises per call).
  commitCheckpoint<T>(threadId: string, commit: CheckpointCommit, write: (locked: CommitLocked) => Promise<T>): Promise<T> {
    // The archive mark is read by the statement that takes the lock (BEGIN IMMEDIATE already holds
    // the file's write lock, so no archive write can land between it and the checkpoint's).
    const tenant = commit.checkpointNs === "" ? commit.archiveTenantId : undefined;
    // A root checkpoint writes the thread's row once, in MOVE_HEAD_CHECKED or MOVE_HEAD: the
    // statement taking the lock moves the head, or only reads the row (creates it for a new
    // thread). Other namespaces touch it there (LOCK_ROW).
    // An input put's archive lookup is read by that statement too.
    const lookup = tenant !== undefined && commit.archiveLookupIds?.length ? commit.archiveLookupIds : undefined;
    // A step's checkpoint (and a run's start on top of the head) with no operation id to check or
    // store moves the head in the statement that takes the row (MOVE_HEAD_CHECKED), before the
    // write: `commit` is the caller's as it calls (see CheckpointCommit). A branch, a first
    // checkpoint and any refusal take the row as before.
    const moves = commit.checkpointNs === "" && commit.operationId === undefined && !commit.branch && commit.parentId !== undefined;
    const move = moves
      ? {
          parent: commit.parentId as string,
          startsRun: commit.startsRun ? 1 : 0,
          head: commit.checkpointId,
          open: commit.leavesTurnOpen ? 1 : 0,
          lease: commit.turnLeaseMs,
        }
      : undefined;
    const lock: LockStatement | undefined =
      commit.checkpointNs !== ""
        ? undefined
        : tenant === undefined
          ? { sql: READ_ROW, params: { ...move }, create: LOCK_ROW, attempt: move && MOVE_HEAD_CHECKED }
          : lookup === undefined
            ? {
                sql: READ_ROW_WITH_MARK,
                params: { ...move, tenant },
                create: LOCK_ROW_WITH_MARK,
                attempt: move && MOVE_HEAD_CHECKED_WITH_MARK,
              }
            : {
                sql: READ_ROW_WITH_MARK_AND_INPUT,
                params: { ...move, tenant, ids: JSON.stringify(lookup) },
                create: LOCK_ROW_WITH_MARK_AND_INPUT,
                attempt: move && MOVE_HEAD_CHECKED_WITH_MARK_AND_INPUT,
              };
    return this.#inTransaction<T, ThreadRow & Partial<ArchiveMark> & { archived_input?: string; moved?: number }>(
      threadId,
      async (id, row) => {
        const moved = row.moved === 1;
        const now = row.now;
        const leased = !moved && row.lease_until !== null && row.lease_until > now;
        if (!moved) {
          const operation = commit.operationId === undefined ? undefined : this.#operationCheckpointId(id, commit.operationId);
          assertCommit(id, commit, {
            headId: commit.checkpointNs === "" ? this.#headOf(id, row)?.checkpointId : undefined,
            leaseRemainingMs: leased ? (row.lease_until as number) - now : undefined,
            runningForMs: leased ? now - (row.lease_started_at ?? now) : undefined,
            operationCheckpointId: operation,
          });
        }
        const locked: CommitLocked = tenant !== undefined ? { archiveMark: { stamp: row.stamp as number, seq: row.seq as number } } : {};
        if (lookup !== undefined) {
          const found = new Set(JSON.parse(row.archived_input ?? "[]") as string[]);
          locked.archivedInput = lookup.filter((messageId) => found.has(messageId));
        }
        const result = await write(locked);
        if (commit.checkpointNs === "") {
          // The tenant is set once, on a row without one (as `coalesce` did at every checkpoint).
          const setTenant = (row.tenant_id ?? null) === null && commit.archiveTenantId !== undefined;
          if (moved) {
            if (setTenant) this.#prepare(SET_TENANT).run({ thread: id, tenant: commit.archiveTenantId });
            return result;
          }
          this.#prepare(setTenant ? MOVE_HEAD_SET_TENANT : MOVE_HEAD).run({
            thread: id,
            head: commit.checkpointId,
            ...(setTenant ? { tenant: commit.archiveTenantId } : {}),
            open: commit.leavesTurnOpen ? 1 : 0,
            lease: commit.turnLeaseMs,
            fresh: commit.startsRun || !leased ? 1 : 0,
            now: this.#clock?.() ?? null,
          });
          if (commit.operationId !== undefined) this.#recordOperation(id, commit.operationId, commit.checkpointId);
        }
        return result;
      },
      lock,
    );
  }

  async storeOrder(threadId: string, query: StoreOrderQuery = {}): Promise<StoredCheckpoint[]> {
    return this.#prepare(STORE_ORDER).all({
      thread: normalizeThreadId(threadId),
      ns: query.checkpointNs ?? null,
      before: query.before?.checkpointId ?? null,
      beforeNs: query.before?.checkpointNs ?? null,
      idBelow: query.idBelow ?? null,
      afterSeq: query.after?.seq ?? null,
      afterId: query.after?.checkpointId ?? null,
      limit: query.limit ?? -1,
    }) as StoredCheckpoint[];
  }

  async head(threadId: string): Promise<ThreadHead | undefined> {
    const id = normalizeThreadId(threadId);
    const row = this.#prepare("SELECT head_id, head_version FROM threadwise_threads WHERE thread_id = ?").get(id) as
      | Pick<ThreadRow, "head_id" | "head_version">
      | undefined;
    return this.#headOf(id, row);
  }

  async renewLease(threadId: string, checkpointId: string, turnLeaseMs: number): Promise<boolean> {
    const id = normalizeThreadId(threadId);
    return this.#queue.run(
      () =>
        this.#prepare(RENEW_LEASE).run({ thread: id, head: checkpointId, lease: turnLeaseMs, now: this.#clock?.() ?? null }).changes > 0,
    );
  }

  async claimTurn(threadId: string, checkpointId: string, turnLeaseMs: number): Promise<boolean> {
    return this.#inTransaction(threadId, async (id, row) => {
      const now = row.now;
      const leased = row.lease_until !== null && row.lease_until > now;
      // A live lease refuses a run resumed anywhere, the head or a branch, before its first call.
      assertCommit(id, claimCommit(checkpointId, turnLeaseMs), {
        headId: checkpointId,
        leaseRemainingMs: leased ? (row.lease_until as number) - now : undefined,
        runningForMs: leased ? now - (row.lease_started_at ?? now) : undefined,
        operationCheckpointId: undefined,
      });
      if (this.#headOf(id, row)?.checkpointId !== checkpointId) return false;
      this.#prepare("UPDATE threadwise_threads SET lease_until = ?, lease_started_at = ?, turn_open_at = ? WHERE thread_id = ?").run(
        now + turnLeaseMs,
        now,
        now,
        id,
      );
      return true;
    });
  }

  async endTurn(threadId: string, checkpointId: string): Promise<boolean> {
    const id = normalizeThreadId(threadId);
    return this.#queue.run(
      () =>
        this.#prepare(
          `UPDATE threadwise_threads SET lease_until = NULL, lease_started_at = NULL, turn_open_at = NULL
           WHERE thread_id = ? AND head_id = ? AND lease_until IS NOT NULL`,
        ).run(id, checkpointId).changes > 0,
    );
  }

  /** Stores that operation `operationId`'s run started at `checkpointId` (inside the thread's transaction; not on a step's usual path). */
  #recordOperation(threadId: string, operationId: string, checkpointId: string): void {
    this.#prepare(INSERT_OPERATION).run({
      thread: threadId,
      operation: operationId,
      checkpoint: checkpointId,
      now: this.#clock?.() ?? null,
    });
  }

  /** The first checkpoint of the run that stored operation `operationId` on the thread, if one did (read inside the thread's transaction). */
  #operationCheckpointId(threadId: string, operationId: string): string | undefined {
    return this.#prepare("SELECT checkpoint_id FROM threadwise_operations WHERE thread_id = ? AND operation_id = ?")
      .pluck()
      .get(threadId, operationId) as string | undefined;
  }

  /** The recorded head; for a thread stored before heads were recorded, its newest checkpoint id (version 0). */
  #headOf(threadId: string, row: Pick<ThreadRow, "head_id" | "head_version"> | undefined): ThreadHead | undefined {
    if (row?.head_id) return { checkpointId: row.head_id, version: row.head_version };
    const newest = this.#prepare("SELECT max(checkpoint_id) FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''")
      .pluck()
      .get(threadId) as string | null;
    return newest === null ? undefined : { checkpointId: newest, version: 0 };
  }

  commitWrites(threadId: string, target: WritesTarget, write: () => Promise<void>): Promise<boolean> {
    // Whether the checkpoint is stored is read by the statement that takes the lock.
    const stored = { sql: LOCK_ROW_WITH_STORED, params: { ns: target.checkpointNs, checkpoint: target.checkpointId } };
    return this.#inTransaction<boolean, ThreadRow & { stored: number }>(
      threadId,
      async (id, row) => {
        const { operation } = target;
        const stored = operation === undefined ? undefined : this.#operationCheckpointId(id, operation.operationId);
        if (operation !== undefined)
          assertWrites(id, target, { headId: this.#headOf(id, row)?.checkpointId, operationCheckpointId: stored });
        if (row.stored === 0) return false;
        await write();
        if (operation?.record && stored === undefined) this.#recordOperation(id, operation.operationId, target.checkpointId);
        if (target.endsTurn && target.checkpointNs === "")
          this.#prepare(
            "UPDATE threadwise_threads SET lease_until = NULL, lease_started_at = NULL, turn_open_at = NULL WHERE thread_id = ? AND head_id = ?",
          ).run(id, target.checkpointId);
        return true;
      },
      stored,
    );
  }

  /**
   * BEGIN IMMEDIATE, touch the thread's row (refusing a tombstone) and read it with the time (and
   * `extra`'s columns, read under the same lock), run `task`, COMMIT; ROLLBACK on any error. With
   * `extra.create`, the row is only read (a tombstone refused, a missing row created): `task`
   * writes it.
   */
  #inTransaction<T, R extends ThreadRow = ThreadRow>(
    threadId: string,
    task: (id: string, row: R) => Promise<T>,
    extra?: LockStatement,
  ): Promise<T> {
    return this.#queue.run(async () => {
      // Inside the task: an id breaking the rules rejects the returned promise (no synchronous throw).
      const id = normalizeThreadId(threadId);
      this.#prepare("BEGIN IMMEDIATE").run();
      this.#writing = true;
      try {
        const params = { ...extra?.params, thread: id, now: this.#clock?.() ?? null };
        let row = extra?.attempt === undefined ? undefined : (this.#prepare(extra.attempt).get(params) as R | undefined);
        if (row === undefined) {
          let read = this.#prepare(extra?.sql ?? LOCK_ROW).get(params) as (R & { deleted_at?: number | null }) | undefined;
          // A read of the row: a tombstone refuses the write, no row is a new thread's (created now).
          if (extra?.create !== undefined)
            if (read === undefined) read = this.#prepare(extra.create).get(params) as R | undefined;
            else if (read.deleted_at !== null) read = undefined;
          if (read === undefined) throw new ThreadwiseThreadDeletedError(id, (await this.tombstone(id))?.deletedAt);
          row = read;
        }
        const result = await task(id, row);
        this.#prepare("COMMIT").run();
        return result;
      } catch (error) {
        if (this.#db.inTransaction) this.#prepare("ROLLBACK").run();
        throw error;
      } finally {
        this.#writing = false;
      }
    });
  }

  async touch(threadId: string): Promise<void> {
    threadId = normalizeThreadId(threadId);
    const now = this.#now();
    const row = this.#db
      .prepare(
        `INSERT INTO threadwise_threads (thread_id, created_at, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (thread_id) DO UPDATE SET updated_at = excluded.updated_at WHERE deleted_at IS NULL
         RETURNING thread_id`,
      )
      .get(threadId, now, now);
    if (row === undefined) throw new ThreadwiseThreadDeletedError(threadId, (await this.tombstone(threadId))?.deletedAt);
  }

  async listIdle(idleBefore: Date, limit = 10_000): Promise<ThreadInfo[]> {
    this.#adoptUnregistered();
    const rows = this.#db.prepare(LIST_IDLE).all({ before: idleBefore.getTime(), limit }) as Array<{
      thread_id: string;
      updated_at: number;
    }>;
    return rows.map((row) => ({ threadId: row.thread_id, updatedAt: new Date(row.updated_at), ...this.#counts(row.thread_id) }));
  }

  async describe(threadId: string): Promise<ThreadInfo | undefined> {
    threadId = normalizeThreadId(threadId);
    this.#adoptUnregistered(threadId);
    const row = this.#db.prepare("SELECT updated_at FROM threadwise_threads WHERE thread_id = ? AND deleted_at IS NULL").get(threadId) as
      | { updated_at: number }
      | undefined;
    return row ? { threadId, updatedAt: new Date(row.updated_at), ...this.#counts(threadId) } : undefined;
  }

  async tenantThreads(tenantId: string, limit: number, after?: string): Promise<ThreadInfo[]> {
    this.#adoptUnregistered();
    const rows = this.#db
      .prepare(
        `SELECT t.thread_id, t.updated_at FROM threadwise_threads t
         WHERE t.deleted_at IS NULL AND (@after IS NULL OR t.thread_id > @after) AND (t.tenant_id = @tenant OR (t.tenant_id IS NULL
           AND EXISTS (SELECT 1 FROM threadwise_archive a WHERE a.tenant_id = @tenant AND a.thread_id = t.thread_id)))
         ORDER BY t.thread_id LIMIT +@limit`,
      )
      .all({ tenant: tenantId, limit, after: after ?? null }) as Array<{ thread_id: string; updated_at: number }>;
    return rows.map((row) => ({ threadId: row.thread_id, updatedAt: new Date(row.updated_at), ...this.#counts(row.thread_id) }));
  }

  async unattributedThreads(): Promise<number> {
    this.#adoptUnregistered();
    return this.#db
      .prepare(
        `SELECT count(*) FROM threadwise_threads t WHERE t.deleted_at IS NULL AND t.tenant_id IS NULL
           AND NOT EXISTS (SELECT 1 FROM threadwise_archive a WHERE a.thread_id = t.thread_id)`,
      )
      .pluck()
      .get() as number;
  }

  async deleteTenantArchive(tenantId: string, limit: number): Promise<number> {
    const stray = `SELECT a.rowid FROM threadwise_archive a WHERE a.tenant_id = @tenant AND NOT EXISTS (
      SELECT 1 FROM threadwise_threads t WHERE t.thread_id = a.thread_id AND t.deleted_at IS NULL AND (t.tenant_id = @tenant OR t.tenant_id IS NULL))`;
    if (limit === 0) return this.#db.prepare(`SELECT count(*) FROM (${stray})`).pluck().get({ tenant: tenantId }) as number;
    const run = this.#db.transaction(
      () =>
        this.#db.prepare(`DELETE FROM threadwise_archive WHERE rowid IN (${stray} LIMIT +@limit)`).run({ tenant: tenantId, limit }).changes,
    );
    return this.#queue.run(() => run.immediate());
  }

  async deleteThread(threadId: string, options: ThreadDeleteOptions = {}): Promise<ThreadDeleteOutcome> {
    threadId = normalizeThreadId(threadId);
    const run = this.#db.transaction((): ThreadDeleteOutcome => {
      this.#adoptUnregistered(threadId);
      const row = this.#db.prepare("SELECT updated_at, deleted_at FROM threadwise_threads WHERE thread_id = ?").get(threadId) as
        | { updated_at: number; deleted_at: number | null }
        | undefined;
      if (!row) return { threadId, status: "not_found", counts: NO_ROWS };
      if (row.deleted_at !== null) return { threadId, status: "already_deleted", counts: NO_ROWS };
      if (options.idleBefore && row.updated_at >= options.idleBefore.getTime()) return { threadId, status: "updated", counts: NO_ROWS };
      const writes = this.#db.prepare("DELETE FROM writes WHERE thread_id = ?").run(threadId).changes;
      this.#db.prepare("DELETE FROM threadwise_operations WHERE thread_id = ?").run(threadId);
      const archived = this.#db.prepare("DELETE FROM threadwise_archive WHERE thread_id = ?").run(threadId).changes;
      const checkpoints = this.#db.prepare("DELETE FROM checkpoints WHERE thread_id = ?").run(threadId).changes;
      this.#db.prepare("DELETE FROM threadwise_checkpoint_seq WHERE thread_id = ?").run(threadId);
      this.#db
        .prepare(
          "UPDATE threadwise_threads SET deleted_at = ?, deleted_reason = ?, turn_open_at = NULL, lease_until = NULL, head_id = NULL WHERE thread_id = ?",
        )
        .run(this.#now(), options.reason ?? "api", threadId);
      return { threadId, status: "deleted", counts: { checkpoints, blobs: 0, writes, archived } };
    });
    // Queued with this handle's write transactions, which span awaits (see commitCheckpoint).
    const outcome = await this.#queue.run(() => run.immediate());
    // The deleted text also sits in older WAL frames: copy the WAL into the file and truncate it.
    // Best effort: a reader elsewhere can hold frames back, which the next deletion retries.
    if (outcome.status === "deleted") await this.#queue.run(() => this.#db.pragma("wal_checkpoint(TRUNCATE)"));
    return outcome;
  }

  archiveMessages(threadId: string, tenantId: string, rows: ReadonlyArray<{ messageId: string; record: string }>): Promise<number> {
    // Where the archive stands is read by the statement that takes the lock.
    return this.#inTransaction<number, ThreadRow & ArchiveMark>(
      threadId,
      async (id, top) => {
        const stamp = top.stamp + 1;
        // One statement per ARCHIVE_INSERT_ROWS rows (was one per row). SQLite upserts the rows in
        // order: a message id given twice is updated by its later row, as by two statements.
        const shared = { tenant: tenantId, thread: id, stamp, now: top.now };
        for (let start = 0; start < rows.length; start += ARCHIVE_INSERT_ROWS) {
          const chunk = rows.slice(start, start + ARCHIVE_INSERT_ROWS);
          const values: unknown[] = [];
          for (const [i, row] of chunk.entries()) values.push(row.messageId, top.seq + start + i + 1, row.record);
          this.#prepare(archiveInsert(chunk.length)).run(shared, ...values);
        }
        return stamp;
      },
      { sql: LOCK_ROW_WITH_MARK, params: { tenant: tenantId } },
    );
  }

  async clearArchive(threadId: string, tenantId: string, firstId: string): Promise<void> {
    // Runs inside commitCheckpoint's write: same connection, same BEGIN IMMEDIATE transaction.
    const id = normalizeThreadId(threadId);
    const stamp = this.#prepare("SELECT coalesce(max(stamp), 0) FROM threadwise_archive WHERE tenant_id = ? AND thread_id = ?")
      .pluck()
      .get(tenantId, id) as number;
    if (stamp === 0) return;
    this.#prepare("DELETE FROM threadwise_archive WHERE tenant_id = ? AND thread_id = ?").run(tenantId, id);
    this.#prepare(
      "INSERT INTO threadwise_archive (tenant_id, thread_id, message_id, seq, stamp, record, archived_at) VALUES (?, ?, ?, 0, ?, ?, ?)",
    ).run(tenantId, id, ARCHIVE_CLEARED_MESSAGE_ID, stamp + 1, firstId, this.#now());
  }

  async archiveMark(threadId: string, tenantId: string): Promise<ArchiveMark> {
    // The marker row's seq is 0.
    return this.#prepare(ARCHIVE_MARK).get({ tenant: tenantId, thread: normalizeThreadId(threadId) }) as ArchiveMark;
  }

  async archivedAmong(threadId: string, tenantId: string, messageIds: readonly string[]): Promise<string[]> {
    if (messageIds.length === 0) return [];
    const found = new Set(
      this.#prepare(
        "SELECT message_id FROM threadwise_archive WHERE tenant_id = ? AND thread_id = ? AND message_id IN (SELECT value FROM json_each(?))",
      )
        .pluck()
        .all(tenantId, normalizeThreadId(threadId), JSON.stringify(messageIds)) as string[],
    );
    return messageIds.filter((id) => found.has(id));
  }

  async readArchive(threadId: string, tenantId: string, afterStamp: number): Promise<{ stamp: number; rows: ArchiveRow[] }> {
    const id = normalizeThreadId(threadId);
    const stamp = this.#prepare("SELECT coalesce(max(stamp), 0) FROM threadwise_archive WHERE tenant_id = ? AND thread_id = ?")
      .pluck()
      .get(tenantId, id) as number;
    if (stamp <= afterStamp) return { stamp, rows: [] };
    const rows = this.#prepare(
      `SELECT message_id AS messageId, seq, stamp, record FROM threadwise_archive
       WHERE tenant_id = ? AND thread_id = ? AND stamp > ? ORDER BY seq`,
    ).all(tenantId, id, afterStamp) as ArchiveRow[];
    return { stamp, rows };
  }

  async readArchiveTail(threadId: string, tenantId: string, last: number): Promise<ArchiveRow[]> {
    // `LIMIT +?`: compiled once, not at every call (see STORE_ORDER).
    const rows = this.#prepare(
      `SELECT message_id AS messageId, seq, stamp, record FROM threadwise_archive
       WHERE tenant_id = ? AND thread_id = ? AND message_id <> ? ORDER BY seq DESC LIMIT +?`,
    ).all(tenantId, normalizeThreadId(threadId), ARCHIVE_CLEARED_MESSAGE_ID, last) as ArchiveRow[];
    return rows.reverse();
  }

  async holdsSealedRecords(): Promise<boolean> {
    return (
      this.#db.prepare(`SELECT 1 FROM checkpoints WHERE instr(CAST(metadata AS TEXT), '"${SEALED_METADATA_KEY}"') > 0 LIMIT 1`).get() !==
      undefined
    );
  }

  async deletedAmong(threadIds: readonly string[]): Promise<string[]> {
    if (threadIds.length === 0) return [];
    // One bound parameter (a JSON array), so no id count reaches SQLite's variable limit.
    const rows = this.#db
      .prepare("SELECT thread_id FROM threadwise_threads WHERE deleted_at IS NOT NULL AND thread_id IN (SELECT value FROM json_each(?))")
      .all(JSON.stringify(threadIds)) as Array<{ thread_id: string }>;
    return rows.map((row) => row.thread_id);
  }

  async tombstone(threadId: string): Promise<{ deletedAt: Date; reason: string } | undefined> {
    threadId = normalizeThreadId(threadId);
    const row = this.#db
      .prepare("SELECT deleted_at, deleted_reason FROM threadwise_threads WHERE thread_id = ? AND deleted_at IS NOT NULL")
      .get(threadId) as { deleted_at: number; deleted_reason: string | null } | undefined;
    return row ? { deletedAt: new Date(row.deleted_at), reason: row.deleted_reason ?? "api" } : undefined;
  }

  /** Registers threads that have checkpoints but no row, dated now (SQLite checkpoints carry no queryable time). */
  #adoptUnregistered(threadId?: string): void {
    const now = this.#now();
    this.#db
      .prepare(
        `INSERT OR IGNORE INTO threadwise_threads (thread_id, created_at, updated_at)
         SELECT DISTINCT thread_id, ?, ? FROM checkpoints WHERE (? IS NULL OR thread_id = ?)`,
      )
      .run(now, now, threadId ?? null, threadId ?? null);
  }

  #counts(threadId: string) {
    const checkpoints = (this.#db.prepare("SELECT count(*) AS n FROM checkpoints WHERE thread_id = ?").get(threadId) as { n: number }).n;
    const writes = (this.#db.prepare("SELECT count(*) AS n FROM writes WHERE thread_id = ?").get(threadId) as { n: number }).n;
    const archived = (this.#db.prepare("SELECT count(*) AS n FROM threadwise_archive WHERE thread_id = ?").get(threadId) as { n: number })
      .n;
    return { checkpoints, blobs: 0, writes, archived };
  }
}
