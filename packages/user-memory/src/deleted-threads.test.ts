import { InMemoryStore } from "@langchain/langgraph";
import { describe, expect, it } from "vitest";
import { forgetDeletedThreads } from "./deleted-threads.js";
import { UserMemoryEngine } from "./user-memory-engine.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";

const scope = { tenantId: "default", userId: "u1" };

/** An engine on a fresh store whose `deletedThreads` reports the ids in `deleted`, and the calls it got. */
function setup(options: { keepMessages?: boolean } = {}) {
  const store = new InMemoryStore();
  const deleted = new Set<string>();
  const asked: string[][] = [];
  const lookup = async (ids: readonly string[]) => {
    asked.push([...ids]);
    return ids.filter((id) => deleted.has(id));
  };
  const engineOf = () =>
    new UserMemoryEngine(resolveUserMemoryOptions({ keepMessages: options.keepMessages ?? false, deletedThreads: lookup, env: {} }));
  const engine = engineOf();
  let minute = 0;
  const commit = (threadId: string, id: string, text: string) =>
    engine.commit(store, scope, { threadId, messages: [{ id, text }], now: `2026-01-01T00:${String(minute++).padStart(2, "0")}:00.000Z` });
  return { store, deleted, asked, engine, engineOf, commit };
}

describe("a deleted thread's words in user memory (R24, R40)", () => {
  it("a fact stated last in a deleted thread rolls back to its value from a thread that stays; the next commit purges", async () => {
    const { store, deleted, engine, engineOf, commit } = setup();
    await commit("A", "a1", "I live in Seoul.");
    await commit("B", "b1", "I live in Busan.");
    const before = (await engine.read(store, scope)).find((item) => item.kind === "fact");
    expect(before).toMatchObject({ threadId: "B", fact: { value: "Busan" }, superseded: [{ threadId: "A", value: "Seoul" }] });
    deleted.add("B");
    const recalled = await engine.recall(store, scope, { text: "Where do I live?", threadId: "C" });
    expect(recalled.text).toContain("Seoul");
    expect(recalled.text).not.toContain("Busan");
    // The oracle: a fresh engine reading the store after the purge places the same block.
    await commit("C", "c1", "hello");
    const after = await engine.read(store, scope);
    expect(JSON.stringify(after)).not.toContain("Busan");
    const fact = after.find((item) => item.kind === "fact");
    expect(fact).toMatchObject({ threadId: "A", messageId: "a1", text: fact?.fact?.text, fact: { value: "Seoul", sourceMessageId: "a1" } });
    expect(fact?.superseded).toBeUndefined();
    expect(fact?.fact?.history).toBeUndefined();
    expect((await engineOf().recall(store, scope, { text: "Where do I live?", threadId: "C" })).text).toEqual(recalled.text);
  });

  it("a deleted thread's former value leaves the fact's history and superseded values; the current value stays", async () => {
    const { store, deleted, engine, commit } = setup();
    await commit("A", "a1", "I live in Seoul.");
    await commit("B", "b1", "I live in Busan.");
    expect((await engine.recall(store, scope, { text: "Where do I live?", threadId: "C" })).text).toContain("before: Seoul");
    deleted.add("A");
    const recalled = await engine.recall(store, scope, { text: "Where do I live?", threadId: "C" });
    expect(recalled.text).toContain("Busan");
    expect(recalled.text).not.toContain("Seoul");
    await commit("C", "c1", "hello");
    const fact = (await engine.read(store, scope)).find((item) => item.kind === "fact");
    expect(fact).toMatchObject({ threadId: "B", fact: { value: "Busan" } });
    expect(JSON.stringify(fact)).not.toContain("Seoul");
  });

  it("a fact only deleted threads stated goes; messages and digests of a deleted thread go; others' stay", async () => {
    const { store, deleted, engine, commit } = setup({ keepMessages: true });
    await commit("A", "a1", "I live in Seoul. LOCKERSENT");
    await commit("B", "b1", "My pet is named Coco.");
    deleted.add("A");
    const recalled = await engine.recall(store, scope, { text: "Where do I live? LOCKERSENT pet Coco", threadId: "C" });
    expect(recalled.text).not.toMatch(/Seoul|LOCKERSENT/);
    expect(recalled.text).toContain("Coco");
    await commit("C", "c1", "hello");
    const stored = await engine.read(store, scope);
    expect(stored.map((item) => item.threadId).sort()).toEqual(["B", "B", "C"]);
  });

  it("tombstones are asked once per thread id: a deleted id is remembered, a live one asked again", async () => {
    const { store, deleted, asked, engine, commit } = setup();
    await commit("A", "a1", "I live in Seoul.");
    await commit("B", "b1", "My pet is named Coco.");
    deleted.add("A");
    asked.length = 0;
    await engine.recall(store, scope, { text: "pet", threadId: "C" });
    await engine.recall(store, scope, { text: "pet", threadId: "C" });
    // Items of A still stored (no commit yet): A is not asked again once known deleted.
    expect(asked).toEqual([["A", "B"], ["B"]]);
  });

  it("forgetDeletedThreads keeps the items of threads that stay as the same objects", async () => {
    const { store, engine, commit } = setup({ keepMessages: true });
    await commit("A", "a1", "I live in Seoul.");
    await commit("B", "b1", "My pet is named Coco.");
    const items = await engine.read(store, scope);
    const plan = forgetDeletedThreads(items, new Set(["A"]));
    expect(plan.kept.every((item) => items.includes(item))).toBe(true);
    expect(plan.kept.map((item) => item.threadId)).toEqual(["B", "B"]);
    expect(plan.deletes.sort()).toEqual(
      items
        .filter((item) => item.threadId === "A")
        .map((item) => item.key)
        .sort(),
    );
    expect(forgetDeletedThreads(items, new Set())).toEqual({ kept: items, puts: [], deletes: [] });
  });
});
