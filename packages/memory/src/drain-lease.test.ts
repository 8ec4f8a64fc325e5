/**
 * A run drained with LangGraph's `RunControl.requestDrain()` stops at the next superstep boundary
 * with `GraphDrained`, after storing a checkpoint with tasks left and no write. The saver releases
 * the turn lease with that checkpoint when the drain was requested during one of the run's model
 * or tool calls (read as the call ends, inside its task, before LangGraph's check). A drain seen
 * only when a put arrives proves nothing: under the default `async` durability LangGraph sends a
 * step's put after the previous put is done, so it can arrive while the next step's tasks run (one
 * of them requesting the drain), and the run goes on past that checkpoint.
 */
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, MemorySaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

/** A run's `control` as LangGraph's `RunControl` shows it, and the run's abort signal. */
function run() {
  const control = { drainRequested: false };
  const signal = new AbortController().signal;
  const config = (parentId?: string) => ({
    control,
    signal,
    configurable: { thread_id: "t", checkpoint_ns: "", ...(parentId ? { checkpoint_id: parentId } : {}) },
  });
  return { control, signal, config };
}

/** A checkpoint with work left (a task for the model node). */
const checkpoint = (id: string) => ({
  ...emptyCheckpoint(),
  id,
  channel_values: { messages: [new HumanMessage({ id: `m-${id}`, content: id })], "branch:to:model": null },
});

/** What becomes of a new turn's input put on top of `headId`: `admitted` or the refusal's reason. */
async function newTurnOn(saver: ThreadwiseSaver, headId: string, id: string): Promise<string | undefined> {
  const other = run();
  return saver.put(other.config(headId), checkpoint(id), { source: "input", step: 3, parents: {} }, {}).then(
    () => "admitted",
    (error: unknown) => ThreadwiseConcurrentTurnError.find(error)?.reason,
  );
}

describe("a drained run's turn lease", () => {
  it("a drain seen only as a put arrives leaves the turn open (the run may be running its next step)", async () => {
    const inner = new MemorySaver();
    const saver = new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner));
    const drained = run();
    await saver.put(drained.config(), checkpoint("c1"), { source: "input", step: -1, parents: {} }, {});
    drained.control.drainRequested = true;
    await saver.put(drained.config("c1"), checkpoint("c2"), { source: "loop", step: 0, parents: {} }, {});
    expect(await newTurnOn(saver, "c2", "c3")).toBe("turn-in-progress");
  });

  it("a drain requested during a call of the run releases the lease with the checkpoint after the call's", async () => {
    const inner = new MemorySaver();
    const saver = new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner));
    const drained = run();
    const keys = [drained.control, drained.signal];
    await saver.put(drained.config(), checkpoint("c1"), { source: "input", step: -1, parents: {} }, {});
    // A tool call of the task that runs from c1, during which a drain is requested.
    await saver.turnCall(
      keys,
      "t",
      [],
      async () => {
        drained.control.drainRequested = true;
      },
      "c1",
    );
    await saver.put(drained.config("c1"), checkpoint("c2"), { source: "loop", step: 0, parents: {} }, {});
    expect(await newTurnOn(saver, "c2", "c3")).toBe("admitted");
  });

  it("a call that ended with no drain requested leaves the lease to the run's next checkpoints", async () => {
    const inner = new MemorySaver();
    const saver = new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner));
    const running = run();
    await saver.put(running.config(), checkpoint("c1"), { source: "input", step: -1, parents: {} }, {});
    await saver.turnCall([running.control, running.signal], "t", [], async () => undefined, "c1");
    await saver.put(running.config("c1"), checkpoint("c2"), { source: "loop", step: 0, parents: {} }, {});
    expect(await newTurnOn(saver, "c2", "c3")).toBe("turn-in-progress");
  });
});
