import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { UserItemCodec } from "./user-item-codec.js";
import type { UserItem } from "./user-items.js";
import type { UserScope } from "./user-scope.js";
import { eraseTenantItems, eraseUserItems, expireUserItems, readUserItems, writeUserItems } from "./user-store.js";

const codec = new UserItemCodec();
const item = (scope: UserScope, key: string, threadId: string): UserItem => ({
  v: 1,
  kind: "message",
  key,
  tenantId: scope.tenantId,
  userId: scope.userId,
  threadId,
  messageId: key,
  at: "2026-01-01T00:00Z",
  text: `text of ${key}`,
  storedAt: "2026-01-01T00:00:00.000Z",
  updatedAt: "2026-01-01T00:00:00.000Z",
});

describe("user store operations", () => {
  const a: UserScope = { tenantId: "t1", userId: "u1" };
  const b: UserScope = { tenantId: "t1", userId: "u10" };
  const c: UserScope = { tenantId: "t2", userId: "u1" };

  it("erases one user's items (with the threads they name) and nobody else's", async () => {
    const store = new InMemoryStore();
    await writeUserItems(store, a, codec, [item(a, "m:1", "x"), item(a, "m:2", "y")], []);
    await writeUserItems(store, b, codec, [item(b, "m:1", "z")], []);
    await writeUserItems(store, c, codec, [item(c, "m:1", "w")], []);
    expect(await eraseUserItems(store, a, codec)).toEqual({ items: 2, threadIds: ["x", "y"] });
    expect(await readUserItems(store, a, codec, 10)).toEqual([]);
    expect((await readUserItems(store, b, codec, 10)).map((i) => i.threadId)).toEqual(["z"]);
    expect((await readUserItems(store, c, codec, 10)).map((i) => i.threadId)).toEqual(["w"]);
  });

  it("retention deletes items last written before the cutoff, in every namespace or one tenant's", async () => {
    const store = new InMemoryStore();
    await writeUserItems(store, a, codec, [item(a, "m:1", "x")], []);
    await writeUserItems(store, c, codec, [item(c, "m:1", "w")], []);
    expect(await expireUserItems(store, new Date(Date.now() - 86_400_000))).toBe(0);
    expect(await expireUserItems(store, new Date(Date.now() + 60_000), { tenantLabel: "t2" })).toBe(1);
    expect(await readUserItems(store, c, codec, 10)).toEqual([]);
    expect(await readUserItems(store, a, codec, 10)).toHaveLength(1);
    expect(await expireUserItems(store, new Date(Date.now() + 60_000))).toBe(1);
    expect(await readUserItems(store, a, codec, 10)).toEqual([]);
  });

  /** An InMemoryStore that, like PostgresStore (`SELECT DISTINCT namespace_path FROM store`), stops listing a namespace once it holds no item. */
  class DroppingStore extends InMemoryStore {
    override async listNamespaces(options: Parameters<InMemoryStore["listNamespaces"]>[0] = {}) {
      const all = await super.listNamespaces({ ...options, limit: Number.MAX_SAFE_INTEGER, offset: 0 });
      const data = (this as unknown as { data: Map<string, Map<string, unknown>> }).data;
      const held = all.filter((namespace) => (data.get(namespace.join(":"))?.size ?? 0) > 0);
      const offset = options.offset ?? 0;
      return held.slice(offset, offset + (options.limit ?? held.length));
    }
  }
  // Past the 500 namespaces of one listing page: the paging must not skip what follows a page it emptied.
  const USERS = 1100;
  const userOf = (i: number) => `u${String(i).padStart(4, "0")}`;
  const fill = async (store: InMemoryStore, tenant: string, which: (i: number) => boolean = () => true) => {
    for (let i = 0; i < USERS; i += 1) {
      if (!which(i)) continue;
      const scope = { tenantId: tenant, userId: userOf(i) };
      await writeUserItems(store, scope, codec, [item(scope, "m:1", `t${i}`)], []);
    }
  };
  const left = async (store: InMemoryStore, tenant: string) => {
    let n = 0;
    for (let i = 0; i < USERS; i += 1) n += (await readUserItems(store, { tenantId: tenant, userId: userOf(i) }, codec, 10)).length;
    return n;
  };

  it.each([
    ["keeps listing emptied namespaces (InMemoryStore)", () => new InMemoryStore()],
    ["stops listing emptied namespaces (as PostgresStore)", () => new DroppingStore()],
  ])("retention reaches every namespace past the first page, on a store that %s", async (_name, make) => {
    const store = make();
    // Users with an odd number also wrote after the cutoff: their namespaces stay listed, the others' empty.
    await fill(store, "t1");
    await new Promise((resolve) => setTimeout(resolve, 5));
    const cutoff = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (let i = 1; i < USERS; i += 2) {
      const scope = { tenantId: "t1", userId: userOf(i) };
      await writeUserItems(store, scope, codec, [item(scope, "m:2", `t${i}`)], []);
    }
    expect(await expireUserItems(store, cutoff)).toBe(USERS);
    expect(await left(store, "t1")).toBe(Math.floor(USERS / 2));
    // Now every item expires: each page's namespaces empty as they are visited.
    expect(await expireUserItems(store, new Date(Date.now() + 60_000))).toBe(Math.floor(USERS / 2));
    expect(await left(store, "t1")).toBe(0);
  });

  it.each([
    ["keeps listing emptied namespaces (InMemoryStore)", () => new InMemoryStore()],
    ["stops listing emptied namespaces (as PostgresStore)", () => new DroppingStore()],
  ])("eraseTenantItems counts and deletes every namespace of the tenant past the first page, on a store that %s", async (_name, make) => {
    const store = make();
    await fill(store, "t1");
    await fill(store, "t10");
    expect(await eraseTenantItems(store, "t1")).toBe(USERS);
    const batches: number[] = [];
    expect(await eraseTenantItems(store, "t1", { apply: true, batchSize: 7, onBatch: (deleted) => void batches.push(deleted) })).toBe(
      USERS,
    );
    expect(batches.at(-1)).toBe(USERS);
    expect(await left(store, "t1")).toBe(0);
    // `t1` is a prefix of `t10` in a store's LIKE search: t10 keeps every item.
    expect(await left(store, "t10")).toBe(USERS);
  });
});
