/**
 * bench/replay-cost.ts `--wal-frames` reads SQLite's write-ahead log itself: each frame's page and
 * whether it ends a transaction, up to the first frame of an older generation of the log, billed
 * to the table or index owning the page.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { WalFrameCounter, walFramesOf } from "../bench/support/wal-frames.js";

const dir = mkdtempSync(join(tmpdir(), "threadwise-wal-frames-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A file in WAL mode with automatic checkpoints off (every frame stays in the log). */
function walFile(name: string): Database.Database {
  const db = new Database(join(dir, name));
  db.pragma("journal_mode = WAL");
  db.pragma("wal_autocheckpoint = 0");
  return db;
}

describe("walFramesOf", () => {
  it("gives each frame's page and marks each transaction's last frame as its commit", () => {
    const db = walFile("frames.db");
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)");
    for (const body of ["안녕하세요", "hello", "x".repeat(10_000)]) db.prepare("INSERT INTO t (body) VALUES (?)").run(body);
    db.transaction(() => {
      db.prepare("UPDATE t SET body = 'a' WHERE id = 1").run();
      db.prepare("UPDATE t SET body = 'b' WHERE id = 2").run();
    })();
    const frames = walFramesOf(readFileSync(join(dir, "frames.db-wal")));
    // Five transactions: the table's creation, three inserts, one update of two rows (one page).
    expect(frames.filter((frame) => frame.commit)).toHaveLength(5);
    expect(frames.at(-1)?.commit).toBe(true);
    // The 10,000-byte row spills to overflow pages: its transaction writes more than one page.
    expect(frames.length).toBeGreaterThan(5);
    expect(frames.every((frame) => frame.page >= 1)).toBe(true);
    db.close();
  });

  it("stops at the first frame whose salts are not the header's (left from an older log), and refuses a file that is not a WAL", () => {
    const db = walFile("stale.db");
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    db.prepare("INSERT INTO t DEFAULT VALUES").run();
    const wal = Buffer.from(readFileSync(join(dir, "stale.db-wal")));
    const all = walFramesOf(wal);
    expect(all.length).toBeGreaterThan(1);
    const pageSize = wal.readUInt32BE(8);
    // The second frame's first salt changed: only the first frame is read.
    wal.writeUInt32BE((wal.readUInt32BE(32 + 24 + pageSize + 8) + 1) >>> 0, 32 + 24 + pageSize + 8);
    expect(walFramesOf(wal)).toEqual(all.slice(0, 1));
    expect(walFramesOf(Buffer.alloc(0))).toEqual([]);
    expect(() => walFramesOf(Buffer.alloc(64))).toThrow(/not a WAL file/);
    db.close();
  });
});

describe("WalFrameCounter", () => {
  it("bills each frame to the table or index owning its page, counts commits, skips a reading not counted, and empties the log", () => {
    const db = walFile("counter.db");
    db.pragma("wal_autocheckpoint = 1000");
    const counter = new WalFrameCounter(db);
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    db.exec("CREATE TABLE notes (id TEXT PRIMARY KEY, body TEXT); CREATE INDEX notes_body ON notes (body)");
    counter.read(false);
    expect(counter.counts).toEqual({ frames: 0, commits: 0, byOwner: new Map() });
    expect(statSync(join(dir, "counter.db-wal")).size).toBe(0);
    db.prepare("INSERT INTO notes (id, body) VALUES (?, ?)").run("a", "한국어 메모");
    db.prepare("INSERT INTO notes (id, body) VALUES (?, ?)").run("b", "an English note");
    counter.read();
    // Each insert writes the table's page, its key's index page and notes_body's page.
    expect(counter.counts.commits).toBe(2);
    expect(counter.counts.frames).toBe(6);
    expect(Object.fromEntries(counter.counts.byOwner)).toEqual({ notes: 2, sqlite_autoindex_notes_1: 2, notes_body: 2 });
    expect(statSync(join(dir, "counter.db-wal")).size).toBe(0);
    db.close();
  });
});
