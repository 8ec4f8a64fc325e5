/**
 * Retention's index on SQLite (spec R23, schema version 9, issue 27): `threadwise_threads_idle`
 * holds the hour of each live thread's `updated_at`, set by triggers only when the hour changes,
 * so a step's commits within an hour leave the index's pages as they are (each wrote one WAL frame
 * of its own with the index on `updated_at`). `updated_at` itself stays exact: listing idle
 * threads and deleting one under `idleBefore` answer as the in-memory registry does, over random
 * sequences of steps, pending writes, touches and clocks crossing hours. A file of version 8 is
 * migrated on open (its index replaced, every row's hour set), and an older release writing
 * `updated_at` alone keeps the hour right through the triggers.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, MemorySaver, uuid6 } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import {
  type CheckpointCommit,
  MemoryThreadRegistry,
  SQLITE_SCHEMA_VERSION,
  SqliteThreadRegistry,
  type ThreadRegistry,
  ThreadwiseSaver,
} from "@threadwise/memory";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { WalFrameCounter } from "../bench/support/wal-frames.js";

const dir = mkdtempSync(join(tmpdir(), "threadwise-idle-hour-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HOUR_MS = 3_600_000;
/** A clock well past the epoch, 10 minutes into an hour. */
const START_MS = Date.UTC(2026, 11, 7, 9, 10);
const newFile = () => join(dir, `idle-${uuid6(-1)}.sqlite`);

describe("a step's commits on SQLite leave retention's index as it is within an hour", () => {
  it("no WAL frame of threadwise_threads_idle over 3 turns a second apart (6 checkpoints, 6 write batches), updated_at exact; the next hour's first commit moves it", async () => {
    const db = new Database(newFile());
    let clock = START_MS;
    const registry = new SqliteThreadRegistry(db, { now: () => clock });
    const saver = new ThreadwiseSaver(new SqliteSaver(db), registry, { turnLeaseMs: 0 });
    const frames = new WalFrameCounter(db);
    const updatedAt = () => db.prepare("SELECT updated_at FROM threadwise_threads WHERE thread_id = 't'").pluck().get();
    let parent: string | undefined;
    let step = -1;
    const turn = async () => {
      for (const source of ["input", "loop"] as const) {
        const checkpoint = {
          ...emptyCheckpoint(),
          id: uuid6(step),
          channel_values: { messages: [new HumanMessage({ id: `m${step}`, content: `안녕하세요 hello ${step}` })] },
        };
        const config = { configurable: { thread_id: "t", checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } };
        const stored = await saver.put(config, checkpoint, { source, step, parents: {} }, {});
        // The batch comes later than the checkpoint (a row written again with the same bytes is no page write).
        clock += 100;
        await saver.putWrites(stored, [["messages", [`답 answer ${step}`]]], `task-${step}`);
        expect(updatedAt()).toBe(clock);
        parent = checkpoint.id;
        step += 1;
      }
    };
    await turn(); // creates the thread's row and its index entry
    frames.read(false);
    for (let i = 0; i < 3; i += 1) {
      clock += 1000;
      await turn();
    }
    frames.read();
    // 12 commits (6 checkpoints, 6 write batches), each writing the thread's row: none wrote the index.
    expect(frames.counts.commits).toBe(12);
    expect(frames.counts.byOwner.get("threadwise_threads")).toBe(12);
    expect(frames.counts.byOwner.get("threadwise_threads_idle") ?? 0).toBe(0);
    // The hour turns: the first commit after it moves the thread's entry, the next ones do not.
    clock = START_MS - (START_MS % HOUR_MS) + HOUR_MS + 5;
    await turn();
    frames.read();
    expect(frames.counts.byOwner.get("threadwise_threads_idle")).toBe(1);
    expect(db.prepare("SELECT idle_hour FROM threadwise_threads WHERE thread_id = 't'").pluck().get()).toBe(Math.trunc(clock / HOUR_MS));
    expect((await registry.listIdle(new Date(clock + 1))).map((thread) => [thread.threadId, thread.updatedAt.getTime()])).toEqual([
      ["t", clock],
    ]);
    expect(await registry.listIdle(new Date(clock))).toEqual([]);
    db.close();
  });
});

