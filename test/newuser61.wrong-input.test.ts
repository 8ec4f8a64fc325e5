/**
 * Wrong input newuser60 and ops60 left (newuser61), each now a typed error naming
 * `<operation>.<key>`, thrown before any store, file or keyring is written:
 * - `prune({ threadId: "" })` named `thread_id` (a run's config key the user never gave), not
 *   `prune.threadId`; the same for `exportThread` and the CLI's `--thread-id`;
 * - `eraseTenant({ threadIds: "x" })` threw a plain `TypeError`; `eraseUser({ threadIds: "t한",
 *   threads: true, apply: true })` read the string as a list of its characters and deleted the
 *   threads `t` and `한`;
 * - `createCheckpointer(config, { encryption })` with no keyring took the identity and sealed
 *   nothing (memoryStack refuses it since newuser60; same rule, same `allowPlaintext` escape), and a
 *   misspelt option of it (`encrypton`) was ignored;
 * - `userMemory({ userIdKey: "a.b" })` read the one property `"a.b"` (never `context.a.b`), so no
 *   run had user memory; `userIdKey: "thread_id"` made each thread a user of its own;
 *   `userIdKey` equal to `tenantIdKey` made each user a tenant of their own;
 * - `assertStrictMode({ stric: true })` left strict mode off, and `createKeyring(path, { kidd })`
 *   wrote a key with a random kid.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@langchain/langgraph";
import { ThreadwiseConfigError, ThreadwiseUnknownOptionError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { assertStrictMode, checkStrictMode, createKeyring, rotateKeyring } from "@threadwise/encryption";
import {
  createCheckpointer,
  eraseTenant,
  eraseUser,
  exportThread,
  memoryStack,
  prune,
  resolveMemoryConfig,
  ThreadwiseThreadIdError,
} from "@threadwise/memory";
import { userMemory } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import { afterAll, beforeEach, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-nu61-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const IDS = ["t", "한", "trip-notes", "여행-메모"];
const LATER = () => new Date(Date.now() + 30 * 86_400_000);
let sqlitePath = "";
let n = 0;

/** A fresh SQLite store with four threads (English and Korean ids, one of one character each). */
beforeEach(async () => {
  n += 1;
  sqlitePath = join(dir, `nu61-${n}.sqlite`);
  const stack = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
  const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
  for (const id of IDS)
    await agent.invoke(
      { messages: [new HumanMessage(/[가-힣]/.test(id) ? "부산에 살아요." : "I live in Busan.")] },
      { configurable: { thread_id: id } },
    );
  await stack.checkpointer?.close();
});

/** Threads still there, by a dry run that lists every idle one. */
const left = async () => (await prune({ sqlitePath, olderThanDays: 1, now: LATER })).candidates.map((c) => c.threadId).sort();

