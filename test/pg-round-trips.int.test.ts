/**
 * What ThreadwiseSaver costs on PostgreSQL in round trips (issue 27): every statement sent is a
 * socket write and read of this process, which the replay bench counted as CPU. The registry's
 * statements around a put or a batch of pending writes go in the round trips that open and
 * commit its transaction (the row lock and the reads under it; the head move and COMMIT), and the
 * wrapped PostgresSaver's own BEGIN and COMMIT are not sent: a put or putWrites costs the round
 * trips it costs on a plain PostgresSaver. Was: 3 more per put, 2 more per putWrites. The rows
 * are the same, thread ids needing quotes and backslashes included, and a value a query text
 * cannot carry (NUL) is refused by PostgreSQL as it was.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { emptyCheckpoint, uuid6 } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { createMemoryPool, migrate, PgThreadRegistry, PgTransactionScope, ThreadwiseSaver } from "@threadwise/memory";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase } from "./support/postgres.js";

let db: Awaited<ReturnType<typeof freshDatabase>> | undefined;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  db = await freshDatabase("twrt");
  await migrate({ dsn: db.url, schema: db.schema });
}, 120_000);
afterAll(async () => {
  for (const pool of pools) await pool.end();
  await db?.drop();
});

/** Statements sent by any pg client of this process while `run` runs. */
async function statementsSent(run: () => Promise<void>): Promise<string[]> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  const sent: string[] = [];
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const first = args[0];
    sent.push(typeof first === "string" ? first : String((first as { text?: unknown } | undefined)?.text));
    return query.apply(this, args);
  };
  try {
    await run();
  } finally {
    proto.query = query;
  }
  return sent;
}

/** `turns` turns of a thread: an input checkpoint, its pending write and a loop checkpoint each, as LangGraph writes them. */
async function writeTurns(saver: PostgresSaver | ThreadwiseSaver, threadId: string, turns: number): Promise<void> {
  let parent: string | undefined;
  let version = 0;
  const messages: unknown[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    messages.push(
      new HumanMessage({ id: `u${turn}`, content: `question ${turn}` }),
      new AIMessage({ id: `a${turn}`, content: `answer ${turn}` }),
    );
    for (const source of ["input", "loop"] as const) {
      version += 1;
      const checkpoint = {
        ...emptyCheckpoint(),
        id: uuid6(-1),
        channel_values: { messages: [...messages] },
        channel_versions: { messages: version },
      };
      const config = { configurable: { thread_id: threadId, checkpoint_ns: "", ...(parent ? { checkpoint_id: parent } : {}) } };
      const stored = await saver.put(config, checkpoint, { source, step: version - 2, parents: {} }, { messages: version });
      await saver.putWrites(stored, [["messages", [messages.at(-1)]]], `task-${turn}-${source}`);
      parent = checkpoint.id;
    }
  }
}

function threadwiseSaver(): ThreadwiseSaver {
  const { url, schema } = db as NonNullable<typeof db>;
  const pool = createMemoryPool(url, { max: 2, logger: false });
  pools.push(pool);
  const scope = new PgTransactionScope();
  return new ThreadwiseSaver(new PostgresSaver(scope.pool(pool), undefined, { schema }), new PgThreadRegistry(pool, schema, scope), {
    turnLeaseMs: 0,
  });
}

function plainSaver(): PostgresSaver {
  const { url, schema } = db as NonNullable<typeof db>;
  const pool = createMemoryPool(url, { max: 2, logger: false });
  pools.push(pool);
  return new PostgresSaver(pool, undefined, { schema });
}

