/**
 * Wrong input to user memory's operations, not tried by newuser39 (test/newuser39.wrong-input.test.ts).
 * Found by newuser60's probe on a store holding three tenants' items:
 * - `expireUserItems(store, before, { tenantLabel: "" })` and a misspelt `{ tenant: "acme" }` (an
 *   unknown key, ignored) expired every tenant's items, not one tenant's;
 * - `expireUserItems` with `new Date(NaN)` or an ISO string deleted nothing and returned 0;
 * - `eraseTenantItems` with `batchSize` 0 or NaN and `apply: true` returned 0 with every item kept;
 *   a misspelt `aply` counted instead of erasing; a label `""`, `42` or `undefined` threw
 *   LangGraph's `InvalidNamespaceError`, naming nothing of ours;
 * - `eraseUserItems` with a user id `42` or `undefined` threw a plain `TypeError`, `""` LangGraph's error.
 * Each is now a typed error naming the option, thrown before any store call: no item is lost.
 */
import { InMemoryStore } from "@langchain/langgraph";
import { ThreadwiseConfigError, ThreadwiseUnknownOptionError, ThreadwiseUserIdError } from "@threadwise/core";
import { eraseUser, userMemoryRetention } from "@threadwise/memory";
import {
  eraseTenantItems,
  eraseUserItems,
  expireUserItems,
  namespaceLabel,
  resolveUserMemoryOptions,
  UserItemCodec,
  UserMemoryEngine,
} from "@threadwise/user-memory";
import { describe, expect, it } from "vitest";

const SCOPES = [
  { tenantId: "acme", userId: "mina" },
  { tenantId: "고객사", userId: "민지" },
  { tenantId: "default", userId: "jun" },
];

async function filled(): Promise<InMemoryStore> {
  const store = new InMemoryStore();
  const engine = new UserMemoryEngine(resolveUserMemoryOptions({ env: {} }));
  for (const [i, scope] of SCOPES.entries())
    await engine.commit(store, scope, {
      threadId: "A",
      messages: [{ id: `m${i}`, text: i === 1 ? "부산에 살아요." : "I live in Busan." }],
      now: "2026-01-01T00:00:00.000Z",
    });
  return store;
}
const items = async (store: InMemoryStore) => (await store.search(["threadwise"], { limit: 1000 })).length;

/** Runs `call` on a filled store: the error it threw, and whether every item is still there. */
async function refused(call: (store: InMemoryStore) => Promise<unknown>): Promise<{ error: unknown; kept: boolean }> {
  const store = await filled();
  const before = await items(store);
  const error = await call(store).then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, kept: (await items(store)) === before && before > 0 };
}

const LATER = new Date("2030-01-01T00:00:00.000Z");

describe("user memory's operations refuse wrong input by name, losing nothing", () => {
  it.each([
    ["an empty tenantLabel (expired every tenant)", { tenantLabel: "" }, "expireUserItems.tenantLabel"],
    ["a raw tenant id needing escapes", { tenantLabel: "a.b" }, "expireUserItems.tenantLabel"],
  ])("expireUserItems: %s", async (_what, options, option) => {
    const { error, kept } = await refused((store) => expireUserItems(store, LATER, options));
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe(option);
    expect(kept).toBe(true);
  });

  it("expireUserItems: a misspelt option (tenant) is refused, not ignored (it expired every tenant)", async () => {
    const { error, kept } = await refused((store) => expireUserItems(store, LATER, { tenant: "acme" } as never));
    expect(ThreadwiseUnknownOptionError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseUnknownOptionError).option).toBe("expireUserItems.tenant");
    expect((error as Error).message).toContain("tenantLabel");
    expect(kept).toBe(true);
  });

  it.each([
    ["an invalid Date", new Date(Number.NaN)],
    ["an ISO string", "2030-01-01"],
  ])("expireUserItems: before as %s", async (_what, before) => {
    const { error } = await refused((store) => expireUserItems(store, before as Date));
    expect((error as ThreadwiseConfigError).option).toBe("expireUserItems.before");
  });

  it.each([
    ["batchSize 0", "acme", { apply: true, batchSize: 0 }, "eraseTenantItems.batchSize"],
    ["batchSize NaN", "acme", { apply: true, batchSize: Number.NaN }, "eraseTenantItems.batchSize"],
    ["batchSize -1", "acme", { apply: true, batchSize: -1 }, "eraseTenantItems.batchSize"],
    ["an empty label", "", { apply: true }, "eraseTenantItems.tenantLabel"],
    ["a number as label", 42, { apply: true }, "eraseTenantItems.tenantLabel"],
    ["no label", undefined, { apply: true }, "eraseTenantItems.tenantLabel"],
  ])("eraseTenantItems: %s", async (_what, label, options, option) => {
    const { error, kept } = await refused((store) => eraseTenantItems(store, label as string, options));
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe(option);
    expect(kept).toBe(true);
  });

  it("eraseTenantItems: a misspelt apply is refused (it counted instead of erasing); the right one erases one tenant (ko)", async () => {
    const { error } = await refused((store) => eraseTenantItems(store, "acme", { aply: true } as never));
    expect((error as ThreadwiseUnknownOptionError).option).toBe("eraseTenantItems.aply");
    const store = await filled();
    const total = await items(store);
    const erased = await eraseTenantItems(store, namespaceLabel("고객사"), { apply: true, batchSize: 1 });
    expect(erased).toBeGreaterThan(0);
    expect(await items(store)).toBe(total - erased);
  });

  it.each([
    ["a number", 42],
    ["undefined", undefined],
    ["an empty string", ""],
  ])("eraseUserItems: a user id that is %s", async (_what, userId) => {
    const { error, kept } = await refused((store) =>
      eraseUserItems(store, { tenantId: "acme", userId: userId as string }, new UserItemCodec()),
    );
    expect(ThreadwiseUserIdError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("eraseUserItems.scope.userId");
    expect(kept).toBe(true);
  });
});

describe("@threadwise/memory's user-memory operations refuse a misspelt option instead of ignoring it", () => {
  it("eraseUser({ aply: true }) (was a dry run that erased nothing)", async () => {
    const store = await filled();
    const before = await items(store);
    const error = await eraseUser({ store, userId: "mina", tenantId: "acme", aply: true } as never).catch((e: unknown) => e);
    expect(ThreadwiseUnknownOptionError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseUnknownOptionError).option).toBe("eraseUser.aply");
    expect((error as Error).message).toContain('"apply"');
    expect(await items(store)).toBe(before);
    const done = await eraseUser({ store, userId: "mina", tenantId: "acme", apply: true });
    expect(done.items).toBeGreaterThan(0);
    expect(await items(store)).toBe(before - done.items);
  });

  it("userMemoryRetention({ tenantID }) (was ignored: every tenant's users expired)", async () => {
    const store = await filled();
    const before = await items(store);
    const error = await userMemoryRetention({ store, days: 1, tenantID: "acme" } as never).catch((e: unknown) => e);
    expect(ThreadwiseUnknownOptionError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseUnknownOptionError).option).toBe("userMemoryRetention.tenantID");
    expect(await items(store)).toBe(before);
    // The right name expires that tenant's users only (Korean tenant).
    // Two days from now: every item is over a day old (the store stamps writes with the real clock).
    const now = () => new Date(Date.now() + 2 * 86_400_000);
    const { deleted } = await userMemoryRetention({ store, days: 1, tenantId: "고객사", now });
    expect(deleted).toBeGreaterThan(0);
    expect(await items(store)).toBe(before - deleted);
  });
});
