import { normalizeThreadId, optionNames, parseOptions, ThreadwiseConfigError } from "@threadwise/core";
import type { PgPoolMode } from "./config.js";
import { openExistingSqliteFile } from "./optional-peers.js";
import { assertSchemaVersion } from "./pg-migrations.js";
import { createMemoryPool } from "./pg-pool.js";
import { assertSchemaName, PgThreadRegistry } from "./pg-thread-registry.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import type { ThreadDeleteOutcome, ThreadInfo, ThreadRegistry, ThreadRowCounts } from "./thread-registry.js";

const DAY_MS = 86_400_000;

/** Which store an operation works on: a PostgreSQL DSN, or a SQLite file, or a registry you already hold. */
export interface OpsTarget {
  /** PostgreSQL DSN (runtime role is enough: operations run no DDL). */
  dsn?: string;
  /** PostgreSQL schema. @default "public" */
  schema?: string;
  /** Pool profile for `dsn`. @default "direct" */
  poolMode?: PgPoolMode;
  /** SQLite file. */
  sqlitePath?: string;
  /** A registry to use as is (e.g. `memoryStack().checkpointer.registry`). */
  registry?: ThreadRegistry;
}

/** The option names of {@link OpsTarget}, for core's `optionNames`. */
export const OPS_TARGET_NAMES = ["dsn", "schema", "poolMode", "sqlitePath", "registry"] as const;

const PRUNE_NAMES = optionNames([...OPS_TARGET_NAMES, "olderThanDays", "threadId", "apply", "limit", "now", "onProgress", "reason"]);
const THREAD_RETENTION_NAMES = optionNames([...OPS_TARGET_NAMES, "days", "now", "limit", "onProgress"]);

/** `limit` of prune/retention: unset, or a whole number >= 1 (SQLite reads `LIMIT -1` as no limit). */
function assertLimit(limit: unknown, option: string): void {
  if (limit !== undefined && !(typeof limit === "number" && Number.isSafeInteger(limit) && limit >= 1))
    throw new ThreadwiseConfigError(option, `expected a whole number of threads >= 1, got ${String(limit)}: nothing was deleted`);
}

/**
 * `apply` of a deleting operation: unset or a boolean. A string (`"false"` from a config file or
 * env) would be truthy and delete.
 */
export function assertApply(apply: unknown, option: string): void {
  if (apply !== undefined && typeof apply !== "boolean")
    throw new ThreadwiseConfigError(option, `expected true or false, got ${typeof apply} ${JSON.stringify(apply)}: nothing was deleted`);
}

/**
 * `threadIds` of an erasing operation: unset, or an array of thread ids, each checked with
 * `normalizeThreadId` naming its place (`eraseTenant.threadIds[2]`); returned without repeats.
 * A string was read as a list of its characters (`threadIds: "abc"` named threads `a`, `b`, `c`)
 * or threw a plain `TypeError`.
 * @throws ThreadwiseConfigError naming `option` when it is not an array; ThreadwiseThreadIdError
 *   naming the entry that breaks the thread-id rules.
 */
export function threadIdList(threadIds: unknown, option: string): string[] {
  if (threadIds === undefined) return [];
  if (!Array.isArray(threadIds))
    throw new ThreadwiseConfigError(
      option,
      `expected an array of thread ids, got ${typeof threadIds} ${JSON.stringify(threadIds)}${typeof threadIds === "string" ? " (one thread: pass [id])" : ""}: nothing was deleted`,
    );
  return [...new Set(threadIds.map((id, index) => normalizeThreadId(id, `${option}[${index}]`)))];
}

/**
 * Opens the registry of a target; PostgreSQL targets are checked for the expected schema version
 * first. `close()` releases what was opened here.
 * @throws ThreadwiseConfigError when the target names no store or no SQLite file is at `sqlitePath`;
 *   ThreadwiseSchemaVersionError.
 */
