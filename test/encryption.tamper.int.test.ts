/**
 * Tamper, wrong key and records swapped between threads, on the stored rows of SqliteSaver and
 * PostgresSaver (R27): reads fail whole with a named error; nothing is silently dropped, and the
 * agent does not continue on a partial thread.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { scriptedModel } from "@threadwise/core/testing";
import { encryptCheckpointer, SEALED_PREFIX, ThreadwiseAgentMismatchError, ThreadwiseDecryptionError } from "@threadwise/encryption";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, testKeyring } from "../packages/encryption/src/test-support.js";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

const keyring = testKeyring(["k1"]);
const options = { keyring, agentId: "support" };
const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function say(checkpointer: BaseCheckpointSaver, threadId: string, text: string) {
  const agent = createAgent({ model: scriptedModel((messages) => `echo ${messages.length}`), checkpointer });
  return agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: threadId } });
}

/** Flips one bit inside the ciphertext of the first sealed string in `text` (a stored JSON value). */
function flipOneBit(text: string): string {
  const start = text.indexOf(SEALED_PREFIX) + SEALED_PREFIX.length;
  const end = text.indexOf('"', start);
  const raw = Buffer.from(text.slice(start, end), "base64url");
  raw[raw.length - 20] = (raw[raw.length - 20] as number) ^ 0x04;
  return text.slice(0, start) + raw.toString("base64url") + text.slice(end);
}

async function failure(run: Promise<unknown>): Promise<ThreadwiseDecryptionError | ThreadwiseAgentMismatchError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(ThreadwiseDecryptionError.isInstance(error) || ThreadwiseAgentMismatchError.isInstance(error)).toBe(true);
  return error as ThreadwiseDecryptionError;
}

describe("SqliteSaver rows", () => {
  function fresh(name: string) {
    const file = join(dir, `${name}.db`);
    const saver = encryptCheckpointer(SqliteSaver.fromConnString(file), options);
    return { file, saver, db: saver.inner.db };
  }

  it("one flipped bit in a checkpoint fails getTuple, list and the next turn with authentication-failed", async () => {
    const { saver, db } = fresh("flip");
    await say(saver, "a", "hello");
    const row = db.prepare("SELECT rowid, checkpoint FROM checkpoints WHERE thread_id = 'a' ORDER BY checkpoint_id DESC LIMIT 1").get() as {
      rowid: number;
      checkpoint: Buffer;
    };
    db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE rowid = ?").run(
      Buffer.from(flipOneBit(row.checkpoint.toString("utf8"))),
      row.rowid,
    );
    const error = await failure(saver.getTuple({ configurable: { thread_id: "a" } }));
    expect(error.code).toBe("THREADWISE_DECRYPTION_FAILED");
    expect((error as ThreadwiseDecryptionError).problem).toBe("authentication-failed");
    expect(error.threadId).toBe("a");
    await failure(
      (async () => {
        for await (const _ of saver.list({ configurable: { thread_id: "a" } }));
      })(),
    );
    await failure(say(saver, "a", "continue"));
  });

  it("one flipped bit in a pending write and in metadata fail too", async () => {
    const { saver, db } = fresh("flip-write");
    await say(saver, "a", "hello");
    const write = db.prepare("SELECT rowid, value FROM writes WHERE thread_id = 'a' LIMIT 1").get() as { rowid: number; value: Buffer };
    db.prepare("UPDATE writes SET value = ? WHERE rowid = ?").run(Buffer.from(flipOneBit(write.value.toString("utf8"))), write.rowid);
    const all = async () => {
      for await (const _ of saver.list({ configurable: { thread_id: "a" } }));
    };
    expect((await failure(all())).recordId).toContain("pending-write");
    const { saver: saver2, db: db2 } = fresh("flip-meta");
    await say(saver2, "a", "hello");
    const meta = db2.prepare("SELECT rowid, metadata FROM checkpoints WHERE thread_id = 'a' LIMIT 1").get() as {
      rowid: number;
      metadata: Buffer;
    };
    db2
      .prepare("UPDATE checkpoints SET metadata = ? WHERE rowid = ?")
      .run(Buffer.from(flipOneBit(meta.metadata.toString("utf8"))), meta.rowid);
    const all2 = async () => {
      for await (const _ of saver2.list({ configurable: { thread_id: "a" } }));
    };
    expect((await failure(all2())).recordId).toContain("metadata");
  });

  it("a wrong key with the same kid fails with authentication-failed; another agent id with agent mismatch", async () => {
    const { file, saver } = fresh("wrong-key");
    await say(saver, "a", "hello");
    const wrong = encryptCheckpointer(SqliteSaver.fromConnString(file), {
      keyring: testKeyring(["k1"], "k1", "another-seed"),
      agentId: "support",
    });
    expect(((await failure(wrong.getTuple({ configurable: { thread_id: "a" } }))) as ThreadwiseDecryptionError).problem).toBe(
      "authentication-failed",
    );
    const otherAgent = encryptCheckpointer(SqliteSaver.fromConnString(file), { keyring, agentId: "billing" });
    expect((await failure(otherAgent.getTuple({ configurable: { thread_id: "a" } }))).code).toBe("THREADWISE_AGENT_MISMATCH");
  });

  it("a checkpoint row copied from another thread fails to decrypt there", async () => {
    const { saver, db } = fresh("swap");
    await say(saver, "a", "secret of thread a");
    await say(saver, "b", "thread b");
    const a = db
      .prepare("SELECT checkpoint, metadata FROM checkpoints WHERE thread_id = 'a' ORDER BY checkpoint_id DESC LIMIT 1")
      .get() as { checkpoint: Buffer; metadata: Buffer };
    const b = db.prepare("SELECT rowid FROM checkpoints WHERE thread_id = 'b' ORDER BY checkpoint_id DESC LIMIT 1").get() as {
      rowid: number;
    };
    db.prepare("UPDATE checkpoints SET checkpoint = ?, metadata = ? WHERE rowid = ?").run(a.checkpoint, a.metadata, b.rowid);
    const error = await failure(saver.getTuple({ configurable: { thread_id: "b" } }));
    // The row of b now holds a's checkpoint id: refused before any record is opened.
    expect((error as ThreadwiseDecryptionError).problem).toBe("checkpoint-mismatch");
    expect(error.threadId).toBe("b");
    // Thread a is untouched and still reads.
    expect((await saver.getTuple({ configurable: { thread_id: "a" } }))?.checkpoint.channel_values.messages).toHaveLength(2);
  });
});

