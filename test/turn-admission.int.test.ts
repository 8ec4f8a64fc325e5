/**
 * A turn refused because another turn of the thread is running is refused before it runs (spec
 * R38): 0 model calls, 0 tool runs, 0 streamed chunks, nothing stored, a typed retryable error.
 * Two checkpointers on one store stand for two processes (in_memory: one saver, one process).
 * A control run without `turnAdmission` shows the refused turn running in full, so the counts
 * here come from the hook. Also: an operation id is stored at most once.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { tool } from "@langchain/core/tools";
import { scriptedModel } from "@threadwise/core/testing";
import {
  createCheckpointer,
  type MemoryConfigInput,
  migrate,
  resolveMemoryConfig,
  ThreadwiseConcurrentTurnError,
  type ThreadwiseSaver,
  turnAdmission,
} from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { pgbouncerUrl, sameDatabase, skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));

/** A model whose answer waits for `release()`: the turn holding the thread. */
class GatedModel extends BaseChatModel {
  started!: Promise<void>;
  #started!: () => void;
  #gate!: Promise<void>;
  release!: () => void;
  constructor() {
    super({});
    this.started = new Promise((resolve) => {
      this.#started = resolve;
    });
    this.#gate = new Promise((resolve) => {
      this.release = resolve;
    });
  }
  _llmType() {
    return "gated";
  }
  override bindTools() {
    return this;
  }
  async _generate(): Promise<ChatResult> {
    this.#started();
    await this.#gate;
    return { generations: [{ text: "held answer", message: new AIMessage("held answer") }] };
  }
}

/** The refused turn's agent: a model that books a flight (a tool call) and then answers; both counted. */
function bookingAgent(checkpointer: ThreadwiseSaver, withAdmission = true) {
  const counts = { modelCalls: 0, toolRuns: 0 };
  const book = tool(
    async () => {
      counts.toolRuns += 1;
      return "booked";
    },
    { name: "book_flight", description: "Books a flight.", schema: z.object({ to: z.string() }) },
  );
  const model = scriptedModel((messages) => {
    counts.modelCalls += 1;
    return messages.at(-1)?.getType() === "tool"
      ? "booked it"
      : new AIMessage({ content: "", tool_calls: [{ id: `call-${counts.modelCalls}`, name: "book_flight", args: { to: "Busan" } }] });
  });
  const agent = createAgent({ model, tools: [book], checkpointer, middleware: withAdmission ? [turnAdmission(checkpointer)] : [] });
  return { agent, counts };
}

/** Turn A holds the thread (its model waits); turn B is streamed meanwhile and must be refused before it runs. */
async function refusedWhileBusy(holder: ThreadwiseSaver, other: ThreadwiseSaver, thread: string, withAdmission = true) {
  const gated = new GatedModel();
  const a = createAgent({ model: gated, checkpointer: holder, middleware: [turnAdmission(holder)] });
  const cfg = { configurable: { thread_id: thread } };
  const first = a.invoke({ messages: [new HumanMessage("from A")] }, cfg);
  await gated.started;
  const { agent: b, counts } = bookingAgent(other, withAdmission);
  let chunks = 0;
  const error = await (async () => {
    for await (const _chunk of await b.stream(
      { messages: [new HumanMessage("from B: book a flight")] },
      { ...cfg, streamMode: "messages" },
    ))
      chunks += 1;
  })().then(
    () => undefined,
    (e: unknown) => e,
  );
  gated.release();
  await first;
  const stored: string[] = [];
  for await (const s of a.graph.getStateHistory(cfg))
    for (const m of (s.values as { messages?: BaseMessage[] }).messages ?? []) if (!stored.includes(text(m))) stored.push(text(m));
  return { error, chunks, ...counts, stored };
}

