/**
 * `ThreadwiseSaverOptions.archive`: a saver without the archive stores a checkpoint's metadata as
 * given (as LangGraph's savers do) on a thread whose archive never held a message; the archive's
 * mark is stored wherever the archive needs it (a saver with the archive, a thread that has one,
 * a saver a `messageArchive` was built on).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, MemorySaver, uuid6 } from "@langchain/langgraph-checkpoint";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { messageArchive } from "./message-archive.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import { ARCHIVE_MARK_METADATA_KEY, ThreadwiseSaver, type ThreadwiseSaverOptions } from "./threadwise-saver.js";

const dir = mkdtempSync(join(tmpdir(), "tw-archive-mark-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const savers: Array<[string, (options: ThreadwiseSaverOptions) => ThreadwiseSaver]> = [
  [
    "in_memory",
    (options) => {
      const inner = new MemorySaver();
      return new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner), options);
    },
  ],
  [
    "sqlite",
    (options) => {
      const db = new Database(join(dir, `${uuid6(-1)}.db`));
      return new ThreadwiseSaver(new SqliteSaver(db), new SqliteThreadRegistry(db), { ...options, close: async () => void db.close() });
    },
  ],
];

/** Stores a checkpoint without tasks on top of `parentId` (no run: no turn lease) and returns its stored metadata. */
async function stored(saver: ThreadwiseSaver, id: string, parentId?: string) {
  const checkpoint = { ...emptyCheckpoint(), id, channel_values: { messages: [new HumanMessage({ id: `m-${id}`, content: id })] } };
  const metadata = { source: "loop" as const, step: 0, parents: {}, user_key: "kept" };
  const config = { configurable: { thread_id: "t", checkpoint_ns: "", ...(parentId ? { checkpoint_id: parentId } : {}) } };
  await saver.put(config, checkpoint, metadata, {});
  const tuple = await saver.getTuple({ configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: id } });
  return tuple?.metadata as Record<string, unknown>;
}

describe.each(savers)("the archive mark in checkpoint metadata (%s)", (_name, make) => {
  it("without the archive, a thread whose archive never held a message keeps its metadata as given", async () => {
    const saver = make({ archive: false });
    expect(await stored(saver, uuid6(-1))).toEqual({ source: "loop", step: 0, parents: {}, user_key: "kept" });
    await saver.close();
  });

  it("with the archive (the default), every root checkpoint is marked, an empty archive's too", async () => {
    const saver = make({});
    expect((await stored(saver, uuid6(-1)))[ARCHIVE_MARK_METADATA_KEY]).toEqual({ stamp: 0, seq: 0 });
    await saver.close();
  });

  it("without the archive, a thread that has one keeps getting marks (its forks and readThread need them)", async () => {
    const saver = make({ archive: false });
    const first = uuid6(-1);
    expect(await stored(saver, first)).not.toHaveProperty(ARCHIVE_MARK_METADATA_KEY);
    await saver.archiveMessages("t", [new HumanMessage({ id: "old", content: "old" })]);
    const mark = (await stored(saver, uuid6(-1), first))[ARCHIVE_MARK_METADATA_KEY] as { stamp: number; seq: number };
    expect(mark.stamp).toBeGreaterThan(0);
    await saver.close();
  });

  it("a saver made without the archive marks every checkpoint once a messageArchive is built on it", async () => {
    const saver = make({ archive: false });
    messageArchive(saver);
    expect((await stored(saver, uuid6(-1)))[ARCHIVE_MARK_METADATA_KEY]).toEqual({ stamp: 0, seq: 0 });
    await saver.close();
  });
});