/** One call: a step's checkpoint on a thread's head, a write batch on it, a touch, the clock, a listing or a deletion under `idleBefore`. */
type Op =
  | { kind: "put" | "writes" | "touch"; thread: number }
  | { kind: "advance"; ms: number }
  | { kind: "list"; backMs: number; limit: number }
  | { kind: "delete"; thread: number; backMs: number };

const THREADS = ["t0", "스레드-1", "t2", "대화-3"];
const thread = fc.integer({ min: 0, max: THREADS.length - 1 });
/** Back from the clock: within the hour, across one or two (a listing's `idleBefore`). */
const back = fc.oneof(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 3 * HOUR_MS }));
const ops = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constantFrom("put" as const, "writes" as const, "touch" as const), thread }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("advance" as const),
        ms: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.integer({ min: HOUR_MS - 2000, max: HOUR_MS + 2000 })),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("list" as const), backMs: back, limit: fc.integer({ min: 1, max: 5 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("delete" as const), thread, backMs: back }) },
  ),
  { maxLength: 40 },
);

/** A registry on a fresh store, and how a checkpoint is stored in the saver's own table. */
function openRegistry(
  kind: "in_memory" | "sqlite",
  now: () => number,
): { registry: ThreadRegistry; store: (thread: string, id: string) => void } {
  if (kind === "in_memory") {
    const saver = new MemorySaver();
    const storage = saver.storage as Record<string, Record<string, Record<string, unknown>>>;
    return {
      registry: new MemoryThreadRegistry(saver, { now }),
      store: (thread, id) => {
        storage[thread] ??= { "": {} };
        (storage[thread][""] as Record<string, unknown>)[id] = {};
      },
    };
  }
  const db = new Database(newFile());
  const registry = new SqliteThreadRegistry(db, { now });
  const insert = db.prepare(
    "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) VALUES (?, '', ?, 'json', '{}', '{}')",
  );
  return { registry, store: (thread, id) => void insert.run(thread, id) };
}

/** What each call answered (idle listings as thread, time; ties in id order, the limit applied after), the refusals by name. */
async function run(kind: "in_memory" | "sqlite", sequence: readonly Op[]): Promise<unknown[]> {
  let clock = START_MS;
  const { registry, store } = openRegistry(kind, () => clock);
  const seen: unknown[] = [];
  const refused = (error: unknown) => ({ refused: (error as Error).name });
  // SQLite's order and limit as it answers; the in-memory registry's ties put in id order, its limit applied after.
  const idle = async (before: number, limit: number) => {
    const listed = (await registry.listIdle(new Date(before), kind === "sqlite" ? limit : undefined)).map(
      (info) => [info.threadId, info.updatedAt.getTime()] as const,
    );
    if (kind === "in_memory") listed.sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
    return listed.slice(0, limit);
  };
  for (const [i, op] of sequence.entries()) {
    if (op.kind === "advance") clock += op.ms;
    else if (op.kind === "list") seen.push(await idle(clock - op.backMs, op.limit));
    else if (op.kind === "delete") {
      const outcome = await registry.deleteThread(THREADS[op.thread] as string, { idleBefore: new Date(clock - op.backMs) });
      seen.push(outcome.status);
    } else {
      const id = THREADS[op.thread] as string;
      const head = (await registry.head(id))?.checkpointId;
      if (op.kind === "touch") seen.push(await registry.touch(id).catch(refused));
      else if (op.kind === "writes") {
        if (head !== undefined)
          seen.push(
            await registry.commitWrites(id, { checkpointNs: "", checkpointId: head, endsTurn: false }, async () => {}).catch(refused),
          );
      } else {
        const commit: CheckpointCommit = {
          checkpointNs: "",
          parentId: head,
          checkpointId: `c${i}`,
          startsRun: false,
          branch: false,
          leavesTurnOpen: false,
          turnLeaseMs: 0,
        };
        seen.push(
          await registry
            .commitCheckpoint(id, commit, async () => {
              store(id, commit.checkpointId);
              return "stored";
            })
            .catch(refused),
        );
      }
    }
    seen.push((await registry.describe(THREADS[0] as string))?.updatedAt.getTime());
  }
  seen.push(await idle(clock + 1, THREADS.length));
  return seen;
}

