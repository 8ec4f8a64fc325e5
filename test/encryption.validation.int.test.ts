/**
 * `@langchain/langgraph-checkpoint-validation` against encrypted MemorySaver, SqliteSaver and
 * PostgresSaver (R28): the wrapper must behave exactly like a conforming checkpointer.
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { type EncryptedCheckpointSaver, encryptCheckpointer, encryptedSerializer } from "@threadwise/encryption";
import pg from "pg";
import * as vitest from "vitest";
import { tempDir, testKeyring } from "../packages/encryption/src/test-support.js";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

// The validation suites call jest-style globals; this project runs vitest without globals.
Object.assign(globalThis, {
  describe: vitest.describe,
  it: vitest.it,
  test: vitest.test,
  expect: vitest.expect,
  beforeAll: vitest.beforeAll,
  afterAll: vitest.afterAll,
  beforeEach: vitest.beforeEach,
  afterEach: vitest.afterEach,
});
const { validate, deltaChannelHistoryTests } = await import("@langchain/langgraph-checkpoint-validation");

const keyring = testKeyring(["old", "active"]);
const options = { keyring, agentId: "validation-agent" };

// Named as upstream names the inner savers, so upstream's documented skips for them apply
// (MemorySaver and SqliteSaver do not store channel deltas); `describe` says what is wrapped.
const memory = {
  checkpointerName: "MemorySaver",
  createCheckpointer: () => encryptCheckpointer(new MemorySaver(), options),
};
vitest.describe("threadwise encryptCheckpointer(MemorySaver)", () => {
  validate(memory);
  deltaChannelHistoryTests(memory);
});

// The serializer alone, for savers that only take a serializer: MemorySaver filters metadata after
// deserializing, so it passes the whole suite too.
const memoryWithSerializer = {
  checkpointerName: "MemorySaver",
  createCheckpointer: () => new MemorySaver(encryptedSerializer(options)),
};
vitest.describe("threadwise encryptedSerializer in MemorySaver", () => {
  validate(memoryWithSerializer);
});

const dir = tempDir();
let sqliteCount = 0;
const sqlite = {
  checkpointerName: "@langchain/langgraph-checkpoint-sqlite",
  createCheckpointer: () => {
    sqliteCount += 1;
    return encryptCheckpointer(SqliteSaver.fromConnString(join(dir, `validation-${sqliteCount}.db`)), options);
  },
  destroyCheckpointer: (saver: EncryptedCheckpointSaver<SqliteSaver>) => {
    saver.inner.db.close();
  },
  afterAll: () => rmSync(dir, { recursive: true, force: true }),
};
vitest.describe("threadwise encryptCheckpointer(SqliteSaver)", () => {
  validate(sqlite);
  deltaChannelHistoryTests(sqlite);
});

// One pool for the whole suite (PGlite serves one connection at a time); each checkpointer gets
// its own schema, dropped when it is destroyed.
let database: Awaited<ReturnType<typeof freshDatabase>> | undefined;
let pool: pg.Pool | undefined;
let schemaCount = 0;
const schemas = new Map<EncryptedCheckpointSaver<PostgresSaver>, string>();
const postgres = {
  checkpointerName: "@langchain/langgraph-checkpoint-postgres",
  beforeAll: async () => {
    database = await freshDatabase("twenc");
    pool = new pg.Pool({ connectionString: database.url, max: testPoolMax() });
  },
  beforeAllTimeout: 60_000,
  afterAll: async () => {
    // On PGlite the schema goes through the pool: a second connection right after `end()` is refused.
    if (isPglite()) await pool?.query(`DROP SCHEMA IF EXISTS "${database?.schema}" CASCADE`);
    await pool?.end();
    if (!isPglite()) await database?.drop();
  },
  createCheckpointer: async () => {
    schemaCount += 1;
    const saver = encryptCheckpointer(
      new PostgresSaver(pool as pg.Pool, undefined, { schema: `${database?.schema}_v${schemaCount}` }),
      options,
    );
    await saver.setup();
    return saver;
  },
  destroyCheckpointer: async (saver: EncryptedCheckpointSaver<PostgresSaver>) => {
    await pool?.query(`DROP SCHEMA IF EXISTS "${schemas.get(saver)}" CASCADE`);
  },
};
vitest.describe("threadwise encryptCheckpointer(PostgresSaver)", () => {
  validate(postgres);
  deltaChannelHistoryTests(postgres);
});
