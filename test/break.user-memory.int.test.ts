/**
 * Memory across a user's threads (spec R40) as LangGraph users drive threads: a fork that sends a
 * message id again with other words, an edit by id of the message a fact came from, an
 * interrupted run edited before it resumes, ids that differ only in case, Unicode normalization or
 * separators, tenants, and concurrent turns on threads of one user. Full `memoryStack({ userMemory })`
 * on in_memory, SQLite (one shared `InMemoryStore`, as a user passes their own store) and
 * PostgreSQL (its PostgresStore); every request checked against the four providers' rules; a
 * fresh process (another stack on the same storage) where the storage is shared.
 */
import { type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { Command, InMemoryStore } from "@langchain/langgraph";
import type { BaseStore } from "@langchain/langgraph-checkpoint";
import { messageText } from "@threadwise/core";
import type { StrictFakeModel } from "@threadwise/core/testing";
import { createMemoryPool, type MemoryStackOptions, memoryStack } from "@threadwise/memory";
import { readUserItems, UserItemCodec } from "@threadwise/user-memory";
import { createAgent } from "langchain";
import type pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { agentModel, BACKENDS, type Backend, backendStorage, stackOptions, TOOLS } from "./support/break-agent.js";
import { testPoolMax } from "./support/postgres.js";

const storage = backendStorage("bum");
const tally = { calls: 0, refused: 0, compared: 0, differing: 0 };
const models: StrictFakeModel[] = [];
afterAll(() => {
  for (const model of models) {
    tally.calls += model.providerLog.requests;
    tally.refused += model.providerLog.rejections;
  }
  console.log(
    `[break.user-memory] model calls=${tally.calls} refused=${tally.refused} oracle turns=${tally.compared} differing from a fresh process=${tally.differing}`,
  );
});
let n = 0;

describe.each(BACKENDS)("memory across a user's threads: %s", (backend: Backend) => {
  // SQLite's stack keeps user memory in an InMemoryStore of its own: a user passes one store.
  const sqliteStore = new InMemoryStore();
  const shared = backend !== "in_memory";
  let only: ReturnType<typeof makeProcess> | undefined;
  // PostgreSQL: every process's stack on one pool (a pool per stack would exhaust the server's connections).
  let pool: pg.Pool | undefined;
  const closing: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closing.splice(0)) await close();
    await pool?.end();
  });
  function makeProcess() {
    const options = storage(backend);
    if (backend === "postgres") pool ??= createMemoryPool(options.postgresDsn as string, { max: testPoolMax() });
    const extra: MemoryStackOptions = {
      userMemory: true,
      ...(backend === "sqlite" ? { store: sqliteStore } : {}),
      ...(pool ? { pool } : {}),
    };
    const stack = memoryStack(stackOptions(options, extra));
    closing.push(async () => void (await stack.checkpointer?.close()));
    const model = agentModel();
    models.push(model);
    const agent = createAgent({ model, tools: TOOLS, middleware: stack.middleware, checkpointer: stack.checkpointer, store: stack.store });
    return { stack, model, agent };
  }
  type Proc = ReturnType<typeof makeProcess>;
  /** A process: a new stack on the shared storage, or the one stack of in_memory. */
  const proc = (): Proc => {
    if (shared) return makeProcess();
    only ??= makeProcess();
    return only;
  };
  const cfg = (thread: string, user: string, extra: Record<string, unknown> = {}) => ({
    configurable: { thread_id: thread, user_id: user, ...extra },
  });
  const say = (p: Proc, thread: string, user: string, text: string, id?: string, extra: Record<string, unknown> = {}) =>
    p.agent.invoke({ messages: [new HumanMessage({ content: text, ...(id ? { id } : {}) })] }, cfg(thread, user, extra));
  /** What the model was sent at its last call, as text. */
  const sent = (p: Proc) =>
    ((p.model.calls.at(-1) as { messages: BaseMessage[] }).messages ?? []).map((m) => `${m.getType()}: ${messageText(m)}`).join("\n");
  const refusals = (p: Proc) => p.model.providerLog.rejected.map((r) => r.violations.map((v) => `${v.provider}:${v.rule}`));

  it("a fork that sends the fact's message id again with other words: the user's other threads get the new words, not the old", async () => {
    const p = proc();
    const user = `u-fork-${++n}`;
    const thread = `t-fork-${backend}-${n}`;
    await say(p, thread, user, "hello there");
    const before = (await p.agent.graph.getState(cfg(thread, user))).config.configurable?.checkpoint_id;
    await say(p, thread, user, "I live in Seoul.", "m-live");
    await say(p, thread, user, "I live in Busan.", "m-live", { checkpoint_id: before });
    const q = proc();
    await say(q, `t-fork-other-${backend}-${n}`, user, "Where do I live?");
    expect(sent(q)).toContain("I live in Busan.");
    expect(sent(q)).not.toContain("Seoul");
    expect([...refusals(p), ...refusals(q)]).toEqual([]);
  });

  it("updateState replacing the message a fact came from, then a turn: the old words and fact are recalled nowhere", async () => {
    const p = proc();
    const user = `u-edit-${++n}`;
    const thread = `t-edit-${backend}-${n}`;
    await say(p, thread, user, "My dog is named Coco.", "m-dog");
    await p.agent.graph.updateState(cfg(thread, user), {
      messages: [new HumanMessage({ id: "m-dog", content: "My cat is named Nabi." })],
    });
    await say(p, thread, user, "thanks");
    const q = proc();
    await say(q, `t-edit-other-${backend}-${n}`, user, "What are my pets named? dog cat");
    expect(sent(q)).toContain("Nabi");
    expect(sent(q)).not.toContain("Coco");
    expect([...refusals(p), ...refusals(q)]).toEqual([]);
  });

  it("RemoveMessage of a stored user message, then a turn: its words and fact are recalled nowhere, in this process or a fresh one", async () => {
    const p = proc();
    const user = `u-remove-${++n}`;
    const thread = `t-remove-${backend}-${n}`;
    await say(p, thread, user, "hello there", "m-hello");
    await say(p, thread, user, "My locker code is ZEBRA-77. I live in Daegu.", "m-locker");
    await say(p, `t-remove-before-${backend}-${n}`, user, "What is my locker code? Where do I live?");
    expect(sent(p)).toContain("ZEBRA-77");
    await p.agent.graph.updateState(cfg(thread, user), { messages: [new RemoveMessage({ id: "m-locker" })] });
    await say(p, thread, user, "thanks");
    for (const q of shared ? [p, proc()] : [p]) {
      await say(q, `t-remove-other-${backend}-${n}-${q === p ? "p" : "q"}`, user, "What is my locker code? Where do I live?");
      expect(sent(q)).not.toContain("ZEBRA-77");
      expect(sent(q)).not.toContain("Daegu");
    }
    expect(refusals(p)).toEqual([]);
  });

  it("an interrupted run whose user message is edited in place before it resumes: the block follows the new words, as in a fresh process", async () => {
    const p = proc();
    const user = `u-resume-${++n}`;
    await say(p, `t-resume-src-${backend}-${n}`, user, "My pet is named PETSENTINEL.");
    const thread = `t-resume-${backend}-${n}`;
    await say(p, thread, user, "TOOLS asking", "m-ask");
    await p.agent.graph.updateState(cfg(thread, user), {
      messages: [new HumanMessage({ id: "m-ask", content: "TOOLS asking: what is my pet named?" })],
    });
    const at = (await p.agent.graph.getState(cfg(thread, user))).config.configurable?.checkpoint_id;
    await p.agent.invoke(new Command({ resume: "yes" }), cfg(thread, user, { checkpoint_id: at }));
    const mine = sent(p);
    expect(mine).toContain("PETSENTINEL");
    if (shared) {
      const q = proc();
      await q.agent.invoke(new Command({ resume: "yes" }), cfg(thread, user, { checkpoint_id: at }));
      tally.compared += 1;
      if (sent(q) !== mine) tally.differing += 1;
      expect(sent(q)).toEqual(mine);
      expect(refusals(q)).toEqual([]);
    }
    expect(refusals(p)).toEqual([]);
  });

  it("users and tenants whose ids differ only in case, Unicode normalization or separators see only their own memory", async () => {
    const users = [
      "u1",
      "u1-corp",
      "Kim",
      "kim",
      "caf\u00e9",
      "cafe\u0301",
      "a:b",
      "a/b",
      "a~3Ab",
      "a%",
      "a_",
      "민수",
      "민수".normalize("NFD"),
    ];
    const p = proc();
    for (const [i, user] of users.entries()) await say(p, `t-iso-${backend}-${++n}`, user, `My pet is named SENT${i}X.`);
    await say(p, `t-iso-${backend}-${++n}`, "x", "My pet is named TENANTSENTX.", undefined, { tenant_id: "t1" });
    const q = proc();
    for (const [i, user] of users.entries()) {
      await say(q, `t-iso-q-${backend}-${++n}`, user, "What is my pet named? SENT");
      expect(
        [...sent(q).matchAll(/SENT(\d+)X/g)].map((m) => Number(m[1])),
        user,
      ).toEqual([i]);
    }
    for (const tenant of ["T1", "t1:", "t1/x", undefined]) {
      await say(q, `t-iso-t-${backend}-${++n}`, "x", "What is my pet named? TENANTSENT", undefined, tenant ? { tenant_id: tenant } : {});
      expect(sent(q), String(tenant)).not.toContain("named TENANTSENTX");
    }
    expect(refusals(p)).toEqual([]);
  });

  // Deleting a thread (R24) left the user-memory items it produced, so its words were recalled in
  // the user's other threads: recall now leaves out items of tombstoned threads (every deletion
  // path, every backend: test/user-memory.deletion.int.test.ts).
  it("a deleted thread's words are recalled nowhere", async () => {
    const p = proc();
    const user = `u-del-${++n}`;
    const thread = `t-del-${backend}-${n}`;
    await say(p, thread, user, "My locker code is ZEBRA-42, please remember.");
    await p.stack.checkpointer?.deleteThread(thread);
    const q = proc();
    await say(q, `t-del-other-${backend}-${n}`, user, "What is my locker code?");
    expect(sent(q)).not.toContain("ZEBRA-42");
  });

  for (const [lang, older, newer, oldValue, newValue] of [
    ["en", "I live in Seoul.", "I moved to Busan.", "Seoul", "Busan"],
    ["ko", "저는 서울에 살아요.", "부산으로 이사했어요.", "서울", "부산"],
  ] as const)
    it(`${lang}: a changed residence committed out of order by two processes: one fact, the value stated last (by the messages' timestamps), the other superseded`, async () => {
      const user = `u-order-${++n}`;
      const [p, q] = [proc(), proc()];
      const at = (thread: string, text: string, timestamp: string, on: Proc) =>
        on.agent.invoke({ messages: [new HumanMessage({ content: text, additional_kwargs: { timestamp } })] }, cfg(thread, user));
      // The newer statement commits first (a message delivered late): commit order is no guide to the user's order.
      await at(`t-new-${backend}-${n}`, newer, "2026-03-02T09:00:00Z", q);
      await at(`t-old-${backend}-${n}`, older, "2026-03-01T09:00:00Z", p);
      const items = await readUserItems(p.stack.store as BaseStore, { tenantId: "default", userId: user }, new UserItemCodec(), 100);
      const facts = items.filter((item) => item.kind === "fact" && item.fact?.attribute === "residence");
      expect(facts).toHaveLength(1);
      expect([facts[0]?.fact?.value, ...(facts[0]?.superseded ?? []).map((v) => v.value)]).toEqual([newValue, oldValue]);
      const r = proc();
      await say(r, `t-ask-${backend}-${n}`, user, lang === "en" ? "Where do I live now?" : "저 지금 어디 살아요?");
      expect(sent(r)).toContain(newValue);
    });

  for (const [lang, older, newer, oldValue, newValue] of [
    ["en", "I live in Seoul.", "I moved to Busan.", "Seoul", "Busan"],
    ["ko", "저는 서울에 살아요.", "부산으로 이사했어요.", "서울", "부산"],
  ] as const)
    it(`${lang}: a changed residence stated at once in two processes, 40 rounds of Promise.all: one fact holding both values every time`, async () => {
      const lost: string[] = [];
      for (let round = 0; round < 40; round += 1) {
        const user = `u-race-${++n}`;
        const [p, q] = [proc(), proc()];
        await Promise.all([say(p, `t-ra-${backend}-${n}`, user, older), say(q, `t-rb-${backend}-${n}`, user, newer)]);
        const items = await readUserItems(p.stack.store as BaseStore, { tenantId: "default", userId: user }, new UserItemCodec(), 100);
        const facts = items.filter((item) => item.kind === "fact" && item.fact?.attribute === "residence");
        const values = facts.flatMap((item) => [item.fact?.value, ...(item.superseded ?? []).map((v) => v.value)]);
        if (facts.length !== 1 || [...values].sort().join() !== [oldValue, newValue].sort().join())
          lost.push(`round ${round}: ${JSON.stringify(values)}`);
      }
      expect(lost).toEqual([]);
    });

  it("concurrent turns on three threads of one user (two processes): every turn commits and every message is recalled", async () => {
    const user = `u-conc-${++n}`;
    const [p, q] = [proc(), proc()];
    await Promise.all([
      say(p, `t-c1-${backend}-${n}`, user, "My name is Jiho. CONCA"),
      say(q, `t-c2-${backend}-${n}`, user, "I work at Kakao. CONCB"),
      say(p, `t-c3-${backend}-${n}`, user, "저는 대전에 살아요. CONCC"),
    ]);
    const r = proc();
    await say(r, `t-c4-${backend}-${n}`, user, "CONCA CONCB CONCC 대전");
    for (const word of ["CONCA", "CONCB", "CONCC"]) expect(sent(r)).toContain(word);
  });
});
