import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { type ArchiveCursor, type ArchivedChangesReader, withArchived } from "@threadwise/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ArchiveMirror } from "./archive-mirror.js";
import { MessageIndex } from "./message-index.js";
import { fresh, snapshot, WORDS } from "./test-support/index-snapshot.js";

// Issue 27: recall syncs its index with the archive and the stored thread reading only what the
// archive gained; whatever happens to either, the index equals a fresh one of the whole thread
// (core withArchived: what a process that never saw the thread builds from stored state).

/** An archive as a saver keeps it, with a changes reader of core's contract (epoch + count cursor). */
class FakeArchive {
  rows: BaseMessage[] = [];
  #epoch = {};
  reads = { appended: 0, whole: 0 };
  /** Resolves each read after this many ticks (0: at once), so calls can interleave. */
  delay = 0;

  append(messages: readonly BaseMessage[]): void {
    this.rows.push(...messages);
  }

  /** A rewrite, a deletion and import again, a row written again: not a pure append. */
  replace(messages: readonly BaseMessage[]): void {
    this.rows = [...messages];
    this.#epoch = {};
  }

  /** The reader's copy dropped (evicted; another saver): same rows, old cursors unknown. */
  forget(): void {
    this.#epoch = {};
  }

  read: ArchivedChangesReader = async (_threadId, since) => {
    for (let i = 0; i < this.delay; i += 1) await Promise.resolve();
    const previous = since as unknown as { epoch: object; count: number } | undefined;
    const cursor = { epoch: this.#epoch, count: this.rows.length } as unknown as ArchiveCursor;
    if (previous?.epoch === this.#epoch && previous.count <= this.rows.length) {
      this.reads.appended += 1;
      return { cursor, appended: true, messages: this.rows.slice(previous.count) };
    }
    this.reads.whole += 1;
    return { cursor, appended: false, messages: this.rows.slice() };
  };
}

/** Counts the syncs that vouched for a prefix and compared only the rest. */
class CountingIndex extends MessageIndex {
  tails: Array<{ unchanged: number; tail: number }> = [];
  override syncTail(unchanged: number, tail: readonly BaseMessage[]) {
    const result = super.syncTail(unchanged, tail);
    if (result && unchanged > 0) this.tails.push({ unchanged, tail: tail.length });
    return result;
  }
}

let counter = 0;
const nextId = () => `m${counter++}`;
const textOf = (words: readonly number[]) => words.map((w) => WORDS[w % WORDS.length]).join(" ");
const message = (role: "user" | "ai", words: readonly number[], id = nextId()) =>
  role === "user" ? new HumanMessage({ id, content: textOf(words) }) : new AIMessage({ id, content: textOf(words) });

type Op =
  | { kind: "user" | "ai"; words: number[] }
  | { kind: "archive-write" | "archive-move"; count: number }
  | { kind: "archive-commit" }
  | { kind: "edit" | "remove" | "fork"; at: number }
  | { kind: "trim"; count: number }
  | { kind: "rewrite" | "reimport" | "forget" | "delete" };

const words = fc.array(fc.nat(40), { minLength: 0, maxLength: 5 });
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constantFrom("user" as const, "ai" as const), words }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constantFrom("archive-write" as const, "archive-move" as const),
      count: fc.integer({ min: 1, max: 6 }),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: "archive-commit" as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom("edit" as const, "remove" as const, "fork" as const), at: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("trim" as const), count: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.constantFrom(...(["rewrite", "reimport", "forget", "delete"] as const).map((kind) => ({ kind }))) },
);

/** Applies `o` to the archive and the stored (hot) thread; `history` holds earlier stored threads (forks). */
function apply(archive: FakeArchive, hot: BaseMessage[], history: BaseMessage[][], o: Op): BaseMessage[] {
  const archivedIds = new Set(archive.rows.map((m) => m.id));
  switch (o.kind) {
    case "user":
    case "ai":
      return [...hot, message(o.kind, o.words)];
    case "archive-write":
    case "archive-move": {
      // messageArchive: the oldest stored messages not yet archived go to the archive; the checkpoint
      // that removes them is stored with the move, or later (archive-commit).
      const start = hot.findIndex((m) => !archivedIds.has(m.id));
      if (start < 0) return hot;
      const batch = hot.slice(start, start + o.count);
      archive.append(batch);
      return o.kind === "archive-move" ? hot.filter((m) => !batch.includes(m) && !archivedIds.has(m.id)) : hot;
    }
    case "archive-commit":
      return hot.filter((m) => !archivedIds.has(m.id));
    case "edit": {
      if (hot.length === 0) return hot;
      const at = o.at % hot.length;
      const target = hot[at] as BaseMessage;
      if (archivedIds.has(target.id)) return hot;
      return hot.map((m, i) => (i === at ? message(i % 2 === 0 ? "user" : "ai", [o.at, at + 1], target.id as string) : m));
    }
    case "remove":
      return hot.length === 0 ? hot : hot.filter((_, i) => i !== o.at % hot.length);
    case "fork":
      return history.length === 0 ? hot : [...(history[o.at % history.length] as BaseMessage[])];
    case "trim":
      return hot.slice(o.count);
    case "rewrite":
      archive.replace([]);
      return hot.slice(-2);
    case "reimport": {
      // Deleted and imported again under the same ids, other words.
      const again = (m: BaseMessage, i: number) => message(i % 2 === 0 ? "user" : "ai", [i + 7, i * 3], m.id as string);
      archive.replace(archive.rows.map(again));
      return hot.map(again);
    }
    case "forget":
      archive.forget();
      return hot;
    case "delete":
      archive.replace([]);
      return [];
  }
}

