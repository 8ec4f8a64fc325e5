/**
 * Deletion during a write (spec R24, R34): a thread is deleted (`prune --thread-id --apply`
 * through its own connection, as another process would, or `checkpointer.deleteThread`) while a
 * turn on it is being written, at a different moment in each trial. The tombstone and the removal
 * of every row are one transaction that in-flight writes wait for, so afterwards no row is left
 * under the tombstone, and a write that comes after it is refused with
 * `ThreadwiseThreadDeletedError`. Prints trials and rows left, per backend.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { type MemoryStack, memoryStack, migrate, prune, ThreadwiseThreadDeletedError } from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const TRIALS = 12;
const MODEL_DELAY_MS = 25;

class SlowModel extends BaseChatModel {
  _llmType() {
    return "slow";
  }
  override bindTools() {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    await new Promise((resolve) => setTimeout(resolve, MODEL_DELAY_MS));
    const answer = `answer ${messages.length}`;
    return { generations: [{ text: answer, message: new AIMessage(answer) }] };
  }
}

interface Tally {
  trials: number;
  rowsLeft: number;
  /** Turns whose later writes met the tombstone. */
  refusedByTombstone: number;
  /** Deletions that found the thread and removed it. */
  deleted: number;
}

/**
 * Runs the trials: each commits one turn, starts a second and deletes the thread `offset` ms
 * into it (0 to 2x the model's latency, spread over the trials).
 */
async function deleteDuringWrites(
  stack: MemoryStack,
  remove: (thread: string, trial: number) => Promise<boolean>,
  rowsOf: (thread: string) => Promise<number>,
): Promise<Tally> {
  const agent = createAgent({ model: new SlowModel({}), ...stack });
  const say = (thread: string, words: string) =>
    agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: thread } });
  const tally: Tally = { trials: 0, rowsLeft: 0, refusedByTombstone: 0, deleted: 0 };
  for (let trial = 0; trial < TRIALS; trial += 1) {
    const thread = `race-${trial}`;
    await say(thread, "first");
    const offset = Math.round((trial / (TRIALS - 1)) * MODEL_DELAY_MS * 2);
    const turn = say(thread, "second").then(
      () => "committed",
      (error: unknown) => {
        if (ThreadwiseThreadDeletedError.isInstance(error)) return "tombstone";
        throw error;
      },
    );
    await new Promise((resolve) => setTimeout(resolve, offset));
    const removed = await remove(thread, trial);
    const outcome = await turn;
    tally.trials += 1;
    if (removed) tally.deleted += 1;
    if (outcome === "tombstone") tally.refusedByTombstone += 1;
    tally.rowsLeft += await rowsOf(thread);
    // The id stays taken: a new turn is refused (spec R24).
    await expect(say(thread, "again")).rejects.toSatisfy(ThreadwiseThreadDeletedError.isInstance);
  }
  return tally;
}

function report(backend: string, tally: Tally) {
  console.log(
    `[deletion race] ${backend}: ${tally.trials} trials of delete-during-write, ${tally.deleted} deleted, ${tally.refusedByTombstone} turns refused by the tombstone, rows left under tombstones: ${tally.rowsLeft}`,
  );
}

describe("delete during write: SQLite", () => {
  const dir = mkdtempSync(join(tmpdir(), "tw-delete-race-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("leaves no row under the tombstone", async () => {
    const file = join(dir, "memory.sqlite");
    const stack = memoryStack({ backend: "sqlite", sqlitePath: file, env: {} });
    const reader = new Database(file, { readonly: true });
    try {
      const tally = await deleteDuringWrites(
        stack,
        async (thread, trial) =>
          trial % 2 === 0
            ? (await prune({ sqlitePath: file, threadId: thread, apply: true })).totals.threads === 1
            : (await stack.checkpointer?.deleteThreadWithOutcome(thread))?.status === "deleted",
        async (thread) =>
          (
            reader
              .prepare(
                "SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = ?) + (SELECT count(*) FROM writes WHERE thread_id = ?) AS n",
              )
              .get(thread, thread) as { n: number }
          ).n,
      );
      report("sqlite", tally);
      expect(tally).toMatchObject({ trials: TRIALS, deleted: TRIALS, rowsLeft: 0 });
    } finally {
      reader.close();
      await stack.checkpointer?.close();
    }
  });
});

describe.skipIf(skipUnlessRealPostgres("delete during write on PostgreSQL"))("delete during write: PostgreSQL", () => {
  it("leaves no row under the tombstone", async () => {
    const db = await freshDatabase("twdelrace");
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await migrate({ dsn: db.url });
    const stack = memoryStack({ backend: "postgres", postgresDsn: db.url, allowPlaintext: true, env: {} });
    try {
      const tally = await deleteDuringWrites(
        stack,
        async (thread, trial) =>
          trial % 2 === 0
            ? (await prune({ dsn: db.url, threadId: thread, apply: true })).totals.threads === 1
            : (await stack.checkpointer?.deleteThreadWithOutcome(thread))?.status === "deleted",
        async (thread) => {
          const { rows } = await client.query<{ n: string }>(
            `SELECT (SELECT count(*) FROM checkpoints WHERE thread_id = $1) + (SELECT count(*) FROM checkpoint_blobs WHERE thread_id = $1)
               + (SELECT count(*) FROM checkpoint_writes WHERE thread_id = $1) AS n`,
            [thread],
          );
          return Number(rows[0]?.n);
        },
      );
      report("postgres", tally);
      expect(tally).toMatchObject({ trials: TRIALS, deleted: TRIALS, rowsLeft: 0 });
    } finally {
      await stack.checkpointer?.close();
      await client.end();
      await db.drop();
    }
  });
});
