/**
 * The tamper matrix (R27, issue 13) on SqliteSaver and PostgresSaver rows: bit flip, truncation,
 * rows swapped between threads, reading as another agent or tenant, an older row replayed over
 * the newest, a spliced parent pointer, and channel versions rolled back to an older version whose
 * record still exists. Each case is refused with a named error; none returns other history.
 * Prints cases tried / refused per backend.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { scriptedModel } from "@threadwise/core/testing";
import { encryptCheckpointer, SEALED_PREFIX, ThreadwiseAgentMismatchError, ThreadwiseDecryptionError } from "@threadwise/encryption";
import type Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { tempDir, testKeyring } from "../packages/encryption/src/test-support.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const keyring = testKeyring(["k1"]);
const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function say(checkpointer: BaseCheckpointSaver, threadId: string, text: string) {
  const agent = createAgent({ model: scriptedModel((messages) => `echo ${messages.length}`), checkpointer });
  return agent.invoke({ messages: [new HumanMessage(text)] }, { configurable: { thread_id: threadId } });
}

function flip(sealed: string): string {
  const raw = Buffer.from(sealed.slice(SEALED_PREFIX.length), "base64url");
  raw[raw.length - 20] = (raw[raw.length - 20] as number) ^ 0x04;
  return SEALED_PREFIX + raw.toString("base64url");
}
const truncate = (sealed: string) => sealed.slice(0, Math.floor(sealed.length / 2));

/** The named error a read must fail with; `undefined` when it returned history instead. */
async function refusal(saver: BaseCheckpointSaver, thread: string): Promise<string | undefined> {
  try {
    await saver.getTuple({ configurable: { thread_id: thread } });
    return undefined;
  } catch (error) {
    if (ThreadwiseDecryptionError.isInstance(error)) return `${error.code}:${error.problem}`;
    if (ThreadwiseAgentMismatchError.isInstance(error)) return error.code;
    throw error;
  }
}

type Tamper = [name: string, apply: () => Promise<void> | void, reader?: BaseCheckpointSaver];

async function runMatrix(backend: string, saver: BaseCheckpointSaver, cases: Tamper[], snapshot: () => Promise<() => Promise<void>>) {
  const results: Array<[string, string | undefined]> = [];
  for (const [name, apply, reader] of cases) {
    const restore = await snapshot();
    await apply();
    results.push([name, await refusal(reader ?? saver, "a")]);
    await restore();
    // Restored: the thread reads again, so each case is tested on its own.
    expect(await refusal(saver, "a"), `${name} restored`).toBeUndefined();
  }
  const refused = results.filter(([, outcome]) => outcome !== undefined);
  console.log(
    `[tamper matrix] ${backend}: ${results.length} cases tried, ${refused.length} refused with a named error: ${results.map(([n, o]) => `${n}=${o ?? "READ"}`).join(", ")}`,
  );
  expect(results.filter(([, outcome]) => outcome === undefined).map(([name]) => name)).toEqual([]);
}