export async function openRegistry(target: OpsTarget): Promise<{ registry: ThreadRegistry; close: () => Promise<void> }> {
  if (target.registry) return { registry: target.registry, close: async () => {} };
  if (target.dsn) {
    const pool = createMemoryPool(target.dsn, { mode: target.poolMode, max: 2 });
    try {
      await assertSchemaVersion(pool, target.schema ?? "public");
    } catch (error) {
      await pool.end();
      throw error;
    }
    return { registry: new PgThreadRegistry(pool, target.schema ?? "public"), close: () => pool.end() };
  }
  if (target.sqlitePath) {
    const db = openExistingSqliteFile(target.sqlitePath);
    return { registry: new SqliteThreadRegistry(db), close: async () => void db.close() };
  }
  throw new ThreadwiseConfigError("target", "give a PostgreSQL DSN (--dsn) or a SQLite file (--sqlite)");
}

/** Options of {@link prune}. Give `olderThanDays` or `threadId` (or both: that thread only if idle). */
export interface PruneOptions extends OpsTarget {
  /** Threads whose last write is at least this many days old, in days (a whole number >= 1). */
  olderThanDays?: number;
  /** One thread to delete. */
  threadId?: string;
  /** Delete for real; otherwise a dry run that only lists. Deletion is irreversible. @default false */
  apply?: boolean;
  /** Most threads per run, a whole number >= 1. @default 10000 */
  limit?: number;
  /** Clock, for tests; must give a valid Date. @default () => new Date() */
  now?: () => Date;
  /** Called after each thread is handled, with (done, total). */
  onProgress?: (done: number, total: number) => void;
  /** Why, kept on tombstones. @default "prune" */
  reason?: string;
}

/** What {@link prune} and {@link retention} found and did. */
export interface PruneReport {
  /** `true` when nothing was deleted because `apply` was not set. */
  dryRun: boolean;
  /** The idle cutoff used, if any. */
  idleBefore: Date | undefined;
  /** Threads that matched, with their row counts at listing time. */
  candidates: ThreadInfo[];
  /** Per-thread outcome when applied (empty for a dry run). */
  outcomes: ThreadDeleteOutcome[];
  /** Sum of rows that would go (dry run) or went (applied). */
  totals: ThreadRowCounts & { threads: number };
  /**
   * With `threadId`, when it matched nothing, why: `already_deleted` (a tombstone, with its
   * `deletedAt`), `not_found` (no such thread), `not_idle` (written after the `olderThanDays`
   * cutoff). Absent otherwise.
   */
  thread?: { threadId: string; status: "already_deleted" | "not_found" | "not_idle"; deletedAt?: Date };
}

/**
 * Lists, and with `apply` deletes, threads (spec R23, R24): each deletion removes checkpoints,
 * blobs, pending writes and archived messages (and so the summary, facts and work memory in checkpointed state) and
 * leaves a tombstone. Each candidate is re-checked under its row lock: a thread written after
 * the listing survives (outcome `updated`). Dry run unless `apply`.
 *
 * @throws ThreadwiseUnknownOptionError for a misspelt option (`threadID`: was ignored, and every
 *   idle thread was deleted; `aply`: was a dry run); ThreadwiseConfigError when neither
 *   `olderThanDays` nor `threadId` is given, when `olderThanDays` is not a whole number >= 1,
 *   `limit` is not a whole number >= 1, `apply` is not a boolean (`"false"` deleted), `now()` is not a valid Date, or `schema` is not a plain
 *   identifier; ThreadwiseThreadIdError naming `prune.threadId` for a `threadId` no backend can store (was `thread_id`). All before any connection.
 * @example
 * const report = await prune({ dsn, olderThanDays: 30 });            // dry run
 * await prune({ dsn, olderThanDays: 30, apply: true });              // irreversible
 */
