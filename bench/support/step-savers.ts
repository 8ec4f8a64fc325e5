/**
 * What bench/step.ts and bench/scale.ts run a whole `createAgent` step on: the savers (memory,
 * SQLite file in WAL mode, PostgreSQL or embedded PGlite) with their writes counted and a way to
 * prune a thread to its newest checkpoint, the model that answers at once, the summarizer stub, and
 * the full threadwise stack (`memoryMiddleware`) of those benches.
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, openSync, readSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, isBaseMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { PromptContextMode } from "@threadwise/core";
import { createMemoryPool, memoryMiddleware, type PgTransactionScope, resolveMemoryConfig } from "@threadwise/memory";
import Database from "better-sqlite3";
import type { AgentMiddleware } from "langchain";
import pg from "pg";
import { BenchOptionError } from "./data-file.js";
import { cpuNow } from "./hook-calls.js";
import { WalFrameCounter } from "./wal-frames.js";

/** The full stack's window (messages) and token cap (tokens). */
export const WINDOW = 20;
export const MAX_TOKENS = 8000;
/** The full stack's summary threshold, in messages: a summary every `SUMMARIZE_THRESHOLD - WINDOW` messages. */
export const SUMMARIZE_THRESHOLD = 40;
const SUMMARY_TEXT =
  "The user talked about their week: a support group meeting, plans to look into counseling and adoption agencies, " +
  "a painting finished at a pottery class, and a camping trip with their kids. Open threads: the adoption research.";

/** A chat model that answers "ok" at once and keeps nothing (fakeModel's `.calls` would hold every thread). */
export class AnswerModel extends BaseChatModel {
  _llmType(): string {
    return "bench-answer";
  }
  override bindTools(): this {
    return this;
  }
  async _generate(): Promise<ChatResult> {
    const message = new AIMessage({ id: `ai-${randomUUID()}`, content: "ok" });
    return { generations: [{ text: "ok", message }] };
  }
}

/** The summarizer stub: a fixed text at once (its input is built and timed, the model is not). */
export class SummaryModel extends AnswerModel {
  override async _generate(): Promise<ChatResult> {
    return { generations: [{ text: SUMMARY_TEXT, message: new AIMessage(SUMMARY_TEXT) }] };
  }
}

/**
 * The full stack of the whole-step benches: `memoryMiddleware` with window 20, summaries
 * (threshold 40, stub summarizer), facts heuristic, historyAware, tokenCap 8000 tokens, and the
 * preset's defaults for the rest (recall on since memoryStack's defaults keep what leaves the
 * window). `recall: false` leaves recall out.
 */
export function fullStack(mode: PromptContextMode, options: { recall?: boolean; slotUsers?: boolean } = {}): AgentMiddleware[] {
  const config = resolveMemoryConfig(
    {
      backend: "in_memory",
      windowSize: WINDOW,
      maxHistoryTokens: MAX_TOKENS,
      summarize: true,
      summarizeThreshold: SUMMARIZE_THRESHOLD,
      factsMode: "heuristic",
      promptContextMode: mode,
      ...(options.recall === false ? { recallMaxTokens: false as const } : {}),
      // Every other middleware of the summary slot: workMemory (condenses with the bench model),
      // userMemory (no store: passes through) and persistTrim keeping more groups than any thread has.
      ...(options.slotUsers ? { workMemory: true, userMemory: true, persistTrimKeepGroups: 100_000 } : {}),
    },
    {},
  );
  return memoryMiddleware(config, { models: { summarize: new SummaryModel({}) }, logger: false });
}

export interface Counters {
  puts: number;
  putWrites: number;
  /** Checkpoint reads (`getTuple`). */
  gets: number;
  bytes: number;
  /** Calls of the saver's serializer: values encoded (`dumpsTyped`: each checkpoint, its metadata, each pending write, each archived record) and decoded (`loadsTyped`). */
  encodes: number;
  decodes: number;
  /** Bytes the saver's serializer decoded (`loadsTyped`: checkpoints, writes and archived records read). */
  bytesRead: number;
  /** CPU ms spent by the counting itself, subtracted from the step. */
  overheadMs: number;
  /** Checkpoints decoded that hold a `messages` channel (or `messages` blobs decoded alone), and the messages they held in all. */
  messageCheckpointsRead: number;
  messagesRead: number;
}

