/**
 * `eraseTenant` / `threadwise erase-tenant` (offboarding a tenant; spec R24, R40) on every
 * backend: two tenants' savers on one store, each with threads (checkpoints, pending writes,
 * archived messages), user-memory items; a thread written before the tenant was recorded that
 * holds the tenant's archived messages; the tenant's archived messages on the other tenant's
 * thread. The erase removes all of the tenant's and nothing of the other's, leaves tombstones, is
 * batched, and finishes when run again after a crash between batches.
 */
import { HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { type BaseStore, InMemoryStore } from "@langchain/langgraph-checkpoint";
import { scriptedModel } from "@threadwise/core/testing";
import {
  createCheckpointer,
  createMemoryPool,
  type EraseTenantOptions,
  eraseTenant,
  MemoryThreadRegistry,
  postgresUserStore,
  resolveMemoryConfig,
  type ThreadRegistry,
  ThreadwiseSaver,
} from "@threadwise/memory";
import { namespaceLabel } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { cliRun } from "./support/cli-run.js";
import { BACKENDS, type Backend, backendStorage } from "./support/threadwise-savers.js";

const storage = backendStorage("tweras");

const itemsNamespace = (tenant: string, user: string) => [
  "threadwise",
  "user-memory",
  "v1",
  namespaceLabel(tenant),
  namespaceLabel(user),
  "items",
];

/** One store with two tenants' memory on `backend`; `target` is what the ops functions take. */
async function world(backend: Backend, tag: string) {
  const options = storage(backend, "fresh");
  let saverOf: (tenant: string) => ThreadwiseSaver;
  let registry: ThreadRegistry;
  let store: BaseStore;
  let target: Pick<EraseTenantOptions, "registry" | "sqlitePath" | "dsn" | "schema" | "store">;
  const closers: Array<() => Promise<unknown>> = [];
  if (backend === "in_memory") {
    const inner = new MemorySaver();
    const shared = new MemoryThreadRegistry(inner);
    registry = shared;
    saverOf = (tenantId) => new ThreadwiseSaver(inner, shared, { tenantId, plaintext: true });
    store = new InMemoryStore();
    target = { registry, store };
  } else {
    const config = resolveMemoryConfig(options, {});
    // One saver (one pool) per tenant: a new one per seeded thread opened 8 pools, past the 8
    // connections embedded PGlite serves, and `pnpm test` on a clone without PostgreSQL failed
    // with "Connection terminated unexpectedly".
    const savers = new Map<string, ThreadwiseSaver>();
    saverOf = (tenant) => {
      const open = savers.get(tenant);
      if (open) return open;
      const saver = createCheckpointer(config, { env: { THREADWISE_MEMORY_TENANT_ID: tenant } }) as ThreadwiseSaver;
      savers.set(tenant, saver);
      closers.push(() => saver.close());
      return saver;
    };
    registry = saverOf("registry").registry;
    if (backend === "sqlite") {
      store = new InMemoryStore();
      target = { sqlitePath: options.sqlitePath, store };
    } else {
      const dsn = options.postgresDsn as string;
      const pool = createMemoryPool(dsn, { max: 1 });
      closers.push(() => pool.end());
      store = postgresUserStore(pool, { schema: options.postgresSchema ?? "public", dsn, max: 1 });
      // No `store`: the PostgreSQL target's own PostgresStore is erased.
      target = { dsn, schema: options.postgresSchema };
    }
  }
  const model = scriptedModel(() => "ok");
  /** Two turns on `thread` through tenant `tenant`'s saver; then archived messages and a user's items. */
  async function seed(tenant: string, thread: string, user: string) {
    const saver = saverOf(tenant);
    const agent = createAgent({ model, checkpointer: saver });
    for (const text of ["hello", "again"])
      await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: thread } });
    await registry.archiveMessages(thread, tenant, [
      { messageId: `${thread}-m1`, record: "archived 1" },
      { messageId: `${thread}-m2`, record: "archived 2" },
    ]);
    await store.put(itemsNamespace(tenant, user), `fact-${thread}`, { text: `${user} lives in Busan`, threadId: thread });
  }
  const threads = { acme: [1, 2, 3, 4, 5].map((i) => `${tag}-acme-${i}`), globex: [1, 2].map((i) => `${tag}-globex-${i}`) };
  for (const [i, thread] of threads.acme.entries()) await seed("acme", thread, `${tag}-u${i % 2}`);
  for (const thread of threads.globex) await seed("globex", thread, `${tag}-u0`);
  // A thread from before the tenant was recorded (no tenant on its row) holding acme's archived messages.
  const legacy = `${tag}-legacy-acme`;
  await registry.touch(legacy);
  await registry.archiveMessages(legacy, "acme", [{ messageId: "old-1", record: "old" }]);
  // acme's archived messages on globex's thread (a stray copy): erased, globex's own rows stay.
  await registry.archiveMessages(threads.globex[0] as string, "acme", [{ messageId: "stray-1", record: "stray" }]);
  const close = async () => {
    for (const c of closers.reverse()) await c();
  };
  return { registry, store, target, threads, legacy, close, tag };
}

async function liveThreads(registry: ThreadRegistry, ids: readonly string[]) {
  const live: string[] = [];
  for (const id of ids) if (await registry.describe(id)) live.push(id);
  return live;
}

