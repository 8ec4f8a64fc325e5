/**
 * Sentinel scan (R28): a conversation carrying a unique string in a user message, a tool result, the
 * summary slot and the facts slot goes through `createAgent` with an encrypted checkpointer. The
 * SQLite files (with -wal), every Postgres table and MemorySaver's storage hold 0 occurrences; the
 * same run on the unencrypted savers finds it, so the scan can fail.
 */
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { scriptedModel } from "@threadwise/core/testing";
import { encryptCheckpointer, encryptedSerializer } from "@threadwise/encryption";
import Database from "better-sqlite3";
import { createAgent, createMiddleware, tool } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { tempDir, testKeyring } from "../packages/encryption/src/test-support.js";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

const SENTINEL = `SENTINEL-${randomUUID()}`;
const keyring = testKeyring(["k1"]);
const dir = tempDir();
const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const lookup = tool(async ({ code }: { code: string }) => `Booking ${code} belongs to ${SENTINEL}, seat 12A.`, {
  name: "lookup_booking",
  description: "Look up a booking by code.",
  schema: z.object({ code: z.string() }),
});

/** Stands in for summarize and factRecall: writes the summary and fact slots as private state. */
const memoryWriter = createMiddleware({
  name: "test/sentinel-memory",
  stateSchema: z.object({
    _threadwise_summary: z.object({ summary: z.object({ text: z.string() }).optional() }).optional(),
    _threadwise_facts: z.array(z.object({ text: z.string() })).optional(),
  }),
  afterModel: () => ({
    _threadwise_summary: { summary: { text: `The user is ${SENTINEL}.` } },
    _threadwise_facts: [{ text: `user name: ${SENTINEL}` }],
  }),
});

function model() {
  return scriptedModel((messages) => {
    const last = messages[messages.length - 1];
    if (last?.getType() === "human")
      return new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "lookup_booking", args: { code: "B7" } }] });
    return "Found it.";
  });
}

/** Two turns on one thread; returns what the agent reads back (proving decryption works). */
async function converse(checkpointer: BaseCheckpointSaver): Promise<{ state: Record<string, unknown>; secondCallSaw: string }> {
  const llm = model();
  const agent = createAgent({ model: llm, tools: [lookup], middleware: [memoryWriter], checkpointer });
  const config = { configurable: { thread_id: "thread-sentinel" } };
  await agent.invoke({ messages: [new HumanMessage(`Hi, I am ${SENTINEL}. Check booking B7.`)] }, config);
  await agent.invoke({ messages: [new HumanMessage("And again?")] }, config);
  const snapshot = await agent.graph.getState(config);
  const thirdCall = llm.calls[2]?.messages ?? [];
  return { state: snapshot.values as Record<string, unknown>, secondCallSaw: JSON.stringify(thirdCall.map((m) => m.content)) };
}

function count(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** Occurrences of the sentinel as text or as hex (how `bytea` renders in `::text`). */
function occurrences(text: string): number {
  return count(text, SENTINEL) + count(text.toLowerCase(), Buffer.from(SENTINEL).toString("hex"));
}

function scanSqliteFiles(file: string): number {
  let total = 0;
  for (const path of [file, `${file}-wal`, `${file}-shm`])
    if (existsSync(path)) total += occurrences(readFileSync(path).toString("latin1"));
  return total;
}

async function scanPostgres(pool: pg.Pool, schema: string): Promise<{ tables: string[]; hits: number }> {
  const { rows } = await pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [
    schema,
  ]);
  let hits = 0;
  for (const { table_name } of rows) {
    const dump = await pool.query<{ t: string }>(`SELECT t::text AS t FROM "${schema}"."${table_name}" t`);
    for (const row of dump.rows) hits += occurrences(row.t);
  }
  return { tables: rows.map((r) => r.table_name).sort(), hits };
}

function scanMemorySaver(saver: MemorySaver): number {
  const parts: string[] = [];
  const walk = (value: unknown): void => {
    if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString("latin1"));
    else if (typeof value === "string") parts.push(value);
    else if (value && typeof value === "object") for (const inner of Object.values(value)) walk(inner);
  };
  walk(saver.storage);
  walk(saver.writes);
  return occurrences(parts.join("\n"));
}

