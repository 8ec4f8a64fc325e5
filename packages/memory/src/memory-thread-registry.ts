import type { MemorySaver } from "@langchain/langgraph-checkpoint";
import { SerialQueue } from "./serial-queue.js";
import { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
import { normalizeThreadId } from "./thread-id.js";
import {
  assertCommit,
  type CheckpointCommit,
  NO_ROWS,
  type ThreadDeleteOptions,
  type ThreadDeleteOutcome,
  type ThreadInfo,
  type ThreadRegistry,
  type WritesTarget,
} from "./thread-registry.js";

interface Row {
  updatedAt: number;
  /** When the newest checkpoint of a run with tasks left was stored (the turn lease). */
  turnOpenAt?: number;
  deletedAt?: number;
  reason?: string;
}

/**
 * {@link ThreadRegistry} for `in_memory`: lives in this process next to the MemorySaver, and is
 * lost with it on restart, like the threads themselves.
 */
export class MemoryThreadRegistry implements ThreadRegistry {
  readonly kind = "in_memory";
  readonly #rows = new Map<string, Row>();
  readonly #saver: MemorySaver;
  readonly #now: () => number;
  readonly #queue = new SerialQueue();

  constructor(saver: MemorySaver, options: { now?: () => number } = {}) {
    this.#saver = saver;
    this.#now = options.now ?? Date.now;
  }

  async touch(threadId: string): Promise<void> {
    this.#touch(normalizeThreadId(threadId));
  }

  #touch(threadId: string): Row {
    const row = this.#rows.get(threadId);
    if (row?.deletedAt !== undefined) throw new ThreadwiseThreadDeletedError(threadId, new Date(row.deletedAt));
    const next = { ...row, updatedAt: this.#now() };
    this.#rows.set(threadId, next);
    return next;
  }

  async commitCheckpoint<T>(threadId: string, commit: CheckpointCommit, write: () => Promise<T>): Promise<T> {
    const id = normalizeThreadId(threadId);
    return this.#queue.run(async () => {
      const row = this.#touch(id);
      const ids = Object.keys(this.#saver.storage[id]?.[""] ?? {}).sort();
      assertCommit(id, commit, ids.at(-1), row.turnOpenAt === undefined ? undefined : this.#now() - row.turnOpenAt);
      const result = await write();
      if (commit.checkpointNs === "") row.turnOpenAt = commit.leavesTurnOpen ? this.#now() : undefined;
      return result;
    });
  }

  async commitWrites(threadId: string, target: WritesTarget, write: () => Promise<void>): Promise<boolean> {
    const id = normalizeThreadId(threadId);
    return this.#queue.run(async () => {
      const row = this.#touch(id);
      if (this.#saver.storage[id]?.[target.checkpointNs]?.[target.checkpointId] === undefined) return false;
      await write();
      if (target.endsTurn) row.turnOpenAt = undefined;
      return true;
    });
  }

  async listIdle(idleBefore: Date, limit = 10_000): Promise<ThreadInfo[]> {
    return [...this.#rows.entries()]
      .filter(([, row]) => row.deletedAt === undefined && row.updatedAt < idleBefore.getTime())
      .sort((a, b) => a[1].updatedAt - b[1].updatedAt)
      .slice(0, limit)
      .map(([threadId, row]) => ({ threadId, updatedAt: new Date(row.updatedAt), ...this.#counts(threadId) }));
  }

  async describe(threadId: string): Promise<ThreadInfo | undefined> {
    threadId = normalizeThreadId(threadId);
    const row = this.#rows.get(threadId);
    if (!row || row.deletedAt !== undefined) return undefined;
    return { threadId, updatedAt: new Date(row.updatedAt), ...this.#counts(threadId) };
  }

  async deleteThread(threadId: string, options: ThreadDeleteOptions = {}): Promise<ThreadDeleteOutcome> {
    threadId = normalizeThreadId(threadId);
    // Queued with the writes, so a write in flight finishes first and the next one meets the tombstone.
    return this.#queue.run(async (): Promise<ThreadDeleteOutcome> => {
      const row = this.#rows.get(threadId);
      if (!row) return { threadId, status: "not_found", counts: NO_ROWS };
      if (row.deletedAt !== undefined) return { threadId, status: "already_deleted", counts: NO_ROWS };
      if (options.idleBefore && row.updatedAt >= options.idleBefore.getTime()) return { threadId, status: "updated", counts: NO_ROWS };
      const counts = this.#counts(threadId);
      await this.#saver.deleteThread(threadId);
      this.#rows.set(threadId, { updatedAt: row.updatedAt, deletedAt: this.#now(), reason: options.reason ?? "api" });
      return { threadId, status: "deleted", counts };
    });
  }

  async tombstone(threadId: string): Promise<{ deletedAt: Date; reason: string } | undefined> {
    threadId = normalizeThreadId(threadId);
    const row = this.#rows.get(threadId);
    return row?.deletedAt !== undefined ? { deletedAt: new Date(row.deletedAt), reason: row.reason ?? "api" } : undefined;
  }

  #counts(threadId: string) {
    const namespaces = this.#saver.storage[threadId] ?? {};
    const checkpoints = Object.values(namespaces).reduce((sum, ns) => sum + Object.keys(ns).length, 0);
    const writes = Object.entries(this.#saver.writes)
      .filter(([key]) => (JSON.parse(key) as unknown[])[0] === threadId)
      .reduce((sum, [, value]) => sum + Object.keys(value).length, 0);
    return { checkpoints, blobs: 0, writes };
  }
}
