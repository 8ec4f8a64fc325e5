/**
 * The archive's refusals (R37, R38, issue 27) are decided inside the registry's write transaction
 * of the put: an archive write landing between the start of a fork put and its transaction (a
 * concurrent turn with the lease off or lapsed) is seen, on every backend. Regression: the check
 * ran before the transaction, so such a fork was stored and the forked thread read a message newer
 * than its checkpoint from the archive.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { ThreadwiseArchivedMessageError } from "@threadwise/memory";
import { describe, expect, it } from "vitest";
import { threadwiseSavers } from "./support/threadwise-savers.js";

const human = (id: string) => new HumanMessage({ id, content: id });
const ai = (id: string) => new AIMessage({ id, content: id });

const backends = threadwiseSavers("twref");

describe.each(backends)("archive refusals inside the registry transaction (%s)", (_name, open) => {
  it("a fork refuses a message archived between the fork's start and its transaction (archived-fork); nothing is stored", async () => {
    const saver = open();
    const threadId = `t-${uuid6(-1)}`;
    try {
      let version = 0;
      const put = async (parent: string | undefined, messages: BaseMessage[], source: "input" | "update") => {
        // A new channel version per put: PostgresSaver keys its blobs by version.
        version += 1;
        const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages }, channel_versions: { messages: version } };
        const config = { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } };
        const stored = await saver.put(config, checkpoint, { source, step: -1, parents: {} }, { messages: version });
        return stored.configurable?.checkpoint_id as string;
      };
      const first = await put(undefined, [human("m1"), ai("m2")], "input");
      await put(first, [human("m1"), ai("m2"), human("m3"), ai("m4")], "input");
      // A concurrent turn archives m1..m3 right before the fork's transaction begins.
      const commit = saver.registry.commitCheckpoint.bind(saver.registry);
      saver.registry.commitCheckpoint = async (id, info, write) => {
        saver.registry.commitCheckpoint = commit;
        await saver.archiveMessages(threadId, [human("m1"), ai("m2"), human("m3")]);
        return commit(id, info, write);
      };
      // The fork from the first checkpoint holds m1, m2: m3, archived since, is not its history.
      await expect(put(first, [human("m1"), ai("m2")], "update")).rejects.toSatisfy(
        (error) => ThreadwiseArchivedMessageError.isInstance(error) && error.reason === "archived-fork" && error.messageIds.join() === "m3",
      );
      const thread = await saver.readThread({ configurable: { thread_id: threadId } });
      expect(thread.map((m) => m.id)).toEqual(["m1", "m2", "m3", "m4"]);
    } finally {
      await saver.close();
    }
  });
});