function expectRefusedBeforeRunning(outcome: Awaited<ReturnType<typeof refusedWhileBusy>>) {
  expect(ThreadwiseConcurrentTurnError.isInstance(outcome.error)).toBe(true);
  const error = outcome.error as ThreadwiseConcurrentTurnError;
  expect({ reason: error.reason, retryable: error.retryable }).toEqual({ reason: "turn-in-progress", retryable: true });
  expect(error.retryAfterMs).toBeGreaterThan(0);
  expect(error.leaseExpiresInMs).toBeGreaterThanOrEqual(error.retryAfterMs);
  expect({ modelCalls: outcome.modelCalls, toolRuns: outcome.toolRuns, chunks: outcome.chunks }).toEqual({
    modelCalls: 0,
    toolRuns: 0,
    chunks: 0,
  });
  expect(outcome.stored).toEqual(["from A", "held answer"]);
}

/** Runs a turn with `operation_id` twice: the second is refused as a duplicate before its model call. */
async function operationTwice(saver: ThreadwiseSaver, thread: string) {
  const { agent, counts } = bookingAgent(saver);
  const cfg = { configurable: { thread_id: thread, operation_id: "req-42" } };
  await agent.invoke({ messages: [new HumanMessage("book once")] }, cfg);
  const callsAfterFirst = { ...counts };
  const error = await agent.invoke({ messages: [new HumanMessage("book once")] }, cfg).catch((e: unknown) => e);
  const state = await agent.graph.getState({ configurable: { thread_id: thread } });
  const humans = ((state.values as { messages: BaseMessage[] }).messages ?? []).filter((m) => m.getType() === "human").length;
  return { callsAfterFirst, counts, error, humans };
}

function expectStoredOnce(outcome: Awaited<ReturnType<typeof operationTwice>>) {
  expect(outcome.callsAfterFirst).toEqual({ modelCalls: 2, toolRuns: 1 });
  expect(outcome.counts).toEqual({ modelCalls: 2, toolRuns: 1 });
  expect(outcome.humans).toBe(1);
  const error = outcome.error as ThreadwiseConcurrentTurnError;
  expect(ThreadwiseConcurrentTurnError.isInstance(error)).toBe(true);
  expect({ reason: error.reason, retryable: error.retryable, operationId: error.operationId }).toEqual({
    reason: "duplicate-operation",
    retryable: false,
    operationId: "req-42",
  });
}

/**
 * A turn on `a` whose checkpoint write fails after its first step (the wrapped saver's put throws
 * once the model answered), then a turn on `b` (another process on the same store): admitted at
 * once (was: `turn-in-progress` until the failed run's lease lapsed, `turnLeaseMs` later).
 */
async function failedWriteThenTurn(a: ThreadwiseSaver, b: ThreadwiseSaver, thread: string) {
  const inner = a.inner as { put: ThreadwiseSaver["put"] };
  const put = inner.put.bind(a.inner);
  let failing = false;
  // The checkpoint after the model's answer: the run's steps before it (its input applied) are stored.
  inner.put = async (config, checkpoint, metadata, versions) => {
    const last = (checkpoint.channel_values?.messages as BaseMessage[] | undefined)?.at(-1);
    if (failing && metadata.source === "loop" && last?.getType() === "ai") throw new Error("disk full");
    return put(config, checkpoint, metadata, versions);
  };
  const answering = (saver: ThreadwiseSaver) =>
    createAgent({ model: scriptedModel(() => "answer"), checkpointer: saver, middleware: [turnAdmission(saver)] });
  const cfg = { configurable: { thread_id: thread } };
  await answering(a).invoke({ messages: [new HumanMessage("first")] }, cfg);
  failing = true;
  const failed = await answering(a)
    .invoke({ messages: [new HumanMessage("fails")] }, cfg)
    .catch((e: unknown) => e);
  failing = false;
  const next = await answering(b)
    .invoke({ messages: [new HumanMessage("next")] }, cfg)
    .then(
      (state) => (state.messages as BaseMessage[]).map(text),
      (e: unknown) => e,
    );
  inner.put = put;
  return { failed: (failed as Error).message, next };
}

function expectReleased(outcome: Awaited<ReturnType<typeof failedWriteThenTurn>>) {
  expect(outcome.failed).toBe("disk full");
  expect(outcome.next).toEqual(["first", "answer", "fails", "next", "answer"]);
}

