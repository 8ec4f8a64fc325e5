/**
 * Public entry points called with wrong input from JavaScript (newuser39's probe of every one):
 * each gives a typed error naming the option or argument, before anything is written. Before,
 * these failed as a `TypeError` naming nothing of ours (`createCheckpointer(undefined)`,
 * `withTurnRetry(undefined)`, `rotateKeyring(5)`, `reencryptUserItems(undefined, codec)`), or were
 * accepted: a store without `put` (memoryStack and userMemory checked `search`/`batch` only) let
 * every turn of user memory fail with one warning and nothing remembered.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import { ThreadwiseConfigError, ThreadwiseError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, loadKeyring, retireKey, rotateKeyring, ThreadwiseKeyringError } from "@threadwise/encryption";
import { createCheckpointer, memoryStack, withTurnRetry } from "@threadwise/memory";
import { reencryptUserItems, UserItemCodec, userMemory } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-wrong-input-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A store that reads but has no `put` (nor `delete`): what a hand-made read-only wrapper looks like. */
function storeWithoutPut() {
  const inner = new InMemoryStore();
  return {
    batch: inner.batch.bind(inner),
    get: inner.get.bind(inner),
    search: inner.search.bind(inner),
    listNamespaces: inner.listNamespaces.bind(inner),
  };
}

/** The error `run` throws or rejects with (undefined when it does not). */
async function caught(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return undefined;
}

async function expectConfigError(run: () => unknown, option: string, words: string[]) {
  const error = await caught(run);
  const found = ThreadwiseConfigError.find(error);
  expect(found, `${option}: ${String(error)}`).toBeDefined();
  expect(found?.option).toBe(option);
  for (const word of words) expect(found?.message).toContain(word);
}

describe("a store without put is refused by name, before a turn drops its memory", () => {
  it("memoryStack({ store }) names memory.store and the missing methods", async () => {
    await expectConfigError(() => memoryStack({ env: {}, userMemory: true, store: storeWithoutPut() as never }), "memory.store", [
      "put",
      "delete",
    ]);
  });

  it("userMemory({ store }) names userMemory.store", async () => {
    await expectConfigError(() => userMemory({ store: storeWithoutPut() as never, logger: false }), "userMemory.store", ["put"]);
  });

  it.each([
    ["en", "I moved to Busan last month."],
    ["ko", "저는 지난달 부산으로 이사했어요."],
  ])(
    "createAgent({ store }) without put: the run fails naming createAgent.store, and the thread keeps its message (%s)",
    async (_lang, text) => {
      const model = scriptedModel(() => "noted");
      const checkpointer = new MemorySaver();
      const agent = createAgent({
        model,
        tools: [],
        middleware: [userMemory({ logger: false })],
        checkpointer,
        store: storeWithoutPut() as never,
      });
      const config = { configurable: { thread_id: `no-put-${_lang}`, user_id: "mina" } };
      await expectConfigError(() => agent.invoke({ messages: [new HumanMessage(text)] }, config), "createAgent.store", ["put"]);
      // Refused before the model call: nothing answered, and the user's message is still in the thread.
      expect(model.calls).toHaveLength(0);
      const stored = (await agent.graph.getState(config)).values.messages as HumanMessage[];
      expect(stored.map((m) => m.text)).toEqual([text]);
    },
  );

  it("reencryptUserItems names its store and its codec", async () => {
    const keyringPath = join(dir, "codec-keyring.json");
    createKeyring(keyringPath, { kid: "k1" });
    const codec = new UserItemCodec({ keyring: loadKeyring(keyringPath, {}), agentId: "a", principalId: "p" });
    await expectConfigError(() => reencryptUserItems(undefined as never, codec), "reencryptUserItems.store", ["got undefined"]);
    await expectConfigError(() => reencryptUserItems(storeWithoutPut() as never, codec), "reencryptUserItems.store", ["put"]);
    await expectConfigError(() => reencryptUserItems(new InMemoryStore(), undefined as never), "reencryptUserItems.codec", [
      "UserItemCodec",
    ]);
  });
});

describe("wrong arguments of the operations' functions", () => {
  it("createCheckpointer(undefined) names createCheckpointer.config", async () => {
    await expectConfigError(() => createCheckpointer(undefined as never), "createCheckpointer.config", ["resolveMemoryConfig"]);
  });

  it("withTurnRetry without a function names withTurnRetry.run; a promise is said to be one", async () => {
    await expectConfigError(() => withTurnRetry(undefined as never), "withTurnRetry.run", ["got undefined"]);
    const running = Promise.resolve("answer");
    await expectConfigError(() => withTurnRetry(running as never), "withTurnRetry.run", ["a promise"]);
  });

  it.each([
    ["loadKeyring", () => loadKeyring(5 as never, {}), "path"],
    ["rotateKeyring", () => rotateKeyring(5 as never), "path"],
    ["retireKey", () => retireKey({} as never, "k1"), "path"],
    ["createKeyring", () => createKeyring(5 as never), "createKeyring.path"],
  ])("%s with a path that is not a string: ThreadwiseKeyringError naming it", async (_name, run, option) => {
    const error = await caught(run);
    expect(ThreadwiseKeyringError.isInstance(error), String(error)).toBe(true);
    expect((error as ThreadwiseKeyringError).option).toBe(option);
    expect((error as Error).message).toContain("must be a string");
    expect(ThreadwiseError.find(error)).toBe(error);
  });
});
