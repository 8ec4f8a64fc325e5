/**
 * A hook of the caller's own that hangs inside a turn (a `beforeModel` or an outer `wrapToolCall`
 * waiting on something that never answers) while another turn of the thread comes in, from a
 * second stack on the same store (another process) or the same one. Plain `createAgent` on a
 * MemorySaver is the reference where one exists (it has no lease: both turns run).
 * - While the hook hangs inside the lease: the other turn is refused `turn-in-progress`, typed and
 *   retryable, with a wait, before any model call; after the hung turn is aborted by its signal the
 *   next turn on its stack is admitted at once (no `turn-in-progress`).
 * - When the hook outlasts the lease (`turnLeaseMs`: between calls only checkpoints renew it) and
 *   the other turn commits meanwhile, the hung turn, released, is refused `lease-lost` before its
 *   model call or tool run (was: the model was called, or the tool ran its side effect, and only
 *   the checkpoint after was refused); the stored thread keeps the other turn's answer.
 * - A hook that outlasts the lease with no other turn: the turn goes on and commits (the lease is
 *   renewed before its call).
 * In-memory, SQLite, PostgreSQL (directly and through PgBouncer in transaction mode), en/ko.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { concurrentTurnErrorOf, type MemoryStackOptions, memoryStack, migrate, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent, createMiddleware } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-b62b-hung-hook-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LEASE_MS = 1000;
/** Past the lease: a hook hung this long has let it lapse (nothing renews it between calls). */
const PAST_LEASE_MS = LEASE_MS + 600;
const WORDS = {
  en: { before: ["my name is Ada", "I live in Busan"], hung: "HANG: what's the weather?", other: "tell me about trains", after: "thanks" },
  ko: { before: ["제 이름은 에이다예요", "부산에 살아요"], hung: "HANG: 날씨 어때요?", other: "기차 얘기 해 주세요", after: "고마워요" },
} as const;
type Lang = keyof typeof WORDS;

/** A gate a hook waits on: `reached` once it waits, `open()` lets it go on. */
function gate() {
  let reach!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const wait = () => {
    reach();
    return opened;
  };
  return { reached, open, wait };
}

const newest = (messages: BaseMessage[]) =>
  messageText(messages.at(-1) as BaseMessage)
    .split("\n\n")
    .at(-1) ?? "";

/**
 * An agent whose model answers the newest user text (a `send` tool call for a HANG text when `withTool`)
 * and whose own hook (before the stack's middleware, so outside its model and tool calls) waits on
 * `hang` for the first HANG turn: in `beforeModel`, or in `wrapToolCall` before the tool runs.
 */
function agentOf(
  stack: { checkpointer?: unknown; middleware?: readonly unknown[] } | "plain",
  hang: ReturnType<typeof gate> | undefined,
  where: "beforeModel" | "wrapToolCall",
  counts: { model: number; sent: number },
) {
  let hung = false;
  const send = tool(
    async ({ text }: { text: string }) => {
      counts.sent += 1;
      return `sent ${text}`;
    },
    { name: "send", description: "Sends a message (a side effect).", schema: z.object({ text: z.string() }) },
  );
  const model = scriptedModel((messages, k) => {
    counts.model += 1;
    const last = messages.at(-1) as BaseMessage;
    if (ToolMessage.isInstance(last)) return `done ${k}: ${messageText(last)}`;
    const text = newest(messages);
    if (where === "wrapToolCall" && text.startsWith("HANG"))
      return new AIMessage({ content: "", tool_calls: [{ id: `call_${k}`, name: "send", args: { text }, type: "tool_call" }] });
    return `answer ${k}: ${text}`;
  });
  const waitOnce = async () => {
    if (hang === undefined || hung) return;
    hung = true;
    await hang.wait();
  };
  const hook = createMiddleware({
    name: "test/hung-hook",
    ...(where === "beforeModel"
      ? {
          beforeModel: async (state: { messages: BaseMessage[] }) => {
            if (newest(state.messages).startsWith("HANG") && !(state.messages.at(-1) instanceof ToolMessage)) await waitOnce();
            return undefined;
          },
        }
      : {
          wrapToolCall: async (request, handler) => {
            await waitOnce();
            return handler(request);
          },
        }),
  });
  if (stack === "plain") return createAgent({ model, tools: [send], middleware: [hook], checkpointer: new MemorySaver() });
  return createAgent({
    model,
    tools: [send],
    checkpointer: stack.checkpointer as ThreadwiseSaver,
    middleware: [hook, ...(stack.middleware as [])],
  });
}

