/**
 * `readThread` as a tenant the thread's archive holds nothing under: archived messages are keyed
 * under the tenant that wrote them, so the read returned the checkpoint's messages alone (the
 * thread's beginning silently missing; `threadwise export` refused it, `readThread` did not). Now
 * refused with ThreadwiseTenantMismatchError naming the tenant option; the right tenant reads the
 * whole thread, and a thread without an archive reads as any tenant. In memory, SQLite and
 * PostgreSQL, Korean and English text.
 */
import { HumanMessage } from "@langchain/core/messages";
import { messageText, ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, ThreadwiseSaver, ThreadwiseTenantMismatchError } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { BACKENDS, backendStorage } from "./support/threadwise-savers.js";

const storage = backendStorage("twtenant");
const TURNS = 10;
const userText = (k: number) => (k % 2 === 0 ? `제 사물함 번호는 ${k}${k}이에요 (turn ${k})` : `my locker is number ${k} (turn ${k})`);
const answerText = (k: number) => (k % 2 === 0 ? `알겠습니다, ${k}번 답변` : `noted, answer ${k}`);
const EXPECTED = Array.from({ length: TURNS }, (_, i) => [userText(i + 1), answerText(i + 1)]).flat();

describe.each(BACKENDS)("readThread as another tenant: %s", (backend) => {
  it("refuses a thread whose archive is under another tenant, naming the tenant option; its own tenant reads it whole", async () => {
    const stack = memoryStack({
      ...storage(backend, "fresh"),
      archive: true,
      windowSize: 2,
      summarizeThreshold: 4,
      logger: false,
      env: { THREADWISE_MEMORY_TENANT_ID: "acme" },
      models: { summarize: scriptedModel((_m, k) => `summary ${k + 1}`) },
    });
    const saver = stack.checkpointer as ThreadwiseSaver;
    try {
      const agent = createAgent({ model: scriptedModel((_m, k) => answerText(k + 1)), ...stack });
      const config = { configurable: { thread_id: "t-tenant" } };
      for (let k = 1; k <= TURNS; k += 1)
        await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: userText(k) })] }, config);
      const conversation = (messages: { getType(): string }[]) =>
        (messages as Parameters<typeof messageText>[0][]).filter((m) => ["human", "ai"].includes(m.getType())).map(messageText);
      expect((await saver.archivedMessages("t-tenant")).length).toBeGreaterThan(0);
      expect(conversation(await saver.readThread(config))).toEqual(EXPECTED);
      // The same store read as another tenant (the default one).
      const other = new ThreadwiseSaver(saver.inner, saver.registry, { tenantId: "default" });
      const refused = await other.readThread(config).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(ThreadwiseTenantMismatchError.isInstance(refused)).toBe(true);
      expect(ThreadwiseConfigError.isInstance(refused)).toBe(true);
      expect(refused).toMatchObject({ option: "encryption.tenantId", threadId: "t-tenant", tenantId: "default" });
      expect(String((refused as Error).message)).toMatch(/"t-tenant" has archived messages, none under tenant "default"/);
      // An older checkpoint of the thread, read by id: refused too once it records archived messages.
      const history = [];
      for await (const tuple of other.list(config)) history.push(tuple);
      const oldest = history.at(-1)?.config;
      expect(await other.readThread(oldest as typeof config)).toEqual([]);
      // A thread that never archived reads as any tenant.
      await agent.invoke(
        { messages: [new HumanMessage({ id: "n1", content: "새 스레드 new thread" })] },
        { configurable: { thread_id: "t-short" } },
      );
      expect(conversation(await other.readThread({ configurable: { thread_id: "t-short" } }))).toEqual([
        "새 스레드 new thread",
        answerText(TURNS + 1),
      ]);
    } finally {
      await saver.close();
    }
  });
});
