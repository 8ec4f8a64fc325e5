import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { ThreadwiseError } from "@threadwise/core";

/**
 * A commit of user memory planned and wrote `attempts` times, and each time another commit of the
 * same user had written one of its facts first (a store with conditional writes): nothing of this
 * commit was written. Retry the turn's commit; reaching it takes that many commits of one user at once.
 */
export class ThreadwiseUserMemoryConflictError extends ThreadwiseError {
  readonly tenantId: string;
  readonly userId: string;
  readonly attempts: number;
  constructor(scope: { tenantId: string; userId: string }, attempts: number) {
    super(
      "THREADWISE_USER_MEMORY_CONFLICT",
      `user memory: ${attempts} conditional writes of this commit lost to other commits of the same user (tenant ${JSON.stringify(scope.tenantId)}, user ${JSON.stringify(scope.userId)}); nothing of it was written`,
    );
    this.tenantId = scope.tenantId;
    this.userId = scope.userId;
    this.attempts = attempts;
  }
}

/**
 * One write of {@link ConditionalWrite}: `value` (a stored value, as `store.put` takes it; `null`
 * deletes) under `key`, only if the key holds `expected` (a value as the store returned it;
 * `undefined`: no item under the key).
 */
export interface ConditionalOp {
  key: string;
  expected: unknown;
  value: Record<string, unknown> | null;
}

/**
 * Writes every op in one namespace, all or none: `true` when each key still held its `expected`
 * value and all were written; `false` (nothing written) when any key held something else.
 */
export type ConditionalWrite = (namespace: readonly string[], ops: readonly ConditionalOp[]) => Promise<boolean>;

interface PgClientLike {
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null }>;
  release(error?: Error | boolean): void;
}

/** What a `@langchain/langgraph-checkpoint-postgres` PostgresStore (1.0.x) keeps in `core`. */
interface PostgresStoreCore {
  pool: { connect(): Promise<PgClientLike> };
  schema: string;
  ttlConfig?: unknown;
  indexConfig?: unknown;
}

/**
 * The key a store wrapping a PostgresStore sets to that PostgresStore (`wrapper[CONDITIONAL_STORE] =
 * inner`) when its user-memory items reach the inner store unchanged (same namespace, key and
 * value): user memory's conditional writes then go to the inner store's table directly. A wrapper
 * that changes what it stores (other namespaces, values it transforms) must not set it.
 * `Symbol.for("threadwise.userMemory.conditionalStore")`, so copies of the package agree.
 */
export const CONDITIONAL_STORE: unique symbol = Symbol.for("threadwise.userMemory.conditionalStore");

/**
 * The PostgresStore core `store` writes through, found by what the conditional write needs rather
 * than by class (a subclass or a Proxy of a PostgresStore qualifies): its `core` holds a pool
 * (`connect()`) and a schema name, with no TTL (a put would compute `expires_at`) and no vector
 * index (a put would index the value); else, the store named by `store[CONDITIONAL_STORE]` (a
 * wrapper, up to 8 levels); else `undefined`.
 */
function postgresCore(store: BaseStore): PostgresStoreCore | undefined {
  let current: unknown = store;
  for (let depth = 0; depth < 8 && current && typeof current === "object"; depth += 1) {
    const core = (current as { core?: Partial<PostgresStoreCore> }).core;
    if (core && typeof core === "object" && typeof core.pool?.connect === "function" && typeof core.schema === "string")
      return core.ttlConfig || core.indexConfig ? undefined : (core as PostgresStoreCore);
    current = (current as { [CONDITIONAL_STORE]?: unknown })[CONDITIONAL_STORE];
  }
  return undefined;
}

/**
 * The conditional write `store` supports, else `undefined` (the commit falls back to check, write,
 * read back, which leaves one store round trip open between processes).
 *
 * A PostgresStore (by its `core`, a subclass or a Proxy of one too, or the one a wrapper names by
 * {@link CONDITIONAL_STORE}): one transaction on its pool (so PgBouncer's transaction mode holds it whole), its
 * table `"<schema>".store` as PostgresStore writes it (`namespace_path` the labels joined by `:`,
 * `value` JSONB): per op, in key order (two commits lock rows in one order, never a deadlock), an
 * `UPDATE … WHERE value = expected`, an `INSERT … ON CONFLICT DO NOTHING` for a key expected
 * empty, or a `DELETE … WHERE value = expected`; any op that touches no row rolls the transaction
 * back. Under READ COMMITTED an `UPDATE` or `DELETE` waiting on another transaction's row
 * re-reads it when that one commits, and an `INSERT` meeting a row inserted meanwhile does
 * nothing: so each op compares against what is committed when it writes.
 */
export function conditionalWriteOf(store: BaseStore): ConditionalWrite | undefined {
  const core = postgresCore(store);
  if (!core) return undefined;
  const table = `"${core.schema}".store`;
  return async (namespace, ops) => {
    if (ops.length === 0) return true;
    const path = namespace.join(":");
    const client = await core.pool.connect();
    let failed: Error | undefined;
    try {
      await client.query("BEGIN");
      for (const op of [...ops].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
        const expected = op.expected === undefined ? undefined : JSON.stringify(op.expected);
        let touched: number | null;
        if (op.value === null) {
          if (expected === undefined) continue;
          ({ rowCount: touched } = await client.query(`DELETE FROM ${table} WHERE namespace_path = $1 AND key = $2 AND value = $3::jsonb`, [
            path,
            op.key,
            expected,
          ]));
        } else if (expected === undefined)
          ({ rowCount: touched } = await client.query(
            `INSERT INTO ${table} (namespace_path, key, value) VALUES ($1, $2, $3::jsonb) ON CONFLICT (namespace_path, key) DO NOTHING`,
            [path, op.key, JSON.stringify(op.value)],
          ));
        else
          ({ rowCount: touched } = await client.query(
            `UPDATE ${table} SET value = $3::jsonb, expires_at = NULL, updated_at = CURRENT_TIMESTAMP WHERE namespace_path = $1 AND key = $2 AND value = $4::jsonb`,
            [path, op.key, JSON.stringify(op.value), expected],
          ));
        if (touched !== 1) {
          await client.query("ROLLBACK");
          return false;
        }
      }
      await client.query("COMMIT");
      return true;
    } catch (error) {
      failed = error as Error;
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release(failed);
    }
  };
}

/** Tails of the commits running per store and user in this process. */
const running = new WeakMap<object, Map<string, Promise<void>>>();

/**
 * Runs `work` after every earlier call of this process for the same `store` object and `user`
 * (a key naming the user's namespace) has settled: one process's commits of a user on one store
 * never interleave. `UserMemoryEngine.commit` holds it around its read, plan and write only (an
 * `llm` extraction runs before it). An `InMemoryStore` lives in one process, so on it this is the whole answer;
 * between processes the store's conditional write ({@link conditionalWriteOf}) is.
 */
export async function serialized<T>(store: object, user: string, work: () => Promise<T>): Promise<T> {
  const users = running.get(store) ?? new Map<string, Promise<void>>();
  running.set(store, users);
  const before = users.get(user) ?? Promise.resolve();
  let done!: () => void;
  const tail = new Promise<void>((resolve) => {
    done = resolve;
  });
  const chained = before.then(() => tail);
  users.set(user, chained);
  try {
    await before;
    return await work();
  } finally {
    done();
    if (users.get(user) === chained) users.delete(user);
  }
}