describe("tamper matrix: SqliteSaver", () => {
  it("every case is refused with a named error", async () => {
    const file = join(dir, "matrix.db");
    const inner = SqliteSaver.fromConnString(file);
    const saver = encryptCheckpointer(inner, { keyring, agentId: "support", tenantId: "acme" });
    for (const text of ["one", "two", "three"]) await say(saver, "a", text);
    await say(saver, "b", "other thread");
    const db = (inner as unknown as { db: Database.Database }).db;
    type Row = { rowid: number; checkpoint_id: string; parent_checkpoint_id: string | null; checkpoint: Buffer; metadata: Buffer };
    const rows = (thread: string) =>
      db.prepare("SELECT rowid, * FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY checkpoint_id").all(thread) as Row[];
    const newest = () => rows("a").at(-1) as Row;
    const edit = (
      mutate: (checkpoint: { id: string; channel_values: Record<string, string>; channel_versions: Record<string, unknown> }) => void,
    ) => {
      const row = newest();
      const checkpoint = JSON.parse(row.checkpoint.toString("utf8"));
      mutate(checkpoint);
      db.prepare("UPDATE checkpoints SET checkpoint = ? WHERE rowid = ?").run(Buffer.from(JSON.stringify(checkpoint)), row.rowid);
    };
    // The newest checkpoint with a different messages version: the one two turns back.
    const older = rows("a").filter((r) => {
      const versions = JSON.parse(r.checkpoint.toString("utf8")).channel_versions;
      return versions.messages !== JSON.parse(newest().checkpoint.toString("utf8")).channel_versions.messages;
    });
    const previous = older.at(-1) as Row;
    const cases: Tamper[] = [
      [
        "bit flip",
        () =>
          edit((c) => {
            c.channel_values.messages = flip(c.channel_values.messages as string);
          }),
      ],
      [
        "truncation",
        () =>
          edit((c) => {
            c.channel_values.messages = truncate(c.channel_values.messages as string);
          }),
      ],
      [
        "swap between threads",
        () => {
          const other = rows("b").at(-1) as Row;
          db.prepare("UPDATE checkpoints SET checkpoint = ?, metadata = ? WHERE rowid = ?").run(
            other.checkpoint,
            other.metadata,
            newest().rowid,
          );
        },
      ],
      [
        "swap messages value between threads",
        () => {
          const other = JSON.parse((rows("b").at(-1) as Row).checkpoint.toString("utf8"));
          edit((c) => {
            c.channel_values.messages = other.channel_values.messages;
          });
        },
      ],
      ["read as another agent", () => {}, encryptCheckpointer(inner, { keyring, agentId: "billing", tenantId: "acme" })],
      ["read as another tenant", () => {}, encryptCheckpointer(inner, { keyring, agentId: "support", tenantId: "globex" })],
      [
        "replay of an older row",
        () =>
          db
            .prepare("UPDATE checkpoints SET checkpoint = ?, metadata = ? WHERE rowid = ?")
            .run(previous.checkpoint, previous.metadata, newest().rowid),
      ],
      [
        "replay of an older row, id rewritten",
        () => {
          const id = newest().checkpoint_id;
          const old = JSON.parse(previous.checkpoint.toString("utf8"));
          old.id = id;
          db.prepare("UPDATE checkpoints SET checkpoint = ?, metadata = ? WHERE rowid = ?").run(
            Buffer.from(JSON.stringify(old)),
            previous.metadata,
            newest().rowid,
          );
        },
      ],
      [
        "splice (parent pointer moved)",
        () =>
          db
            .prepare("UPDATE checkpoints SET parent_checkpoint_id = ? WHERE rowid = ?")
            .run((rows("a")[0] as Row).checkpoint_id, newest().rowid),
      ],
      [
        "channel_versions rollback",
        () => {
          const old = JSON.parse(previous.checkpoint.toString("utf8"));
          edit((c) => {
            c.channel_versions.messages = old.channel_versions.messages;
            c.channel_values.messages = old.channel_values.messages;
          });
        },
      ],
    ];
    await runMatrix("sqlite", saver, cases, async () => {
      const saved = db.prepare("SELECT rowid, checkpoint, metadata, parent_checkpoint_id FROM checkpoints").all() as Row[];
      return async () => {
        const put = db.prepare("UPDATE checkpoints SET checkpoint = ?, metadata = ?, parent_checkpoint_id = ? WHERE rowid = ?");
        for (const row of saved) put.run(row.checkpoint, row.metadata, row.parent_checkpoint_id, row.rowid);
      };
    });
  });
});

