import { resolve } from "node:path";

/**
 * Runs async functions one at a time, in call order. SQLite has one connection per file handle,
 * and a transaction that spans an `await` must not interleave with another one on that handle.
 */
export class SerialQueue {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` after every task queued before it has settled. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(task);
    this.#tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

const queues = new WeakMap<object, SerialQueue>();
/** Queues of SQLite files by absolute path: every handle this process opens on one file shares one. */
const fileQueues = new Map<string, SerialQueue>();

/**
 * The one {@link SerialQueue} of a connection object (shared by every user of that handle). For
 * a better-sqlite3 handle on a file (`name` a path, not `memory`), the queue of that file in this
 * process, shared by every handle on it: two stacks of one process on one file (replicas in a
 * test, a stack built per request) each hold a connection, and one's transaction spanning an
 * `await` made the other's `BEGIN IMMEDIATE` wait synchronously (busy_timeout, the event loop
 * blocked, so the first could never commit) and fail `SQLITE_BUSY` after 5 s. Other processes
 * are kept apart by SQLite's own lock, as before.
 */
export function serialQueueOf(handle: object): SerialQueue {
  const file = fileOf(handle);
  if (file !== undefined) {
    let queue = fileQueues.get(file);
    if (!queue) {
      queue = new SerialQueue();
      fileQueues.set(file, queue);
    }
    queues.set(handle, queue);
    return queue;
  }
  let queue = queues.get(handle);
  if (!queue) {
    queue = new SerialQueue();
    queues.set(handle, queue);
  }
  return queue;
}

/** The absolute path of a better-sqlite3 handle's file, or `undefined` (an in-memory or temporary database, another object). */
function fileOf(handle: object): string | undefined {
  const { name, memory } = handle as { name?: unknown; memory?: unknown };
  if (typeof name !== "string" || name === "" || name === ":memory:" || memory === true) return undefined;
  return resolve(name);
}
