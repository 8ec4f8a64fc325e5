/**
 * Writes a run sends ahead of its next checkpoint (LangGraph's default `durability: "async"`
 * stores a step's checkpoint while the next step runs) wait in the saver until that checkpoint
 * commits. Two turns started on one thread at once: the one refused `turn-in-progress` must fail
 * only its own waiting writes. Was: it failed every waiting write of the thread with a later
 * checkpoint id, so the running turn's invoke rejected with the loser's error while that turn went
 * on running and holding the thread (the fuzz's `concurrent` operation on PostgreSQL, then the
 * next turn refused).
 */
import { HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, MemorySaver } from "@langchain/langgraph-checkpoint";
import { ThreadwiseConfigError } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

/** A run as the saver tells runs apart: LangGraph's run-scoped `control` and the run's abort signal. */
function runConfig(checkpointId?: string) {
  const run = { control: {}, signal: new AbortController().signal };
  return (id = checkpointId) => ({
    ...run,
    configurable: { thread_id: "t", checkpoint_ns: "", ...(id ? { checkpoint_id: id } : {}) },
  });
}

/** A checkpoint with work left (a task for the model node): the turn stays open. */
const checkpoint = (id: string, text: string) => ({
  ...emptyCheckpoint(),
  id,
  channel_values: { messages: [new HumanMessage({ id: `m-${id}`, content: text })], "branch:to:model": null },
});

/** Settles to what became of `promise` so far: `pending`, `resolved` or the rejection. */
async function stateOf(promise: Promise<unknown>): Promise<unknown> {
  const pending = Symbol("pending");
  const outcome = await Promise.race([
    promise.then(
      () => "resolved",
      (error: unknown) => error,
    ),
    new Promise((resolve) => setTimeout(() => resolve(pending), 20)),
  ]);
  return outcome === pending ? "pending" : outcome;
}

describe("writes waiting for a checkpoint, two turns on one thread at once", () => {
  it("a turn refused turn-in-progress fails its own waiting writes only; the running turn's are stored with its checkpoint", async () => {
    const inner = new MemorySaver();
    const saver = new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner));
    const winner = runConfig();
    const loser = runConfig();
    // The winner's input checkpoint takes the thread's turn lease.
    await saver.put(winner(), checkpoint("c1", "I live in Seoul."), { source: "input", step: -1, parents: {} }, {});
    // Its first task's writes go to its next checkpoint, not stored yet: they wait.
    const winnerWrites = saver.putWrites(winner("c3"), [["messages", [new HumanMessage("서울에 살아요.")]]], "task-w");
    // The loser's own writes, sent ahead of a checkpoint after its input.
    const loserWrites = saver.putWrites(loser("c4"), [["messages", [new HumanMessage("other turn")]]], "task-l");
    // The loser's input checkpoint (an id between the two) is refused: the winner holds the thread.
    const refused = await saver
      .put(loser(), checkpoint("c2", "other turn"), { source: "input", step: -1, parents: {} }, {})
      .catch((e) => e);
    expect(ThreadwiseConcurrentTurnError.find(refused)?.reason).toBe("turn-in-progress");
    expect(await stateOf(loserWrites)).toBe(refused);
    expect(await stateOf(winnerWrites)).toBe("pending");
    // The winner's next checkpoint commits, and its waiting writes with it.
    await saver.put(winner("c1"), checkpoint("c3", "I live in Seoul."), { source: "loop", step: 0, parents: {} }, {});
    expect(await stateOf(winnerWrites)).toBe("resolved");
    const stored = await saver.getTuple({ configurable: { thread_id: "t", checkpoint_ns: "", checkpoint_id: "c3" } });
    expect(stored?.pendingWrites?.map(([task, channel]) => [task, channel])).toEqual([["task-w", "messages"]]);
  });

  it("writes without a checkpoint id are refused at once, naming the field (was: they waited forever for a put)", async () => {
    const inner = new MemorySaver();
    const saver = new ThreadwiseSaver(inner, new MemoryThreadRegistry(inner));
    const error = await saver.putWrites(runConfig()(), [["messages", []]], "task").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).message).toContain("configurable.checkpoint_id");
  });
});