export interface Target {
  kind: "memory" | "sqlite" | "postgres";
  label: string;
  saver: BaseCheckpointSaver;
  counters: Counters;
  /** Deletes every checkpoint of the thread but the newest (outside the timing). */
  prune: (threadId: string) => Promise<void>;
  close: () => Promise<void>;
  /** PostgreSQL targets: the server, the target's own schema and its pool (for threadwise's registry). */
  postgres?: { url: string; schema: string; pool: pg.Pool };
  /** SQLite targets opened with `countStatements`: statements SQLite ran on the file's connection so far. */
  statements?: () => number;
  /** SQLite targets opened with `countStatements`: those statements by kind ({@link statementKind}), outside {@link Target.prune}. */
  statementKinds?: () => ReadonlyMap<string, number>;
  /** SQLite targets opened with `timeStatements`: calls and main-thread CPU by statement kind so far ({@link StatementCpu}). */
  statementCpu?: () => ReadonlyMap<string, StatementCpu>;
  /**
   * SQLite targets opened with `countWalFrames`: what the file's connection wrote to its WAL
   * ({@link WalFrameCounter}); the bench reads it after each step, and {@link Target.prune}'s
   * frames are read past, not counted. The counter's own statements are not counted in
   * {@link Target.statementKinds} nor timed in {@link Target.statementCpu}.
   */
  walFrames?: Pick<WalFrameCounter, "counts" | "read">;
}

/** Calls of one statement kind and the main-thread CPU they took, in nanoseconds (the reading's own cost taken off). */
export interface StatementCpu {
  calls: number;
  ns: number;
}

/** Whether {@link timeStatementsOf} has wrapped better-sqlite3's prototypes. */
let statementsTimed = false;
/** Per connection, the {@link StatementCpu} of each statement kind (see {@link timeStatementsOf}). */
const statementCpuOf = new WeakMap<object, Map<string, StatementCpu>>();
/** Per connection, whether its statements are not counted now (the target's prune). */
const pausedOf = new WeakMap<object, () => boolean>();

/**
 * Times every `run`, `get`, `all` and `prepare` of better-sqlite3 on `db` from now on: each call's
 * main-thread CPU (its thread's `schedstat`, so the CPU of V8's other threads is not billed to it),
 * minus the median cost of a reading, by kind (`PREPARE <sql>` for a prepare, else the statement's
 * SQL as prepared, {@link statementKind}). The statements of every connection share one wrapper
 * of the prototypes, installed at the first call; a connection not given here is not counted.
 * @throws Error off Linux (no `/proc/self/task/<pid>/schedstat`).
 */
function timeStatementsOf(db: Database.Database, paused: () => boolean): Map<string, StatementCpu> {
  if (!statementsTimed) {
    statementsTimed = true;
    // The main thread's CPU ns: its schedstat, read through a kept descriptor (one pread a reading).
    const fd = openSync(`/proc/self/task/${process.pid}/schedstat`, "r");
    const buffer = Buffer.alloc(64);
    const read = () => Number(buffer.toString("latin1", 0, readSync(fd, buffer, 0, 64, 0)).split(" ")[0]);
    const empties = Array.from({ length: 1001 }, () => -read() + read()).sort((a, b) => a - b);
    const empty = empties[500] as number;
    const bill = (owner: object, kind: string, ns: number) => {
      const kinds = statementCpuOf.get(owner);
      if (!kinds || (pausedOf.get(owner)?.() ?? false)) return;
      const entry = kinds.get(kind) ?? { calls: 0, ns: 0 };
      entry.calls += 1;
      entry.ns += ns - empty;
      kinds.set(kind, entry);
    };
    const statement = Object.getPrototypeOf(db.prepare("SELECT 1")) as Record<string, (...args: unknown[]) => unknown>;
    for (const method of ["run", "get", "all"]) {
      const original = statement[method] as (...args: unknown[]) => unknown;
      statement[method] = function (this: { database: object; source: string }, ...args: unknown[]) {
        const t0 = read();
        try {
          return original.apply(this, args);
        } finally {
          bill(this.database, statementKind(this.source), read() - t0);
        }
      };
    }
    const database = Database.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
    const prepare = database.prepare as (...args: unknown[]) => unknown;
    database.prepare = function (this: object, ...args: unknown[]) {
      const t0 = read();
      try {
        return prepare.apply(this, args);
      } finally {
        bill(this, `PREPARE ${statementKind(String(args[0]))}`, read() - t0);
      }
    };
  }
  const kinds = new Map<string, StatementCpu>();
  statementCpuOf.set(db, kinds);
  pausedOf.set(db, paused);
  return kinds;
}

