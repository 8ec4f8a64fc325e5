import { parseOptions } from "@threadwise/core";
import {
  EncryptedCheckpointSaver,
  isSealed,
  PLAINTEXT_RECORDS_KEY,
  type RecordLocation,
  sealedKid,
  ThreadwiseReencryptError,
} from "@threadwise/encryption";
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";
import { z } from "zod/v4";
import { archivedMessageRecordId, CLEARED_DIGESTS_RECORD_ID, clearedMarkerRecord, parseMarker } from "./archive-records.js";
import { pgTables } from "./pg-thread-registry.js";
import { ARCHIVE_CLEARED_MESSAGE_ID } from "./thread-registry.js";

/** One row of `threadwise_archive` as {@link reencryptArchiveRows} reads it (its primary key and record). */
export interface ArchiveRecordRow {
  tenantId: string;
  threadId: string;
  messageId: string;
  record: string;
}

/** Where {@link reencryptArchiveRows} reads and rewrites archive rows: a page after a key, and a conditional update. */
export interface ArchiveRowStore {
  /** Up to `limit` rows ordered by primary key (tenant, thread, message id), after `after` (none: from the start). */
  page(after: ArchiveRecordRow | undefined, limit: number): Promise<ArchiveRecordRow[]>;
  /** Replaces the row's record only if it still holds `row.record`; whether it did. Keeps its `seq` and `stamp`. */
  update(row: ArchiveRecordRow, record: string): Promise<boolean>;
}

/** What {@link reencryptArchive} did: rows read, rows re-sealed (or, in a dry run, that would be), sealed records per kid before. */
export interface ArchiveReencryptResult {
  scanned: number;
  rewritten: number;
  /** Sealed records per kid before the run; `(plaintext)` for records stored without a keyring (a marker's bare first id is not counted). */
  recordsByKid: Record<string, number>;
}

/**
 * Re-seals the archived messages and the sealed digests of rewrite markers of `threadwise_archive`
 * (the stack's archive, `memoryStack({ archive: true })`) under the keyring's active kid, as
 * `reencrypt` does for the checkpoint tables, which do not hold them: each record is opened at its
 * own location (tenant through the saver's identity, thread, message id) and written back only if
 * unchanged since it was read (a concurrent writer is never overwritten); `seq` and `stamp` stay,
 * so readers' order and caches hold (the content is the same). With `encryptPlaintext` a plaintext
 * record (a store written without a keyring) is sealed too; without it, it fails as `reencrypt`
 * fails on a plaintext checkpoint record (`plaintext-record`). Idempotent.
 * @throws ThreadwiseDecryptionError / ThreadwiseAgentMismatchError when a record does not open (never skipped).
 */
export async function reencryptArchiveRows(
  store: ArchiveRowStore,
  saver: EncryptedCheckpointSaver,
  options: { batchSize: number; dryRun: boolean; encryptPlaintext: boolean },
): Promise<ArchiveReencryptResult> {
  const result: ArchiveReencryptResult = { scanned: 0, rewritten: 0, recordsByKid: {} };
  const serializer = saver.serializer;
  const count = (value: string) => {
    const kid = sealedKid(value) ?? PLAINTEXT_RECORDS_KEY;
    result.recordsByKid[kid] = (result.recordsByKid[kid] ?? 0) + 1;
  };
  /** The sealed string `value` re-sealed at `location` (undefined: already on the active kid). */
  const reseal = async (value: string, location: RecordLocation, plaintext: () => Promise<unknown>): Promise<string | undefined> => {
    count(value);
    if (!isSealed(value) && options.encryptPlaintext) return serializer.sealTyped(await plaintext(), "channel-value", location);
    return serializer.cipher.reseal(value, "channel-value", location);
  };
  let after: ArchiveRecordRow | undefined;
  for (;;) {
    const rows = await store.page(after, options.batchSize);
    if (rows.length === 0) break;
    after = rows.at(-1);
    for (const row of rows) {
      result.scanned += 1;
      let next: string | undefined;
      if (row.messageId === ARCHIVE_CLEARED_MESSAGE_ID) {
        // A rewrite's marker: its digests are sealed like a message (bound to the thread); a bare first id holds nothing sealed.
        const marker = parseMarker(row.record);
        if (marker.digests === undefined) continue;
        const digests = marker.digests;
        const sealed = await reseal(digests, { threadId: row.threadId, recordId: CLEARED_DIGESTS_RECORD_ID }, async () => digests);
        if (sealed !== undefined) next = clearedMarkerRecord(marker.first, sealed);
      } else {
        next = await reseal(row.record, { threadId: row.threadId, recordId: archivedMessageRecordId(row.messageId) }, async () => {
          const [type, base64] = JSON.parse(row.record) as [string, string];
          return serializer.inner.loadsTyped(type, new Uint8Array(Buffer.from(base64, "base64")));
        });
      }
      if (next === undefined) continue;
      result.rewritten += 1;
      if (!options.dryRun) await store.update(row, next);
    }
  }
  return result;
}

