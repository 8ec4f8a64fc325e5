import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import type { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import type { PostgresStore } from "@langchain/langgraph-checkpoint-postgres/store";
import type { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { ThreadwiseConfigError, ThreadwiseError } from "@threadwise/core";
import type BetterSqlite3 from "better-sqlite3";
import type pg from "pg";

/**
 * The optional peer dependencies of each backend. `in_memory` and `off` need none of them, so an
 * install for those builds nothing native (better-sqlite3 is a native addon).
 */
export const BACKEND_PEERS = {
  sqlite: ["better-sqlite3", "@langchain/langgraph-checkpoint-sqlite"],
  postgres: ["pg", "@langchain/langgraph-checkpoint-postgres"],
} as const;

/** A backend that needs optional peers. */
export type PeerBackend = keyof typeof BACKEND_PEERS;

/**
 * A package the chosen backend needs is not installed. `packageName` is the missing package,
 * `backend` the backend that needs it; the message says what to install.
 */
export class ThreadwiseMissingPeerError extends ThreadwiseError {
  readonly packageName: string;
  readonly backend: PeerBackend;
  constructor(packageName: string, backend: PeerBackend, options?: { cause?: unknown }) {
    super(
      "THREADWISE_MISSING_PEER",
      `backend "${backend}" needs the package ${packageName}, which is not installed; install it (with the rest of what "${backend}" needs): npm install ${BACKEND_PEERS[backend].join(" ")}`,
      options,
    );
    this.packageName = packageName;
    this.backend = backend;
  }
  static override isInstance(error: unknown): error is ThreadwiseMissingPeerError {
    return ThreadwiseError.isInstance(error) && error.code === "THREADWISE_MISSING_PEER";
  }
}

/** `require` resolving from this package, where the peers are installed beside it. */
const requireFromHere = createRequire(import.meta.url);

function isMissing(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // Only the peer itself: a peer that is there but lacks one of its own dependencies is a different fault.
  return (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") && String((error as Error).message).includes(`'${name}'`);
}

/**
 * Loads optional peer `name` for `backend`, synchronously (`memoryStack()` is synchronous) and
 * only when that backend is chosen. Exported for tests; `load` replaces `require`.
 * @throws ThreadwiseMissingPeerError when the package is not installed.
 */
export function loadPeer<T>(name: string, backend: PeerBackend, load: (name: string) => unknown = requireFromHere): T {
  try {
    return load(name) as T;
  } catch (error) {
    if (isMissing(error, name)) throw new ThreadwiseMissingPeerError(name, backend, { cause: error });
    throw error;
  }
}

/** better-sqlite3's `Database` class (backend `sqlite`). @throws ThreadwiseMissingPeerError */
export function loadBetterSqlite3(): typeof BetterSqlite3 {
  const loaded = loadPeer<typeof BetterSqlite3 | { default: typeof BetterSqlite3 }>("better-sqlite3", "sqlite");
  return "default" in loaded && typeof loaded.default === "function" ? loaded.default : (loaded as typeof BetterSqlite3);
}

/**
 * Opens an existing SQLite memory file for an operation (prune, retention, erase-user, reencrypt),
 * never creating one: a mistyped path would otherwise report an empty store.
 * @throws ThreadwiseConfigError (`sqlitePath`) naming the path when no file is there;
 *   ThreadwiseMissingPeerError without better-sqlite3.
 */
export function openExistingSqliteFile(path: string): BetterSqlite3.Database {
  if (!existsSync(path))
    throw new ThreadwiseConfigError(
      "sqlitePath",
      `no SQLite memory file at ${resolve(path)} (--sqlite); give the file the agent's memoryStack writes (MEMORY_SQLITE_PATH, default ./<project>_memory.sqlite)`,
    );
  return new (loadBetterSqlite3())(path, { fileMustExist: true });
}

/** `@langchain/langgraph-checkpoint-sqlite`'s `SqliteSaver` (backend `sqlite`). @throws ThreadwiseMissingPeerError */
export function loadSqliteSaver(): typeof SqliteSaver {
  return loadPeer<{ SqliteSaver: typeof SqliteSaver }>("@langchain/langgraph-checkpoint-sqlite", "sqlite").SqliteSaver;
}

/** The `pg` module (backend `postgres`). @throws ThreadwiseMissingPeerError */
export function loadPg(): typeof pg {
  const loaded = loadPeer<typeof pg & { default?: typeof pg }>("pg", "postgres");
  return loaded.default ?? loaded;
}

/** `@langchain/langgraph-checkpoint-postgres`'s `PostgresSaver` (backend `postgres`). @throws ThreadwiseMissingPeerError */
export function loadPostgresSaver(): typeof PostgresSaver {
  return loadPeer<{ PostgresSaver: typeof PostgresSaver }>("@langchain/langgraph-checkpoint-postgres", "postgres").PostgresSaver;
}

/** `@langchain/langgraph-checkpoint-postgres/store`'s `PostgresStore` (user memory on postgres). @throws ThreadwiseMissingPeerError */
export function loadPostgresStore(): typeof PostgresStore {
  try {
    return loadPeer<{ PostgresStore: typeof PostgresStore }>("@langchain/langgraph-checkpoint-postgres/store", "postgres").PostgresStore;
  } catch (error) {
    // Missing under its subpath means the package is missing: name the package.
    if (ThreadwiseMissingPeerError.isInstance(error))
      throw new ThreadwiseMissingPeerError("@langchain/langgraph-checkpoint-postgres", "postgres", { cause: error });
    throw error;
  }
}
