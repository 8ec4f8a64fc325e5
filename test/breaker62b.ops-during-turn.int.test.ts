/**
 * Deleting operations from another connection while a turn waits between its model call and its
 * checkpoint (every saver write after the answer held, as breaker61b's export test holds it):
 * `prune --thread-id --apply`, `retention` (its clock two days on, so the thread is idle past the
 * cutoff), `eraseUser` with the thread and `eraseTenant`, on a thread partly archived (archive on,
 * summaries). Then the turn goes on. Checked: the turn gets a typed `ThreadwiseThreadDeletedError`
 * (nothing of it stored: no message resurrected under the tombstone), no row of the thread is left
 * (checkpoints, writes, archive), a fresh stack reads no message of it and refuses its next turn,
 * and a thread the operation did not name is intact, as a fresh stack reads it. SQLite and
 * PostgreSQL (a real server; required in CI), en/ko text.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import {
  eraseTenant,
  eraseUser,
  type MemoryStackOptions,
  memoryStack,
  migrate,
  prune,
  retention,
  type ThreadwiseSaver,
  ThreadwiseThreadDeletedError,
} from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { archivedStackOptions } from "./support/archived-stack.js";
import { holdWritesAfterAnswer } from "./support/held-turn.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-b62b-ops-turn-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TURNS = Array.from({ length: 12 }, (_, k) =>
  k % 2 === 0 ? `English turn ${k}: my seat is ${k}A` : `한국어 턴 ${k}: 제 좌석은 ${k}번이에요`,
);
const LIVE = "answered: 마지막 질문 last question";
const DAY_MS = 86_400_000;
const OPS = ["prune", "retention", "eraseUser", "eraseTenant"] as const;
type Op = (typeof OPS)[number];
type Target = { sqlitePath: string } | { dsn: string };

function runOp(op: Op, target: Target, thread: string) {
  switch (op) {
    case "prune":
      return prune({ ...target, threadId: thread, apply: true });
    case "retention":
      return retention({ ...target, days: 1, now: () => new Date(Date.now() + 2 * DAY_MS) });
    case "eraseUser":
      return eraseUser({ ...target, userId: "u-1", threads: true, threadIds: [thread], apply: true });
    case "eraseTenant":
      return eraseTenant({ ...target, tenantId: "default", apply: true });
  }
}

const answerModel = () => scriptedModel((messages, k) => `답 answer ${k}: ${messageText(messages.at(-1) as BaseMessage).slice(0, 20)}`);

async function fillThread(options: MemoryStackOptions, thread: string) {
  const stack = memoryStack(options);
  try {
    const agent = createAgent({ model: answerModel(), ...stack });
    for (const text of TURNS) await agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: thread } });
    expect((await (stack.checkpointer as ThreadwiseSaver).archivedMessages(thread)).length).toBeGreaterThan(0);
  } finally {
    await (stack.checkpointer as ThreadwiseSaver).close();
  }
}

/** The thread as a fresh stack reads it: its messages, or the error reading it. */
async function freshRead(options: MemoryStackOptions, thread: string): Promise<string[] | unknown> {
  const stack = memoryStack(options);
  try {
    return (await (stack.checkpointer as ThreadwiseSaver).readThread({ configurable: { thread_id: thread } })).map(messageText);
  } catch (error) {
    return error;
  } finally {
    await (stack.checkpointer as ThreadwiseSaver).close();
  }
}

async function opDuringTurn(options: MemoryStackOptions, target: Target, op: Op, rowsOf: (thread: string) => Promise<number>) {
  const thread = `live-${op}`;
  const other = `other-${op}`;
  await fillThread(options, thread);
  await fillThread(options, other);
  const otherBefore = await freshRead(options, other);

  const stack = memoryStack(options);
  const saver = stack.checkpointer as ThreadwiseSaver;
  const { atGate, open, model } = holdWritesAfterAnswer(saver);
  const agent = createAgent({ model, ...stack });
  try {
    const turn = agent.invoke({ messages: [new HumanMessage(LIVE)] }, { configurable: { thread_id: thread } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await atGate;
    await runOp(op, target, thread);
    open();
    const outcome = await turn;
    expect(ThreadwiseThreadDeletedError.find(outcome), String(outcome)).toBeDefined();
    // The thread's next turn, in this process, is refused too.
    const again = await agent.invoke({ messages: [new HumanMessage("again 다시")] }, { configurable: { thread_id: thread } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ThreadwiseThreadDeletedError.find(again), String(again)).toBeDefined();
  } finally {
    open();
    await saver.close();
  }
  expect(await rowsOf(thread)).toBe(0);
  const read = await freshRead(options, thread);
  expect(Array.isArray(read) ? read : ThreadwiseThreadDeletedError.find(read) ? [] : read).toEqual([]);
  // Retention and eraseTenant take every idle thread of the store (the tenant's): the other one too; prune and eraseUser only the one named.
  if (op === "retention" || op === "eraseTenant") expect(await rowsOf(other)).toBe(0);
  else expect(await freshRead(options, other)).toEqual(otherBefore);
}

describe("deleting operations while a turn waits between its model call and its checkpoint: SQLite", () => {
  for (const op of OPS)
    it(`${op}: the turn gets ThreadwiseThreadDeletedError, no row is left, a fresh stack reads nothing of the thread (en/ko)`, async () => {
      const sqlitePath = join(dir, `${op}.sqlite`);
      await opDuringTurn(archivedStackOptions({ backend: "sqlite", sqlitePath }), { sqlitePath }, op, async (thread) => {
        const db = new Database(sqlitePath, { readonly: true });
        try {
          return (
            db
              .prepare(
                `SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = @t) + (SELECT count(*) FROM writes WHERE thread_id = @t)
                   + (SELECT count(*) FROM threadwise_archive WHERE thread_id = @t) AS n`,
              )
              .get({ t: thread }) as { n: number }
          ).n;
        } finally {
          db.close();
        }
      });
    }, 120_000);
});

describe.skipIf(skipUnlessRealPostgres("deleting operations during a live turn on PostgreSQL"))(
  "deleting operations while a turn waits between its model call and its checkpoint: PostgreSQL",
  () => {
    for (const op of OPS)
      it(`${op}: the turn gets ThreadwiseThreadDeletedError, no row is left, a fresh stack reads nothing of the thread (en/ko)`, async () => {
        const db = await freshDatabase("twb62bops");
        const pool = new pg.Pool({ connectionString: db.url, max: 1 });
        try {
          await migrate({ dsn: db.url });
          await opDuringTurn(
            archivedStackOptions({ backend: "postgres", postgresDsn: db.url, allowPlaintext: true }),
            { dsn: db.url },
            op,
            async (thread) => {
              const { rows } = await pool.query<{ n: string }>(
                `SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = $1) + (SELECT count(*) FROM checkpoint_blobs WHERE thread_id = $1)
                   + (SELECT count(*) FROM checkpoint_writes WHERE thread_id = $1) + (SELECT count(*) FROM threadwise_archive WHERE thread_id = $1) AS n`,
                [thread],
              );
              return Number(rows[0]?.n);
            },
          );
        } finally {
          await pool.end();
          await db.drop();
        }
      }, 300_000);
  },
);
