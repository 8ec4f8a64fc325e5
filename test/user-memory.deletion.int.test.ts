/**
 * A deleted thread's words are recalled nowhere (spec R24, R40): every way a thread leaves
 * (`ThreadwiseSaver.deleteThread`, `prune --thread-id`, `retention`) on in_memory, SQLite and
 * PostgreSQL, with and without encryption. The user's other threads keep their words; the process
 * that made the memory and a fresh process (another stack on the same storage: the oracle) place
 * the same block; and the user's next commit leaves no item of the deleted thread in the store.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { InMemoryStore } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { messageText } from "@threadwise/core";
import type { StrictFakeModel } from "@threadwise/core/testing";
import { createKeyring, loadKeyring } from "@threadwise/encryption";
import { createMemoryPool, type MemoryStackOptions, memoryStack, type OpsTarget, prune, retention } from "@threadwise/memory";
import { readUserItems, UserItemCodec } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { agentModel, BACKENDS, type Backend, backendStorage, stackOptions } from "./support/break-agent.js";
import { testPoolMax } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-umdel-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const keyringPath = join(dir, "keyring.json");
createKeyring(keyringPath);
// Sealed and plaintext records never share a store (a plaintext stack refuses to write beside sealed ones).
const storages = { plain: backendStorage("umdel"), sealed: backendStorage("umdels") };
const LABEL = "Memory from this user's other conversations";

type Way = "deleteThread" | "prune" | "retention";
const CASES = BACKENDS.flatMap((backend) => (["plain", "sealed"] as const).map((mode) => [backend, mode] as const));

describe.each(CASES)("a deleted thread's words, %s, %s", (backend: Backend, mode: "plain" | "sealed") => {
  const sealed = mode === "sealed";
  // in_memory and SQLite keep user memory in a store the application passes: one, shared by the processes.
  const sharedStore = new InMemoryStore();
  const shared = backend !== "in_memory";
  let pool: pg.Pool | undefined;
  const closing: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closing.splice(0)) await close();
    await pool?.end();
  });
  const storageOf = () => storages[mode](backend);
  function makeProcess() {
    const options = storageOf();
    if (backend === "postgres") pool ??= createMemoryPool(options.postgresDsn as string, { max: testPoolMax() });
    const extra: MemoryStackOptions = {
      userMemory: true,
      // Room for every item of the user: what is left out is left out for the deletion only.
      userMemoryMaxTokens: 1000,
      factsMode: "heuristic",
      ...(backend === "postgres" ? { pool } : { store: sharedStore }),
      ...(sealed ? { keyringPath, allowPlaintext: false } : {}),
    };
    const stack = memoryStack(stackOptions(options, extra));
    closing.push(async () => void (await stack.checkpointer?.close()));
    const model: StrictFakeModel = agentModel();
    const agent = createAgent({ model, middleware: stack.middleware, checkpointer: stack.checkpointer, store: stack.store });
    return { stack, model, agent };
  }
  type Proc = ReturnType<typeof makeProcess>;
  let only: Proc | undefined;
  const proc = (): Proc => {
    if (shared) return makeProcess();
    only ??= makeProcess();
    return only;
  };
  const say = (p: Proc, thread: string, user: string, text: string) =>
    p.agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: thread, user_id: user } });
  /** The user-memory block of the last model call ("" when none was placed). */
  const block = (p: Proc) => {
    const messages = (p.model.calls.at(-1) as { messages: BaseMessage[] }).messages;
    const text = messages.map((m) => messageText(m)).find((t) => t.includes(LABEL)) ?? "";
    const at = text.indexOf(LABEL);
    return at < 0 ? "" : text.slice(at);
  };
  /** The target of an ops function: the stack's own registry on in_memory, the storage otherwise. */
  const target = (p: Proc): OpsTarget => {
    const options = storageOf();
    if (backend === "postgres") return { dsn: options.postgresDsn as string, schema: options.postgresSchema };
    if (backend === "sqlite") return { sqlitePath: options.sqlitePath as string };
    return { registry: p.stack.checkpointer?.registry };
  };
  const leave = async (way: Way, p: Proc, thread: string) => {
    if (way === "deleteThread") await p.stack.checkpointer?.deleteThread(thread);
    else if (way === "prune") expect((await prune({ ...target(p), threadId: thread, apply: true })).outcomes[0]?.status).toBe("deleted");
    // Every thread idle for a day as seen two days from now: all of this storage's threads.
    else await retention({ ...target(p), days: 1, now: () => new Date(Date.now() + 2 * 86_400_000) });
  };
  const codec = new UserItemCodec(
    sealed ? { keyring: loadKeyring(keyringPath, {}), agentId: "default", principalId: "default" } : undefined,
  );
  const storedItems = (p: Proc, user: string) =>
    readUserItems(p.stack.store as BaseStore, { tenantId: "default", userId: user }, codec, 10_000);
  let n = 0;

  // Retention deletes every thread of the storage: last.
  it.each(["deleteThread", "prune", "retention"] as const)(
    "%s: recalled in no other thread, in this process or a fresh one; the next commit purges the store",
    async (way) => {
      n += 1;
      const user = `u-${way}-${n}`;
      const [gone, stays] = [`t-gone-${backend}-${mode}-${way}`, `t-stays-${backend}-${mode}-${way}`];
      const p = proc();
      await say(p, stays, user, `KEEP${n}X is my pet's name. I live in Seoul.`);
      await say(p, gone, user, `ZEBRA${n}X is my locker code. I live in Busan.`);
      // Names neither sentinel: a user message of the asking thread is stored too.
      const query = "Where do I live? What is my locker code? What is my pet's name?";
      await say(p, `t-before-${backend}-${mode}-${way}`, user, query);
      expect(block(p)).toContain(`ZEBRA${n}X`);
      await leave(way, p, gone);
      // A retention pass takes every thread: only the deleted thread's words are known then.
      const staysToo = way === "retention";
      const after = `t-after-${backend}-${mode}-${way}`;
      await say(p, after, user, query);
      const mine = block(p);
      expect(mine).not.toContain(`ZEBRA${n}X`);
      expect(mine).not.toContain("Busan");
      if (!staysToo) {
        expect(mine).toContain(`KEEP${n}X`);
        expect(mine).toContain("Seoul");
      }
      if (shared) {
        const q = proc();
        // The same question again on the same thread (its own items left out, as they were for p).
        await say(q, after, user, query);
        expect(block(q)).toEqual(mine);
      }
      // The commits after the deletion purged the store: no item, value or superseded value of the thread.
      const items = await storedItems(p, user);
      const words = JSON.stringify(items);
      expect(words).not.toContain(`ZEBRA${n}X`);
      expect(words).not.toContain("Busan");
      expect(items.flatMap((item) => [item.threadId, ...(item.superseded ?? []).map((s) => s.threadId)])).not.toContain(gone);
      if (!staysToo) expect(words).toContain(`KEEP${n}X`);
    },
  );
});
