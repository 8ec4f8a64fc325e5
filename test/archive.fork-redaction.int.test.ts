/**
 * A branch knows what it had archived (R37, issue 27): every root checkpoint records where the
 * thread's archive stood when it was stored (`threadwise_archive` in its metadata), and a fork,
 * replay or `updateState` from it admits only messages archived since as its hot part's opening
 * run. Regression (archive fuzz seed 110 case 20): a message removed on one branch (a redaction)
 * and archived later by another branch forked from before the removal was read back when a fork
 * returned to the first branch, as the check placed archived messages by id only.
 * Regression (the memory README's former "Known, not fixed"): an edit in place (same id, new
 * content) of a message held again on a branch forked from before an archiving was admitted, and
 * that branch's next archiving rewrote the archived row, so the other branch read the edit back.
 */
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { ARCHIVE_MARK_METADATA_KEY, ThreadwiseArchivedMessageError, type ThreadwiseSaver } from "@threadwise/memory";
import { describe, expect, it } from "vitest";
import { threadwiseSavers } from "./support/threadwise-savers.js";

const human = (id: string) => new HumanMessage({ id, content: id });
const ai = (id: string) => new AIMessage({ id, content: id });
/** m1 (human), m2 (ai), m3 (human), ... */
const msgs = (...ns: number[]) => ns.map((n) => (n % 2 === 1 ? human(`m${n}`) : ai(`m${n}`)));

const backends = threadwiseSavers("twfork");

/**
 * Stores checkpoints on one thread as LangGraph would: `input` continues the head, `fork`/`update`
 * branch from `parent`; `runFrom`: the checkpoint a run was started from (LangGraph copies it into
 * every put's `config.metadata`, so each put of that run is a branch put).
 */
function writer(saver: ThreadwiseSaver, threadId: string) {
  let version = 0;
  return async (parent: string | undefined, messages: BaseMessage[], source: "input" | "loop" | "fork" | "update", runFrom?: string) => {
    // A new channel version per put: PostgresSaver keys its blobs by version.
    version += 1;
    const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: version } };
    const config = {
      configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) },
      ...(runFrom ? { metadata: { checkpoint_id: runFrom } } : {}),
    };
    const stored = await saver.put(config, checkpoint, { source, step: -1, parents: {} }, { messages: version });
    return stored.configurable?.checkpoint_id as string;
  };
}

const refusedEdit = (ids: string[]) => (error: unknown) =>
  ThreadwiseArchivedMessageError.isInstance(error) &&
  error.reason === "archived-edit" &&
  error.retryable === false &&
  error.messageIds.join() === ids.join();

const refusedFork = (ids: string[]) => (error: unknown) =>
  ThreadwiseArchivedMessageError.isInstance(error) &&
  error.reason === "archived-fork" &&
  error.retryable === false &&
  error.messageIds.join() === ids.join();

