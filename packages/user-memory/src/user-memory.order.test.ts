import { HumanMessage } from "@langchain/core/messages";
import { InMemoryStore, MemorySaver } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { UserItemCodec } from "./user-item-codec.js";
import type { UserItem } from "./user-items.js";
import { userMemory } from "./user-memory.js";
import { UserMemoryEngine } from "./user-memory-engine.js";
import { resolveUserMemoryOptions } from "./user-memory-options.js";
import { readUserItems } from "./user-store.js";

const scope = { tenantId: "default", userId: "u1" };
const engineOf = () => new UserMemoryEngine(resolveUserMemoryOptions({ env: {} }));
const CASES = [
  { lang: "en", older: "I live in Seoul.", newer: "I moved to Busan.", oldValue: "Seoul", newValue: "Busan" },
  { lang: "ko", older: "저는 서울에 살아요.", newer: "부산으로 이사했어요.", oldValue: "서울", newValue: "부산" },
] as const;

/** The user's fact items, and the residence one's values: current first, then superseded (newest first). */
async function residence(store: BaseStore) {
  const items = await readUserItems(store, scope, new UserItemCodec(), 100);
  const facts = items.filter((item) => item.kind === "fact");
  const values = (item: UserItem | undefined) => (item ? [item.fact?.value, ...(item.superseded ?? []).map((v) => v.value)] : []);
  return { facts, values: values(facts.find((item) => item.fact?.attribute === "residence")), items };
}

