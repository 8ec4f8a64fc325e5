import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { UserItemCodec } from "./user-item-codec.js";
import type { UserItem } from "./user-items.js";
import type { UserScope } from "./user-scope.js";
import { eraseUserItems, expireUserItems, readUserItems, writeUserItems } from "./user-store.js";

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
});
