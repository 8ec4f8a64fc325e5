/**
 * The saver's "archive known empty" memory (archiveoff65) must never change a request: the oracle
 * is a fresh process (a new stack on the same database, which never ran the thread) resuming an
 * identical thread at the same point. The two races archiveoff65 listed as not covered, on SQLite
 * and PostgreSQL (two savers on one database = two processes), English and Korean:
 *
 * - (a) another process archives the thread between this process's head read and its model call:
 *   a run under durability `exit` (no checkpoint before its first model call) reads the head, then
 *   another process runs its turns (archive on) before the run's turn-lease claim, which finds the
 *   head moved, so the run goes on from the head it read, with the archive now full.
 * - (b) a thread archived by a threadwise that wrote no archive marks on its checkpoints (older
 *   stored layout: the marks are stripped before the wrapped saver stores them), left at a failed
 *   model call; this process resumes it.
 *
 * Each thread is built twice (threads `…-ours` and `…-fresh`, same turns): ours by the process
 * whose saver remembers it as never archived, the other resumed by the fresh process.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { hideMemoryState, type MemoryStackOptions, memoryStack, migrate, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOOKING_CODE_CASES } from "./support/booking-code-cases.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const WINDOW = 4;
const MARK_KEY = "threadwise_archive";

type Backend = "sqlite" | "postgres";
type Case = (typeof BOOKING_CODE_CASES)[number];

const dir = mkdtempSync(join(tmpdir(), "tw-known-empty-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase("twkempty");
  await migrate({ dsn: db.url, schema: db.schema });
});
afterAll(async () => db?.drop());

function backendOptions(backend: Backend, file: string): Partial<MemoryStackOptions> {
  return backend === "sqlite"
    ? { backend: "sqlite", sqlitePath: join(dir, file) }
    : { backend: "postgres", postgresDsn: db.url, postgresSchema: db.schema, pgPoolMax: testPoolMax(), allowPlaintext: true };
}

interface OpenOptions {
  archive: boolean;
  /** The model throws at a request ending with this text while `failing.on` is set. */
  failOn?: string;
  /** Stores checkpoints without the archive mark (a threadwise older than the marks). */
  stripMarks?: boolean;
}

/** One process's stack on the backend's store, its agent, and the text of each request its model got. */
function open(backend: Backend, file: string, options: OpenOptions) {
  const requests: string[][] = [];
  const failing = { on: false };
  const stack = memoryStack({
    ...backendOptions(backend, file),
    archive: options.archive,
    windowSize: WINDOW,
    summarizeThreshold: 2 * WINDOW,
    models: { summarize: scriptedModel(() => "s", { strict: false }) },
    logger: false,
    env: {},
  } as MemoryStackOptions);
  const model = scriptedModel((messages: BaseMessage[]) => {
    if (failing.on && messageText(messages.at(-1) as BaseMessage) === options.failOn) return new Error("provider down");
    requests.push(messages.map((m) => `${m.getType()}: ${messageText(m)}`));
    return "Noted.";
  });
  const agent = hideMemoryState(createAgent({ model, tools: [], ...stack }));
  const saver = stack.checkpointer as ThreadwiseSaver;
  if (options.stripMarks) {
    const inner = (saver as unknown as { inner: BaseCheckpointSaver }).inner;
    const put = inner.put.bind(inner);
    inner.put = (config, checkpoint, metadata, versions) => {
      const { [MARK_KEY]: _dropped, ...rest } = metadata as Record<string, unknown>;
      return put(config, checkpoint, rest as typeof metadata, versions);
    };
  }
  const turn = (thread: string, content: string, durability?: "exit") =>
    agent.invoke({ messages: [{ role: "user", content }] }, { configurable: { thread_id: thread }, ...(durability ? { durability } : {}) });
  const resume = (thread: string) => outcomeOf(agent.invoke(null, { configurable: { thread_id: thread } }));
  return { requests, failing, saver, turn, resume, close: () => saver.close() };
}

/** "ok", or the error's name and `reason` (a refusal's). */
function outcomeOf(run: Promise<unknown>): Promise<string> {
  return run.then(
    () => "ok",
    (error: unknown) => `${(error as Error).name}: ${String((error as { reason?: unknown }).reason ?? "")}`,
  );
}

/** Thread ids of one test: `ours` for the process that remembers the thread, `fresh` for the oracle. */
function threads(name: string) {
  return { ours: `${name}-ours`, fresh: `${name}-fresh` };
}

