/**
 * Seeding a large stored thread straight into a checkpointer, for the benches that step on one
 * (bench/scale.ts, bench/replay-cost.ts): replaying thousands of messages through an agent takes
 * hours, so the state a thread holds after them is written as one checkpoint instead.
 */
import type { BaseCheckpointSaver, CheckpointTuple } from "@langchain/langgraph";
import type { createAgent } from "langchain";
import type { Target } from "./step-savers.js";

type Agent = Pick<ReturnType<typeof createAgent>, "graph">;

/**
 * Writes `values` (channel updates: `messages`, private slots) as the thread's state with one
 * `updateState` as the node `model_request` (as if the model had just answered), then prunes the
 * thread to that checkpoint (`target.prune`). The graph's reducers run, so private slots are given
 * in their update form.
 */
export async function seedState(
  agent: Agent,
  target: Pick<Target, "prune">,
  threadId: string,
  values: Record<string, unknown>,
): Promise<void> {
  await agent.graph.updateState({ configurable: { thread_id: threadId, checkpoint_ns: "" } }, values, "model_request");
  await target.prune(threadId);
}

/** The newest checkpoint of `threadId` (root namespace), to copy with {@link putCheckpointCopy}. */
export async function newestCheckpoint(saver: BaseCheckpointSaver, threadId: string): Promise<CheckpointTuple> {
  const tuple = await saver.getTuple({ configurable: { thread_id: threadId, checkpoint_ns: "" } });
  if (!tuple) throw new Error(`seed-thread: thread ${threadId} has no checkpoint to copy`);
  return tuple;
}

/**
 * Writes a copy of `template` (a seeded thread's newest checkpoint) as the only checkpoint of
 * `threadId`, its channel values replaced by `rewrite(values)` (the stored form: e.g. the thread's
 * own messages and private slots rewritten for its ids). Costs one `put` (the saver's
 * serialization), no graph run: thousands of 1k-message threads seed in minutes. The channel
 * versions, versions seen and metadata are the template's, so the next `invoke` on the copy runs
 * as it would on the template.
 */
export async function putCheckpointCopy(
  saver: BaseCheckpointSaver,
  template: CheckpointTuple,
  threadId: string,
  rewrite: (values: Record<string, unknown>) => Record<string, unknown>,
): Promise<void> {
  const { checkpoint, metadata } = template;
  await saver.put(
    { configurable: { thread_id: threadId, checkpoint_ns: "" } },
    { ...checkpoint, channel_values: rewrite(checkpoint.channel_values as Record<string, unknown>) },
    metadata ?? { source: "update", step: 0, parents: {} },
    checkpoint.channel_versions,
  );
}