const dir = mkdtempSync(join(tmpdir(), "tw-admission-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const saverOf = (input: MemoryConfigInput) =>
  createCheckpointer(resolveMemoryConfig({ windowSize: false, ...input }, {})) as ThreadwiseSaver;

describe("a refused turn never runs", () => {
  it("in_memory: 0 model calls, 0 tool runs, 0 chunks, nothing stored; without turnAdmission it runs in full (control)", async () => {
    const saver = saverOf({ backend: "in_memory" });
    expectRefusedBeforeRunning(await refusedWhileBusy(saver, saver, "t"));
    const control = await refusedWhileBusy(saver, saver, "control", false);
    expect(ThreadwiseConcurrentTurnError.isInstance(control.error)).toBe(true);
    expect(control.modelCalls).toBeGreaterThan(0);
  });

  it("sqlite, two checkpointers on one file", async () => {
    const file = join(dir, "shared.sqlite");
    const [a, b] = [saverOf({ backend: "sqlite", sqlitePath: file }), saverOf({ backend: "sqlite", sqlitePath: file })];
    expectRefusedBeforeRunning(await refusedWhileBusy(a as ThreadwiseSaver, b as ThreadwiseSaver, "t"));
    expectStoredOnce(await operationTwice(b as ThreadwiseSaver, "op"));
    await Promise.all([a?.close(), b?.close()]);
  });

  it("in_memory and sqlite (two checkpointers on one file): a run whose checkpoint write fails after its first step leaves no lease", async () => {
    const saver = saverOf({ backend: "in_memory" });
    expectReleased(await failedWriteThenTurn(saver, saver, "failed-write"));
    const file = join(dir, "failed-write.sqlite");
    const [a, b] = [saverOf({ backend: "sqlite", sqlitePath: file }), saverOf({ backend: "sqlite", sqlitePath: file })];
    expectReleased(await failedWriteThenTurn(a, b, "failed-write"));
    await Promise.all([a.close(), b.close()]);
  });

  it("in_memory: an operation id is stored once; a bad one names the option", async () => {
    const saver = saverOf({ backend: "in_memory" });
    expectStoredOnce(await operationTwice(saver, "op"));
    const { agent } = bookingAgent(saver);
    const error = await agent
      .invoke({ messages: [new HumanMessage("x")] }, { configurable: { thread_id: "bad", operation_id: 42 } })
      .catch((e: unknown) => e);
    expect((error as Error).message).toContain("configurable.operation_id");
  });
});

describe.skipIf(skipUnlessRealPostgres("turn admission on PostgreSQL"))("a refused turn never runs: PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twadmit");
    await migrate({ dsn: db.url });
  });
  afterAll(async () => db?.drop());

  it("direct, two checkpointers (two pools)", async () => {
    const [a, b] = [0, 1].map(() => saverOf({ backend: "postgres", postgresDsn: db.url, allowPlaintext: true }));
    expectRefusedBeforeRunning(await refusedWhileBusy(a as ThreadwiseSaver, b as ThreadwiseSaver, "t"));
    expectStoredOnce(await operationTwice(b as ThreadwiseSaver, "op"));
    expectReleased(await failedWriteThenTurn(a as ThreadwiseSaver, b as ThreadwiseSaver, "failed-write"));
    await Promise.all([a?.close(), b?.close()]);
  });

  it("through PgBouncer in transaction mode", async () => {
    const bouncer = pgbouncerUrl("turn admission through PgBouncer");
    if (!bouncer) return;
    const url = sameDatabase(bouncer, db.url);
    const [a, b] = [0, 1].map(() => saverOf({ backend: "postgres", postgresDsn: url, pgPoolMode: "transaction", allowPlaintext: true }));
    expectRefusedBeforeRunning(await refusedWhileBusy(a as ThreadwiseSaver, b as ThreadwiseSaver, "t-bouncer"));
    expectStoredOnce(await operationTwice(b as ThreadwiseSaver, "op-bouncer"));
    await Promise.all([a?.close(), b?.close()]);
  });
});
