import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, describe, expect, it } from "vitest";
import { loadBetterSqlite3 } from "./optional-peers.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";

const dir = mkdtempSync(join(tmpdir(), "threadwise-sqlite-open-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Another connection (a worker thread, as another process would) holds the file's write lock (BEGIN IMMEDIATE)
 * for `holdMs`, then commits. Resolves once the lock is held.
 */
function holdLock(file: string, holdMs: number): Promise<Worker> {
  const betterSqlite3 = createRequire(import.meta.url).resolve("better-sqlite3");
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     const Database = require(workerData.betterSqlite3);
     const db = new Database(workerData.file);
     db.exec("BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS other_app (x INTEGER);");
     parentPort.postMessage("locked");
     setTimeout(() => { db.exec("COMMIT"); db.close(); parentPort.postMessage("released"); }, workerData.holdMs);`,
    { eval: true, workerData: { file, betterSqlite3, holdMs } },
  );
  return new Promise((resolve, reject) => {
    worker.once("message", () => resolve(worker));
    worker.once("error", reject);
  });
}

describe("SqliteThreadRegistry on a file another process is writing", () => {
  it("opens it once the other writer commits (SQLite refuses the switch to WAL at once while a write lock is held) instead of failing SQLITE_BUSY", async () => {
    const file = join(dir, "busy.sqlite");
    const worker = await holdLock(file, 400);
    const Database = loadBetterSqlite3();
    const db = new Database(file);
    try {
      // Synchronous: SQLite's busy handler waits while the worker thread still runs and commits.
      const registry = new SqliteThreadRegistry(db);
      expect(await registry.head("t")).toBeUndefined();
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    } finally {
      db.close();
      await worker.terminate();
    }
  });
});