/** The archive rows of a SQLite memory file; `undefined` when the file has no archive table (no stack made it). */
export function sqliteArchiveRows(db: BetterSqlite3.Database): ArchiveRowStore | undefined {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'threadwise_archive'").get();
  if (table === undefined) return undefined;
  const columns = "tenant_id AS tenantId, thread_id AS threadId, message_id AS messageId, record";
  const first = db.prepare(`SELECT ${columns} FROM threadwise_archive ORDER BY tenant_id, thread_id, message_id LIMIT ?`);
  const next = db.prepare(
    `SELECT ${columns} FROM threadwise_archive WHERE (tenant_id, thread_id, message_id) > (?, ?, ?) ORDER BY tenant_id, thread_id, message_id LIMIT ?`,
  );
  const update = db.prepare(
    "UPDATE threadwise_archive SET record = ? WHERE tenant_id = ? AND thread_id = ? AND message_id = ? AND record = ?",
  );
  return {
    page: async (after, limit) =>
      (after === undefined ? first.all(limit) : next.all(after.tenantId, after.threadId, after.messageId, limit)) as ArchiveRecordRow[],
    update: async (row, record) => update.run(record, row.tenantId, row.threadId, row.messageId, row.record).changes === 1,
  };
}

/** The archive rows of a PostgreSQL schema (migrated: the table exists). */
export function postgresArchiveRows(pool: pg.Pool, schema: string): ArchiveRowStore {
  const table = pgTables(schema).archive;
  const columns = `tenant_id AS "tenantId", thread_id AS "threadId", message_id AS "messageId", record`;
  return {
    page: async (after, limit) =>
      (after === undefined
        ? await pool.query<ArchiveRecordRow>(`SELECT ${columns} FROM ${table} ORDER BY tenant_id, thread_id, message_id LIMIT $1`, [limit])
        : await pool.query<ArchiveRecordRow>(
            `SELECT ${columns} FROM ${table} WHERE (tenant_id, thread_id, message_id) > ($1, $2, $3) ORDER BY tenant_id, thread_id, message_id LIMIT $4`,
            [after.tenantId, after.threadId, after.messageId, limit],
          )
      ).rows,
    update: async (row, record) =>
      (
        await pool.query(`UPDATE ${table} SET record = $1 WHERE tenant_id = $2 AND thread_id = $3 AND message_id = $4 AND record = $5`, [
          record,
          row.tenantId,
          row.threadId,
          row.messageId,
          row.record,
        ])
      ).rowCount === 1,
  };
}

const reencryptArchiveOptionsSchema = z.strictObject({
  /**
   * Archive rows read per page.
   * @default 100
   */
  batchSize: z.number().int().positive().default(100),
  /**
   * Count records per kid and rows to re-seal, without writing.
   * @default false
   */
  dryRun: z.boolean().default(false),
  /**
   * Also seal archived messages stored in plaintext (a store written without a keyring) instead of
   * failing on them with `plaintext-record`, as `reencrypt`'s option.
   * @default false
   */
  encryptPlaintext: z.boolean().default(false),
});

