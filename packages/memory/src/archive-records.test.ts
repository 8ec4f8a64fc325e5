import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import type { ArchiveCursor } from "@threadwise/core";
import { coveredDigestsOf } from "@threadwise/summarize";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ArchiveRecords } from "./archive-records.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

const dir = mkdtempSync(join(tmpdir(), "tw-archive-records-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const human = (id: string, text = id) => new HumanMessage({ id, content: text });
const ai = (id: string, text = id) => new AIMessage({ id, content: text });
const view = (messages: readonly BaseMessage[]) => messages.map((m) => `${m.id}:${String(m.content)}`);

const savers: Array<[string, () => { saver: ThreadwiseSaver; other?: () => ThreadwiseSaver }]> = [
  [
    "in_memory",
    () => {
      const inner = new MemorySaver();
      return { saver: new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner)) };
    },
  ],
  [
    "sqlite",
    () => {
      const path = join(dir, `${Math.random().toString(36).slice(2)}.db`);
      const open = () => {
        const db = new Database(path);
        return new ThreadwiseSaver(new SqliteSaver(db), new SqliteThreadRegistry(db));
      };
      return { saver: open(), other: open };
    },
  ],
];

describe.each(savers)("archive reads and writes (%s)", (_name, make) => {
  it("reads back in archive order after appends, a rewrite and an append after the rewrite", async () => {
    const { saver, other } = make();
    await saver.archiveMessages("t", [human("m1"), ai("m2")]);
    expect(view(await saver.archivedMessages("t"))).toEqual(["m1:m1", "m2:m2"]);
    // Appended after what this reader has cached.
    await saver.archiveMessages("t", [human("m3"), ai("m4")]);
    expect(view(await saver.archivedMessages("t"))).toEqual(["m1:m1", "m2:m2", "m3:m3", "m4:m4"]);
    // A rewrite (a crash between the archive write and the checkpoint write, then the batch again,
    // here with a changed text) keeps the row's place; a message new in the same batch goes last.
    await saver.archiveMessages("t", [human("m1", "m1 again"), human("m5")]);
    expect(view(await saver.archivedMessages("t"))).toEqual(["m1:m1 again", "m2:m2", "m3:m3", "m4:m4", "m5:m5"]);
    // The next new message goes after every earlier one, the rewritten row included.
    await saver.archiveMessages("t", [ai("m6")]);
    const expected = ["m1:m1 again", "m2:m2", "m3:m3", "m4:m4", "m5:m5", "m6:m6"];
    expect(view(await saver.archivedMessages("t"))).toEqual(expected);
    // Another reader (a replica) that never cached the thread reads the same.
    if (other) expect(view(await other().archivedMessages("t"))).toEqual(expected);
    // The newest ones only: from this reader's cache, and from the store by a reader that never cached the thread.
    expect(view(await saver.archivedMessages("t", { last: 2 }))).toEqual(expected.slice(-2));
    if (other) expect(view(await other().archivedMessages("t", { last: 2 }))).toEqual(expected.slice(-2));
    if (other) expect(view(await other().archivedMessages("t", { last: 100 }))).toEqual(expected);
    await expect(saver.archivedMessages("t", { last: 0 })).rejects.toThrow(/archivedMessages\.last/);
    // A misspelt option is refused by name (was: ignored, and the whole archive returned).
    await expect(saver.archivedMessages("t", { lats: 2 } as never)).rejects.toThrow(
      /archivedMessages\.lats: unknown option "lats"; did you mean "last"/,
    );
    // Another thread's archive is its own.
    expect(await saver.archivedMessages("u")).toEqual([]);
  });

  it("a registry read after a stamp returns only rows written later, in seq order", async () => {
    const { saver } = make();
    await saver.archiveMessages("t", [human("a"), ai("b")]);
    await saver.archiveMessages("t", [human("c")]);
    await saver.archiveMessages("t", [human("a", "a2")]);
    const registry = saver.registry;
    const all = await registry.readArchive("t", "default", 0);
    expect(all.stamp).toBe(3);
    expect(all.rows.map((row) => [row.messageId, row.seq, row.stamp])).toEqual([
      ["a", 1, 3],
      ["b", 2, 1],
      ["c", 3, 2],
    ]);
    expect((await registry.readArchive("t", "default", 1)).rows.map((row) => row.messageId)).toEqual(["a", "c"]);
    expect((await registry.readArchive("t", "default", 2)).rows.map((row) => row.messageId)).toEqual(["a"]);
    expect(await registry.readArchive("t", "default", 3)).toEqual({ stamp: 3, rows: [] });
    // The newest rows by seq (a row written again keeps its place), in seq order.
    expect((await registry.readArchiveTail("t", "default", 2)).map((row) => [row.messageId, row.seq])).toEqual([
      ["b", 2],
      ["c", 3],
    ]);
    expect((await registry.readArchiveTail("t", "default", 9)).map((row) => row.messageId)).toEqual(["a", "b", "c"]);
    expect(await registry.readArchiveTail("u", "default", 1)).toEqual([]);
    expect(await registry.readArchiveTail("t", "other-tenant", 1)).toEqual([]);
    // Membership by key, in the order asked, this tenant and thread only.
    expect(await registry.archivedAmong("t", "default", ["c", "zz", "a"])).toEqual(["c", "a"]);
    expect(await registry.archivedAmong("t", "other-tenant", ["a"])).toEqual([]);
    expect(await registry.archivedAmong("u", "default", ["a"])).toEqual([]);
  });

  it("the tail after a rewrite emptied the archive: the rows archived since, in seq order, never the marker", async () => {
    const { saver } = make();
    const registry = saver.registry;
    await saver.archiveMessages("t", [human("a"), ai("b")]);
    await registry.clearArchive("t", "default", "c");
    expect(await registry.readArchiveTail("t", "default", 5)).toEqual([]);
    await saver.archiveMessages("t", [human("c"), ai("d")]);
    await saver.archiveMessages("t", [human("e"), human("c", "c2")]);
    const tail = (last: number) => registry.readArchiveTail("t", "default", last).then((rows) => rows.map((row) => row.messageId));
    expect(await tail(9)).toEqual(["c", "d", "e"]);
    expect(await tail(2)).toEqual(["d", "e"]);
    expect(await tail(1)).toEqual(["e"]);
    const rows = await registry.readArchiveTail("t", "default", 3);
    expect(rows.map((row) => row.seq)).toEqual([...rows.map((row) => row.seq)].sort((x, y) => x - y));
    expect(rows[0]?.record).toBe((await registry.readArchive("t", "default", 0)).rows.find((row) => row.messageId === "c")?.record);
  });

  it("a tail read of a thread not cached decodes only the rows whose record changed since its previous tail read", async () => {
    const { saver, other } = make();
    const inner = (saver as unknown as { inner: MemorySaver }).inner;
    const records = new ArchiveRecords(saver.registry, inner, "default");
    const decodes = vi.spyOn(inner.serde, "loadsTyped");
    await records.write("t", [human("a"), ai("b"), human("c")]);
    const first = await records.messages("t", 2);
    expect(view(first)).toEqual(["b:b", "c:c"]);
    expect(decodes).toHaveBeenCalledTimes(2);
    // Read again, unchanged: the same decodes.
    const again = await records.messages("t", 2);
    expect(view(again)).toEqual(["b:b", "c:c"]);
    expect(decodes).toHaveBeenCalledTimes(2);
    // A row written again with other content (a crash between the two writes, then an edit) is decoded anew.
    await records.write("t", [human("c", "c2")]);
    expect(view(await records.messages("t", 1))).toEqual(["c:c2"]);
    expect(decodes).toHaveBeenCalledTimes(3);
    // A new row: only it is decoded; the row kept from the previous read is that read's.
    await records.write("t", [ai("d")]);
    expect(view(await records.messages("t", 2))).toEqual(["c:c2", "d:d"]);
    expect(decodes).toHaveBeenCalledTimes(4);
    // What a fresh process reads from the store is the same.
    const fresh = new ArchiveRecords((other ? other() : saver).registry, inner, "default");
    expect(view(await fresh.messages("t", 2))).toEqual(["c:c2", "d:d"]);
    // Another thread's tail is its own.
    await records.write("u", [human("c", "c of u")]);
    expect(view(await records.messages("u", 1))).toEqual(["c:c of u"]);
    // Of a longer read, only the newest 8 rows' decodes are kept.
    const many = Array.from({ length: 12 }, (_, i) => human(`v${i}`));
    await records.write("v", many);
    decodes.mockClear();
    expect(view(await records.messages("v", 12))).toEqual(view(many));
    expect(decodes).toHaveBeenCalledTimes(12);
    expect(view(await records.messages("v", 12))).toEqual(view(many));
    expect(decodes).toHaveBeenCalledTimes(16);
    decodes.mockRestore();
  });

  it("a checkpoint commit asked for the archive mark gets, with the lock, the one archiveMark reads in its write", async () => {
    const { saver } = make();
    const registry = saver.registry;
    const commit = (checkpointId: string, archiveTenantId?: string) => ({
      checkpointNs: "",
      parentId: undefined,
      checkpointId,
      startsRun: true,
      branch: true,
      leavesTurnOpen: false,
      turnLeaseMs: 0,
      ...(archiveTenantId === undefined ? {} : { archiveTenantId }),
    });
    // Each step: the mark handed with the lock (when the registry reads one then) and archiveMark's in the same write.
    const marks = async (checkpointId: string, tenant: string) =>
      registry.commitCheckpoint("t", commit(checkpointId, tenant), async (locked) => [
        locked.archiveMark,
        await registry.archiveMark("t", tenant),
      ]);
    const steps = [await marks("c0", "default")];
    await saver.archiveMessages("t", [human("a"), ai("b")]);
    steps.push(await marks("c1", "default"), await marks("c2", "other"));
    await registry.commitCheckpoint("t", commit("c3"), async () => registry.clearArchive("t", "default", "c"));
    steps.push(await marks("c4", "default"));
    await saver.archiveMessages("t", [human("c")]);
    steps.push(await marks("c5", "default"));
    // Where the default tenant's archive stood at c0, c1, c4 (after the rewrite), c5 (c2 asked for another tenant's).
    expect([0, 1, 3, 4].map((k) => steps[k]?.[1])).toEqual([
      { stamp: 0, seq: 0 },
      { stamp: 1, seq: 2 },
      { stamp: 2, seq: 0 },
      // seq starts again after a rewrite on SQLite and goes on in memory: either way above every row's before it.
      { stamp: 3, seq: registry.kind === "sqlite" ? 1 : 3 },
    ]);
    // SQLite and the in-memory registry read it with the lock (the same as archiveMark's); PostgreSQL leaves it to archiveMark.
    for (const [locked, read] of steps) expect(locked).toEqual(registry.kind === "postgres" ? undefined : read);
    // Without a tenant nothing is read with the lock.
    expect(await registry.commitCheckpoint("t", commit("c6"), async (locked) => locked.archiveMark)).toBeUndefined();
  });
});

