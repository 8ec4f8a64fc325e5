/**
 * `memoryStack({ encryption })` without a keyring (newuser39 left it): the identity a keyring seals
 * with was taken and nothing sealed, so every checkpoint and user-memory item was stored in
 * plaintext while the code read as if encrypted. Now refused naming `memory.encryption` before any
 * file or pool is opened, unless a keyring is configured (code or env) or `allowPlaintext` (code or
 * env) says plaintext is meant.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring } from "@threadwise/encryption";
import { memoryMiddleware, memoryStack, resolveMemoryConfig } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";

const dirs: string[] = [];
const scratch = () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-nu60-enc-"));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function refusal(build: () => unknown): ThreadwiseConfigError {
  let caught: unknown;
  try {
    build();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(ThreadwiseConfigError);
  return caught as ThreadwiseConfigError;
}

describe("memoryStack({ encryption }) without a keyring", () => {
  it.each([
    ["agentId", { agentId: "support-bot" }],
    ["principalId", { principalId: "svc-api" }],
    ["tenantId (Korean)", { tenantId: "고객사-1" }],
  ])("is refused naming memory.encryption (%s)", (field, encryption) => {
    const error = refusal(() => memoryStack({ env: {}, userMemory: true, encryption }));
    expect(error.option).toBe("memory.encryption");
    expect(error.message).toContain(field.split(" ")[0]);
    expect(error.message).toContain("THREADWISE_MEMORY_KEYRING");
    expect(error.message).toContain("allowPlaintext");
  });

  it("opens nothing: no SQLite file is made", () => {
    const sqlitePath = join(scratch(), "chat.sqlite");
    const error = refusal(() => memoryStack({ env: {}, backend: "sqlite", sqlitePath, encryption: { agentId: "bot" } }));
    expect(error.option).toBe("memory.encryption");
    expect(existsSync(sqlitePath)).toBe(false);
  });

  it("memoryMiddleware on a resolved config refuses it too", () => {
    const config = resolveMemoryConfig({}, {});
    expect(refusal(() => memoryMiddleware(config, { encryption: { agentId: "bot" } })).option).toBe("memory.encryption");
  });

  it("is accepted with a keyring from env, and the thread is sealed (en/ko)", async () => {
    const dir = scratch();
    const keyring = join(dir, "keyring.json");
    createKeyring(keyring);
    const sqlitePath = join(dir, "chat.sqlite");
    const stack = memoryStack({
      env: { THREADWISE_MEMORY_KEYRING: keyring },
      backend: "sqlite",
      sqlitePath,
      logger: false,
      encryption: { agentId: "bot" },
    });
    const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
    const config = { configurable: { thread_id: "sealed" } };
    await agent.invoke({ messages: [{ role: "user", content: "SENTINEL-EN my code is QX-4417" }] }, config);
    await agent.invoke({ messages: [{ role: "user", content: "센티널 부산에 살아요" }] }, config);
    expect((await stack.checkpointer?.readThread(config))?.map((m) => m.text)).toContain("센티널 부산에 살아요");
    await stack.checkpointer?.close();
    const raw = readFileSync(sqlitePath).toString("utf8");
    expect(raw).not.toContain("SENTINEL-EN");
    expect(raw).not.toContain("센티널");
  });

  it("is accepted when plaintext is stated (allowPlaintext in code or env), with no field set, and on backend off", () => {
    expect(memoryStack({ env: {}, allowPlaintext: true, encryption: { agentId: "bot" } }).checkpointer).toBeDefined();
    expect(memoryStack({ env: { MEMORY_ALLOW_PLAINTEXT: "true" }, encryption: { agentId: "bot" } }).checkpointer).toBeDefined();
    expect(memoryStack({ env: {}, encryption: { agentId: undefined } }).checkpointer).toBeDefined();
    expect(memoryStack({ env: {}, encryption: {} }).checkpointer).toBeDefined();
    expect(memoryStack({ env: {}, backend: "off", encryption: { agentId: "bot" } }).middleware).toEqual([]);
  });
});
