import type { RunnableConfig } from "@langchain/core/runnables";
import { BaseCheckpointSaver } from "@langchain/langgraph";
import type { ChannelVersions, Checkpoint, CheckpointListOptions, CheckpointMetadata, PendingWrite } from "@langchain/langgraph-checkpoint";

/**
 * A tracing wrapper as a user writes one: every call forwarded to the saver it names `inner`
 * (the convention `threadwiseSaverOf` follows down a chain of wrappers).
 */
export class ForwardingSaver<S extends BaseCheckpointSaver = BaseCheckpointSaver> extends BaseCheckpointSaver {
  constructor(readonly inner: S) {
    super();
  }
  override getTuple(config: RunnableConfig) {
    return this.inner.getTuple(config);
  }
  override list(config: RunnableConfig, options?: CheckpointListOptions) {
    return this.inner.list(config, options);
  }
  override put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointMetadata, newVersions: ChannelVersions) {
    return this.inner.put(config, checkpoint, metadata, newVersions);
  }
  override putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string) {
    return this.inner.putWrites(config, writes, taskId);
  }
  override getNextVersion(current: number | undefined) {
    return this.inner.getNextVersion(current);
  }
  override deleteThread(threadId: string) {
    return this.inner.deleteThread(threadId);
  }
}