/**
 * A statement's kind: its SQL as better-sqlite3's `verbose` hook gives it (values expanded), with
 * each literal (string, blob, number, `NULL`) as `?` and white space collapsed, cut to 160
 * characters. Statements differing only in their values are one kind.
 */
export function statementKind(sql: string): string {
  return sql
    .replace(/[xX]'[0-9a-fA-F]*'/g, "?")
    .replace(/'(?:[^']|'')*'/g, "?")
    .replace(/\b-?\d+(?:\.\d+)?\b/g, "?")
    .replace(/\bNULL\b/g, "?")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 160);
}

export function countWrites(saver: BaseCheckpointSaver): Counters {
  const counters: Counters = {
    puts: 0,
    putWrites: 0,
    gets: 0,
    bytes: 0,
    encodes: 0,
    decodes: 0,
    bytesRead: 0,
    overheadMs: 0,
    messageCheckpointsRead: 0,
    messagesRead: 0,
  };
  const put = saver.put.bind(saver);
  const putWrites = saver.putWrites.bind(saver);
  const getTuple = saver.getTuple.bind(saver);
  saver.getTuple = (...a: Parameters<typeof getTuple>) => {
    counters.gets += 1;
    return getTuple(...a);
  };
  saver.put = (...a: Parameters<typeof put>) => {
    counters.puts += 1;
    return put(...a);
  };
  saver.putWrites = (...a: Parameters<typeof putWrites>) => {
    counters.putWrites += 1;
    return putWrites(...a);
  };
  const serde = saver.serde;
  const dumps = serde.dumpsTyped.bind(serde);
  serde.dumpsTyped = async (value: unknown) => {
    const out = await dumps(value);
    const t0 = cpuNow();
    const data = out[1] as unknown;
    counters.encodes += 1;
    counters.bytes += typeof data === "string" ? Buffer.byteLength(data) : ((data as Uint8Array | undefined)?.byteLength ?? 0);
    counters.overheadMs += cpuNow() - t0;
    return out;
  };
  const loads = serde.loadsTyped.bind(serde);
  serde.loadsTyped = async (type: string, data: Uint8Array | string) => {
    const t0 = cpuNow();
    counters.decodes += 1;
    counters.bytesRead += typeof data === "string" ? Buffer.byteLength(data) : (data?.byteLength ?? 0);
    counters.overheadMs += cpuNow() - t0;
    const value = await loads(type, data);
    const t1 = cpuNow();
    // A checkpoint with its channels inline (MemorySaver, SQLite), or the `messages` blob alone (PostgreSQL).
    const inline = (value as { channel_values?: { messages?: unknown } } | undefined)?.channel_values?.messages;
    const messages = inline ?? (Array.isArray(value) && value.length > 0 && value.every((m) => isBaseMessage(m)) ? value : undefined);
    if (Array.isArray(messages)) {
      counters.messageCheckpointsRead += 1;
      counters.messagesRead += messages.length;
    }
    counters.overheadMs += cpuNow() - t1;
    return value;
  };
  return counters;
}

export async function memoryTarget(): Promise<Target> {
  const saver = new MemorySaver();
  return {
    kind: "memory",
    label: "MemorySaver",
    saver,
    counters: countWrites(saver),
    prune: async (threadId) => {
      const namespaces = saver.storage[threadId] ?? {};
      for (const [ns, checkpoints] of Object.entries(namespaces)) {
        const ids = Object.keys(checkpoints).sort();
        const newest = ids.at(-1);
        for (const id of ids) if (id !== newest) delete checkpoints[id];
        // Keys are JSON [thread, namespace, checkpoint]: only this thread's are parsed (a
        // process serving thousands of threads holds thousands of keys).
        const prefix = JSON.stringify([threadId, ns]).slice(0, -1);
        for (const key of Object.keys(saver.writes)) {
          if (!key.startsWith(prefix)) continue;
          const [t, n, id] = JSON.parse(key) as string[];
          if (t === threadId && n === ns && id !== newest) delete saver.writes[key];
        }
      }
    },
    close: async () => {},
  };
}

