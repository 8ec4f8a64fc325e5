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

/** The one {@link SerialQueue} of a connection object (shared by every user of that handle). */
export function serialQueueOf(handle: object): SerialQueue {
  let queue = queues.get(handle);
  if (!queue) {
    queue = new SerialQueue();
    queues.set(handle, queue);
  }
  return queue;
}