/** Follows a thread's archive through `archivedChanges`, as recall does: what it read so far, and how. */
function follower(saver: ThreadwiseSaver, threadId: string) {
  let cursor: ArchiveCursor | undefined;
  let seen: BaseMessage[] = [];
  const reads: Array<"appended" | "whole"> = [];
  return {
    reads,
    async read(): Promise<string[]> {
      const changes = await saver.archivedChanges(threadId, cursor);
      seen = changes.appended ? [...seen, ...changes.messages] : [...changes.messages];
      reads.push(changes.appended ? "appended" : "whole");
      cursor = changes.cursor;
      return view(seen);
    },
  };
}

describe.each(savers)("archive changes since a cursor (%s)", (_name, make) => {
  // Issue 27: recall reads what the archive gained at each model call; what it holds after a read
  // must be what a whole read (and a fresh process) returns, whatever happened to the rows.
  it("appended rows when the archive only grew; the whole archive after a row written again, a rewrite, a deletion", async () => {
    const { saver, other } = make();
    const follow = follower(saver, "t");
    const whole = async () => view(await saver.archivedMessages("t"));
    expect(await follow.read()).toEqual([]);
    await saver.archiveMessages("t", [human("m1"), ai("m2")]);
    expect(await follow.read()).toEqual(await whole());
    await saver.archiveMessages("t", [human("m3")]);
    expect(await follow.read()).toEqual(await whole());
    expect(await follow.read()).toEqual(await whole());
    // Another process appends: read as appended rows too.
    if (other) await other().archiveMessages("t", [ai("m4")]);
    else await saver.archiveMessages("t", [ai("m4")]);
    expect(await follow.read()).toEqual(await whole());
    expect(follow.reads).toEqual(["whole", "appended", "appended", "appended", "appended"]);
    // A row written again (a batch after a crash, here with another text): not a pure append.
    await saver.archiveMessages("t", [human("m1", "m1 again"), human("m5")]);
    expect(await follow.read()).toEqual(["m1:m1 again", "m2:m2", "m3:m3", "m4:m4", "m5:m5"]);
    expect(follow.reads.at(-1)).toBe("whole");
    // A rewrite empties the archive (a marker row), then archiving goes on under the same ids.
    await saver.registry.clearArchive("t", "default", "m5");
    expect(await follow.read()).toEqual([]);
    await saver.archiveMessages("t", [human("m1", "m1 third"), ai("m2", "m2 again")]);
    expect(await follow.read()).toEqual(["m1:m1 third", "m2:m2 again"]);
    expect(await follow.read()).toEqual(await whole());
    // A deletion: nothing is read back.
    await saver.deleteThread("t");
    expect(await follow.read()).toEqual([]);
    expect(follow.reads.slice(-5)).toEqual(["whole", "whole", "appended", "appended", "whole"]);
    // A cursor of another saver (another process) is not this one's: the whole archive.
    await saver.archiveMessages("v", [human("x1")]);
    const mine = await saver.archivedChanges("v");
    if (other) {
      const replica = other();
      const theirs = await replica.archivedChanges("v", mine.cursor);
      expect([theirs.appended, view(theirs.messages)]).toEqual([false, ["x1:x1"]]);
    }
  });
});

