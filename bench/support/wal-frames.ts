/**
 * `--wal-frames` (bench/replay-cost.ts, SQLite): the pages each step wrote to the write-ahead log,
 * by the table or index that owns each page, and the commits among them. Read from the `-wal`
 * file itself (its frame headers: page number, and the database size on a commit's last frame),
 * so the count does not depend on the machine's load. Format: https://www.sqlite.org/fileformat2.html#walformat
 */
import { existsSync, readFileSync } from "node:fs";
import type Database from "better-sqlite3";

/** Bytes of the WAL file's header and of each frame's header. */
const WAL_HEADER_BYTES = 32;
const FRAME_HEADER_BYTES = 24;

/** One frame of a WAL: the page it holds, and whether it ends a transaction (a commit frame). */
export interface WalFrame {
  page: number;
  commit: boolean;
}

/**
 * The frames of a WAL file's bytes `wal` (its header included), in order, up to the last whole
 * frame whose salts are the header's (frames left from before the log restarted carry older salts
 * and end the read). An empty or shorter buffer has none.
 * @throws Error when `wal` is not a WAL file (magic number).
 */
export function walFramesOf(wal: Buffer): WalFrame[] {
  if (wal.length < WAL_HEADER_BYTES) return [];
  const magic = wal.readUInt32BE(0);
  if (magic !== 0x377f0682 && magic !== 0x377f0683) throw new Error(`not a WAL file (magic 0x${magic.toString(16)})`);
  const frameBytes = FRAME_HEADER_BYTES + wal.readUInt32BE(8);
  const salt1 = wal.readUInt32BE(16);
  const salt2 = wal.readUInt32BE(20);
  const frames: WalFrame[] = [];
  let at = WAL_HEADER_BYTES;
  while (at + frameBytes <= wal.length && wal.readUInt32BE(at + 8) === salt1 && wal.readUInt32BE(at + 12) === salt2) {
    frames.push({ page: wal.readUInt32BE(at), commit: wal.readUInt32BE(at + 4) !== 0 });
    at += frameBytes;
  }
  return frames;
}

/** Frames and commits so far, and the frames by the table or index owning each page (`(free)`: a page on the free list when read). */
export interface WalFrameCounts {
  frames: number;
  commits: number;
  byOwner: Map<string, number>;
}

/**
 * Counts what connection `db` (a file in WAL mode, this process its only user) writes to its
 * WAL: {@link WalFrameCounter.read} adds the frames written since the last read, each billed to
 * the owner of its page at that moment (`dbstat`), then empties the log
 * (`wal_checkpoint(TRUNCATE)`), so nothing is overwritten unread. Automatic checkpoints are turned
 * off on `db`: each checkpoint happens at a read, between the bench's steps (the CPU figures of
 * such a run are not comparable with others').
 */
export class WalFrameCounter {
  readonly #db: Database.Database;
  readonly #path: string;
  readonly counts: WalFrameCounts = { frames: 0, commits: 0, byOwner: new Map() };

  constructor(db: Database.Database) {
    this.#db = db;
    this.#path = `${db.name}-wal`;
    db.pragma("wal_autocheckpoint = 0");
  }

  /**
   * Adds the frames written since the last read to {@link counts} when `count` (else reads them
   * past: a prune's), and empties the log.
   * @throws Error when the log could not be emptied (a transaction open on the file).
   */
  read(count = true): void {
    const frames = existsSync(this.#path) ? walFramesOf(readFileSync(this.#path)) : [];
    if (count && frames.length > 0) {
      const owners = new Map<number, string>();
      for (const row of this.#db.prepare("SELECT name, pageno FROM dbstat").all() as Array<{ name: string; pageno: number }>)
        owners.set(row.pageno, row.name);
      for (const frame of frames) {
        const owner = owners.get(frame.page) ?? "(free)";
        this.counts.byOwner.set(owner, (this.counts.byOwner.get(owner) ?? 0) + 1);
        this.counts.frames += 1;
        if (frame.commit) this.counts.commits += 1;
      }
    }
    const [result] = this.#db.pragma("wal_checkpoint(TRUNCATE)") as Array<{ busy: number }>;
    if (result?.busy) throw new Error("--wal-frames: the WAL could not be emptied (a transaction is open on the file)");
  }
}