type Agent = ReturnType<typeof agentOf>;
const say = (agent: Agent, thread: string, text: string, signal?: AbortSignal) =>
  agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: thread }, ...(signal ? { signal } : {}) });
const stored = async (agent: Agent, thread: string) =>
  ((await agent.graph.getState({ configurable: { thread_id: thread } })).values.messages as BaseMessage[]).map(
    (m) => `${m.getType()}:${messageText(m)}`,
  );

/** Two stacks on one store (two processes), or one (`in_memory`, whose store is the process). */
function stacksOf(options: MemoryStackOptions) {
  const first = memoryStack({ turnLeaseMs: LEASE_MS, windowSize: 6, recallMaxTokens: false, logger: false, env: {}, ...options });
  const second =
    options.backend === "in_memory"
      ? first
      : memoryStack({ turnLeaseMs: LEASE_MS, windowSize: 6, recallMaxTokens: false, logger: false, env: {}, ...options });
  return {
    first,
    second,
    close: async () => {
      await (first.checkpointer as ThreadwiseSaver).close();
      if (second !== first) await (second.checkpointer as ThreadwiseSaver).close();
    },
  };
}

/** The hung turn, another turn within the lease (refused), then an abort by its signal: the next turn is admitted at once. */
async function hungWithinLease(options: MemoryStackOptions, lang: Lang, thread: string) {
  const w = WORDS[lang];
  const { first, second, close } = stacksOf({ ...options, turnLeaseMs: 60_000 });
  try {
    const hang = gate();
    const counts = { model: 0, sent: 0 };
    const a = agentOf(first, hang, "beforeModel", counts);
    const b = agentOf(second, undefined, "beforeModel", counts);
    for (const text of w.before) await say(a, thread, text);
    const controller = new AbortController();
    const hung = say(a, thread, w.hung, controller.signal).then(
      () => "committed",
      (error: unknown) => (/abort/i.test(String((error as Error)?.name ?? error)) ? "aborted" : error),
    );
    await hang.reached;
    const before = counts.model;
    const refused = await say(b, thread, w.other).then(
      () => undefined,
      (error: unknown) => error,
    );
    const turnError = concurrentTurnErrorOf(refused);
    expect(turnError?.reason, String(refused)).toBe("turn-in-progress");
    expect(turnError?.retryable).toBe(true);
    expect(turnError?.retryAfterMs).toBeGreaterThan(0);
    expect(counts.model).toBe(before);
    controller.abort();
    expect(await hung).toBe("aborted");
    // Admitted at once on the aborted turn's stack: the lease went with the abort (it has a minute
    // left otherwise). (Another process may still find it for the moment the release takes to
    // commit: a refusal with a short retryAfterMs, which withTurnRetry waits out.)
    const next = await say(a, thread, w.other);
    expect(messageText(next.messages.at(-1) as BaseMessage)).toMatch(new RegExp(`^answer \\d+: ${w.other.replace("?", "\\?")}$`));
    const after = await stored(b, thread);
    expect(after.slice(0, 4)).toEqual([
      `human:${w.before[0]}`,
      expect.stringMatching(/^ai:answer/),
      `human:${w.before[1]}`,
      expect.stringMatching(/^ai:answer/),
    ]);
    // The aborted turn left its user message unanswered, as plain createAgent does; then the other turn.
    expect(after.slice(4)).toEqual([`human:${w.hung}`, `human:${w.other}`, expect.stringMatching(/^ai:answer/)]);
  } finally {
    await close();
  }
}