/** Options of {@link reencryptArchive}: `reencrypt`'s (`batchSize`, `dryRun`, `encryptPlaintext`) and the same `saver`. */
export type ReencryptArchiveOptions = z.input<typeof reencryptArchiveOptionsSchema> & {
  /** The encrypted checkpointer given to `reencrypt` (`encryptCheckpointer(SqliteSaver | PostgresSaver, ...)`): the archive is read in its database. */
  saver: EncryptedCheckpointSaver;
};

/**
 * Re-seals the message archive (`threadwise_archive`, written by `memoryStack({ archive: true })`:
 * archived messages and rewrite markers' sealed digests) under the keyring's active kid: step 3 of
 * a key rotation next to `reencrypt({ saver })` from `@threadwise/encryption`, which rewrites the
 * checkpoint tables only. Without it, `retireKey` on the old kid leaves every archived message
 * unreadable (`unknown-kid`). Reads the archive in the saver's own database: a `SqliteSaver`'s file
 * (no archive table: nothing to do, zero rows) or a `PostgresSaver`'s schema (`options.schema`,
 * migrated). Each row is written back only if unchanged since read; `seq` and `stamp` stay;
 * idempotent. `threadwise keyring reencrypt` runs it after the checkpoint tables.
 *
 * @returns rows read (`scanned`), re-sealed (`rewritten`; with `dryRun`, that would be) and sealed
 *   records per kid before (`recordsByKid`; `(plaintext)` for plaintext ones): a dry run listing only
 *   the active kid, here and in `reencrypt`'s, is when the old kid can be retired.
 * @throws ThreadwiseUnknownOptionError / ThreadwiseConfigError for a misspelt or bad option, before any row is read.
 * @throws ThreadwiseReencryptError when `saver` is no `encryptCheckpointer()` saver or its storage is
 *   neither SQLite nor PostgreSQL (a `MemorySaver` stack's archive lives in the process).
 * @throws ThreadwiseDecryptionError / ThreadwiseAgentMismatchError when a record does not open (never
 *   skipped); `plaintext-record` for a plaintext one without `encryptPlaintext`.
 * @example
 * rotateKeyring("keyring.json");
 * const saver = encryptCheckpointer(new SqliteSaver(db), { keyring: "keyring.json", agentId });
 * await reencrypt({ saver });
 * await reencryptArchive({ saver });
 * const dry = await reencryptArchive({ saver, dryRun: true }); // Object.keys(dry.recordsByKid): the active kid only
 * retireKey("keyring.json", oldKid);
 */
export async function reencryptArchive(options: ReencryptArchiveOptions): Promise<ArchiveReencryptResult> {
  const { saver, ...rest } = options;
  const parsed = parseOptions("reencryptArchive", reencryptArchiveOptionsSchema, rest);
  if (!(saver instanceof EncryptedCheckpointSaver))
    throw new ThreadwiseReencryptError("reencryptArchive: `saver` must come from encryptCheckpointer()");
  const store = await archiveRowsOf(saver.inner as unknown as Record<string, unknown>);
  if (store === null)
    throw new ThreadwiseReencryptError(
      `reencryptArchive: cannot reach the archive of ${saver.inner.constructor.name}; supported: SqliteSaver, PostgresSaver (a MemorySaver stack's archive lives in its process)`,
    );
  if (store === undefined) return { scanned: 0, rewritten: 0, recordsByKid: {} };
  return reencryptArchiveRows(store, saver, parsed);
}

/** The archive rows in a saver's database: `undefined` when it has no archive table, `null` for a storage not known. */
async function archiveRowsOf(inner: Record<string, unknown>): Promise<ArchiveRowStore | undefined | null> {
  const db = inner.db as BetterSqlite3.Database | undefined;
  if (typeof db?.prepare === "function") return sqliteArchiveRows(db);
  const pool = inner.pool as pg.Pool | undefined;
  const schema = (inner.options as { schema?: string } | undefined)?.schema;
  if (typeof pool?.query !== "function" || typeof schema !== "string") return null;
  const table = await pool.query<{ found: string | null }>("SELECT to_regclass($1) AS found", [pgTables(schema).archive]);
  return table.rows[0]?.found == null ? undefined : postgresArchiveRows(pool, schema);
}
