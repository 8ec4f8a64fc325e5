/**
 * Which stores get user memory's conditional write: recognised by what it needs (a PostgresStore's
 * `core` with its pool and schema), not by class name, so a subclass and a Proxy of one qualify,
 * and a wrapper that names the PostgresStore it writes through by `CONDITIONAL_STORE`. A store
 * without them (a wrapper that does not say, an `InMemoryStore`, a PostgresStore with a TTL) keeps
 * the check-write-read-back path. Before, only `constructor.name === "PostgresStore"` did.
 */
import { InMemoryStore } from "@langchain/langgraph";
import { BaseStore, type Operation, type OperationResults } from "@langchain/langgraph-checkpoint";
import { describe, expect, it } from "vitest";
import { CONDITIONAL_STORE, conditionalWriteOf } from "./conditional-writes.js";

/** A pool whose one client records the statements it is sent, each touching one row. */
function recordingPool() {
  const statements: string[] = [];
  const client = {
    query: async (text: string) => {
      statements.push(text.split(" ")[0] as string);
      return { rowCount: 1 };
    },
    release: () => undefined,
  };
  return { statements, pool: { connect: async () => client } };
}

/** Stands in for `@langchain/langgraph-checkpoint-postgres`'s PostgresStore: what it keeps in `core`. */
class PostgresStore extends BaseStore {
  readonly core: { pool: unknown; schema: string; ttlConfig?: unknown };
  constructor(pool: unknown, ttlConfig?: unknown) {
    super();
    this.core = { pool, schema: "tw", ...(ttlConfig ? { ttlConfig } : {}) };
  }
  async batch<Op extends Operation[]>(_operations: Op): Promise<OperationResults<Op>> {
    throw new Error("not used");
  }
}

/** A store that passes every operation to `inner` (logging, metrics): it says nothing of what it writes. */
class Wrapper extends BaseStore {
  constructor(readonly inner: BaseStore) {
    super();
  }
  batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    return this.inner.batch(operations);
  }
}

const op = { key: "fact:residence", expected: undefined, value: { v: 1 } };

describe("conditionalWriteOf recognises a store by capability", () => {
  it("a subclass of PostgresStore writes conditionally, on its pool", async () => {
    const { statements, pool } = recordingPool();
    class TenantStore extends PostgresStore {}
    const write = conditionalWriteOf(new TenantStore(pool));
    expect(write).toBeDefined();
    expect(await write?.(["a", "b"], [op])).toBe(true);
    expect(statements).toEqual(["BEGIN", "INSERT", "COMMIT"]);
  });

  it("a Proxy of a PostgresStore writes conditionally", () => {
    const { pool } = recordingPool();
    const store = new PostgresStore(pool);
    expect(conditionalWriteOf(new Proxy(store, {}))).toBeDefined();
  });

  it("a wrapper naming its PostgresStore by CONDITIONAL_STORE writes conditionally on that store's pool", async () => {
    const { statements, pool } = recordingPool();
    const wrapper = new Wrapper(new PostgresStore(pool));
    (wrapper as unknown as Record<symbol, unknown>)[CONDITIONAL_STORE] = wrapper.inner;
    expect(await conditionalWriteOf(wrapper)?.(["a"], [op])).toBe(true);
    expect(statements).toEqual(["BEGIN", "INSERT", "COMMIT"]);
  });

  it("keeps today's path for a wrapper that does not say, an InMemoryStore and a PostgresStore with a TTL", () => {
    const { pool } = recordingPool();
    expect(conditionalWriteOf(new Wrapper(new PostgresStore(pool)))).toBeUndefined();
    expect(conditionalWriteOf(new InMemoryStore())).toBeUndefined();
    expect(conditionalWriteOf(new PostgresStore(pool, { defaultTtl: 60 }))).toBeUndefined();
  });
});