describe("ThreadwiseSaver's round trips on PostgreSQL", () => {
  it("a put and a putWrites cost the round trips they cost on a plain PostgresSaver, and store the same rows", async () => {
    const saver = threadwiseSaver();
    const plain = plainSaver();
    // The first turn creates the thread's rows: counted from the second turn on.
    await writeTurns(saver, "t-warm", 1);
    await writeTurns(plain, "p-warm", 1);
    const threadwise = await statementsSent(() => writeTurns(saver, "t-counted", 4));
    const alone = await statementsSent(() => writeTurns(plain, "p-counted", 4));
    // 8 puts and 8 putWrites; the registry's statements ride in the round trips of BEGIN and COMMIT.
    // One more: the thread's first put looks for checkpoints stored before heads were recorded (was 41 more).
    expect(threadwise.length).toBe(alone.length + 1);
    const tuple = await saver.getTuple({ configurable: { thread_id: "t-counted" } });
    const plainTuple = await plain.getTuple({ configurable: { thread_id: "p-counted" } });
    expect(tuple?.checkpoint.channel_values.messages).toEqual(plainTuple?.checkpoint.channel_values.messages);
    expect(tuple?.pendingWrites).toEqual(plainTuple?.pendingWrites);
    expect(tuple?.metadata).toMatchObject({ threadwise_archive: { stamp: 0, seq: 0 } });
    expect(await saver.registry.head("t-counted")).toEqual({ checkpointId: tuple?.checkpoint.id, version: 8 });
  });

  it("thread ids with quotes, backslashes and non-ASCII text are stored and read back as they are", async () => {
    const saver = threadwiseSaver();
    for (const threadId of ["o'brien", "back\\slash\\'; DROP TABLE x; --", "E'\\x41'", "스레드 $1 $2"]) {
      await writeTurns(saver, threadId, 2);
      const tuple = await saver.getTuple({ configurable: { thread_id: threadId } });
      expect(tuple?.config.configurable?.thread_id).toBe(threadId);
      expect(tuple?.checkpoint.channel_values.messages).toHaveLength(4);
      expect((await saver.registry.head(threadId))?.version).toBe(4);
      expect((await saver.registry.describe(threadId))?.checkpoints).toBe(4);
    }
  });

  it("a checkpoint namespace holding NUL is refused by PostgreSQL, as a bound parameter always was", async () => {
    const saver = threadwiseSaver();
    await writeTurns(saver, "t-nul", 1);
    const head = await saver.registry.head("t-nul");
    const write = saver.putWrites(
      { configurable: { thread_id: "t-nul", checkpoint_ns: "a\u0000b", checkpoint_id: head?.checkpointId } },
      [["messages", []]],
      "task-nul",
    );
    await expect(write).rejects.toThrow(/invalid byte sequence|0x00/);
  });

  it("an archive write is two round trips (the lock with where the archive stands; the rows with COMMIT) and stores what it stored in four", async () => {
    const saver = threadwiseSaver();
    const batch = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => new HumanMessage({ id: `m${from + i}`, content: `message ${from + i} 메시지 o'brien \\ $1` }));
    await saver.archiveMessages("t-archive", batch(0, 1));
    const sent = await statementsSent(() => saver.archiveMessages("t-archive", batch(1, 10)));
    // Was: BEGIN with the lock, the archive's top read, the INSERT, COMMIT.
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatch(/INSERT INTO .*threadwise_archive[\s\S]*COMMIT$/);
    // A batch past one statement's rows: still two round trips; a row written again keeps its seq and takes the new record and stamp.
    const again = [...batch(11, 300), new HumanMessage({ id: "m5", content: "edited 5" })];
    expect(await statementsSent(() => saver.archiveMessages("t-archive", again))).toHaveLength(2);
    const rows = await saver.registry.readArchive("t-archive", "default", 0);
    expect(rows.stamp).toBe(3);
    expect(rows.rows.map((row) => row.messageId)).toEqual(Array.from({ length: 311 }, (_, i) => `m${i}`));
    expect(rows.rows.map((row) => row.seq)).toEqual(Array.from({ length: 311 }, (_, i) => i + 1));
    expect(rows.rows.map((row) => row.stamp)).toEqual([1, ...Array(4).fill(2), 3, ...Array(5).fill(2), ...Array(300).fill(3)]);
    const messages = await saver.archivedMessages("t-archive");
    expect(messages.map((message) => message.content)).toEqual(
      Array.from({ length: 311 }, (_, i) => (i === 5 ? "edited 5" : `message ${i} 메시지 o'brien \\ $1`)),
    );
  });
});
