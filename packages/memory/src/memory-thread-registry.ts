import type { MemorySaver } from "@langchain/langgraph-checkpoint";
import { ThreadwiseThreadDeletedError } from "./thread-deleted-error.js";
import { NO_ROWS, type ThreadDeleteOptions, type ThreadDeleteOutcome, type ThreadInfo, type ThreadRegistry } from "./thread-registry.js";

interface Row {
  updatedAt: number;
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

  constructor(saver: MemorySaver, options: { now?: () => number } = {}) {
    this.#saver = saver;
    this.#now = options.now ?? Date.now;
  }

  async touch(threadId: string): Promise<void> {
    const row = this.#rows.get(threadId);
    if (row?.deletedAt !== undefined) throw new ThreadwiseThreadDeletedError(threadId, new Date(row.deletedAt));
    this.#rows.set(threadId, { updatedAt: this.#now() });
  }

  async listIdle(idleBefore: Date, limit = 10_000): Promise<ThreadInfo[]> {
    return [...this.#rows.entries()]
      .filter(([, row]) => row.deletedAt === undefined && row.updatedAt < idleBefore.getTime())
      .sort((a, b) => a[1].updatedAt - b[1].updatedAt)
      .slice(0, limit)
      .map(([threadId, row]) => ({ threadId, updatedAt: new Date(row.updatedAt), ...this.#counts(threadId) }));
  }

  async describe(threadId: string): Promise<ThreadInfo | undefined> {
    const row = this.#rows.get(threadId);
    if (!row || row.deletedAt !== undefined) return undefined;
    return { threadId, updatedAt: new Date(row.updatedAt), ...this.#counts(threadId) };
  }

  async deleteThread(threadId: string, options: ThreadDeleteOptions = {}): Promise<ThreadDeleteOutcome> {
    const row = this.#rows.get(threadId);
    if (!row) return { threadId, status: "not_found", counts: NO_ROWS };
    if (row.deletedAt !== undefined) return { threadId, status: "already_deleted", counts: NO_ROWS };
    if (options.idleBefore && row.updatedAt >= options.idleBefore.getTime()) return { threadId, status: "updated", counts: NO_ROWS };
    const counts = this.#counts(threadId);
    await this.#saver.deleteThread(threadId);
    this.#rows.set(threadId, { ...row, deletedAt: this.#now(), reason: options.reason ?? "api" });
    return { threadId, status: "deleted", counts };
  }

  async tombstone(threadId: string): Promise<{ deletedAt: Date; reason: string } | undefined> {
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