/** A store whose `search` answers only after `gate` opens (a read that took long), the other calls at once. */
function slowReads(store: InMemoryStore, gate: Promise<void>): BaseStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name === "search")
        return async (...args: Parameters<InMemoryStore["search"]>) => {
          const found = await target.search(...args);
          await gate;
          return found;
        };
      const value = Reflect.get(target, name, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("a changed fact across threads ends with the value the user stated last", () => {
  for (const c of CASES) {
    it(`${c.lang}: a statement committed after a newer one (a slower run) does not replace it; it is kept as superseded`, async () => {
      const store = new InMemoryStore();
      const engine = engineOf();
      await engine.commit(store, scope, { threadId: "B", messages: [{ id: "b1", text: c.newer }], now: "2026-01-01T10:05:00.000Z" });
      // Thread A's run was said at 10:00 and commits at 10:07.
      await engine.commit(store, scope, {
        threadId: "A",
        messages: [{ id: "a1", text: c.older }],
        saidAt: "2026-01-01T10:00:00.000Z",
        now: "2026-01-01T10:07:00.000Z",
      });
      const { facts, values } = await residence(store);
      expect(facts).toHaveLength(1);
      expect(values).toEqual([c.newValue, c.oldValue]);
      // What a fresh process recalls in a new thread.
      const block = (await engineOf().recall(store, scope, { text: c.lang === "en" ? "where do I live" : "어디 살아요", threadId: "C" }))
        .text;
      expect(block).toContain(c.newValue);
      // Message timestamps order the same way, whatever the commit order.
      const timed = new InMemoryStore();
      await engine.commit(timed, scope, {
        threadId: "B",
        messages: [{ id: "b1", text: c.newer, at: "2026-01-02T09:00:00Z" }],
        now: "2026-01-03T00:00:00.000Z",
      });
      await engine.commit(timed, scope, {
        threadId: "A",
        messages: [{ id: "a1", text: c.older, at: "2026-01-01T09:00:00Z" }],
        now: "2026-01-03T00:01:00.000Z",
      });
      expect((await residence(timed)).values).toEqual([c.newValue, c.oldValue]);
    });

    for (const first of ["older", "newer"] as const)
      it(`${c.lang}: two processes commit one fact at once (${first} statement's commit started first): nothing lost, one fact, the newest value`, async () => {
        const store = new InMemoryStore();
        const older = () =>
          engineOf().commit(store, scope, {
            threadId: "A",
            messages: [{ id: "a1", text: c.older }],
            saidAt: "2026-01-01T10:00:00.000Z",
            now: "2026-01-01T10:02:00.000Z",
          });
        const newer = () =>
          engineOf().commit(store, scope, {
            threadId: "B",
            messages: [{ id: "b1", text: c.newer }],
            saidAt: "2026-01-01T10:01:00.000Z",
            now: "2026-01-01T10:01:30.000Z",
          });
        await Promise.all(first === "older" ? [older(), newer()] : [newer(), older()]);
        const { facts, values, items } = await residence(store);
        expect(facts).toHaveLength(1);
        expect(values).toEqual([c.newValue, c.oldValue]);
        expect(
          items
            .filter((item) => item.kind === "message")
            .map((item) => item.messageId)
            .sort(),
        ).toEqual(["a1", "b1"]);
      });

    it(`${c.lang}: a commit whose read took long plans again over what another commit wrote meanwhile`, async () => {
      const store = new InMemoryStore();
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      // A reads first (slowly), B reads, writes and ends, then A's read answers with what it saw before B wrote.
      const slow = engineOf().commit(slowReads(store, gate), scope, {
        threadId: "A",
        messages: [{ id: "a1", text: c.newer }],
        saidAt: "2026-01-01T10:01:00.000Z",
        now: "2026-01-01T10:02:00.000Z",
      });
      await engineOf().commit(store, scope, {
        threadId: "B",
        messages: [{ id: "b1", text: c.older }],
        saidAt: "2026-01-01T10:00:00.000Z",
        now: "2026-01-01T10:00:30.000Z",
      });
      open();
      await slow;
      const { facts, values } = await residence(store);
      expect(facts).toHaveLength(1);
      expect(values).toEqual([c.newValue, c.oldValue]);
    });

    it(`${c.lang}: through createAgent, two agents on one store: a run said first and answered last does not replace the value said after it`, async () => {
      const store = new InMemoryStore();
      let release = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let reached = () => {};
      const atModel = new Promise<void>((resolve) => {
        reached = resolve;
      });
      // Thread A's model call waits (a slow model) after userMemory saw its message.
      const slowModel = createMiddleware({
        name: "SlowModel",
        wrapModelCall: async (request, handler) => {
          reached();
          await held;
          return handler(request);
        },
      });
      const agentOf = (middleware: ReturnType<typeof createMiddleware>[]) =>
        createAgent({
          model: scriptedModel(() => "ok"),
          checkpointer: new MemorySaver(),
          store,
          middleware: [userMemory({ logger: false }), ...middleware],
        });
      const [p, q] = [agentOf([slowModel]), agentOf([])];
      const runA = p.invoke({ messages: [new HumanMessage(c.older)] }, { configurable: { thread_id: "A", user_id: "u1" } });
      await atModel;
      await new Promise((resolve) => setTimeout(resolve, 5));
      await q.invoke({ messages: [new HumanMessage(c.newer)] }, { configurable: { thread_id: "B", user_id: "u1" } });
      release();
      await runA;
      const { facts, values } = await residence(store);
      expect(facts).toHaveLength(1);
      expect(values).toEqual([c.newValue, c.oldValue]);
    });
  }
});

describe("a value stated earlier and committed later, then the newer value's thread deleted", () => {
  for (const c of CASES)
    it(`${c.lang}: the fact rolls back to the earlier value (its thread stays), and reads "before:" as if committed in order`, async () => {
      const store = new InMemoryStore();
      const deleted = new Set<string>();
      const engine = new UserMemoryEngine(
        resolveUserMemoryOptions({ env: {}, deletedThreads: async (ids) => ids.filter((id) => deleted.has(id)) }),
      );
      await engine.commit(store, scope, { threadId: "B", messages: [{ id: "b1", text: c.newer }], now: "2026-01-01T10:05:00.000Z" });
      await engine.commit(store, scope, {
        threadId: "A",
        messages: [{ id: "a1", text: c.older }],
        saidAt: "2026-01-01T10:00:00.000Z",
        now: "2026-01-01T10:07:00.000Z",
      });
      // Committed in the user's order, the same two statements give the same fact line.
      const inOrder = new InMemoryStore();
      await engine.commit(inOrder, scope, { threadId: "A", messages: [{ id: "a1", text: c.older }], now: "2026-01-01T10:00:00.000Z" });
      await engine.commit(inOrder, scope, { threadId: "B", messages: [{ id: "b1", text: c.newer }], now: "2026-01-01T10:05:00.000Z" });
      const line = async (s: BaseStore) => (await residence(s)).facts[0]?.fact?.history?.map((h) => h.value);
      expect(await line(store)).toEqual(await line(inOrder));
      deleted.add("B");
      await engine.commit(store, scope, { threadId: "C", messages: [{ id: "c1", text: "hello" }], now: "2026-01-01T10:08:00.000Z" });
      const { facts, values } = await residence(store);
      expect(facts).toHaveLength(1);
      expect(values).toEqual([c.oldValue]);
      expect(facts[0]?.threadId).toBe("A");
    });
});