/** The hung turn outlasts the lease while the other stack's turn commits; released, it is refused before its call. */
async function hungPastLease(options: MemoryStackOptions, lang: Lang, thread: string, where: "beforeModel" | "wrapToolCall") {
  const w = WORDS[lang];
  const { first, second, close } = stacksOf(options);
  try {
    const hang = gate();
    const counts = { model: 0, sent: 0 };
    const a = agentOf(first, hang, where, counts);
    const b = agentOf(second, undefined, where, counts);
    for (const text of w.before) await say(a, thread, text);
    const hung = say(a, thread, w.hung).then(
      () => undefined,
      (error: unknown) => error,
    );
    await hang.reached;
    await new Promise((resolve) => setTimeout(resolve, PAST_LEASE_MS));
    const other = await say(b, thread, w.other);
    expect(messageText(other.messages.at(-1) as BaseMessage)).toMatch(/^(answer|done) \d+: /);
    const modelCalls = counts.model;
    const sent = counts.sent;
    hang.open();
    const refused = concurrentTurnErrorOf(await hung);
    expect(refused?.reason).toBe("lease-lost");
    expect(refused?.retryable).toBe(true);
    // Refused before its call: no model called, no tool run after the other turn took the thread.
    expect({ model: counts.model - modelCalls, sent: counts.sent - sent }).toEqual({ model: 0, sent: 0 });
    const after = await stored(b, thread);
    expect(after.at(-1)).toMatch(/^ai:(answer|done) \d+: /);
    expect(after.filter((m) => m === `human:${w.other}`)).toHaveLength(1);
    // The thread takes the next turn.
    await say(b, thread, w.after);
  } finally {
    await close();
  }
}

/** The hook outlasts the lease, no other turn comes: the turn goes on and commits. */
async function slowHookAlone(options: MemoryStackOptions, lang: Lang, thread: string) {
  const w = WORDS[lang];
  const { first, close } = stacksOf(options);
  try {
    const hang = gate();
    const counts = { model: 0, sent: 0 };
    const a = agentOf(first, hang, "beforeModel", counts);
    const plain = agentOf("plain", undefined, "beforeModel", { model: 0, sent: 0 });
    for (const text of [...w.before, w.hung]) await say(plain, thread, text);
    for (const text of w.before) await say(a, thread, text);
    const turn = say(a, thread, w.hung);
    await hang.reached;
    await new Promise((resolve) => setTimeout(resolve, PAST_LEASE_MS));
    hang.open();
    await turn;
    expect(await stored(a, thread)).toEqual(await stored(plain, thread));
  } finally {
    await close();
  }
}

function cases(name: string, options: () => MemoryStackOptions) {
  for (const lang of ["en", "ko"] as const) {
    it(`${name} ${lang}: another turn while a hook hangs is refused turn-in-progress; after the abort the next is admitted at once`, () =>
      hungWithinLease(options(), lang, `within-${name}-${lang}`));
    for (const where of ["beforeModel", "wrapToolCall"] as const)
      it(`${name} ${lang}: a hook in ${where} hung past the lease while another turn commits: refused lease-lost before its call`, () =>
        hungPastLease(options(), lang, `past-${where}-${name}-${lang}`, where));
    it(`${name} ${lang}: a hook slower than the lease with no other turn: the turn commits as on plain createAgent`, () =>
      slowHookAlone(options(), lang, `alone-${name}-${lang}`));
  }
}

describe("a hung hook inside a turn: in_memory and SQLite", () => {
  cases("in_memory", () => ({ backend: "in_memory" }));
  cases("sqlite", () => ({ backend: "sqlite", sqlitePath: join(dir, "hung.sqlite") }));
});

describe.skipIf(skipUnlessRealPostgres("a hung hook on PostgreSQL"))("a hung hook inside a turn: PostgreSQL and PgBouncer", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
  const url = async () => {
    if (!db) {
      db = await freshDatabase("twb62bhang");
      await migrate({ dsn: db.url });
    }
    return db.url;
  };
  afterAll(async () => db?.drop());
  for (const lang of ["en", "ko"] as const)
    it(`postgres and pgbouncer ${lang}: refused turn-in-progress within the lease, lease-lost past it before any call, a lone slow hook commits`, async () => {
      const dsn = await url();
      const bouncer = pgbouncerUrl("a hung hook through PgBouncer");
      const targets: Array<[string, MemoryStackOptions]> = [["postgres", { backend: "postgres", postgresDsn: dsn, allowPlaintext: true }]];
      if (bouncer)
        targets.push([
          "pgbouncer",
          { backend: "postgres", postgresDsn: sameDatabase(bouncer, dsn), pgPoolMode: "transaction", allowPlaintext: true },
        ]);
      for (const [name, options] of targets) {
        await hungWithinLease(options, lang, `within-${name}-${lang}`);
        for (const where of ["beforeModel", "wrapToolCall"] as const)
          await hungPastLease(options, lang, `past-${where}-${name}-${lang}`, where);
        await slowHookAlone(options, lang, `alone-${name}-${lang}`);
      }
    }, 120_000);
});