describe.each(backends)("a branch knows what it had archived (%s)", (_name, open) => {
  it("a fork back to a branch that removed a message, archived since by another branch, is refused (archived-fork); nothing is stored", async () => {
    const saver = open();
    const threadId = `t-${uuid6(-1)}`;
    const ids = async (checkpointId?: string) =>
      (await saver.readThread({ configurable: { thread_id: threadId, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } })).map(
        (m) => m.id,
      );
    try {
      const put = writer(saver, threadId);
      const c0 = await put(undefined, msgs(1, 2, 3, 4, 5, 6), "input");
      // Branch A removes m3 (a redaction), then archives m1, m2.
      const a1 = await put(c0, msgs(1, 2, 4, 5, 6), "input");
      await saver.archiveMessages(threadId, msgs(1, 2));
      const a2 = await put(a1, msgs(4, 5, 6), "input");
      expect(await ids()).toEqual(["m1", "m2", "m4", "m5", "m6"]);
      // Branch B, forked from before the removal, holds m1, m2 again as its opening run (admitted), and archives m1..m4.
      const b1 = await put(c0, msgs(1, 2, 3, 4, 5, 6), "fork");
      await saver.archiveMessages(threadId, msgs(1, 2, 3, 4));
      const b2 = await put(b1, msgs(5, 6), "input");
      expect(await ids()).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
      // Back to A: its archive held m1, m2 only; m3, m4 were archived by B since and A's hot part
      // does not open with them (A removed m3). Was admitted, and m3 read back on A's branch.
      await expect(put(a2, msgs(4, 5, 6), "fork")).rejects.toSatisfy(refusedFork(["m3", "m4"]));
      await expect(put(a2, [...msgs(4, 5, 6), human("m7")], "update")).rejects.toSatisfy(refusedFork(["m3", "m4"]));
      // Read at A's checkpoint, the thread is A's: the archive up to A's mark (m3 stays removed). Was m1..m6.
      expect(await ids(a2)).toEqual(["m1", "m2", "m4", "m5", "m6"]);
      expect(await ids(b1)).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
      // Nothing stored: the head is B's.
      expect(await ids()).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
      expect((await saver.getTuple({ configurable: { thread_id: threadId } }))?.config.configurable?.checkpoint_id).toBe(b2);
      // Forks whose branch is consistent with the archive are still admitted: before any archiving
      // (m1..m4 open its hot part, in order) and B's own checkpoint.
      const again = await put(c0, msgs(1, 2, 3, 4, 5, 6), "fork");
      expect(await ids()).toEqual(["m1", "m2", "m3", "m4", "m5", "m6"]);
      await put(b2, msgs(5, 6), "fork");
      expect(again).toBeTypeOf("string");
      // Each root checkpoint records where the archive stood when it was stored.
      const metadata = (await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_id: a2 } }))?.metadata as Record<
        string,
        unknown
      >;
      expect(metadata[ARCHIVE_MARK_METADATA_KEY]).toMatchObject({ seq: 2 });
    } finally {
      await saver.close();
    }
  });

  it("an edit in place of a message held again on a branch forked from before an archiving is refused (archived-edit); nothing is stored, the archive is unchanged", async () => {
    const saver = open();
    const threadId = `t-${uuid6(-1)}`;
    const contents = async (checkpointId?: string) =>
      (await saver.readThread({ configurable: { thread_id: threadId, ...(checkpointId ? { checkpoint_id: checkpointId } : {}) } })).map(
        (m) => `${m.id}:${String(m.content)}`,
      );
    const head = async () => (await saver.getTuple({ configurable: { thread_id: threadId } }))?.config.configurable?.checkpoint_id;
    try {
      const put = writer(saver, threadId);
      const c0 = await put(undefined, msgs(1, 2, 3, 4, 5, 6), "input");
      // Branch A archives m1, m2.
      await saver.archiveMessages(threadId, msgs(1, 2));
      const a1 = await put(c0, msgs(3, 4, 5, 6), "input");
      // Branch B, forked from before that archiving, holds m1, m2 hot again (admitted).
      const b1 = await put(c0, msgs(1, 2, 3, 4, 5, 6), "fork");
      const redacted = new HumanMessage({ id: "m1", content: "[redacted]" });
      // updateState on B with m1's id and new content (LangGraph's reducer replaces it in place).
      // Was admitted; B's next archiving then rewrote m1's archived row, and a fork back to A read "[redacted]".
      await expect(put(b1, [redacted, ...msgs(2, 3, 4, 5, 6)], "update")).rejects.toSatisfy(refusedEdit(["m1"]));
      // A turn's input carrying the edit (replaced in place at the next step): refused at its input checkpoint.
      const version = 1000;
      const input = {
        ...emptyCheckpoint(),
        id: uuid6(-1),
        channel_values: { messages: msgs(1, 2, 3, 4, 5, 6), __start__: { messages: [redacted, human("m7")] } },
        channel_versions: { messages: version },
      };
      await expect(
        saver.put(
          { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: b1 } },
          input,
          { source: "input", step: -1, parents: {} },
          { messages: version },
        ),
      ).rejects.toSatisfy(refusedEdit(["m1"]));
      // Nothing stored: the head is B's fork, and the archive holds m1 as archived.
      expect(await head()).toBe(b1);
      expect((await saver.archivedMessages(threadId)).map((m) => `${m.id}:${String(m.content)}`)).toEqual(["m1:m1", "m2:m2"]);
      expect(await contents(a1)).toEqual(msgs(1, 2, 3, 4, 5, 6).map((m) => `${m.id}:${m.id}`));
      // Not refused: the held messages unchanged (a copy of the same content), and an edit of a message that is not archived.
      const b2 = await put(
        b1,
        [human("m1"), ai("m2"), human("m3"), new AIMessage({ id: "m4", content: "edited" }), ...msgs(5, 6)],
        "update",
      );
      expect(await contents()).toEqual(["m1:m1", "m2:m2", "m3:m3", "m4:edited", "m5:m5", "m6:m6"]);
      // B archives its held messages and m3 (the same content): A's archived messages stay A's.
      await saver.archiveMessages(threadId, [human("m1"), ai("m2"), human("m3")]);
      await put(b2, [new AIMessage({ id: "m4", content: "edited" }), ...msgs(5, 6)], "input");
      expect((await saver.archivedMessages(threadId)).map((m) => `${m.id}:${String(m.content)}`)).toEqual(["m1:m1", "m2:m2", "m3:m3"]);
    } finally {
      await saver.close();
    }
  });

  it("a fork back to a branch that edited a message in place before another branch archived the original is refused (archived-edit)", async () => {
    const saver = open();
    const threadId = `t-${uuid6(-1)}`;
    try {
      const put = writer(saver, threadId);
      const c0 = await put(undefined, msgs(1, 2, 3, 4, 5, 6), "input");
      // Branch A edits m1 in place while nothing is archived (admitted).
      const a1 = await put(c0, [new HumanMessage({ id: "m1", content: "[redacted]" }), ...msgs(2, 3, 4, 5, 6)], "update");
      // Branch B, forked from before the edit, archives the original m1, m2.
      const b1 = await put(c0, msgs(1, 2, 3, 4, 5, 6), "fork");
      await saver.archiveMessages(threadId, msgs(1, 2));
      await put(b1, msgs(3, 4, 5, 6), "input");
      // Back to A: its hot part opens with m1, m2 as archived since (by id, in order), but its m1 is
      // the edit: A's next archiving would rewrite the row B archived. Was admitted.
      await expect(put(a1, [new HumanMessage({ id: "m1", content: "[redacted]" }), ...msgs(2, 3, 4, 5, 6)], "fork")).rejects.toSatisfy(
        refusedEdit(["m1"]),
      );
      expect((await saver.archivedMessages(threadId)).map((m) => String(m.content))).toEqual(["m1", "m2"]);
    } finally {
      await saver.close();
    }
  });

  it("a run from a chosen checkpoint archives its own messages: its later puts are admitted, and a fork back before the archiving too", async () => {
    const saver = open();
    const threadId = `t-${uuid6(-1)}`;
    try {
      const put = writer(saver, threadId);
      const c0 = await put(undefined, msgs(1, 2, 3, 4), "input");
      await put(c0, msgs(1, 2, 3, 4, 5, 6), "input");
      // A replay from c0: its input checkpoint, then (its model call archiving m1, m2) the answer's checkpoint without them.
      const r0 = await put(c0, msgs(1, 2, 3, 4, 7), "input", c0);
      await saver.archiveMessages(threadId, msgs(1, 2));
      const r1 = await put(r0, [...msgs(3, 4, 7), ai("m8")], "loop", c0);
      expect((await saver.readThread({ configurable: { thread_id: threadId } })).map((m) => m.id)).toEqual([
        "m1",
        "m2",
        "m3",
        "m4",
        "m7",
        "m8",
      ]);
      // r0 (before the archiving) holds m1, m2 as its opening run: a fork from it is admitted.
      const f0 = await put(r0, msgs(1, 2, 3, 4, 7), "fork");
      await put(r1, [...msgs(3, 4, 7), ai("m8")], "fork");
      // A run from f0 (which holds m1, m2 again, archived before its mark) archives m1..m4: its next
      // put is admitted, m3, m4 following the held messages (seed 113 case 38: was refused mid-run).
      const g0 = await put(f0, [...msgs(1, 2, 3, 4, 7), human("m9")], "input", f0);
      await saver.archiveMessages(threadId, msgs(1, 2, 3, 4));
      await put(g0, [...msgs(7), human("m9"), ai("m10")], "loop", f0);
      expect((await saver.readThread({ configurable: { thread_id: threadId } })).map((m) => m.id)).toEqual([
        "m1",
        "m2",
        "m3",
        "m4",
        "m7",
        "m9",
        "m10",
      ]);
    } finally {
      await saver.close();
    }
  });

  it("a fork from a checkpoint whose archived messages a rewrite deleted is refused once archiving resumed (archived-fork, no ids)", async () => {
    const saver = open();
    const threadId = `t-${uuid6(-1)}`;
    try {
      const put = writer(saver, threadId);
      const c0 = await put(undefined, msgs(1, 2, 3, 4), "input");
      await saver.archiveMessages(threadId, msgs(1, 2));
      const c1 = await put(c0, msgs(3, 4), "input");
      // A rewrite keeps x1, x2 (REMOVE_ALL_MESSAGES, then the kept messages): the archive empties with the checkpoint that applies it.
      await saver.putWrites(
        { configurable: { thread_id: threadId, checkpoint_ns: "", checkpoint_id: c1 } },
        [["messages", [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), human("x1"), ai("x2")]]],
        "rewrite-task",
      );
      const r1 = await put(c1, [human("x1"), ai("x2"), human("x3")], "input");
      expect(await saver.archivedMessages(threadId)).toEqual([]);
      // Archiving resumes on the rewritten thread.
      await saver.archiveMessages(threadId, [human("x1")]);
      await put(r1, [ai("x2"), human("x3")], "input");
      // c1's thread was m1..m4 with m1, m2 archived, gone with the rewrite: was admitted, reading x1 before m3.
      await expect(put(c1, msgs(3, 4), "fork")).rejects.toSatisfy(refusedFork([]));
      // Read at c1: its archived messages are gone, and x1 is not its (was x1, m3, m4).
      expect((await saver.readThread({ configurable: { thread_id: threadId, checkpoint_id: c1 } })).map((m) => m.id)).toEqual(["m3", "m4"]);
      expect((await saver.readThread({ configurable: { thread_id: threadId } })).map((m) => m.id)).toEqual(["x1", "x2", "x3"]);
    } finally {
      await saver.close();
    }
  });
});