/** Another process, archive on: the booking code said, then 30 turns of small talk (the code is archived). */
async function archiveElsewhere(backend: Backend, file: string, thread: string, c: Case, options: Partial<OpenOptions> = {}) {
  const other = open(backend, file, { archive: true, failOn: c.ask, ...options });
  for (const content of [c.said, ...Array.from({ length: 30 }, (_, i) => c.filler(i + 2))]) await other.turn(thread, content);
  expect((await other.saver.archivedMessages(thread)).map(messageText)).toContain(c.said);
  if (options.failOn !== undefined) {
    other.failing.on = true;
    await expect(other.turn(thread, c.ask)).rejects.toThrow("provider down");
  }
  await other.close();
}

/**
 * Holds `saver`'s next turn-lease claim on `thread` (a resumed run's, after its head read and
 * archive checks, before its model call) until `release` is called; `held` resolves when it is
 * held. The test runs the other process's work from its own async context meanwhile (not inside
 * the run's, where LangGraph would take the other agent's run for a nested one).
 */
function holdClaim(saver: ThreadwiseSaver, thread: string) {
  let release!: () => void;
  const go = new Promise<void>((resolve) => {
    release = resolve;
  });
  let reached!: () => void;
  const held = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const registry = saver.registry as unknown as { claimTurn: (thread: string, ...rest: unknown[]) => Promise<boolean> };
  const claim = registry.claimTurn.bind(registry);
  let once = true;
  registry.claimTurn = async (id, ...rest) => {
    if (id === thread && once) {
      once = false;
      reached();
      await go;
    }
    return claim(id, ...rest);
  };
  return { held, release };
}

/** Asks the question on `thread` in `stack` (durability `exit`), holding its claim while another process archives the thread. */
async function askRacing(stack: ReturnType<typeof open>, backend: Backend, file: string, thread: string, c: Case): Promise<string> {
  const hold = holdClaim(stack.saver, thread);
  const run = outcomeOf(stack.turn(thread, c.ask, "exit"));
  const first = await Promise.race([hold.held.then(() => "held"), run]);
  expect(first).toBe("held");
  await archiveElsewhere(backend, file, thread, c);
  hold.release();
  return run;
}

for (const backend of ["sqlite", "postgres"] as const)
  describe(`archive known empty: a request is a fresh process's (${backend})`, () => {
    for (const c of BOOKING_CODE_CASES) {
      it(`(a) another process archives between a run's head read and its model call (durability exit) (${c.lang})`, async () => {
        const file = `race-a-${c.lang}.sqlite`;
        const t = threads(`race-a-${backend}-${c.lang}`);
        const ours = open(backend, file, { archive: false, failOn: c.ask });
        // Both threads: two turns with the archive off (never archived), then the question, whose model call fails.
        for (const thread of [t.ours, t.fresh]) {
          await ours.turn(thread, c.filler(0));
          await ours.turn(thread, c.filler(1));
        }
        const fresh = open(backend, file, { archive: false, failOn: c.ask });
        const theirs = await askRacing(fresh, backend, file, t.fresh, c);
        const asked = ours.requests.length;
        const mine = await askRacing(ours, backend, file, t.ours, c);
        expect(mine).toBe(theirs);
        expect(ours.requests.slice(asked)).toEqual(fresh.requests);
        await ours.close();
        await fresh.close();
      });

      it(`(b) resumes a thread archived by a threadwise that wrote no archive marks (${c.lang})`, async () => {
        const file = `race-b-${c.lang}.sqlite`;
        const t = threads(`race-b-${backend}-${c.lang}`);
        const ours = open(backend, file, { archive: false });
        for (const thread of [t.ours, t.fresh]) await ours.turn(thread, c.filler(0));
        // The older threadwise archives the booking code, then its model fails at the question.
        for (const thread of [t.ours, t.fresh]) await archiveElsewhere(backend, file, thread, c, { stripMarks: true, failOn: c.ask });
        for await (const tuple of ours.saver.list({ configurable: { thread_id: t.ours, checkpoint_ns: "" } }, { limit: 3 }))
          expect((tuple.metadata as Record<string, unknown>)[MARK_KEY]).toBeUndefined();
        const fresh = open(backend, file, { archive: false });
        const theirs = await fresh.resume(t.fresh);
        expect(fresh.requests).toHaveLength(1);
        expect(fresh.requests[0]?.join("\n")).toContain("QX-4417");
        const asked = ours.requests.length;
        const mine = await ours.resume(t.ours);
        expect(mine).toBe(theirs);
        expect(ours.requests.slice(asked)).toEqual(fresh.requests);
        await ours.close();
        await fresh.close();
      });
    }
  });
