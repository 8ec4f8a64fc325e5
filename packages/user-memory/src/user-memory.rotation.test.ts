import { createHash } from "node:crypto";
import { InMemoryStore } from "@langchain/langgraph";
import { parseKeyring } from "@threadwise/encryption";
import { describe, expect, it } from "vitest";
import { UserItemCodec } from "./user-item-codec.js";
import { UserMemoryEngine } from "./user-memory-engine.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";
import { idOfLabel, namespaceLabel, userNamespace } from "./user-scope.js";
import { reencryptUserItems } from "./user-store.js";

const key = (kid: string) => createHash("sha256").update(`rotation-${kid}`).digest("base64");
const ring = (active: string, kids: string[]) =>
  parseKeyring(
    JSON.stringify({ version: 1, active_kid: active, keys: Object.fromEntries(kids.map((kid) => [kid, key(kid)])) }),
    "test-keyring",
  );
const codecOf = (keyring: ReturnType<typeof ring>) => new UserItemCodec({ keyring, agentId: "default", principalId: "default" });
const engineOf = (keyring: ReturnType<typeof ring>) => new UserMemoryEngine(resolveUserMemoryOptions({ keyring, env: {} }));
// Ids with Korean characters, `:` and `/` (escaped in the namespace, read back by idOfLabel).
const users = [
  { tenantId: "acme", userId: "사용자:1/가" },
  { tenantId: "테넌트/b", userId: "user:2" },
];

describe("key rotation of user memory", () => {
  it("ids round-trip through their namespace label", () => {
    for (const id of ["사용자:1/가", "a.b:c", "user-42", "~7E", "🙂 x"]) expect(idOfLabel(namespaceLabel(id))).toBe(id);
    expect(idOfLabel("a.b")).toBeUndefined();
    expect(idOfLabel("~7e")).toBeUndefined();
  });

  it("rotate, reencryptUserItems, retire the old kid: every user keeps all of their memory (en, ko)", async () => {
    const store = new InMemoryStore();
    const k1 = ring("k1", ["k1"]);
    for (const scope of users) {
      await engineOf(k1).commit(store, scope, {
        threadId: "A",
        messages: [{ id: "a1", text: "My cat is named Nabi. ROTA" }],
        now: "2026-01-01T10:00:00.000Z",
      });
      await engineOf(k1).commit(store, scope, {
        threadId: "B",
        messages: [{ id: "b1", text: "저는 부산에 살아요. ROTB" }],
        now: "2026-01-01T10:01:00.000Z",
      });
    }
    const rotated = ring("k2", ["k1", "k2"]);
    // New writes after the rotation use k2; old items still open with k1.
    await engineOf(rotated).commit(store, users[0] as (typeof users)[0], {
      threadId: "C",
      messages: [{ id: "c1", text: "I work at Kakao. ROTC" }],
      now: "2026-01-01T10:02:00.000Z",
    });
    const dry = await reencryptUserItems(store, codecOf(rotated), { dryRun: true });
    expect(dry.resealed).toBe(0);
    expect(Object.keys(dry.byKid).sort()).toEqual(["k1", "k2"]);
    const retired = ring("k2", ["k2"]);
    // Retired before re-sealing, the old items do not open: the whole read fails (unknown-kid).
    await expect(engineOf(retired).recall(store, users[0] as (typeof users)[0], { text: "ROTA", threadId: "Z" })).rejects.toMatchObject({
      code: "THREADWISE_DECRYPTION_FAILED",
      problem: "unknown-kid",
    });
    const done = await reencryptUserItems(store, codecOf(rotated));
    expect(done.resealed).toBe(dry.byKid.k1);
    expect([done.plaintext, done.unopenable]).toEqual([0, 0]);
    expect((await reencryptUserItems(store, codecOf(rotated), { dryRun: true })).byKid).toEqual({
      k2: (dry.byKid.k1 ?? 0) + (dry.byKid.k2 ?? 0),
    });
    for (const scope of users) {
      const block = (await engineOf(retired).recall(store, scope, { text: "ROTA ROTB ROTC 부산 cat", threadId: "Z" })).text;
      expect(block).toContain("ROTA");
      expect(block).toContain("ROTB");
    }
    // Run again: nothing left to re-seal.
    expect((await reencryptUserItems(store, codecOf(rotated))).resealed).toBe(0);
  });

  it("counts plaintext items and items that do not open apart: only the latter stay on an old kid (en, ko)", async () => {
    const store = new InMemoryStore();
    const [mine, plain, other] = [
      { tenantId: "acme", userId: "사용자:1/가" },
      { tenantId: "테넌트/b", userId: "user:2" },
      { tenantId: "acme", userId: "다른 사람" },
    ];
    const k1 = ring("k1", ["k1"]);
    await engineOf(k1).commit(store, mine, {
      threadId: "A",
      messages: [{ id: "a1", text: "My cat is named Nabi." }],
      now: "2026-01-01T10:00:00.000Z",
    });
    // Written with no keyring: plaintext.
    await new UserMemoryEngine(resolveUserMemoryOptions({ env: {} })).commit(store, plain, {
      threadId: "P",
      messages: [{ id: "p1", text: "저는 부산에 살아요." }],
      now: "2026-01-01T10:00:00.000Z",
    });
    // Sealed for another principal: it does not open with codecOf's ids.
    await new UserMemoryEngine(resolveUserMemoryOptions({ keyring: k1, principalId: "someone-else", env: {} })).commit(store, other, {
      threadId: "O",
      messages: [{ id: "o1", text: "저는 서울에 살아요." }],
      now: "2026-01-01T10:00:00.000Z",
    });
    const count = async (scope: { tenantId: string; userId: string }) => (await store.search(userNamespace(scope), { limit: 100 })).length;
    const [nMine, nPlain, nOther] = [await count(mine), await count(plain), await count(other)];
    expect(Math.min(nMine, nPlain, nOther)).toBeGreaterThan(0);
    const rotated = ring("k2", ["k1", "k2"]);
    const dry = await reencryptUserItems(store, codecOf(rotated), { dryRun: true });
    expect(dry).toEqual({ byKid: { k1: nMine + nOther }, resealed: 0, plaintext: nPlain, sealedPlaintext: 0, unopenable: nOther });
    const done = await reencryptUserItems(store, codecOf(rotated));
    expect(done).toEqual({ byKid: { k1: nMine + nOther }, resealed: nMine, plaintext: nPlain, sealedPlaintext: 0, unopenable: nOther });
  });

  it("refuses a codec without a keyring, naming reencryptUserItems.codec", async () => {
    await expect(reencryptUserItems(new InMemoryStore(), new UserItemCodec())).rejects.toMatchObject({
      option: "reencryptUserItems.codec",
    });
  });
});
