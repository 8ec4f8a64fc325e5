import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import type { ThreadDeleteOptions, ThreadDeleteOutcome, ThreadRegistry } from "./thread-registry.js";

/** Options of {@link ThreadwiseSaver}. */
export interface ThreadwiseSaverOptions {
  /** Runs once before the first read or write (e.g. the PostgreSQL schema-version check); a failure is re-thrown on every call. */
  ready?: () => Promise<void>;
  /** Releases the backend's resources (pool, file handle). */
  close?: () => Promise<void>;
}

/**
 * The checkpointer `memoryStack` hands to `createAgent`: wraps a LangGraph saver (MemorySaver,
 * SqliteSaver, PostgresSaver) and keeps its {@link ThreadRegistry} in step.
 *
 * - Every `put`/`putWrites` first records the write in the registry; a thread with a tombstone
 *   refuses it with `ThreadwiseThreadDeletedError` (spec R24), so a deleted thread id is never
 *   created again, by this process or any other.
 * - `deleteThread` removes every row of the thread and leaves a tombstone.
 * - Nothing about threads is cached in the process: replicas sharing a database see the same thing.
 *
 * Reads pass through unchanged; the wrapped saver's serializer (e.g. an encrypting one) is used.
 */
export class ThreadwiseSaver extends BaseCheckpointSaver {
  /** The wrapped saver. */
  readonly inner: BaseCheckpointSaver;
  /** Per-thread bookkeeping and tombstones. */
  readonly registry: ThreadRegistry;
  readonly #options: ThreadwiseSaverOptions;
  #ready: Promise<void> | undefined;

  constructor(inner: BaseCheckpointSaver, registry: ThreadRegistry, options: ThreadwiseSaverOptions = {}) {
    super(inner.serde);
    this.inner = inner;
    this.registry = registry;
    this.#options = options;
  }

  /**
   * Resolves once the backend is usable (schema version checked). Call it at start-up to fail
   * fast; otherwise the first read or write does.
   * @throws ThreadwiseSchemaVersionError (PostgreSQL) when the schema is not the expected one.
   */
  ready(): Promise<void> {
    this.#ready ??= (this.#options.ready ?? (async () => {}))();
    return this.#ready;
  }

  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    await this.ready();
    return this.inner.getTuple(config);
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    await this.ready();
    yield* this.inner.list(config, options);
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    await this.ready();
    await this.#touch(config);
    return this.inner.put(config, checkpoint, metadata, newVersions);
  }

  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    await this.ready();
    await this.#touch(config);
    return this.inner.putWrites(config, writes, taskId, taskPath);
  }

  /** Deletes the thread everywhere and leaves a tombstone (spec R24). */
  async deleteThread(threadId: string): Promise<void> {
    await this.deleteThreadWithOutcome(threadId);
  }

  /** {@link deleteThread} returning what was removed; `idleBefore` re-checks idleness under the thread's lock. */
  async deleteThreadWithOutcome(threadId: string, options?: ThreadDeleteOptions): Promise<ThreadDeleteOutcome> {
    await this.ready();
    return this.registry.deleteThread(threadId, options);
  }

  override getNextVersion(current: number | undefined): number {
    return this.inner.getNextVersion(current);
  }

  /** Ends the pool or closes the file. The saver is unusable afterwards. */
  async close(): Promise<void> {
    await this.#options.close?.();
  }

  async #touch(config: RunnableConfig): Promise<void> {
    const threadId = config.configurable?.thread_id;
    if (typeof threadId === "string" && threadId !== "") await this.registry.touch(threadId);
  }
}