describe("retention on SQLite answers as the in-memory registry (updated_at exact, the index by hour)", () => {
  it("lists idle threads and deletes under idleBefore alike over random steps, writes, touches and clocks crossing hours", async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (sequence) => {
        expect(await run("sqlite", sequence)).toEqual(await run("in_memory", sequence));
      }),
      { seed: 537, numRuns: 100 },
    );
  });
});

describe("a SQLite file of schema version 8 is migrated to 9 on open", () => {
  it("its index on updated_at becomes one on the hour, every row's hour set; lists as before; a writer of version 8 keeps the hour right", async () => {
    const path = newFile();
    let clock = START_MS;
    const first = new Database(path);
    const firstRegistry = new SqliteThreadRegistry(first, { now: () => clock });
    for (const [i, id] of THREADS.entries()) {
      clock = START_MS + i * HOUR_MS + i;
      await firstRegistry.touch(id);
    }
    // Back to version 8's layout: no hour column, no trigger, the index on updated_at.
    first.exec(`DROP TRIGGER threadwise_threads_idle_hour_insert; DROP TRIGGER threadwise_threads_idle_hour_update;
      DROP INDEX threadwise_threads_idle; ALTER TABLE threadwise_threads DROP COLUMN idle_hour;
      CREATE INDEX threadwise_threads_idle ON threadwise_threads (updated_at) WHERE deleted_at IS NULL;
      UPDATE threadwise_schema_version SET version = 8 WHERE component = 'threadwise'`);
    first.close();
    const db = new Database(path);
    const layout = () => ({
      indexed: db.prepare("SELECT name FROM pragma_index_info('threadwise_threads_idle')").pluck().all(),
      triggers: db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'threadwise_threads' ORDER BY name")
        .pluck()
        .all(),
      version: db.prepare("SELECT version FROM threadwise_schema_version WHERE component = 'threadwise'").pluck().get(),
    });
    expect(layout()).toEqual({ indexed: ["updated_at"], triggers: [], version: 8 });
    const registry = new SqliteThreadRegistry(db, { now: () => clock });
    expect(layout()).toEqual({
      indexed: ["idle_hour"],
      triggers: ["threadwise_threads_idle_hour_insert", "threadwise_threads_idle_hour_update"],
      version: SQLITE_SCHEMA_VERSION,
    });
    expect(SQLITE_SCHEMA_VERSION).toBe(9);
    const hours = () =>
      db.prepare("SELECT thread_id, updated_at, idle_hour FROM threadwise_threads ORDER BY updated_at").all() as Array<{
        thread_id: string;
        updated_at: number;
        idle_hour: number;
      }>;
    expect(hours().map((row) => [row.thread_id, row.idle_hour - Math.trunc(row.updated_at / HOUR_MS)])).toEqual(
      THREADS.map((id) => [id, 0]),
    );
    expect((await registry.listIdle(new Date(START_MS + 2 * HOUR_MS + 2))).map((thread) => thread.threadId)).toEqual(["t0", "스레드-1"]);
    expect((await registry.listIdle(new Date(START_MS + 2 * HOUR_MS + 3))).map((thread) => thread.threadId)).toEqual([
      "t0",
      "스레드-1",
      "t2",
    ]);
    // A writer of version 8 sets updated_at alone (its lock row's touch): the trigger moves the hour.
    db.prepare("UPDATE threadwise_threads SET updated_at = ? WHERE thread_id = 't0'").run(START_MS + 5 * HOUR_MS);
    expect(hours().every((row) => row.idle_hour === Math.trunc(row.updated_at / HOUR_MS))).toBe(true);
    expect((await registry.listIdle(new Date(START_MS + 5 * HOUR_MS))).map((thread) => thread.threadId)).toEqual([
      "스레드-1",
      "t2",
      "대화-3",
    ]);
    // Opening again migrates nothing more.
    new SqliteThreadRegistry(db, { now: () => clock });
    expect(layout().indexed).toEqual(["idle_hour"]);
    db.close();
  });
});
