/**
 * ThreadwiseSaver remembers the keys of the checkpoints it stored (and was refused, and whose
 * writes rewrite `messages`) so late pending writes find their fate: at least the newest 10,000.
 * Forgetting the oldest key at every put once full walked V8's holes of the deleted keys each time
 * (`keys().next()`, about 8 us per put in a process past 10,000 puts); core's `setBounded` forgets
 * the oldest eighth at once.
 */
import { MemorySaver } from "@langchain/langgraph";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

/** Calls of `Set.prototype.values` and `Map.prototype.keys` on collections of at least `size` entries while `run` runs. */
async function largeIterations(size: number, run: () => Promise<void>): Promise<number> {
  const values = Set.prototype.values;
  const keys = Map.prototype.keys;
  let calls = 0;
  Set.prototype.values = function (this: Set<unknown>) {
    if (this.size >= size) calls += 1;
    return values.call(this);
  };
  Map.prototype.keys = function (this: Map<unknown, unknown>) {
    if (this.size >= size) calls += 1;
    return keys.call(this);
  };
  try {
    await run();
  } finally {
    Set.prototype.values = values;
    Map.prototype.keys = keys;
  }
  return calls;
}

describe("checkpoint keys ThreadwiseSaver remembers", () => {
  it("past 10,000 puts, a put does not walk the remembered keys", async () => {
    const inner = new MemorySaver();
    const saver = new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner), { turnLeaseMs: 0 });
    let parent: string | undefined;
    const put = async () => {
      const checkpoint = { ...emptyCheckpoint(), id: uuid6(-1) };
      const config = { configurable: { thread_id: "t-many", checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } };
      await saver.put(config, checkpoint, { source: "loop", step: 0, parents: {} }, {});
      parent = checkpoint.id;
    };
    for (let i = 0; i < 12_000; i += 1) await put();
    // Was one walk per put (200); now one per eighth of the bound at most.
    expect(
      await largeIterations(10_000, async () => {
        for (let i = 0; i < 200; i += 1) await put();
      }),
    ).toBeLessThanOrEqual(1);
  }, 60_000);
});