describe("PostgresSaver rows", () => {
  let pool: pg.Pool;
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    database = await freshDatabase("twtam");
    pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
  });
  afterAll(async () => {
    if (isPglite()) await pool.query(`DROP SCHEMA IF EXISTS "${database.schema}" CASCADE`);
    await pool.end();
    if (!isPglite()) await database.drop();
  });
  const table = (name: string) => `"${database.schema}".${name}`;

  async function fresh() {
    const saver = encryptCheckpointer(new PostgresSaver(pool, undefined, { schema: database.schema }), options);
    await saver.setup();
    return saver;
  }

  it("a messages blob swapped between threads fails; a flipped bit fails; nothing is dropped", async () => {
    const saver = await fresh();
    await say(saver, "pa", "secret of thread a");
    await say(saver, "pb", "thread b");
    await pool.query(
      `UPDATE ${table("checkpoint_blobs")} b SET blob = a.blob FROM ${table("checkpoint_blobs")} a
       WHERE a.thread_id = 'pa' AND b.thread_id = 'pb' AND a.channel = 'messages' AND b.channel = 'messages' AND a.version = b.version`,
    );
    const swapped = await failure(saver.getTuple({ configurable: { thread_id: "pb" } }));
    expect((swapped as ThreadwiseDecryptionError).problem).toBe("authentication-failed");
    expect(swapped.recordId).toContain("messages");

    const { rows } = await pool.query(
      `SELECT channel, version, blob FROM ${table("checkpoint_blobs")} WHERE thread_id = 'pa' AND channel = 'messages' ORDER BY version DESC LIMIT 1`,
    );
    const row = rows[0] as { channel: string; version: string; blob: Buffer };
    await pool.query(`UPDATE ${table("checkpoint_blobs")} SET blob = $1 WHERE thread_id = 'pa' AND channel = $2 AND version = $3`, [
      Buffer.from(flipOneBit(row.blob.toString("utf8"))),
      row.channel,
      row.version,
    ]);
    expect(((await failure(saver.getTuple({ configurable: { thread_id: "pa" } }))) as ThreadwiseDecryptionError).problem).toBe(
      "authentication-failed",
    );
    await failure(say(saver, "pa", "continue"));
  });

  it("metadata moved to another checkpoint fails", async () => {
    const saver = await fresh();
    await say(saver, "pm", "hello");
    await pool.query(
      `UPDATE ${table("checkpoints")} c SET metadata = (SELECT metadata FROM ${table("checkpoints")} WHERE thread_id = 'pm' ORDER BY checkpoint_id ASC LIMIT 1)
       WHERE c.thread_id = 'pm' AND c.checkpoint_id = (SELECT max(checkpoint_id) FROM ${table("checkpoints")} WHERE thread_id = 'pm')`,
    );
    expect((await failure(saver.getTuple({ configurable: { thread_id: "pm" } }))).recordId).toContain("metadata");
  });
});
