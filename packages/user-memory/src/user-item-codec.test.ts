import { createHash } from "node:crypto";
import { InMemoryStore } from "@langchain/langgraph";
import { parseKeyring } from "@threadwise/encryption";
import { describe, expect, it } from "vitest";
import { UserItemCodec } from "./user-item-codec.js";
import type { UserItem } from "./user-items.js";
import type { UserScope } from "./user-scope.js";
import { userNamespace } from "./user-scope.js";
import { readUserItems, writeUserItems } from "./user-store.js";

const key = (seed: string) => createHash("sha256").update(seed).digest("base64");
const keyring = (seed: string) => parseKeyring(JSON.stringify({ version: 1, active_kid: "k1", keys: { k1: key(seed) } }), "test-keyring");
const sealing = (seed = "a") => new UserItemCodec({ keyring: keyring(seed), agentId: "default", principalId: "default" });

const alice: UserScope = { tenantId: "acme", userId: "alice" };
const bob: UserScope = { tenantId: "acme", userId: "bob" };
const item = (scope: UserScope, itemKey = "m:1", text = "SENTINEL-ALICE lives in Busan"): UserItem => ({
  v: 1,
  kind: "message",
  key: itemKey,
  tenantId: scope.tenantId,
  userId: scope.userId,
  threadId: "t1",
  messageId: "msg-1",
  at: "2026-03-02T09:15Z",
  text,
  storedAt: "2026-03-02T09:15:00.000Z",
  updatedAt: "2026-03-02T09:15:00.000Z",
});
const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return { code: (error as { code?: string }).code, problem: (error as { problem?: string }).problem };
  }
  return undefined;
};

describe("UserItemCodec", () => {
  it("seals: the stored value holds no plaintext and opens for its own scope and key", async () => {
    const codec = sealing();
    const store = new InMemoryStore();
    await writeUserItems(store, alice, codec, [item(alice)], []);
    const raw = await store.get(userNamespace(alice), "m:1");
    expect(JSON.stringify(raw?.value)).not.toContain("SENTINEL");
    expect(await readUserItems(store, alice, codec, 10)).toEqual([item(alice)]);
  });

  it("refuses a sealed value copied to another user, tenant or item key, an altered one and one of another keyring, with named codes", () => {
    const codec = sealing();
    const stored = codec.encode(alice, item(alice));
    expect(codeOf(() => codec.decode(bob, "m:1", stored))).toEqual({
      code: "THREADWISE_DECRYPTION_FAILED",
      problem: "authentication-failed",
    });
    // Another tenant derives another data key: refused by the tenant-and-agent fingerprint first.
    expect(codeOf(() => codec.decode({ tenantId: "globex", userId: "alice" }, "m:1", stored))).toEqual({
      code: "THREADWISE_AGENT_MISMATCH",
      problem: undefined,
    });
    expect(codeOf(() => codec.decode(alice, "m:2", stored))).toEqual({
      code: "THREADWISE_DECRYPTION_FAILED",
      problem: "authentication-failed",
    });
    const sealed = (stored as { sealed: string }).sealed;
    const flipped = `${sealed.slice(0, -6)}${sealed.at(-6) === "A" ? "B" : "A"}${sealed.slice(-5)}`;
    expect(codeOf(() => codec.decode(alice, "m:1", { v: 1, sealed: flipped }))).toEqual({
      code: "THREADWISE_DECRYPTION_FAILED",
      problem: "authentication-failed",
    });
    // Another keyring: refused, never read as something else.
    expect(codeOf(() => sealing("other").decode(alice, "m:1", stored))).toEqual({
      code: "THREADWISE_DECRYPTION_FAILED",
      problem: "authentication-failed",
    });
    // Plaintext where sealed is expected, and sealed without a keyring.
    expect(codeOf(() => codec.decode(alice, "m:1", { v: 1, item: item(alice) }))).toEqual({
      code: "THREADWISE_DECRYPTION_FAILED",
      problem: "plaintext-record",
    });
    expect(codeOf(() => new UserItemCodec().decode(alice, "m:1", stored))).toEqual({
      code: "THREADWISE_USER_MEMORY_SEALED_ITEM",
      problem: "sealed-without-keyring",
    });
  });

  it("refuses a plaintext item whose owner is not the scope read", () => {
    const codec = new UserItemCodec();
    expect(codeOf(() => codec.decode(bob, "m:1", codec.encode(alice, item(alice))))).toEqual({
      code: "THREADWISE_USER_MEMORY_FOREIGN_ITEM",
      problem: "foreign-owner",
    });
    expect(codec.decode(alice, "m:1", codec.encode(alice, item(alice)))).toEqual(item(alice));
  });
});