/** SQLite's `synchronous` modes ({@link SqliteSettings.synchronous}). */
const SYNCHRONOUS_MODES = ["OFF", "NORMAL", "FULL", "EXTRA"] as const;

/**
 * Connection settings of a bench's SQLite file, to see what SQLite's own work costs (diagnostics;
 * a run with either is not comparable with runs without). Unset: the connection's defaults, as
 * LangChain's SqliteSaver leaves them: `wal_autocheckpoint` 1000 pages, and `synchronous` FULL (the
 * bench's files are fresh, switched to WAL by their connection, which keeps SQLite's FULL: the log
 * is synced at each commit; a connection opening a file already in WAL gets better-sqlite3's
 * `DEFAULT_WAL_SYNCHRONOUS`, NORMAL: synced at checkpoints only).
 */
export interface SqliteSettings {
  /** `PRAGMA wal_autocheckpoint`: the log's pages after which a commit checkpoints it; 0: never. */
  walAutocheckpoint?: number;
  /** `PRAGMA synchronous`: when SQLite syncs the log (FULL: at each commit and checkpoint; NORMAL: at checkpoints; OFF: never). */
  synchronous?: (typeof SYNCHRONOUS_MODES)[number];
}

/**
 * {@link SqliteSettings} from the bench options `--wal-autocheckpoint <pages>` and
 * `--sqlite-synchronous <mode>` (their strings, `undefined` when not given).
 * @throws BenchOptionError naming the option: pages not a whole number from 0, a mode not OFF, NORMAL, FULL
 * or EXTRA (any case).
 */
export function sqliteSettingsOf(options: { walAutocheckpoint?: string; synchronous?: string }): SqliteSettings {
  const settings: SqliteSettings = {};
  if (options.walAutocheckpoint !== undefined) {
    const pages = Number(options.walAutocheckpoint);
    if (options.walAutocheckpoint.trim() === "" || !Number.isSafeInteger(pages) || pages < 0)
      throw new BenchOptionError(
        "--wal-autocheckpoint",
        `must be a whole number of pages from 0 (0: never), got "${options.walAutocheckpoint}"`,
      );
    settings.walAutocheckpoint = pages;
  }
  if (options.synchronous !== undefined) {
    const mode = SYNCHRONOUS_MODES.find((name) => name === options.synchronous?.toUpperCase());
    if (mode === undefined)
      throw new BenchOptionError("--sqlite-synchronous", `must be one of ${SYNCHRONOUS_MODES.join(", ")}, got "${options.synchronous}"`);
    settings.synchronous = mode;
  }
  return settings;
}

/**
 * A SqliteSaver on a fresh file in WAL mode. `countStatements`: the connection counts every
 * statement SQLite runs (better-sqlite3's `verbose` hook, which expands each statement's SQL with
 * its values, blobs included: CPU figures of such a run are not comparable with others).
 * `countWalFrames`: the WAL's frames are counted ({@link WalFrameCounter}; its checkpoints then
 * happen at each reading, between steps, so CPU figures of such a run are not comparable either).
 * `settings`: {@link SqliteSettings} set on the connection before any write.
 */
