/**
 * LangGraph's step timeout (`graph.stepTimeout`): its runner rejects the run with `Abort` when the
 * step's timeout signal fires before any task of the step settled, and stores no write; once a task
 * settled the step finishes and the run goes on (and each step's signal fires at its time even
 * after the step is done). The saver ends the turn lease in the first case only. Signals fired by
 * hand: no timers.
 */
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, MemorySaver } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

/** A run's `control` and abort signal as LangGraph passes them, and a step timeout it controls. */
function run() {
  const control = { drainRequested: false };
  const signal = new AbortController().signal;
  const config = (parentId?: string) => ({
    control,
    signal,
    configurable: { thread_id: "t", checkpoint_ns: "", ...(parentId ? { checkpoint_id: parentId } : {}) },
  });
  return { control, signal, config, keys: [control, signal] };
}

/** A checkpoint with work left (a task for the tools node). */
const checkpoint = (id: string) => ({
  ...emptyCheckpoint(),
  id,
  channel_values: { messages: [new HumanMessage({ id: `m-${id}`, content: id })], "branch:to:tools": null },
});

/** What becomes of a new turn's input put on top of `headId`: `admitted` or the refusal's reason. */
async function newTurnOn(saver: ThreadwiseSaver, headId: string, id: string): Promise<string | undefined> {
  // The saver ends a timed-out turn asynchronously (after the run's puts in progress).
  await new Promise((resolve) => setImmediate(resolve));
  const other = run();
  return saver.put(other.config(headId), checkpoint(id), { source: "input", step: 3, parents: {} }, {}).then(
    () => "admitted",
    (error: unknown) => ThreadwiseConcurrentTurnError.find(error)?.reason,
  );
}

function saverWithRun() {
  const inner = new MemorySaver();
  return { saver: new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner)), timed: run() };
}

describe("a step timeout and the turn lease", () => {
  it("a timeout before any task of the step settled ends the turn (LangGraph rejects the run with Abort)", async () => {
    const { saver, timed } = saverWithRun();
    await saver.put(timed.config(), checkpoint("c1"), { source: "input", step: -1, parents: {} }, {});
    const step = new AbortController();
    let release!: () => void;
    const tool = saver.turnCall(timed.keys, "t", [], () => new Promise<void>((resolve) => (release = resolve)), "c1", step.signal);
    await new Promise((resolve) => setImmediate(resolve));
    step.abort(new Error("TimeoutError"));
    expect(await newTurnOn(saver, "c1", "c2")).toBe("admitted");
    release();
    await tool;
  });

  it("a timeout after a task of the step settled (its writes came) leaves the turn open: the step finishes, the run goes on", async () => {
    const { saver, timed } = saverWithRun();
    await saver.put(timed.config(), checkpoint("c1"), { source: "input", step: -1, parents: {} }, {});
    const step = new AbortController();
    await saver.turnCall(timed.keys, "t", [], async () => undefined, "c1", step.signal);
    await saver.putWrites(timed.config("c1"), [["messages", []]], "task-1");
    step.abort(new Error("TimeoutError"));
    expect(await newTurnOn(saver, "c1", "c2")).toBe("turn-in-progress");
  });

  it("a step's timeout firing after the run stored the next checkpoint ends nothing", async () => {
    const { saver, timed } = saverWithRun();
    await saver.put(timed.config(), checkpoint("c1"), { source: "input", step: -1, parents: {} }, {});
    const step = new AbortController();
    await saver.turnCall(timed.keys, "t", [], async () => undefined, "c1", step.signal);
    await saver.put(timed.config("c1"), checkpoint("c2"), { source: "loop", step: 0, parents: {} }, {});
    step.abort(new Error("TimeoutError"));
    expect(await newTurnOn(saver, "c2", "c3")).toBe("turn-in-progress");
  });

  it("the step's own checkpoint, put after its timeout fired (it waits for the previous put), is left without a lease", async () => {
    const { saver, timed } = saverWithRun();
    await saver.put(timed.config(), checkpoint("c1"), { source: "input", step: -1, parents: {} }, {});
    const step = new AbortController();
    let release!: () => void;
    const tool = saver.turnCall(timed.keys, "t", [], () => new Promise<void>((resolve) => (release = resolve)), "c2", step.signal);
    await new Promise((resolve) => setImmediate(resolve));
    step.abort(new Error("TimeoutError"));
    await saver.put(timed.config("c1"), checkpoint("c2"), { source: "loop", step: 0, parents: {} }, {});
    expect(await newTurnOn(saver, "c2", "c3")).toBe("admitted");
    release();
    await tool;
  });

  it("a run that goes on after a timeout the saver took for a stop takes the lease again with its next checkpoint", async () => {
    const { saver, timed } = saverWithRun();
    await saver.put(timed.config(), checkpoint("c1"), { source: "input", step: -1, parents: {} }, {});
    const step = new AbortController();
    // A task that settles with no write: nothing tells the saver the step got past the timeout.
    await saver.turnCall(timed.keys, "t", [], async () => undefined, "c1", step.signal);
    step.abort(new Error("TimeoutError"));
    await new Promise((resolve) => setImmediate(resolve));
    await saver.put(timed.config("c1"), checkpoint("c2"), { source: "loop", step: 0, parents: {} }, {});
    expect(await newTurnOn(saver, "c2", "c3")).toBe("turn-in-progress");
  });
});
