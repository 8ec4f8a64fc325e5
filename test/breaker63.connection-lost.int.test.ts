/**
 * PostgreSQL going away in the middle of a turn (session 63's breaker, items 2 to 4 of its brief):
 * the connection reset under a lease renewal before a model call, the pool having no connection
 * for a turn within `connectionTimeoutMillis`, and PgBouncer (or the server) dropping the
 * connection during an archive write, before its COMMIT or after it (the answer lost). Oracle:
 * plain `createAgent` on a `MemorySaver` given the same turns without the fault.
 *
 * What holds in each: the caller gets a `ThreadwiseConnectionLostError` (found with
 * `ThreadwiseConnectionLostError.find` through LangChain's `MiddlewareError`), `retryable`, naming
 * the operation and the reason (was: pg's own `Error: read ECONNRESET` or "timeout exceeded when
 * trying to connect", untyped); no model call is made after the fault; following the message
 * (resume with `invoke(null)` when `getState` holds the turn's user message, else send the turn
 * again) gives plain's whole thread, nothing lost or stored twice (the archive too); the next turn
 * works at once.
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createMemoryPool, memoryStack, migrate, ThreadwiseConnectionLostError, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";
import { resettingProxy } from "./support/resetting-proxy.js";

type Decision = boolean | "after-reply";

/** The model of both agents: "answer: <the newest user message>" (the same on a re-run). */
function answerModel() {
  return scriptedModel((messages) => {
    const user = messages.filter((m) => m.getType() === "human").at(-1);
    return `answer: ${user ? messageText(user) : "-"}`;
  });
}

const shape = (messages: readonly BaseMessage[]) => messages.map((m) => `${m.getType()}:${messageText(m)}`);

/** A stack on a fresh database reached through a resetting proxy (in front of PgBouncer with `via`), and plain's agent. */
async function setup(options: {
  via?: "postgres" | "pgbouncer";
  turnLeaseMs?: number;
  archive?: boolean;
  poolMax?: number;
  connectionTimeoutMillis?: number;
  /** A user middleware listed before the stack's. */
  hook?: ReturnType<typeof createMiddleware>;
}) {
  const db = await freshDatabase("twlost");
  await migrate({ dsn: db.url, schema: db.schema });
  const bouncer = options.via === "pgbouncer" ? pgbouncerUrl("connection lost through PgBouncer") : undefined;
  let decide: (text: string) => Decision = () => false;
  const proxy = await resettingProxy(bouncer ? sameDatabase(bouncer, db.url) : db.url, (_c, _q, text) => decide(text));
  const pool = createMemoryPool(proxy.url, {
    mode: bouncer ? "transaction" : "direct",
    logger: false,
    ...(options.poolMax ? { max: options.poolMax } : {}),
    ...(options.connectionTimeoutMillis ? { connectionTimeoutMillis: options.connectionTimeoutMillis } : {}),
  });
  const summarizer = scriptedModel((_messages, call) => `summary ${call + 1}`);
  const stack = memoryStack({
    backend: "postgres",
    pool,
    postgresSchema: db.schema,
    allowPlaintext: true,
    turnLeaseMs: options.turnLeaseMs ?? 10_000,
    windowSize: 4,
    ...(options.archive ? { archive: true, summarize: true, summarizeThreshold: 6, models: { summarize: summarizer as never } } : {}),
    recallMaxTokens: false,
    logger: false,
    env: {},
  });
  const model = answerModel();
  const agent = createAgent({
    model,
    tools: [],
    checkpointer: stack.checkpointer as ThreadwiseSaver,
    middleware: [...(options.hook ? [options.hook] : []), ...(stack.middleware as [])],
  });
  const plain = createAgent({ model: answerModel(), tools: [], checkpointer: new MemorySaver() });
  const saver = stack.checkpointer as ThreadwiseSaver;
  return {
    agent,
    plain,
    model,
    saver,
    pool,
    /** Sets what the proxy does with each query from now on (its SQL given). */
    fault: (next: (text: string) => Decision) => {
      decide = next;
    },
    close: async () => {
      await saver.close();
      await pool.end();
      await proxy.close();
      await db.drop();
    },
  };
}

const cfg = (thread: string) => ({ configurable: { thread_id: thread } });
const say = (agent: { invoke(input: unknown, config: object): Promise<unknown> }, thread: string, text: string) =>
  agent.invoke({ messages: [new HumanMessage(text)] }, cfg(thread));
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (error: unknown) => error,
  );
const storedOf = async (agent: ReturnType<typeof createAgent>, thread: string) =>
  shape(((await agent.graph.getState(cfg(thread))).values as { messages?: BaseMessage[] }).messages ?? []);

/** What the caller is told to do: resume when the turn's user message is stored, else send it again. */
async function followAdvice(agent: ReturnType<typeof createAgent>, thread: string, text: string): Promise<void> {
  const stored = await storedOf(agent, thread);
  if (stored.includes(`human:${text}`)) await agent.invoke(null, cfg(thread));
  else await say(agent, thread, text);
}

