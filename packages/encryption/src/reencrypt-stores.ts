/**
 * Storage adapters of `reencrypt`: how each known saver lays out its rows, and how to rewrite
 * them in batches without overwriting concurrent changes (compare-and-set on the old bytes).
 */
import { ThreadwiseReencryptError } from "./errors.js";
import type { ReencryptProgress, Resealer, Rewritten } from "./reencrypt.js";

/** @internal */
export interface StoreRun {
  resealer: Resealer;
  batchSize: number;
  dryRun: boolean;
  onProgress: ((progress: ReencryptProgress) => void) | undefined;
  totals: { scanned: number; rewritten: number };
}

/** @internal */
export interface ReencryptStore {
  run(run: StoreRun): Promise<void>;
}

class Counter {
  scanned = 0;
  rewritten = 0;
  constructor(
    readonly table: string,
    readonly total: number,
    readonly run: StoreRun,
  ) {}
  add(scanned: number, rewritten: number): void {
    this.scanned += scanned;
    this.rewritten += rewritten;
    this.run.totals.scanned += scanned;
    this.run.totals.rewritten += rewritten;
    this.run.onProgress?.({ table: this.table, scanned: this.scanned, rewritten: this.rewritten, total: this.total });
  }
}

interface SqliteStatement {
  all(...args: unknown[]): unknown[];
  get(...args: unknown[]): unknown;
  run(...args: unknown[]): { changes: number };
}
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  transaction<T>(fn: () => T): () => T;
}

/** SqliteSaver: `checkpoints` (whole checkpoint + metadata per row) and `writes`. */
export function sqliteStore(inner: Record<string, unknown>): ReencryptStore | undefined {
  const db = inner.db as SqliteDatabase | undefined;
  if (typeof db?.prepare !== "function" || typeof db.transaction !== "function") return undefined;
  return {
    async run(run) {
      const { resealer } = run;
      // A file the saver never set up has no tables: nothing to rewrite.
      const exists = (table: string) =>
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
      if (!exists("checkpoints") || !exists("writes")) return;
      const total = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
      const checkpoints = new Counter("checkpoints", total("checkpoints"), run);
      const updateCheckpoint = db.prepare(
        "UPDATE checkpoints SET type = ?, checkpoint = ?, metadata = ? WHERE rowid = ? AND checkpoint = ? AND metadata = ?",
      );
      for (let after = 0; ; ) {
        const rows = db
          .prepare(
            "SELECT rowid AS rid, thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata FROM checkpoints WHERE rowid > ? ORDER BY rowid LIMIT ?",
          )
          .all(after, run.batchSize) as Array<{
          rid: number;
          thread_id: string;
          checkpoint_ns: string;
          checkpoint_id: string;
          type: string | null;
          checkpoint: Buffer;
          metadata: Buffer;
        }>;
        if (rows.length === 0) break;
        after = rows[rows.length - 1]?.rid as number;
        const updates: unknown[][] = [];
        for (const row of rows) {
          const type = row.type ?? "json";
          const checkpoint = await resealer.checkpoint(type, row.checkpoint, row.thread_id, row.checkpoint_ns);
          const metadata = await resealer.metadataBytes(type, row.metadata, row.thread_id, row.checkpoint_ns, row.checkpoint_id);
          if (!checkpoint && !metadata) continue;
          const stored = sameType(type, checkpoint, metadata);
          updates.push([stored, checkpoint?.[1] ?? row.checkpoint, metadata?.[1] ?? row.metadata, row.rid, row.checkpoint, row.metadata]);
        }
        if (!run.dryRun) applyAll(db, updateCheckpoint, updates);
        checkpoints.add(rows.length, updates.length);
      }
      const writes = new Counter("writes", total("writes"), run);
      const updateWrite = db.prepare("UPDATE writes SET type = ?, value = ? WHERE rowid = ? AND value = ?");
      for (let after = 0; ; ) {
        const rows = db
          .prepare(
            "SELECT rowid AS rid, thread_id, checkpoint_ns, checkpoint_id, task_id, channel, type, value FROM writes WHERE rowid > ? ORDER BY rowid LIMIT ?",
          )
          .all(after, run.batchSize) as Array<{
          rid: number;
          thread_id: string;
          checkpoint_ns: string;
          checkpoint_id: string;
          task_id: string;
          channel: string;
          type: string | null;
          value: Buffer;
        }>;
        if (rows.length === 0) break;
        after = rows[rows.length - 1]?.rid as number;
        const updates: unknown[][] = [];
        for (const row of rows) {
          const next = await resealer.pendingWrite(
            row.type ?? "json",
            row.value,
            row.thread_id,
            row.checkpoint_ns,
            row.checkpoint_id,
            row.task_id,
            row.channel,
          );
          if (next) updates.push([next[0], next[1], row.rid, row.value]);
        }
        if (!run.dryRun) applyAll(db, updateWrite, updates);
        writes.add(rows.length, updates.length);
      }
    },
  };
}