describe.each(BACKENDS)("eraseTenant (%s)", (backend) => {
  it("counts in a dry run, then erases every kind of the tenant's memory and nothing of another tenant's; run again it finds nothing", async () => {
    const w = await world(backend, "all");
    try {
      const dry = await eraseTenant({ ...w.target, tenantId: "acme", batchSize: 2 });
      expect(dry).toMatchObject({
        dryRun: true,
        tenantId: "acme",
        threads: 6,
        strayArchived: 1,
        userMemoryItems: 5,
        storeSearched: true,
        batches: 0,
      });
      expect(dry.rows.checkpoints).toBeGreaterThan(0);
      expect(dry.rows.archived).toBe(5 * 2 + 1);
      expect(await liveThreads(w.registry, [...w.threads.acme, w.legacy])).toHaveLength(6);

      const done = await eraseTenant({ ...w.target, tenantId: "acme", batchSize: 2, apply: true });
      expect(done).toMatchObject({ dryRun: false, threads: 6, strayArchived: 1, userMemoryItems: 5, unattributedThreads: 0 });
      expect(done.rows).toEqual(dry.rows);
      // 3 thread batches of 2, 1 of stray archive rows, 3 of items (2 namespaces; batch 2).
      expect(done.batches).toBe(3 + 1 + 3);
      expect(await liveThreads(w.registry, [...w.threads.acme, w.legacy])).toEqual([]);
      for (const id of [...w.threads.acme, w.legacy]) expect((await w.registry.tombstone(id))?.reason).toBe("erase-tenant");
      expect(await w.registry.readArchive(w.threads.globex[0] as string, "acme", 0)).toMatchObject({ rows: [] });
      for (const user of ["u0", "u1"]) expect(await w.store.search(itemsNamespace("acme", `${w.tag}-${user}`))).toEqual([]);
      // globex: threads, its archive rows and items all there.
      expect(await liveThreads(w.registry, w.threads.globex)).toEqual(w.threads.globex);
      for (const id of w.threads.globex) expect((await w.registry.readArchive(id, "globex", 0)).rows).toHaveLength(2);
      expect(await w.store.search(itemsNamespace("globex", `${w.tag}-u0`))).toHaveLength(2);

      const again = await eraseTenant({ ...w.target, tenantId: "acme", batchSize: 2, apply: true });
      expect(again).toMatchObject({ threads: 0, strayArchived: 0, userMemoryItems: 0, batches: 0 });
    } finally {
      await w.close();
    }
  });

  it("stopped between batches (a crash), run again it erases the rest; nothing of the other tenant is touched", async () => {
    const w = await world(backend, "crash");
    try {
      const crash = new Error("killed between batches");
      const stopped = await eraseTenant({
        ...w.target,
        tenantId: "acme",
        batchSize: 2,
        apply: true,
        onBatch: (progress) => {
          if (progress.batches === 1) throw crash;
        },
      }).catch((error: unknown) => error);
      expect(stopped).toBe(crash);
      // The first batch is gone, the rest is still there.
      expect(await liveThreads(w.registry, [...w.threads.acme, w.legacy])).toHaveLength(4);

      const resumed = await eraseTenant({ ...w.target, tenantId: "acme", batchSize: 2, apply: true });
      expect(resumed).toMatchObject({ threads: 4, strayArchived: 1, userMemoryItems: 5 });
      expect(await liveThreads(w.registry, [...w.threads.acme, w.legacy])).toEqual([]);
      for (const user of ["u0", "u1"]) expect(await w.store.search(itemsNamespace("acme", `${w.tag}-${user}`))).toEqual([]);
      expect(await liveThreads(w.registry, w.threads.globex)).toEqual(w.threads.globex);
      for (const id of w.threads.globex) expect((await w.registry.readArchive(id, "globex", 0)).rows).toHaveLength(2);
      expect(await w.store.search(itemsNamespace("globex", `${w.tag}-u0`))).toHaveLength(2);
    } finally {
      await w.close();
    }
  });
});

describe("threadwise erase-tenant (CLI)", () => {
  const cli = cliRun;

  it.each(["sqlite", "postgres"] as const)("%s: dry run by default, counts by kind, --json, --apply", async (backend) => {
    const w = await world(backend, "cli");
    try {
      const args =
        backend === "sqlite"
          ? ["--sqlite", w.target.sqlitePath as string]
          : ["--dsn", w.target.dsn as string, "--schema", w.target.schema as string];
      const dry = await cli(["erase-tenant", ...args, "--tenant-id", "acme"]);
      expect(dry.code).toBe(0);
      expect(dry.stdout).toMatch(
        /^dry run: tenant "acme" has 6 thread\(s\) \(\d+ checkpoints, \d+ blobs, \d+ writes, 11 archived messages\), 1 archived message\(s\) on other threads, /,
      );
      expect(await liveThreads(w.registry, w.threads.acme)).toHaveLength(5);
      const applied = await cli(["erase-tenant", ...args, "--tenant-id", "acme", "--batch-size", "3", "--apply", "--json"]);
      expect(applied.code).toBe(0);
      expect(JSON.parse(applied.stdout)).toMatchObject({ dryRun: false, tenantId: "acme", threads: 6, strayArchived: 1 });
      expect(await liveThreads(w.registry, [...w.threads.acme, w.legacy])).toEqual([]);
      expect(await liveThreads(w.registry, w.threads.globex)).toEqual(w.threads.globex);
      const refused = await cli(["erase-tenant", ...args, "--tenant-id", "acme", "--batch-size", "0"]);
      expect(refused.code).toBe(2);
    } finally {
      await w.close();
    }
  });
});
