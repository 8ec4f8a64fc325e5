/**
 * eraseUser, eraseTenant and userMemoryRetention given a `store` that is not a LangGraph BaseStore
 * (a MemorySaver passed for the store, a plain object): they threw a plain `TypeError`
 * (`store.search is not a function`) naming no option, where memoryStack and userMemory refuse the
 * same value with a ThreadwiseConfigError naming their `store`. Now refused the same way, naming
 * `<function>.store`, before anything is read or deleted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { eraseTenant } from "./erase-tenant.js";
import { eraseUser, userMemoryRetention } from "./erase-user.js";
import { memoryStack } from "./memory-stack.js";

const dir = mkdtempSync(join(tmpdir(), "tw-nu66-erase-store-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const notStores: Array<[string, unknown]> = [
  ["a MemorySaver", new MemorySaver()],
  ["a plain object", {}],
  ["a Map", new Map()],
];

async function refusal(call: () => Promise<unknown>): Promise<ThreadwiseConfigError> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ThreadwiseConfigError.isInstance(error), String(error)).toBe(true);
  return error as ThreadwiseConfigError;
}

describe("erase and retention refuse a store that is not a BaseStore, naming the option", () => {
  for (const [what, store] of notStores) {
    it(`eraseUser, eraseTenant, userMemoryRetention with ${what}`, async () => {
      const asStore = store as never;
      for (const userId of ["mina", "민지"]) {
        const error = await refusal(() => eraseUser({ store: asStore, userId }));
        expect(error.option).toBe("eraseUser.store");
        expect(error.message).toContain("BaseStore");
      }
      expect((await refusal(() => eraseTenant({ store: asStore, tenantId: "acme", sqlitePath: join(dir, "t.sqlite") }))).option).toBe(
        "eraseTenant.store",
      );
      expect((await refusal(() => userMemoryRetention({ store: asStore, days: 30 }))).option).toBe("userMemoryRetention.store");
    });
  }

  it("the user's items stay when the threads were asked too (nothing is deleted before the refusal)", async () => {
    const sqlitePath = join(dir, "memory.sqlite");
    const stack = memoryStack({ backend: "sqlite", sqlitePath, userMemory: true, env: {} });
    const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
    const turns: Array<[string, string]> = [
      ["k-1", "저는 부산에 살아요."],
      ["e-1", "I live in Busan."],
    ];
    for (const [thread, text] of turns)
      await agent.invoke({ messages: [{ role: "user", content: text }] }, { configurable: { thread_id: thread, user_id: "minji" } });
    const error = await refusal(() =>
      eraseUser({ store: new MemorySaver() as never, sqlitePath, userId: "minji", threads: true, threadIds: ["k-1", "e-1"], apply: true }),
    );
    expect(error.option).toBe("eraseUser.store");
    const left = await eraseUser({ store: stack.store, sqlitePath, userId: "minji", threads: true, threadIds: ["k-1", "e-1"] });
    expect(left.items).toBeGreaterThan(0);
    const state = await agent.graph.getState({ configurable: { thread_id: "k-1" } });
    expect(state.values.messages.length).toBe(2);
    await stack.checkpointer?.close();
  });
});