export async function sqliteTarget(
  options: { countStatements?: boolean; timeStatements?: boolean; countWalFrames?: boolean; settings?: SqliteSettings } = {},
): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), "threadwise-step-"));
  let statements = 0;
  const kinds = new Map<string, number>();
  let pruning = false;
  const count = (sql: unknown) => {
    statements += 1;
    if (pruning) return;
    const kind = statementKind(String(sql));
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
  };
  const saver = options.countStatements
    ? new SqliteSaver(new Database(join(dir, "checkpoints.db"), { verbose: count }))
    : SqliteSaver.fromConnString(join(dir, "checkpoints.db"));
  const db = (saver as unknown as { db: Database.Database }).db;
  db.pragma("journal_mode = WAL");
  if (options.settings?.walAutocheckpoint !== undefined) db.pragma(`wal_autocheckpoint = ${options.settings.walAutocheckpoint}`);
  if (options.settings?.synchronous !== undefined) db.pragma(`synchronous = ${options.settings.synchronous}`);
  const cpu = options.timeStatements ? timeStatementsOf(db, () => pruning) : undefined;
  const counter = options.countWalFrames ? new WalFrameCounter(db) : undefined;
  // The counter's own statements (its `dbstat` read, its checkpoint) are not the replay's: not counted nor timed.
  const walFrames = counter && {
    counts: counter.counts,
    read: (count = true) => {
      const was = pruning;
      pruning = true;
      try {
        counter.read(count);
      } finally {
        pruning = was;
      }
    },
  };
  return {
    ...(options.countStatements ? { statements: () => statements, statementKinds: () => kinds } : {}),
    ...(cpu ? { statementCpu: () => cpu } : {}),
    ...(walFrames ? { walFrames } : {}),
    kind: "sqlite",
    label: "SqliteSaver (file, WAL)",
    saver,
    counters: countWrites(saver),
    prune: async (threadId) => {
      walFrames?.read();
      pruning = true;
      const newest = db.prepare("SELECT max(checkpoint_id) AS id FROM checkpoints WHERE thread_id = ?").get(threadId) as { id: string };
      db.prepare("DELETE FROM checkpoints WHERE thread_id = ? AND checkpoint_id <> ?").run(threadId, newest.id);
      db.prepare("DELETE FROM writes WHERE thread_id = ? AND checkpoint_id <> ?").run(threadId, newest.id);
      pruning = false;
      walFrames?.read(false);
    },
    close: async () => {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PostgresSaver in a fresh schema of `postgresUrl` (else THREADWISE_TEST_POSTGRES_URL, else an
 * embedded PGlite). With `scope`, the saver's statements go through `scope.pool(pool)`, so a
 * threadwise registry built on the same scope can run them inside its transactions. With
 * `memoryPool`, the pool is `createMemoryPool`'s (as `createCheckpointer` builds it for a
 * threadwise saver), else a plain `pg.Pool` (what a LangChain user passes to PostgresSaver).
 */
export async function postgresTarget(
  postgresUrl?: string,
  options: { scope?: PgTransactionScope; poolMax?: number; memoryPool?: boolean } = {},
): Promise<Target> {
  let url = postgresUrl ?? process.env.THREADWISE_TEST_POSTGRES_URL;
  let stopPglite: (() => Promise<void>) | undefined;
  let label = "PostgresSaver (PostgreSQL server; its own CPU not counted)";
  if (!url) {
    const { PGlite } = await import("@electric-sql/pglite");
    const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
    const db = await PGlite.create();
    const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1" });
    await server.start();
    url = `postgresql://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
    label = "PostgresSaver (embedded PGlite, in this process)";
    stopPglite = async () => {
      await server.stop();
      await db.close();
    };
  }
  const schema = `step_${randomUUID().replace(/-/g, "").slice(0, 10)}`;
  const pool = options.memoryPool
    ? createMemoryPool(url, { max: options.poolMax ?? 1, logger: false })
    : new pg.Pool({ connectionString: url, max: options.poolMax ?? 1 });
  await pool.query(`CREATE SCHEMA ${schema}`);
  const saver = new PostgresSaver(options.scope ? options.scope.pool(pool) : pool, undefined, { schema });
  await saver.setup();
  return {
    kind: "postgres",
    label,
    saver,
    counters: countWrites(saver),
    postgres: { url, schema, pool },
    prune: async (threadId) => {
      const { rows } = await pool.query(`SELECT max(checkpoint_id) AS id FROM ${schema}.checkpoints WHERE thread_id = $1`, [threadId]);
      const newest = rows[0]?.id as string;
      await pool.query(`DELETE FROM ${schema}.checkpoints WHERE thread_id = $1 AND checkpoint_id <> $2`, [threadId, newest]);
      await pool.query(`DELETE FROM ${schema}.checkpoint_writes WHERE thread_id = $1 AND checkpoint_id <> $2`, [threadId, newest]);
      await pool.query(
        `DELETE FROM ${schema}.checkpoint_blobs b WHERE b.thread_id = $1 AND NOT EXISTS (
           SELECT 1 FROM ${schema}.checkpoints c WHERE c.thread_id = b.thread_id AND c.checkpoint_ns = b.checkpoint_ns
             AND c.checkpoint -> 'channel_versions' ->> b.channel = b.version)`,
        [threadId],
      );
    },
    close: async () => {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
      await stopPglite?.();
    },
  };
}