describe.each(savers)("archive rows in deletion reports (%s)", (_name, make) => {
  it("a rewrite's marker stored by an earlier version (the first id alone) reads as before: no digests", async () => {
    const { saver, other } = make();
    await saver.archiveMessages("t", [human("m1"), ai("m2")]);
    expect(await saver.archiveClearedDigests("t")).toBeUndefined();
    // What the previous version's rewrite stored: the marker's record is the first id.
    await saver.registry.clearArchive("t", "default", "m3");
    expect(await saver.archivedMessages("t")).toEqual([]);
    expect(await saver.archiveClearedDigests("t")).toBeUndefined();
    if (other) expect(await other().archiveClearedDigests("t")).toBeUndefined();
  });

  it("a rewrite's digests prepared before the lock (prepareClear) are the marker's only while the archive is unchanged", async () => {
    const { saver, other } = make();
    const inner = (saver as unknown as { inner: MemorySaver }).inner;
    const records = new ArchiveRecords(saver.registry, inner, "default");
    const all = [human("m1"), ai("m2"), human("m3", "작년 봄에 부산으로 이사했어요")];
    await records.write("t", all.slice(0, 2));
    await records.prepareClear("t");
    // Another writer (a replica) archives m3 after the digests were prepared, before the rewrite's lock.
    await (other ? new ArchiveRecords(other().registry, inner, "default") : records).write("t", all.slice(2));
    await records.clear("t", "x");
    expect(await records.clearedDigests("t")).toBe(coveredDigestsOf(all));
    // Prepared and unchanged since: the prepared digests are stored, and they are those of the archive.
    await records.write("u", all);
    await records.prepareClear("u");
    await records.clear("u", "x");
    expect(await records.clearedDigests("u")).toBe(coveredDigestsOf(all));
    if (other) expect(await other().archiveClearedDigests("u")).toBe(coveredDigestsOf(all));
  });

  it("describe and a deletion's outcome count the thread's archived messages; nothing is left after", async () => {
    const { saver } = make();
    await saver.archiveMessages("t", [human("a"), ai("b"), human("c")]);
    await saver.archiveMessages("u", [human("x")]);
    expect((await saver.registry.describe("t"))?.archived).toBe(3);
    const outcome = await saver.deleteThreadWithOutcome("t");
    expect(outcome).toMatchObject({ status: "deleted", counts: { archived: 3 } });
    expect(await saver.archivedMessages("t")).toEqual([]);
    expect((await saver.registry.describe("u"))?.archived).toBe(1);
  });
});

