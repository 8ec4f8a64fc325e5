import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";

const INNER_SAVEPOINT = "threadwise_inner";

/**
 * Lets a saver that opens its own transactions (PostgresSaver's `put`/`putWrites`: `connect`,
 * `BEGIN`, ..., `COMMIT`) run inside a transaction threadwise already holds, so the tombstone
 * check, the compare-and-set and the saver's rows commit or roll back together (spec R24, R34).
 *
 * {@link PgTransactionScope.pool} wraps the real pool: inside {@link PgTransactionScope.run}, its
 * `connect()` hands out the held client with `BEGIN`/`COMMIT`/`ROLLBACK` turned into a savepoint
 * and `release()` a no-op, and its `query()` runs on the held client; outside, both go to the
 * real pool. One connection per write, for the write only: nothing is held across a model call.
 */
export class PgTransactionScope {
  readonly #current = new AsyncLocalStorage<pg.PoolClient>();

  /** Runs `task` with `client` (inside an open transaction) as the pool's connection. */
  run<T>(client: pg.PoolClient, task: () => Promise<T>): Promise<T> {
    return this.#current.run(client, task);
  }

  /** A view of `pool` that routes to the held client inside {@link PgTransactionScope.run}. */
  pool(pool: pg.Pool): pg.Pool {
    const current = this.#current;
    return new Proxy(pool, {
      get(target, property, receiver) {
        if (property === "connect") {
          return (...args: unknown[]) => {
            const held = current.getStore();
            if (!held) return (target.connect as (...a: unknown[]) => unknown).apply(target, args);
            return Promise.resolve(savepointClient(held));
          };
        }
        if (property === "query") {
          return (...args: unknown[]) => {
            const held = current.getStore();
            return ((held ?? target).query as (...a: unknown[]) => unknown).apply(held ?? target, args);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}

function savepointClient(client: pg.PoolClient): pg.PoolClient {
  const statement = (text: unknown): unknown => {
    if (typeof text !== "string") return text;
    const word = text.trim().toUpperCase();
    if (word === "BEGIN") return `SAVEPOINT ${INNER_SAVEPOINT}`;
    if (word === "COMMIT") return `RELEASE SAVEPOINT ${INNER_SAVEPOINT}`;
    if (word === "ROLLBACK") return `ROLLBACK TO SAVEPOINT ${INNER_SAVEPOINT}`;
    return text;
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === "release") return () => undefined;
      if (property === "query")
        return (text: unknown, ...rest: unknown[]) => (target.query as (...a: unknown[]) => unknown).call(target, statement(text), ...rest);
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