// SqliteSaver keeps one serializer type for a checkpoint and its metadata.
function sameType(stored: string, checkpoint: Rewritten | undefined, metadata: Rewritten | undefined): string {
  const types = new Set([checkpoint?.[0] ?? stored, metadata?.[0] ?? stored]);
  if (types.size !== 1)
    throw new ThreadwiseReencryptError(
      `reencrypt: checkpoint and metadata would get different serializer types (${[...types].join(", ")})`,
    );
  return [...types][0] as string;
}

function applyAll(db: SqliteDatabase, statement: SqliteStatement, updates: unknown[][]): void {
  db.transaction(() => {
    for (const args of updates) statement.run(...args);
  })();
}

interface PgClient {
  query(sql: string, args?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  release(): void;
}
interface PgPool {
  query(sql: string, args?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  connect(): Promise<PgClient>;
}

/** PostgresSaver: `checkpoint_blobs`, `checkpoint_writes`, and the `metadata` column of `checkpoints`. */
export function postgresStore(inner: Record<string, unknown>): ReencryptStore | undefined {
  const pool = inner.pool as PgPool | undefined;
  const schema = (inner.options as { schema?: string } | undefined)?.schema;
  if (typeof pool?.query !== "function" || typeof pool.connect !== "function" || typeof schema !== "string") return undefined;
  const table = (name: string) => `"${schema.replace(/"/g, '""')}".${name}`;

  /** Keyset pagination over `keys`, each batch rewritten in one transaction. */
  async function sweep(
    run: StoreRun,
    name: string,
    keys: string[],
    columns: string,
    rewrite: (row: Record<string, unknown>) => Promise<[string, unknown[]] | undefined>,
  ) {
    const count = await pool?.query(`SELECT count(*)::int AS n FROM ${table(name)}`);
    const counter = new Counter(name, Number(count?.rows[0]?.n ?? 0), run);
    let cursor: unknown[] | undefined;
    for (;;) {
      const where = cursor ? `WHERE (${keys.join(", ")}) > (${keys.map((_, i) => `$${i + 1}`).join(", ")})` : "";
      const { rows } = await (pool as PgPool).query(
        `SELECT ${keys.join(", ")}, ${columns} FROM ${table(name)} ${where} ORDER BY ${keys.join(", ")} LIMIT ${run.batchSize}`,
        cursor ?? [],
      );
      if (rows.length === 0) break;
      const last = rows[rows.length - 1] as Record<string, unknown>;
      cursor = keys.map((key) => last[key]);
      const updates: Array<[string, unknown[]]> = [];
      for (const row of rows) {
        const update = await rewrite(row);
        if (update) updates.push(update);
      }
      if (!run.dryRun && updates.length > 0) {
        const client = await (pool as PgPool).connect();
        try {
          await client.query("BEGIN");
          for (const [sql, args] of updates) await client.query(sql, args);
          await client.query("COMMIT");
        } catch (error) {
          await client.query("ROLLBACK");
          throw error;
        } finally {
          client.release();
        }
      }
      counter.add(rows.length, updates.length);
    }
  }

  return {
    async run(run) {
      const { resealer } = run;
      const text = (value: unknown) => (Buffer.isBuffer(value) ? value.toString("utf8") : String(value));
      await sweep(run, "checkpoint_blobs", ["thread_id", "checkpoint_ns", "channel", "version"], "type, blob", async (row) => {
        if (row.type === "empty" || row.blob === null) return undefined;
        const next = await resealer.channelValue(
          text(row.type),
          row.blob as Buffer,
          text(row.thread_id),
          text(row.checkpoint_ns),
          text(row.channel),
          text(row.version),
        );
        if (!next) return undefined;
        return [
          `UPDATE ${table("checkpoint_blobs")} SET type = $7, blob = $1 WHERE thread_id = $2 AND checkpoint_ns = $3 AND channel = $4 AND version = $5 AND blob = $6`,
          [Buffer.from(next[1]), row.thread_id, row.checkpoint_ns, row.channel, row.version, row.blob, next[0]],
        ];
      });
      await sweep(
        run,
        "checkpoint_writes",
        ["thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx"],
        "channel, type, blob",
        async (row) => {
          const next = await resealer.pendingWrite(
            text(row.type),
            row.blob as Buffer,
            text(row.thread_id),
            text(row.checkpoint_ns),
            text(row.checkpoint_id),
            text(row.task_id),
            text(row.channel),
          );
          if (!next) return undefined;
          return [
            `UPDATE ${table("checkpoint_writes")} SET type = $8, blob = $1 WHERE thread_id = $2 AND checkpoint_ns = $3 AND checkpoint_id = $4 AND task_id = $5 AND idx = $6 AND blob = $7`,
            [Buffer.from(next[1]), row.thread_id, row.checkpoint_ns, row.checkpoint_id, row.task_id, row.idx, row.blob, next[0]],
          ];
        },
      );
      await sweep(run, "checkpoints", ["thread_id", "checkpoint_ns", "checkpoint_id"], "metadata", async (row) => {
        const metadata = row.metadata as Record<string, unknown>;
        const next = await resealer.metadataObject(metadata, text(row.thread_id), text(row.checkpoint_ns), text(row.checkpoint_id));
        if (!next) return undefined;
        return [
          `UPDATE ${table("checkpoints")} SET metadata = $1::jsonb WHERE thread_id = $2 AND checkpoint_ns = $3 AND checkpoint_id = $4 AND metadata = $5::jsonb`,
          [JSON.stringify(next), row.thread_id, row.checkpoint_ns, row.checkpoint_id, JSON.stringify(metadata)],
        ];
      });
    },
  };
}

type MemoryCheckpoint = [Uint8Array, Uint8Array, string | undefined];
type MemoryWrite = [string, string, Uint8Array, string?];

/** MemorySaver: `storage[thread][ns][checkpointId]` and `writes[key][taskId,idx]`, both serialized with "json". */
export function memoryStore(inner: Record<string, unknown>): ReencryptStore | undefined {
  const storage = inner.storage as Record<string, Record<string, Record<string, MemoryCheckpoint>>> | undefined;
  const writes = inner.writes as Record<string, Record<string, MemoryWrite>> | undefined;
  if (storage === null || typeof storage !== "object" || writes === null || typeof writes !== "object") return undefined;
  return {
    async run(run) {
      const { resealer } = run;
      const checkpoints = Object.entries(storage).flatMap(([threadId, namespaces]) =>
        Object.entries(namespaces).flatMap(([ns, byId]) => Object.entries(byId).map(([id, entry]) => ({ threadId, ns, id, byId, entry }))),
      );
      const checkpointCounter = new Counter("storage", checkpoints.length, run);
      for (let start = 0; start < checkpoints.length; start += run.batchSize) {
        const batch = checkpoints.slice(start, start + run.batchSize);
        let rewritten = 0;
        for (const { threadId, ns, id, byId, entry } of batch) {
          const checkpoint = await resealer.checkpoint("json", entry[0], threadId, ns);
          const metadata = await resealer.metadataBytes("json", entry[1], threadId, ns, id);
          if (!checkpoint && !metadata) continue;
          rewritten += 1;
          if (!run.dryRun && byId[id] === entry) byId[id] = [checkpoint?.[1] ?? entry[0], metadata?.[1] ?? entry[1], entry[2]];
        }
        checkpointCounter.add(batch.length, rewritten);
      }
      const pending = Object.entries(writes).flatMap(([outerKey, byInner]) =>
        Object.entries(byInner).map(([innerKey, entry]) => ({
          outer: JSON.parse(outerKey) as [string, string, string],
          innerKey,
          byInner,
          entry,
        })),
      );
      const writeCounter = new Counter("writes", pending.length, run);
      for (let start = 0; start < pending.length; start += run.batchSize) {
        const batch = pending.slice(start, start + run.batchSize);
        let rewritten = 0;
        for (const { outer, innerKey, byInner, entry } of batch) {
          const [threadId, ns, checkpointId] = outer;
          const next = await resealer.pendingWrite("json", entry[2], threadId, ns ?? "", checkpointId, entry[0], entry[1]);
          if (!next) continue;
          rewritten += 1;
          if (!run.dryRun && byInner[innerKey] === entry) byInner[innerKey] = [entry[0], entry[1], next[1], entry[3]];
        }
        writeCounter.add(batch.length, rewritten);
      }
    },
  };
}
