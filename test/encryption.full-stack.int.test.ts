/**
 * Sentinel scan through the real memory middlewares (R28): `memoryStack`'s summarize (with a
 * scripted summarizer) and factRecall (heuristic) produce a summary and a fact holding the sentinel,
 * a tool result and a user message hold it too; with `encryptCheckpointer` over SqliteSaver and
 * PostgresSaver the stored bytes hold 0 occurrences, and the thread reads back whole.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { scriptedModel } from "@threadwise/core/testing";
import { encryptCheckpointer } from "@threadwise/encryption";
import { memoryStack } from "@threadwise/memory";
import { createAgent, tool } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { tempDir, testKeyring } from "../packages/encryption/src/test-support.js";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

// Letters only, capitalized: reads as a name to the heuristic fact extractor.
const SENTINEL = `Zq${Array.from(randomBytes(10), (b) => String.fromCharCode(97 + (b % 26))).join("")}`;
const keyring = testKeyring(["k1"]);
const dir = tempDir();
const cleanups: Array<() => Promise<void> | void> = [() => rmSync(dir, { recursive: true, force: true })];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const lookup = tool(async () => `The booking is held under the name ${SENTINEL}.`, {
  name: "lookup_booking",
  description: "Look up the current booking.",
  schema: z.object({}),
});

async function converse(checkpointer: BaseCheckpointSaver): Promise<Record<string, unknown>> {
  const stack = memoryStack({
    backend: "in_memory",
    windowSize: 2,
    summarize: true,
    summarizeThreshold: 4,
    factsMode: "heuristic",
    env: {},
    logger: false,
    models: { summarize: scriptedModel(() => `The user, ${SENTINEL}, asked about a booking.`) },
  });
  const model = scriptedModel((messages, call) => {
    const last = messages[messages.length - 1];
    if (call === 0 && last?.getType() === "human")
      return new AIMessage({ content: "", tool_calls: [{ id: "c1", name: "lookup_booking", args: {} }] });
    return `Answer ${call}.`;
  });
  const agent = createAgent({ model, tools: [lookup], middleware: stack.middleware, checkpointer });
  const config = { configurable: { thread_id: "full-stack" } };
  const turns = [`My name is ${SENTINEL}.`, "Where is my booking?", "What seat do I have?", "Any upgrades?", "Thanks, and the meal?"];
  for (const text of turns) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
  return (await agent.graph.getState(config)).values as Record<string, unknown>;
}

function expectMemoryHoldsSentinel(state: Record<string, unknown>): void {
  expect(JSON.stringify(state._threadwise_summary)).toContain(SENTINEL);
  expect(JSON.stringify(state._threadwise_facts)).toContain(SENTINEL);
  expect(JSON.stringify(state.messages)).toContain(`My name is ${SENTINEL}`);
}

const hits = (text: string) =>
  text.split(SENTINEL).length - 1 + (text.toLowerCase().split(Buffer.from(SENTINEL).toString("hex")).length - 1);
const sqliteHits = (file: string) =>
  [file, `${file}-wal`, `${file}-shm`].filter(existsSync).reduce((sum, path) => sum + hits(readFileSync(path).toString("latin1")), 0);

describe("full stack (summarize + factRecall) sentinel scan", () => {
  it("SQLite without encryption holds the sentinel (control)", async () => {
    const file = join(dir, "plain.db");
    const saver = SqliteSaver.fromConnString(file);
    expectMemoryHoldsSentinel(await converse(saver));
    expect(sqliteHits(file)).toBeGreaterThan(0);
    saver.db.close();
  });

  it("SQLite with encryptCheckpointer holds 0 occurrences", async () => {
    const file = join(dir, "encrypted.db");
    const saver = encryptCheckpointer(SqliteSaver.fromConnString(file), { keyring, agentId: "full-stack" });
    expectMemoryHoldsSentinel(await converse(saver));
    expect(sqliteHits(file)).toBe(0);
    saver.inner.db.close();
  });

  it("PostgreSQL with encryptCheckpointer holds 0 occurrences in every table", async () => {
    const database = await freshDatabase("twfull");
    const pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
    cleanups.push(async () => {
      if (isPglite()) await pool.query(`DROP SCHEMA IF EXISTS "${database.schema}" CASCADE`);
      await pool.end();
      if (!isPglite()) await database.drop();
    });
    const saver = encryptCheckpointer(new PostgresSaver(pool, undefined, { schema: database.schema }), { keyring, agentId: "full-stack" });
    await saver.setup();
    expectMemoryHoldsSentinel(await converse(saver));
    const { rows } = await pool.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [
      database.schema,
    ]);
    expect(rows.length).toBe(4);
    let total = 0;
    for (const { table_name } of rows) {
      const dump = await pool.query<{ t: string }>(`SELECT t::text AS t FROM "${database.schema}"."${table_name}" t`);
      total += dump.rows.reduce((sum, row) => sum + hits(row.t), 0);
    }
    expect(total).toBe(0);
  });
});
