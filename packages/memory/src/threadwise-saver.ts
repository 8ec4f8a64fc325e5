import type { RunnableConfig } from "@langchain/core/runnables";
import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointTuple,
  ERROR,
  INTERRUPT,
  type PendingWrite,
} from "@langchain/langgraph-checkpoint";
import { ThreadwiseConfigError } from "@threadwise/core";
import { isSealed, SEALED_METADATA_KEY } from "@threadwise/encryption";
import { ThreadwiseSealedStoreError } from "./sealed-store-error.js";
import { normalizeThreadId } from "./thread-id.js";
import type { CheckpointCommit, ThreadDeleteOptions, ThreadDeleteOutcome, ThreadRegistry } from "./thread-registry.js";

/** Default of {@link ThreadwiseSaverOptions.turnLeaseMs}, in milliseconds. */
export const DEFAULT_TURN_LEASE_MS = 60_000;
/** Checkpoint keys remembered per saver (stored or refused), so late pending writes find their fate. */
const RECENT_MEMORY = 10_000;
/** Writes one not-yet-stored checkpoint may collect before more are refused. */
const MAX_DEFERRED_WRITES = 10_000;

interface DeferredWrite {
  run: () => Promise<void>;
  endsTurn: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Options of {@link ThreadwiseSaver}. */
export interface ThreadwiseSaverOptions {
  /** Runs once before the first read or write (e.g. the PostgreSQL schema-version check); a failure is re-thrown on every call. */
  ready?: () => Promise<void>;
  /** Releases the backend's resources (pool, file handle). */
  close?: () => Promise<void>;
  /**
   * How long a run that stopped making progress (its newest checkpoint still has tasks: the model
   * or a tool is running, or the process died) keeps a new turn of the same thread out, in
   * milliseconds. Each checkpoint the run stores renews it; an error or interrupt ends it. Set it
   * above your longest model or tool call: a run silent for longer can be overtaken, and then
   * fails with `ThreadwiseConcurrentTurnError` itself. 0 turns the lease off (then only the
   * compare-and-set on the parent checkpoint holds). See ARCHITECTURE.md (spec R34).
   * @default 60000
   */
  turnLeaseMs?: number;
  /**
   * The wrapped saver stores plaintext (no keyring). Reads then refuse a checkpoint holding sealed
   * records with `ThreadwiseSealedStoreError` (fail-closed, R26) instead of handing ciphertext
   * strings to the agent. `createCheckpointer` sets it when no keyring is configured.
   * @default false
   */
  plaintext?: boolean;
}

/** `true` when a tuple read by a plaintext saver holds records sealed by `@threadwise/encryption`. */
function holdsSealed(tuple: CheckpointTuple): boolean {
  if (Object.values(tuple.checkpoint.channel_values ?? {}).some(isSealed)) return true;
  if (tuple.metadata && SEALED_METADATA_KEY in (tuple.metadata as object)) return true;
  return (tuple.pendingWrites ?? []).some(([, , value]) => isSealed(value));
}

/** `true` while a checkpoint still has tasks to run: LangGraph's trigger channels (`__start__`, `branch:to:<node>`) hold a value only then. */
function hasPendingTasks(checkpoint: Checkpoint): boolean {
  return Object.keys(checkpoint.channel_values ?? {}).some((channel) => channel === "__start__" || channel.startsWith("branch:to:"));
}

/**
 * The checkpointer `memoryStack` hands to `createAgent`: wraps a LangGraph saver (MemorySaver,
 * SqliteSaver, PostgresSaver) and keeps its {@link ThreadRegistry} in step.
 *
 * - Every `put`/`putWrites` first records the write in the registry; a thread with a tombstone
 *   refuses it with `ThreadwiseThreadDeletedError` (spec R24), so a deleted thread id is never
 *   created again, by this process or any other.
 * - `deleteThread` removes every row of the thread and leaves a tombstone.
 * - Concurrent turns (spec R34): each `put` commits only on top of the thread's newest checkpoint
 *   (compare-and-set in the same transaction as the wrapped saver's rows), and a new turn does not
 *   start on top of a run still in progress (turn lease); the loser gets a retryable
 *   `ThreadwiseConcurrentTurnError` with nothing stored (see `withTurnRetry`). Forking from an
 *   older checkpoint (time travel) is therefore refused too: a threadwise thread is one sequence.
 * - Every thread id goes through `normalizeThreadId` (strings only, no NUL, well-formed, 256 bytes).
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
  readonly #turnLeaseMs: number;
  #ready: Promise<void> | undefined;
  /** Puts in flight, by `writeKey` (thread, namespace, checkpoint id): their pending writes wait for them. */
  readonly #inFlight = new Map<string, Promise<unknown>>();
  /** Checkpoints this saver stored recently. */
  readonly #committed = new Set<string>();
  /** Checkpoints this saver was refused recently, with the error: their writes are refused too. */
  readonly #refused = new Map<string, unknown>();
  /** Writes that arrived before the put of their checkpoint. */
  readonly #deferred = new Map<string, DeferredWrite[]>();

