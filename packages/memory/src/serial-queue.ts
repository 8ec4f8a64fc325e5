import { realpathSync } from "node:fs";

/**
 * Runs async functions one at a time, in call order. SQLite has one connection per file handle,
 * and a transaction that spans an `await` must not interleave with another one on that handle.
 */
export class SerialQueue {
  /** The last task queued: the next one starts once it has settled, fulfilled or rejected. */
  #tail: Promise<unknown> = Promise.resolve();

  /**
   * Runs `task` after every task queued before it has settled. One promise per task (was two: the
   * task's and a copy of it that never rejects, for the next task to wait on; every promise costs
   * an init hook per agent step under LangGraph's `AsyncLocalStorage`). The next task waits on this
   * one with both reactions, so a rejected task is still handled when its caller handles it.
   */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const start = () => task();
    const result = this.#tail.then(start, start);
    this.#tail = result;
    return result;
  }
}

const queues = new WeakMap<object, SerialQueue>();

/** The one {@link SerialQueue} of a connection object (shared by every user of that handle). */
export function serialQueueOf(handle: object): SerialQueue {
  let queue = queues.get(handle);
  if (!queue) {
    queue = new SerialQueue();
    queues.set(handle, queue);
  }
  return queue;
}

/** Queues of SQLite files by real path: every connection of this process to one file shares one. */
const fileQueues = new Map<string, WeakRef<SerialQueue>>();

/**
 * The one {@link SerialQueue} of a SQLite file in this process, shared by every connection to it
 * (two `memoryStack`s on one `MEMORY_SQLITE_PATH`, a stack made per request). A write transaction
 * spans `await`s, and better-sqlite3 waits for another connection's lock synchronously
 * (`busy_timeout`), which blocks the event loop: the connection holding the lock could never go on,
 * and the waiting one failed "database is locked" after the timeout. Queued together, the second
 * begins after the first has committed. Other processes still wait with `busy_timeout`. An
 * in-memory database (`:memory:`, one per handle) keeps its handle's queue.
 */
export function serialQueueOfFile(db: { name: string; memory: boolean }): SerialQueue {
  if (db.memory) return serialQueueOf(db);
  let path: string;
  try {
    path = realpathSync(db.name);
  } catch {
    return serialQueueOf(db);
  }
  let queue = fileQueues.get(path)?.deref();
  if (!queue) {
    queue = new SerialQueue();
    fileQueues.set(path, new WeakRef(queue));
  }
  // The handle keeps its file's queue alive as long as it lives.
  queues.set(db, queue);
  return queue;
}