async function thrown(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe("thread ids given to an operation are named by the operation's option", () => {
  it.each([
    ["prune.threadId", () => prune({ sqlitePath, threadId: "", apply: true })],
    ["prune.threadId", () => prune({ sqlitePath, threadId: "a\u0000b", olderThanDays: 1, apply: true, now: LATER })],
    ["exportThread.threadId", () => exportThread({ sqlitePath, threadId: "" })],
    ["eraseTenant.threadIds[1]", () => eraseTenant({ sqlitePath, tenantId: "default", threadIds: ["한", ""], apply: true })],
    ["eraseUser.threadIds[0]", () => eraseUser({ sqlitePath, userId: "mina", threadIds: [""], threads: true, apply: true })],
  ])("%s", async (field, call) => {
    const error = await thrown(call);
    expect(error).toBeInstanceOf(ThreadwiseThreadIdError);
    expect((error as ThreadwiseThreadIdError).field).toBe(field);
    expect((error as Error).message.startsWith(`${field}: `)).toBe(true);
    expect(await left()).toEqual([...IDS].sort());
  });

  it.each([
    ["eraseTenant", () => eraseTenant({ sqlitePath, tenantId: "default", threadIds: "t" as never, apply: true })],
    ["eraseUser", () => eraseUser({ sqlitePath, userId: "mina", threadIds: "t한" as never, threads: true, apply: true })],
  ])("%s: threadIds as a string is refused, not read as its characters", async (operation, call) => {
    const error = await thrown(call);
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe(`${operation}.threadIds`);
    expect((error as Error).message).toContain("pass [id]");
    expect(await left()).toEqual([...IDS].sort());
  });

  it("an array still works: eraseUser deletes exactly the threads named (en/ko)", async () => {
    const report = await eraseUser({ sqlitePath, userId: "mina", threadIds: ["t", "여행-메모", "t"], threads: true, apply: true });
    expect(report.threadIds).toEqual(["t", "여행-메모"]);
    expect(await left()).toEqual(["trip-notes", "한"]);
  });
});

describe("createCheckpointer(config, { encryption }) without a keyring", () => {
  it.each([
    ["in_memory", {}],
    ["sqlite", { backend: "sqlite" as const, sqlitePath: join(dir, "never.sqlite") }],
  ])("is refused naming createCheckpointer.encryption (%s), opening nothing", (_backend, input) => {
    const config = resolveMemoryConfig(input, {});
    const error = (() => {
      try {
        createCheckpointer(config, { encryption: { tenantId: "고객사-1" }, env: {} });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe("createCheckpointer.encryption");
    expect((error as Error).message).toContain("allowPlaintext");
    expect(existsSync(join(dir, "never.sqlite"))).toBe(false);
  });

  it("is accepted with allowPlaintext, and with a keyring (which seals)", async () => {
    const plain = createCheckpointer(resolveMemoryConfig({ allowPlaintext: true }, {}), { encryption: { tenantId: "acme" }, env: {} });
    expect(plain).toBeDefined();
    const keyringPath = join(dir, `k-${n}.json`);
    createKeyring(keyringPath);
    const sealed = createCheckpointer(resolveMemoryConfig({ keyringPath }, {}), { encryption: { agentId: "bot" }, env: {} });
    expect(JSON.parse(JSON.stringify(sealed)).encrypted).toBe(true);
  });

  it("a misspelt option is refused with the closest name", () => {
    const error = (() => {
      try {
        createCheckpointer(resolveMemoryConfig({}, {}), { encrypton: { tenantId: "acme" } } as never);
      } catch (caught) {
        return caught;
      }
    })();
    expect(ThreadwiseUnknownOptionError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseUnknownOptionError).option).toBe("createCheckpointer.encrypton");
    expect((error as ThreadwiseUnknownOptionError).suggestion).toBe("encryption");
  });
});

describe("userMemory's run keys are one property name each", () => {
  const store = new InMemoryStore();
  it.each([
    ["userIdKey", { userIdKey: "a.b" }, "not a path"],
    ["userIdKey", { userIdKey: "user id" }, "not a path"],
    ["userIdKey", { userIdKey: "thread_id" }, "LangGraph's own key"],
    ["tenantIdKey", { tenantIdKey: "checkpoint_ns" }, "LangGraph's own key"],
    ["userIdKey", { userIdKey: "tenant_id" }, "tenant's key"],
    ["tenantIdKey", { tenantIdKey: "user_id" }, "user's key"],
    ["userIdKey", { userIdKey: "org", tenantIdKey: "org" }, "tenant's key"],
  ])("%s %j is refused", (key, options, words) => {
    const error = (() => {
      try {
        userMemory({ store, ...options });
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe(`userMemory.${key}`);
    expect((error as Error).message).toContain(words);
  });

  it("a plain key other than user_id works across threads (en/ko)", async () => {
    const memory = new InMemoryStore();
    const seen: string[] = [];
    const agent = createAgent({
      model: scriptedModel((messages) => {
        seen.push(messages.map((m) => m.text).join("\n"));
        return "ok";
      }),
      middleware: [userMemory({ store: memory, userIdKey: "사용자", logger: false })],
      checkpointer: memoryStack({ env: {} }).checkpointer,
    });
    await agent.invoke({ messages: [new HumanMessage("저는 부산에 살아요.")] }, { configurable: { thread_id: "a", 사용자: "민아" } });
    await agent.invoke({ messages: [new HumanMessage("어디 살아요?")] }, { configurable: { thread_id: "b", 사용자: "민아" } });
    expect(seen.at(-1)).toContain("부산");
  });
});

describe("encryption's option objects are checked by name", () => {
  it.each([
    ["assertStrictMode", () => assertStrictMode({ stric: true, env: {} } as never), "strict"],
    ["checkStrictMode", () => checkStrictMode({ retentionDay: 30, env: {} } as never), "retentionDays"],
  ])("%s refuses a misspelt key", async (operation, call, suggestion) => {
    const error = await thrown(call);
    expect(ThreadwiseUnknownOptionError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseUnknownOptionError).option.startsWith(`${operation}.`)).toBe(true);
    expect((error as ThreadwiseUnknownOptionError).suggestion).toBe(suggestion);
  });

  it("createKeyring({ kidd }) writes nothing; rotateKeyring({ kidd }) leaves the file as it was", async () => {
    const path = join(dir, `kid-${n}.json`);
    const created = await thrown(() => createKeyring(path, { kidd: "k1" } as never));
    expect((created as ThreadwiseUnknownOptionError).option).toBe("createKeyring.kidd");
    expect(existsSync(path)).toBe(false);
    createKeyring(path, { kid: "k1" });
    const before = readFileSync(path, "utf8");
    const rotated = await thrown(() => rotateKeyring(path, { kidd: "k2" } as never));
    expect((rotated as ThreadwiseUnknownOptionError).suggestion).toBe("kid");
    expect(readFileSync(path, "utf8")).toBe(before);
  });
});