describe("tamper matrix: PostgresSaver", () => {
  it("every case is refused with a named error", async () => {
    const db = await freshDatabase("twtamper");
    const pool = new pg.Pool({ connectionString: db.url, max: testPoolMax(), options: `-c search_path=${db.schema}` });
    const inner = new PostgresSaver(pool, undefined, { schema: db.schema });
    await inner.setup();
    const saver = encryptCheckpointer(inner, { keyring, agentId: "support", tenantId: "acme" });
    const t = (table: string) => `"${db.schema}".${table}`;
    try {
      for (const text of ["one", "two", "three"]) await say(saver, "a", text);
      await say(saver, "b", "other thread");
      const q = async <R extends pg.QueryResultRow>(sql: string, args: unknown[] = []) => (await pool.query<R>(sql, args)).rows;
      const newest = async () =>
        (
          await q<{ checkpoint_id: string; checkpoint: { channel_versions: Record<string, string> } }>(
            `SELECT checkpoint_id, checkpoint FROM ${t("checkpoints")} WHERE thread_id = 'a' AND checkpoint_ns = '' ORDER BY checkpoint_id DESC LIMIT 1`,
          )
        )[0] as { checkpoint_id: string; checkpoint: { channel_versions: Record<string, string> } };
      const head = await newest();
      const messagesVersion = String(head.checkpoint.channel_versions.messages);
      const versions = (
        await q<{ version: string }>(
          `SELECT version FROM ${t("checkpoint_blobs")} WHERE thread_id = 'a' AND channel = 'messages' AND type <> 'empty' ORDER BY version`,
        )
      ).map((r) => r.version);
      const olderVersion = versions.filter((v) => v !== messagesVersion).at(-1) as string;
      const blob = async (thread: string, version: string) =>
        (
          (
            await q<{ blob: Buffer }>(
              `SELECT blob FROM ${t("checkpoint_blobs")} WHERE thread_id = $1 AND channel = 'messages' AND version = $2`,
              [thread, version],
            )
          )[0] as { blob: Buffer }
        ).blob;
      const setBlob = (value: Buffer) =>
        pool.query(`UPDATE ${t("checkpoint_blobs")} SET blob = $1 WHERE thread_id = 'a' AND channel = 'messages' AND version = $2`, [
          value,
          messagesVersion,
        ]);
      /** Blob bytes are the inner serializer's JSON of the sealed string. */
      const sealedOf = (bytes: Buffer) => JSON.parse(bytes.toString("utf8")) as string;
      const rows = await q<{ checkpoint_id: string }>(
        `SELECT checkpoint_id FROM ${t("checkpoints")} WHERE thread_id = 'a' AND checkpoint_ns = '' ORDER BY checkpoint_id`,
      );
      const first = (rows[0] as { checkpoint_id: string }).checkpoint_id;
      const bVersion = String(
        (
          (
            await q<{ checkpoint: { channel_versions: Record<string, string> } }>(
              `SELECT checkpoint FROM ${t("checkpoints")} WHERE thread_id = 'b' ORDER BY checkpoint_id DESC LIMIT 1`,
            )
          )[0] as { checkpoint: { channel_versions: Record<string, string> } }
        ).checkpoint.channel_versions.messages,
      );
      const cases: Tamper[] = [
        ["bit flip", async () => void (await setBlob(Buffer.from(JSON.stringify(flip(sealedOf(await blob("a", messagesVersion)))))))],
        ["truncation", async () => void (await setBlob(Buffer.from(JSON.stringify(truncate(sealedOf(await blob("a", messagesVersion)))))))],
        ["swap messages blob between threads", async () => void (await setBlob(await blob("b", bVersion)))],
        ["read as another agent", () => {}, encryptCheckpointer(inner, { keyring, agentId: "billing", tenantId: "acme" })],
        ["read as another tenant", () => {}, encryptCheckpointer(inner, { keyring, agentId: "support", tenantId: "globex" })],
        [
          "replay of an older row",
          async () =>
            void (await pool.query(
              `UPDATE ${t("checkpoints")} SET checkpoint = o.checkpoint, metadata = o.metadata FROM ${t("checkpoints")} o
               WHERE ${t("checkpoints")}.thread_id = 'a' AND ${t("checkpoints")}.checkpoint_id = $1 AND o.thread_id = 'a' AND o.checkpoint_id = $2`,
              [head.checkpoint_id, (rows.at(-3) as { checkpoint_id: string }).checkpoint_id],
            )),
        ],
        [
          "splice (parent pointer moved)",
          async () =>
            void (await pool.query(
              `UPDATE ${t("checkpoints")} SET parent_checkpoint_id = $1 WHERE thread_id = 'a' AND checkpoint_id = $2`,
              [first, head.checkpoint_id],
            )),
        ],
        [
          "channel_versions rollback",
          async () =>
            void (await pool.query(
              `UPDATE ${t("checkpoints")} SET checkpoint = jsonb_set(checkpoint, '{channel_versions,messages}', to_jsonb($1::text)) WHERE thread_id = 'a' AND checkpoint_id = $2`,
              [olderVersion, head.checkpoint_id],
            )),
        ],
      ];
      await runMatrix("postgres", saver, cases, async () => {
        const checkpoints = await q(`SELECT * FROM ${t("checkpoints")}`);
        const blobs = await q(`SELECT * FROM ${t("checkpoint_blobs")}`);
        return async () => {
          for (const row of checkpoints)
            await pool.query(
              `UPDATE ${t("checkpoints")} SET checkpoint = $1, metadata = $2, parent_checkpoint_id = $3 WHERE thread_id = $4 AND checkpoint_ns = $5 AND checkpoint_id = $6`,
              [row.checkpoint, row.metadata, row.parent_checkpoint_id, row.thread_id, row.checkpoint_ns, row.checkpoint_id],
            );
          for (const row of blobs)
            await pool.query(
              `UPDATE ${t("checkpoint_blobs")} SET blob = $1 WHERE thread_id = $2 AND checkpoint_ns = $3 AND channel = $4 AND version = $5`,
              [row.blob, row.thread_id, row.checkpoint_ns, row.channel, row.version],
            );
        };
      });
    } finally {
      await pool.end();
      await db.drop();
    }
  });
});
