/**
 * The user-memory store functions a user calls by hand (examples/user-memory.ts erases with
 * `eraseUserItems`) given something that is not a LangGraph BaseStore (a checkpointer passed for
 * the store, a plain object): they threw a plain `TypeError` (`store.search is not a function`,
 * `store.listNamespaces is not a function`) naming nothing, where `userMemory({ store })` and
 * `reencryptUserItems` refuse it naming the option. Now a ThreadwiseConfigError naming
 * `<function>.store`, before anything is read or deleted.
 */
import { MemorySaver } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { UserItemCodec } from "./user-item-codec.js";
import { namespaceLabel } from "./user-scope.js";
import { eraseTenantItems, eraseUserItems, expireUserItems } from "./user-store.js";

async function refusedOption(call: () => Promise<unknown>): Promise<string | undefined> {
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ThreadwiseConfigError.isInstance(error), String(error)).toBe(true);
  return (error as ThreadwiseConfigError).option;
}

describe("user-memory store functions refuse a store that is not a BaseStore", () => {
  for (const [what, store] of [
    ["a MemorySaver", new MemorySaver()],
    ["a plain object", {}],
  ] as const) {
    it(`${what}`, async () => {
      const notStore = store as never;
      for (const userId of ["mina", "민지"])
        expect(await refusedOption(() => eraseUserItems(notStore, { userId, tenantId: "default" }, new UserItemCodec()))).toBe(
          "eraseUserItems.store",
        );
      expect(await refusedOption(() => expireUserItems(notStore, new Date()))).toBe("expireUserItems.store");
      expect(await refusedOption(() => eraseTenantItems(notStore, namespaceLabel("acme"), { apply: true }))).toBe("eraseTenantItems.store");
    });
  }
});
