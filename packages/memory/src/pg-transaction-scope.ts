import { AsyncLocalStorage } from "node:async_hooks";
import type pg from "pg";

/** What the held client answers to the wrapped saver's `BEGIN`, `COMMIT` and `ROLLBACK` (nothing is sent). */
const NOT_SENT = (command: string) => ({ command, rowCount: null, oid: 0, rows: [], fields: [] });

/**
 * Lets a saver that opens its own transactions (PostgresSaver's `put`/`putWrites`: `connect`,
 * `BEGIN`, ..., `COMMIT`) run inside a transaction threadwise already holds, so the tombstone
 * check, the compare-and-set and the saver's rows commit or roll back together (spec R24, R34).
 *
 * {@link PgTransactionScope.pool} wraps the real pool: inside {@link PgTransactionScope.run}, its
 * `connect()` hands out the held client with `release()` a no-op, and its `query()` runs on the
 * held client; outside, both go to the real pool. One connection per write, for the write only:
 * nothing is held across a model call.
 *
 * The wrapped saver's `BEGIN`, `COMMIT` and `ROLLBACK` on the held client are not sent: its
 * statements are part of the registry's transaction, which commits or rolls back all of them.
 * PostgresSaver rolls back only after a failed statement and re-throws, so the registry's
 * transaction is rolled back then anyway; a saver that rolls back and then returns normally makes
 * `run` reject, so nothing of the write is committed. (They used to be a savepoint and its
 * release: two more round trips on every write.)
 */
export class PgTransactionScope {
  readonly #current = new AsyncLocalStorage<HeldClient>();

  /**
   * Runs `task` with `client` (inside an open transaction) as the pool's connection.
   * @throws Error when the wrapped saver rolled back inside `task` and `task` resolved (nothing may be committed).
   */
  async run<T>(client: pg.PoolClient, task: () => Promise<T>): Promise<T> {
    const held: HeldClient = { client, rolledBack: false };
    const result = await this.#current.run(held, task);
    if (held.rolledBack)
      throw new Error("the wrapped saver rolled back inside the registry's transaction and went on; nothing of the write is stored");
    return result;
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
            return Promise.resolve(innerClient(held));
          };
        }
        if (property === "query") {
          return (...args: unknown[]) => {
            const held = current.getStore()?.client;
            return ((held ?? target).query as (...a: unknown[]) => unknown).apply(held ?? target, args);
          };
        }
        const value = Reflect.get(target, property, receiver);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
}

interface HeldClient {
  client: pg.PoolClient;
  /** The wrapped saver sent `ROLLBACK` inside the scope. */
  rolledBack: boolean;
}

/** The held client as the wrapped saver sees it: `BEGIN`/`COMMIT`/`ROLLBACK` not sent (a `ROLLBACK` remembered), `release()` a no-op. */
function innerClient(held: HeldClient): pg.PoolClient {
  const { client } = held;
  const query = (text: unknown, ...rest: unknown[]): unknown => {
    const word = typeof text === "string" ? text.trim().toUpperCase() : "";
    if (word === "ROLLBACK") held.rolledBack = true;
    if (word === "BEGIN" || word === "COMMIT" || word === "ROLLBACK") {
      const result = NOT_SENT(word);
      const callback = rest.at(-1);
      if (typeof callback === "function") {
        queueMicrotask(() => (callback as (error: null, value: unknown) => void)(null, result));
        return undefined;
      }
      return Promise.resolve(result);
    }
    return (client.query as (...a: unknown[]) => unknown).call(client, text, ...rest);
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (property === "release") return () => undefined;
      if (property === "query") return query;
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
