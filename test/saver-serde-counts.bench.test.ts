/**
 * bench/replay-cost.ts counts what each step asks of the saver's serializer (`encodesPerStep`,
 * `decodesPerStep`): `countWrites` wraps the saver's `dumpsTyped`/`loadsTyped`, so a value
 * serialized twice, or a checkpoint decoded again, shows as a higher count.
 */

import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, MemorySaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { countWrites } from "../bench/support/step-savers.js";

describe("countWrites: the serializer's calls", () => {
  it("counts one encode per checkpoint, its metadata and each pending write, and one decode per value read back (English and Korean)", async () => {
    const saver = new MemorySaver();
    const counters = countWrites(saver);
    const config = { configurable: { thread_id: "t", checkpoint_ns: "" } };
    const checkpoint = {
      ...emptyCheckpoint(),
      channel_values: { messages: [new HumanMessage({ id: "m1", content: "hello, 안녕하세요" })] },
    };
    const stored = await saver.put(config, checkpoint, { source: "input", step: -1, parents: {} });
    expect([counters.encodes, counters.decodes]).toEqual([2, 0]);
    await saver.putWrites(
      stored,
      [
        ["messages", [new HumanMessage({ id: "m2", content: "내일 봐요" })]],
        ["branch:to:model", null],
      ],
      "task-1",
    );
    expect(counters.encodes).toBe(4);
    const tuple = await saver.getTuple(stored);
    expect(tuple?.pendingWrites).toHaveLength(2);
    // The checkpoint, its metadata and its two writes, each decoded once.
    expect(counters.decodes).toBe(4);
    expect(counters.bytes).toBeGreaterThan(0);
    expect(counters.bytesRead).toBeGreaterThan(0);
  });
});