export async function prune(options: PruneOptions): Promise<PruneReport> {
  parseOptions("prune", PRUNE_NAMES, options);
  if (options.olderThanDays === undefined && options.threadId === undefined)
    throw new ThreadwiseConfigError("prune", "give --older-than-days N or --thread-id X");
  // 0 would mean "idle since now": every thread. Refused, so an empty or mistyped value never deletes all.
  if (options.olderThanDays !== undefined && !(Number.isSafeInteger(options.olderThanDays) && options.olderThanDays >= 1))
    throw new ThreadwiseConfigError("prune.olderThanDays", `expected a whole number of days >= 1, got ${String(options.olderThanDays)}`);
  if (options.threadId !== undefined) normalizeThreadId(options.threadId, "prune.threadId");
  if (options.schema !== undefined) assertSchemaName(options.schema, "prune.schema");
  assertLimit(options.limit, "prune.limit");
  assertApply(options.apply, "prune.apply");
  const now = (options.now ?? (() => new Date()))();
  if (!(now instanceof Date) || Number.isNaN(now.getTime()))
    throw new ThreadwiseConfigError("prune.now", "expected a clock giving a valid Date: nothing was deleted");
  const { registry, close } = await openRegistry(options);
  try {
    const idleBefore = options.olderThanDays === undefined ? undefined : new Date(now.getTime() - options.olderThanDays * DAY_MS);
    let candidates: ThreadInfo[];
    let thread: PruneReport["thread"];
    if (options.threadId !== undefined) {
      const threadId = normalizeThreadId(options.threadId, "prune.threadId");
      const info = await registry.describe(threadId);
      candidates = info && (!idleBefore || info.updatedAt < idleBefore) ? [info] : [];
      if (info && candidates.length === 0) thread = { threadId, status: "not_idle" };
      else if (!info) {
        // Was: "deleted 0 thread(s) ...; tombstones written." for an id deleted before.
        const tombstone = await registry.tombstone(threadId);
        thread = tombstone ? { threadId, status: "already_deleted", deletedAt: tombstone.deletedAt } : { threadId, status: "not_found" };
      }
    } else {
      candidates = await registry.listIdle(idleBefore as Date, options.limit);
    }
    const outcomes: ThreadDeleteOutcome[] = [];
    if (options.apply) {
      for (const [index, candidate] of candidates.entries()) {
        outcomes.push(await registry.deleteThread(candidate.threadId, { idleBefore, reason: options.reason ?? "prune" }));
        options.onProgress?.(index + 1, candidates.length);
      }
    }
    const counted = options.apply ? outcomes.filter((o) => o.status === "deleted").map((o) => o.counts) : candidates;
    return {
      dryRun: !options.apply,
      idleBefore,
      candidates,
      outcomes,
      totals: {
        threads: counted.length,
        checkpoints: counted.reduce((sum, c) => sum + c.checkpoints, 0),
        blobs: counted.reduce((sum, c) => sum + c.blobs, 0),
        writes: counted.reduce((sum, c) => sum + c.writes, 0),
        archived: counted.reduce((sum, c) => sum + c.archived, 0),
      },
      ...(thread ? { thread } : {}),
    };
  } finally {
    await close();
  }
}

/** Options of {@link retention}. */
export interface RetentionOptions extends OpsTarget {
  /** Threads idle at least this many days are deleted, in days (env `MEMORY_RETENTION_DAYS`). */
  days: number;
  /** Clock, for tests. */
  now?: () => Date;
  /** Most threads per run. @default 10000 */
  limit?: number;
  /** Called after each thread, with (done, total). */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Deletes threads idle for `days` days (spec R23): `prune` with `apply`, for a scheduled worker.
 * Each candidate is re-checked under its row lock, so one written meanwhile survives.
 *
 * @throws ThreadwiseUnknownOptionError for a misspelt or foreign option (`dryRun`: was ignored,
 *   and retention deleted; `tenantId`: retention is not per tenant, every tenant's idle threads
 *   went); ThreadwiseConfigError when `days` is not a positive integer or `limit` not a whole
 *   number >= 1, and the errors of {@link prune}. All before any connection.
 * @example
 * setInterval(() => retention({ dsn: process.env.POSTGRES_MEMORY_DSN!, days: 30 }), 3_600_000);
 */
export async function retention(options: RetentionOptions): Promise<PruneReport> {
  parseOptions("retention", THREAD_RETENTION_NAMES, options);
  assertLimit(options.limit, "retention.limit");
  if (!(Number.isInteger(options.days) && options.days > 0))
    throw new ThreadwiseConfigError("retention.days", "expected a positive whole number of days");
  const { days, ...target } = options;
  return prune({ ...target, olderThanDays: days, apply: true, reason: "retention" });
}