function expectConversationReadable(result: { state: Record<string, unknown>; secondCallSaw: string }): void {
  expect(JSON.stringify(result.state._threadwise_summary)).toContain(SENTINEL);
  expect(JSON.stringify(result.state._threadwise_facts)).toContain(SENTINEL);
  expect(result.secondCallSaw).toContain(SENTINEL);
}

describe("sentinel scan: SqliteSaver", () => {
  it("finds the sentinel in the database files without encryption (the scan can fail)", async () => {
    const file = join(dir, "plain.db");
    const saver = SqliteSaver.fromConnString(file);
    expectConversationReadable(await converse(saver));
    expect(scanSqliteFiles(file)).toBeGreaterThan(3);
    saver.db.close();
  });

  it("finds 0 occurrences in the database and -wal files with encryptCheckpointer", async () => {
    const file = join(dir, "encrypted.db");
    const saver = encryptCheckpointer(SqliteSaver.fromConnString(file), { keyring, agentId: "sentinel" });
    expectConversationReadable(await converse(saver));
    expect(existsSync(`${file}-wal`)).toBe(true);
    expect(scanSqliteFiles(file)).toBe(0);
    saver.inner.db.close();
    expect(scanSqliteFiles(file)).toBe(0);
  });
});

describe("sentinel scan: encryptedSerializer alone", () => {
  it("finds 0 occurrences in the SQLite files when the saver only gets the serializer", async () => {
    const file = join(dir, "serializer.db");
    const saver = new SqliteSaver(new Database(file), encryptedSerializer({ keyring, agentId: "sentinel" }));
    expectConversationReadable(await converse(saver));
    expect(scanSqliteFiles(file)).toBe(0);
    saver.db.close();
  });
});

describe("sentinel scan: MemorySaver", () => {
  it("finds the sentinel in storage without encryption", async () => {
    const saver = new MemorySaver();
    expectConversationReadable(await converse(saver));
    expect(scanMemorySaver(saver)).toBeGreaterThan(3);
  });

  it("finds 0 occurrences in storage with encryptCheckpointer", async () => {
    const saver = encryptCheckpointer(new MemorySaver(), { keyring, agentId: "sentinel" });
    expectConversationReadable(await converse(saver));
    expect(scanMemorySaver(saver.inner)).toBe(0);
  });
});

describe("sentinel scan: PostgresSaver", () => {
  let pool: pg.Pool;
  const schemas: string[] = [];
  async function saverIn(suffix: string): Promise<{ saver: PostgresSaver; schema: string }> {
    if (!pool) {
      const database = await freshDatabase("twsen");
      pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
      cleanups.push(async () => {
        if (isPglite()) for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.end();
        if (!isPglite()) await database.drop();
      });
      schemas.push(database.schema);
    }
    const schema = `${schemas[0]}_${suffix}`;
    schemas.push(schema);
    const saver = new PostgresSaver(pool, undefined, { schema });
    await saver.setup();
    return { saver, schema };
  }

  it("finds the sentinel in the tables without encryption", async () => {
    const { saver, schema } = await saverIn("plain");
    expectConversationReadable(await converse(saver));
    const scan = await scanPostgres(pool, schema);
    expect(scan.tables).toEqual(["checkpoint_blobs", "checkpoint_migrations", "checkpoint_writes", "checkpoints"]);
    expect(scan.hits).toBeGreaterThan(3);
  });

  it("finds 0 occurrences in every table with encryptCheckpointer", async () => {
    const { saver, schema } = await saverIn("enc");
    expectConversationReadable(await converse(encryptCheckpointer(saver, { keyring, agentId: "sentinel" })));
    const scan = await scanPostgres(pool, schema);
    expect(scan.tables).toEqual(["checkpoint_blobs", "checkpoint_migrations", "checkpoint_writes", "checkpoints"]);
    expect(scan.hits).toBe(0);
  });
});