  /** @throws ThreadwiseConfigError when `turnLeaseMs` is not a whole number in [0, 2147483647]. */
  constructor(inner: BaseCheckpointSaver, registry: ThreadRegistry, options: ThreadwiseSaverOptions = {}) {
    super(inner.serde);
    this.inner = inner;
    this.registry = registry;
    this.#options = options;
    const lease = options.turnLeaseMs ?? DEFAULT_TURN_LEASE_MS;
    if (!Number.isInteger(lease) || lease < 0 || lease > 2_147_483_647)
      throw new ThreadwiseConfigError("turnLeaseMs", "expected a whole number of milliseconds in [0, 2147483647]");
    this.#turnLeaseMs = lease;
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
    threadIdOf(config);
    await this.ready();
    return this.#refuseSealed(await this.inner.getTuple(config));
  }

  async *list(config: RunnableConfig, options?: CheckpointListOptions): AsyncGenerator<CheckpointTuple> {
    if (config.configurable?.thread_id !== undefined) threadIdOf(config);
    await this.ready();
    for await (const tuple of this.inner.list(config, options)) yield this.#refuseSealed(tuple) as CheckpointTuple;
  }

  #refuseSealed(tuple: CheckpointTuple | undefined): CheckpointTuple | undefined {
    if (tuple && this.#options.plaintext && holdsSealed(tuple))
      throw new ThreadwiseSealedStoreError(String(tuple.config.configurable?.thread_id ?? ""));
    return tuple;
  }

  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions,
  ): Promise<RunnableConfig> {
    const threadId = threadIdOf(config);
    await this.ready();
    const checkpointNs = String(config.configurable?.checkpoint_ns ?? "");
    const key = writeKey(threadId, checkpointNs, checkpoint.id);
    const commit: CheckpointCommit = {
      checkpointNs,
      parentId: config.configurable?.checkpoint_id || undefined,
      checkpointId: checkpoint.id,
      startsTurn: metadata?.source === "input",
      leavesTurnOpen: this.#turnLeaseMs > 0 && hasPendingTasks(checkpoint),
      turnLeaseMs: this.#turnLeaseMs,
    };
    const deferred = this.#deferred.get(key) ?? [];
    const stored = this.registry.commitCheckpoint(threadId, commit, async () => {
      const result = await this.inner.put(config, checkpoint, metadata, newVersions);
      // Writes that arrived before their checkpoint commit with it, in the same transaction.
      for (const write of deferred) await write.run();
      if (deferred.some((write) => write.endsTurn)) commit.leavesTurnOpen = false;
      return result;
    });
    this.#inFlight.set(key, stored);
    try {
      const result = await stored;
      this.#remember(this.#committed, key);
      for (const write of deferred) write.resolve();
      return result;
    } catch (error) {
      this.#refused.set(key, error);
      if (this.#refused.size > RECENT_MEMORY) this.#refused.delete(this.#refused.keys().next().value as string);
      for (const write of deferred) write.reject(error);
      this.#dropLaterDeferred(threadId, checkpointNs, checkpoint.id, error);
      throw error;
    } finally {
      this.#deferred.delete(key);
      this.#inFlight.delete(key);
    }
  }

  /**
   * Stores pending writes in one transaction with the tombstone check (spec R24). In LangGraph's
   * default (`async`) durability a task's writes can be sent before the put of their checkpoint:
   * such writes wait in this process and commit in that put's transaction; if the put is refused
   * (or never comes because an earlier put of the run failed) they are refused with it. So no
   * write is ever stored for a checkpoint that is not (no orphans).
   */
  async putWrites(config: RunnableConfig, writes: PendingWrite[], taskId: string, taskPath?: string): Promise<void> {
    const threadId = threadIdOf(config);
    await this.ready();
    const checkpointNs = String(config.configurable?.checkpoint_ns ?? "");
    const checkpointId = String(config.configurable?.checkpoint_id ?? "");
    const key = writeKey(threadId, checkpointNs, checkpointId);
    const target = { checkpointNs, checkpointId, endsTurn: writes.some(([channel]) => channel === ERROR || channel === INTERRUPT) };
    const run = () => this.inner.putWrites(config, writes, taskId, taskPath);
    for (;;) {
      await this.#inFlight.get(key)?.catch(() => undefined);
      if (this.#refused.has(key)) throw this.#refused.get(key);
      if (await this.registry.commitWrites(threadId, target, run)) return;
      // The checkpoint's put started or finished meanwhile: try again once it is done.
      if (this.#inFlight.has(key) || this.#committed.has(key) || this.#refused.has(key)) continue;
      return new Promise<void>((resolve, reject) => {
        const queue = this.#deferred.get(key) ?? [];
        if (queue.length >= MAX_DEFERRED_WRITES)
          return reject(
            new ThreadwiseConfigError("putWrites", `more than ${MAX_DEFERRED_WRITES} writes wait for checkpoint ${checkpointId}`),
          );
        queue.push({ run, endsTurn: target.endsTurn, resolve, reject });
        this.#deferred.set(key, queue);
      });
    }
  }

  /** After a failed put, writes waiting for later checkpoints of the same run will never be stored. */
  #dropLaterDeferred(threadId: string, checkpointNs: string, failedId: string, error: unknown): void {
    for (const [key, queue] of this.#deferred) {
      const [thread, ns, id] = JSON.parse(key) as [string, string, string];
      if (thread !== threadId || ns !== checkpointNs || id <= failedId) continue;
      this.#deferred.delete(key);
      for (const write of queue) write.reject(error);
    }
  }

  /** Deletes the thread everywhere and leaves a tombstone (spec R24). */
  async deleteThread(threadId: string): Promise<void> {
    await this.deleteThreadWithOutcome(threadId);
  }

  /** {@link deleteThread} returning what was removed; `idleBefore` re-checks idleness under the thread's lock. */
  async deleteThreadWithOutcome(threadId: string, options?: ThreadDeleteOptions): Promise<ThreadDeleteOutcome> {
    const id = normalizeThreadId(threadId);
    await this.ready();
    return this.registry.deleteThread(id, options);
  }

  override getNextVersion(current: number | undefined): number {
    return this.inner.getNextVersion(current);
  }

  /** Ends the pool or closes the file. The saver is unusable afterwards. */
  async close(): Promise<void> {
    await this.#options.close?.();
  }

  #remember(set: Set<string>, key: string): void {
    set.add(key);
    if (set.size > RECENT_MEMORY) set.delete(set.values().next().value as string);
  }
}

function writeKey(threadId: string, checkpointNs: string, checkpointId: string): string {
  return JSON.stringify([threadId, checkpointNs, checkpointId]);
}

/**
 * The normalized `configurable.thread_id` of a call.
 * @throws ThreadwiseThreadIdError
 */
function threadIdOf(config: RunnableConfig): string {
  return normalizeThreadId(config.configurable?.thread_id);
}