describe("the in-memory registry's tail read (issue 27)", () => {
  it("reads only the newest rows, not every row of the archive, and the same rows as a whole read", async () => {
    const inner = new MemorySaver();
    const registry = new MemoryThreadRegistry(inner);
    const rows = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ messageId: `m${from + i}`, record: `r${from + i}` }));
    for (let b = 0; b < 40; b += 1) await registry.archiveMessages("t", "default", rows(b * 50, 50));
    // A row written again keeps its place; new ones go last.
    await registry.archiveMessages("t", "default", [{ messageId: "m1999", record: "again" }, ...rows(2000, 2)]);
    // Every Map walk while the tail is read: none may be of the archive's 2,002 rows (was: all of them copied at every read).
    const walked: number[] = [];
    type Walk = (this: Map<unknown, unknown>, ...args: unknown[]) => unknown;
    const proto = Map.prototype as unknown as Record<string | symbol, Walk>;
    const originals = (["values", "keys", "entries", "forEach", Symbol.iterator] as const).map(
      (name) => [name, proto[name] as Walk] as const,
    );
    for (const [name, original] of originals)
      proto[name] = function (this: Map<unknown, unknown>, ...args: unknown[]) {
        walked.push(this.size);
        return original.apply(this, args);
      };
    let tail: Awaited<ReturnType<MemoryThreadRegistry["readArchiveTail"]>>;
    try {
      tail = await registry.readArchiveTail("t", "default", 3);
    } finally {
      for (const [name, original] of originals) proto[name] = original;
    }
    expect(walked.filter((size) => size > 100)).toEqual([]);
    const whole = (await registry.readArchive("t", "default", 0)).rows;
    expect(tail).toEqual(whole.slice(-3));
    expect(tail.map((row) => [row.messageId, row.record])).toEqual([
      ["m1999", "again"],
      ["m2000", "r2000"],
      ["m2001", "r2001"],
    ]);
    // Copies: changing a row read leaves the stored one as it was.
    (tail[0] as { record: string }).record = "changed";
    expect((await registry.readArchiveTail("t", "default", 3))[0]?.record).toBe("again");
    // After a rewrite emptied it, the rows archived since, never the marker.
    await registry.clearArchive("t", "default", "m0");
    await registry.archiveMessages("t", "default", rows(5000, 2));
    expect((await registry.readArchiveTail("t", "default", 5)).map((row) => row.messageId)).toEqual(["m5000", "m5001"]);
  });
});
