/**
 * Promises `ThreadwiseSaver` makes on an agent step's path, beyond the wrapped saver's own. Under
 * LangGraph every promise created while its `AsyncLocalStorage` is active passes an init hook (on
 * Node 20), and an `await` makes one more; a step sends 4 puts, 3 write batches and 2 reads
 * (`bench/saver-replay.ts` counts them over a replayed conversation: 107 more than the plain saver
 * per step, now 77). Counts, not times: deterministic.
 */
import { createHook } from "node:async_hooks";
import { MemorySaver } from "@langchain/langgraph";
import { type BaseCheckpointSaver, type Checkpoint, emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { SerialQueue } from "./serial-queue.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

/** Promises created while `run` runs, until the promise it returns has settled. */
async function promisesMade(run: () => Promise<unknown>): Promise<number> {
  let made = 0;
  const hook = createHook({
    init: (_id, type) => {
      if (type === "PROMISE") made += 1;
    },
  });
  hook.enable();
  try {
    await run();
  } finally {
    hook.disable();
  }
  return made;
}

describe("SerialQueue", () => {
  it("runs tasks in call order, each once the previous one settled, a rejected one included", async () => {
    const queue = new SerialQueue();
    const events: string[] = [];
    let release!: () => void;
    const first = queue.run(
      () =>
        new Promise<void>((resolve) => {
          events.push("first starts");
          release = () => {
            events.push("first ends");
            resolve();
          };
        }),
    );
    const second = queue.run(async () => {
      events.push("second runs");
      throw new Error("second fails");
    });
    const third = queue.run(() => {
      events.push("third runs");
      return 3;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(events).toEqual(["first starts"]);
    release();
    await first;
    await expect(second).rejects.toThrow("second fails");
    await expect(third).resolves.toBe(3);
    expect(events).toEqual(["first starts", "first ends", "second runs", "third runs"]);
  });

  it("a synchronous task's throw rejects its promise, and the queue goes on", async () => {
    const queue = new SerialQueue();
    const failed = queue.run(() => {
      throw new Error("sync");
    });
    await expect(failed).rejects.toThrow("sync");
    await expect(queue.run(() => "next")).resolves.toBe("next");
  });

  it("makes one promise per task besides the task's own (was two)", async () => {
    const queue = new SerialQueue();
    await queue.run(() => undefined);
    // The task returns a plain value, so every promise counted is the queue's or the count's own
    // (awaiting a promise made before, the floor).
    const made = Promise.resolve();
    const floor = await promisesMade(() => made);
    expect((await promisesMade(() => queue.run(() => undefined))) - floor).toBe(1);
  });
});

describe("ThreadwiseSaver on MemorySaver: promises per call beyond the wrapped saver's", () => {
  const config = (threadId: string, checkpointId?: string) => ({
    configurable: { thread_id: threadId, checkpoint_ns: "", ...(checkpointId ? { checkpoint_id: checkpointId } : {}) },
  });
  const checkpoint = (): Checkpoint => ({ ...emptyCheckpoint(), id: uuid6(-1), channel_values: { messages: [] } });

  /** A step's loop put and write batch on a thread with a head, on the saver and on a plain MemorySaver. */
  async function stepPromises(): Promise<{ put: number; putWrites: number; getTuple: number }> {
    const inner = new MemorySaver();
    const saver = new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner), { turnLeaseMs: 0 });
    // Typed as the base class: LangGraph passes `newVersions` to every saver (MemorySaver's typing leaves it out).
    const plain: BaseCheckpointSaver = new MemorySaver();
    const first = checkpoint();
    for (const target of [saver, plain]) await target.put(config("t"), first, { source: "input", step: -1, parents: {} }, {});
    const counts = { put: 0, putWrites: 0, getTuple: 0 };
    const next = checkpoint();
    const metadata = { source: "loop" as const, step: 0, parents: {} };
    const writes: Array<[string, unknown]> = [["messages", []]];
    counts.putWrites =
      (await promisesMade(() => saver.putWrites(config("t", first.id), writes, "task"))) -
      (await promisesMade(() => plain.putWrites(config("t", first.id), writes, "task")));
    counts.put =
      (await promisesMade(() => saver.put(config("t", first.id), next, metadata, {}))) -
      (await promisesMade(() => plain.put(config("t", first.id), next, metadata, {})));
    counts.getTuple = (await promisesMade(() => saver.getTuple(config("t")))) - (await promisesMade(() => plain.getTuple(config("t"))));
    return counts;
  }

  it("a loop put, a write batch and a read of the head", async () => {
    // Warm: the first call of each kind may take paths a step does not (the saver's `ready`).
    await stepPromises();
    const counts = await stepPromises();
    // put: its own and its settled marker, #put, the queue's, the registry's task, awaits of them;
    // putWrites: its own, the queue's, the registry's task, awaits; getTuple: its own, the head
    // read and their awaits (4), and decoding the archive mark in the checkpoint's metadata (6).
    expect(counts).toEqual({ put: 9, putWrites: 6, getTuple: 10 });
  });
});