describe.skipIf(skipUnlessRealPostgres("connection lost in a turn"))("PostgreSQL lost in the middle of a turn", () => {
  it("the lease renewal before a model call loses its connection: a typed, retryable error, no model call; the resume and the next turn give plain's thread", async () => {
    let hold: (() => Promise<void>) | undefined;
    const hook = createMiddleware({
      name: "test/slow-before-call",
      wrapModelCall: async (request, handler) => {
        const pending = hold;
        hold = undefined;
        await pending?.();
        return handler(request);
      },
    });
    // Lease 1 s: a hook holding the call 2.5 s (past the lease, long after the step's checkpoint is
    // stored) makes the stack renew it before the call.
    const s = await setup({ turnLeaseMs: 1000, hook });
    const thread = "renew";
    try {
      for (const text of ["one", "two"]) await say(s.agent, thread, text);
      let renewals = 0;
      hold = async () => {
        await new Promise((resolve) => setTimeout(resolve, 2500));
        // The renewal's UPDATE of the thread's lease, reset; every other query goes through.
        s.fault((sql) => {
          if (!sql.includes("SET lease_until = clock_timestamp() + make_interval")) return false;
          renewals += 1;
          return renewals === 1;
        });
      };
      const calls = s.model.calls.length;
      const error = await failure(say(s.agent, thread, "three"));
      s.fault(() => false);
      expect(renewals, String(error)).toBe(1);
      const lost = ThreadwiseConnectionLostError.find(error);
      expect(lost, String(error)).toBeDefined();
      expect(lost?.retryable).toBe(true);
      expect(lost?.reason).toBe("ECONNRESET");
      expect(lost?.operation).toBe("turnCall");
      expect(lost?.message).toContain("invoke(null, config)");
      expect(s.model.calls.length).toBe(calls);
      await followAdvice(s.agent, thread, "three");
      await say(s.agent, thread, "four");
      for (const text of ["one", "two", "three", "four"]) await say(s.plain, thread, text);
      expect(await storedOf(s.agent, thread)).toEqual(await storedOf(s.plain, thread));
    } finally {
      await s.close();
    }
  }, 60_000);

  it("the pool has no connection for a turn within connectionTimeoutMillis: a typed, retryable error (connect-timeout); nothing stored; the turn sent again gives plain's thread", async () => {
    const s = await setup({ poolMax: 1, connectionTimeoutMillis: 300 });
    const thread = "pool-timeout";
    try {
      await say(s.agent, thread, "one");
      const held = await s.pool.connect();
      let error: unknown;
      try {
        error = await failure(say(s.agent, thread, "two"));
      } finally {
        held.release();
      }
      const lost = ThreadwiseConnectionLostError.find(error);
      expect(lost, String(error)).toBeDefined();
      expect(lost?.reason).toBe("connect-timeout");
      expect(lost?.retryable).toBe(true);
      expect(lost?.message).toContain("connectionTimeoutMillis");
      expect(s.model.calls).toHaveLength(1);
      await followAdvice(s.agent, thread, "two");
      await say(s.agent, thread, "three");
      for (const text of ["one", "two", "three"]) await say(s.plain, thread, text);
      expect(await storedOf(s.agent, thread)).toEqual(await storedOf(s.plain, thread));
    } finally {
      await s.close();
    }
  }, 60_000);

  for (const via of ["postgres", "pgbouncer"] as const)
    for (const when of ["before its COMMIT", "after its COMMIT (the answer lost)"] as const)
      it.skipIf(via === "pgbouncer" && !pgbouncerUrl("connection lost through PgBouncer"))(
        `${via === "pgbouncer" ? "PgBouncer" : "the server"} drops the connection during an archive write, ${when}: typed and retryable, no model call; resumed, the whole thread and the archive are plain's, each message once`,
        async () => {
          const s = await setup({ via, archive: true });
          const thread = `archive-${via}-${when.split(" ")[0]}`;
          const texts = Array.from({ length: 16 }, (_, i) => `turn ${i + 1}`);
          try {
            let i = 0;
            // Until the archive holds something: the write after that one is the one dropped.
            while ((await s.saver.archivedMessages(thread)).length === 0) await say(s.agent, thread, texts[i++] as string);
            let fired = false;
            s.fault((sql) => {
              if (fired || !(sql.includes("threadwise_archive") && sql.includes("INSERT INTO") && sql.includes("COMMIT"))) return false;
              fired = true;
              return when.startsWith("before") ? true : "after-reply";
            });
            let error: unknown;
            let failedAt = "";
            while (!fired && i < texts.length) {
              const calls = s.model.calls.length;
              failedAt = texts[i++] as string;
              error = await failure(say(s.agent, thread, failedAt));
              if (fired) expect(s.model.calls.length).toBe(calls);
            }
            expect(fired).toBe(true);
            s.fault(() => false);
            const lost = ThreadwiseConnectionLostError.find(error);
            expect(lost, String(error)).toBeDefined();
            expect(lost?.operation).toBe("archiveMessages");
            expect(lost?.retryable).toBe(true);
            await followAdvice(s.agent, thread, failedAt);
            while (i < texts.length) await say(s.agent, thread, texts[i++] as string);
            for (const text of texts) await say(s.plain, thread, text);
            const whole = shape(await s.saver.readThread(cfg(thread)));
            expect(whole).toEqual(await storedOf(s.plain, thread));
            const archived = (await s.saver.archivedMessages(thread)).map((m) => m.id);
            expect(archived.length).toBeGreaterThan(0);
            expect(new Set(archived).size).toBe(archived.length);
          } finally {
            await s.close();
          }
        },
        120_000,
      );
});