describe("ArchiveMirror: recall's index over an archive read by its changes equals a fresh index (R37)", () => {
  it.each([3, 100])("over random turns, archivings, edits, forks, rewrites, re-imports (maxMessages %i)", async (maxMessages) => {
    let vouched = 0;
    let appendedReads = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 50 }), async (ops) => {
        const archive = new FakeArchive();
        const index = new CountingIndex({ maxMessages, countText: (text) => text.length });
        const mirror = new ArchiveMirror();
        let hot: BaseMessage[] = [];
        const history: BaseMessage[][] = [];
        for (const o of ops) {
          hot = apply(archive, hot, history, o);
          history.push(hot);
          await mirror.sync(index, archive.read, "t", hot);
          expect(snapshot(index)).toEqual(snapshot(fresh(withArchived(archive.rows, hot), maxMessages)));
        }
        vouched += index.tails.length;
        appendedReads += archive.reads.appended;
      }),
      { seed: 27, numRuns: 150 },
    );
    // The property exercised the incremental path, not only whole reads.
    expect(vouched).toBeGreaterThan(100);
    expect(appendedReads).toBeGreaterThan(100);
  });

  it("a call reads the rows archived since the last one and compares only them and the stored part", async () => {
    const archive = new FakeArchive();
    const index = new CountingIndex({ maxMessages: 5000, countText: (text) => text.length });
    const mirror = new ArchiveMirror();
    archive.append(Array.from({ length: 2000 }, (_, i) => message(i % 2 === 0 ? "user" : "ai", [i, i + 1])));
    let hot = [message("user", [1]), message("ai", [2])];
    await mirror.sync(index, archive.read, "t", hot);
    expect(archive.reads).toEqual({ appended: 0, whole: 1 });
    // The next batch is archived while still stored (its removal not stored yet), then removed.
    const batch = hot.slice(0, 2);
    archive.append(batch);
    hot = [...hot, message("user", [3])];
    await mirror.sync(index, archive.read, "t", hot);
    hot = hot.slice(2).concat(message("ai", [4]));
    await mirror.sync(index, archive.read, "t", hot);
    expect(archive.reads).toEqual({ appended: 2, whole: 1 });
    // Vouched for the 2,000 archived before; compared the batch (stored, then archived) and the stored part.
    expect(index.tails).toEqual([
      { unchanged: 2000, tail: 3 },
      { unchanged: 2000, tail: 4 },
    ]);
    expect(snapshot(index)).toEqual(snapshot(fresh(withArchived(archive.rows, hot), 5000)));
  });

  it("two calls of one thread that read at once both leave the index a fresh one's", async () => {
    const archive = new FakeArchive();
    archive.delay = 3;
    const index = new MessageIndex({ maxMessages: 100, countText: (text) => text.length });
    const mirror = new ArchiveMirror();
    archive.append([message("user", [1]), message("ai", [2])]);
    const hot = [message("user", [3])];
    await mirror.sync(index, archive.read, "t", hot);
    archive.append([message("user", [4]), message("ai", [5])]);
    const later = [...hot, message("ai", [6])];
    // Both read from the same cursor; the second to finish must not take the same rows again.
    await Promise.all([mirror.sync(index, archive.read, "t", hot), mirror.sync(index, archive.read, "t", later)]);
    expect(snapshot(index)).toEqual(snapshot(fresh(withArchived(archive.rows, later), 100)));
    await mirror.sync(index, archive.read, "t", later);
    expect(snapshot(index)).toEqual(snapshot(fresh(withArchived(archive.rows, later), 100)));
  });

  it("a failed read takes nothing: the next call reads on from the last cursor", async () => {
    const archive = new FakeArchive();
    const index = new MessageIndex({ maxMessages: 100, countText: (text) => text.length });
    const mirror = new ArchiveMirror();
    archive.append([message("user", [1]), message("ai", [2])]);
    await mirror.sync(index, archive.read, "t", []);
    archive.append([message("user", [4])]);
    const failing: ArchivedChangesReader = async () => {
      throw new Error("store down");
    };
    await expect(mirror.sync(index, failing, "t", [])).rejects.toThrow("store down");
    await mirror.sync(index, archive.read, "t", []);
    expect(archive.reads).toEqual({ appended: 1, whole: 1 });
    expect(snapshot(index)).toEqual(snapshot(fresh(archive.rows, 100)));
  });

  it("a sync that throws (a timestampOf that fails) makes the next call read the whole archive", async () => {
    const archive = new FakeArchive();
    let fail = false;
    const timestampOf = () => {
      if (fail) throw new Error("bad timestamp");
      return undefined;
    };
    const index = new MessageIndex({ maxMessages: 100, timestampOf, countText: (text) => text.length });
    const mirror = new ArchiveMirror();
    archive.append([message("user", [1]), message("ai", [2])]);
    await mirror.sync(index, archive.read, "t", []);
    archive.append([message("user", [4])]);
    fail = true;
    await expect(mirror.sync(index, archive.read, "t", [])).rejects.toThrow("bad timestamp");
    fail = false;
    await mirror.sync(index, archive.read, "t", []);
    expect(archive.reads).toEqual({ appended: 1, whole: 2 });
    expect(snapshot(index)).toEqual(snapshot(fresh(archive.rows, 100)));
  });
});
