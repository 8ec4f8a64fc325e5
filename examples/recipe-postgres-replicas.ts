/**
 * Recipe "a multi-replica server on PostgreSQL with encryption" (root README, Choose your stack).
 *
 *   env: MEMORY_BACKEND=postgres POSTGRES_MEMORY_DSN=... THREADWISE_MEMORY_KEYRING=... MEMORY_STRICT_MODE=true MEMORY_RETENTION_DAYS=30
 *   deploy step: threadwise migrate (a role with DDL rights); each replica: memoryStack() + withTurnRetry
 *
 * Strict mode refuses to start without PostgreSQL, a keyring and a retention period. Every replica
 * builds the same stack; nothing about a thread stays in a process, so turns of one thread may land
 * on any replica, and overlapping turns of one thread are refused with a retryable error that
 * `withTurnRetry` retries. Two stacks play two replicas and alternate the turns of one thread;
 * the example checks that every turn is stored and that the database holds no plaintext.
 *
 * Offline: with no `POSTGRES_MEMORY_DSN` it starts an embedded PostgreSQL (PGlite: one database
 * session behind the socket, so the two replicas share a one-connection pool here; on a real
 * server each replica has its own pool). A
 * scripted model answers; with `OPENAI_API_KEY` (or `OPENAI_BASE_URL`) a live `ChatOpenAI` does.
 *
 *   pnpm tsx examples/recipe-postgres-replicas.ts
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring } from "@threadwise/encryption";
import { hideMemoryState, memoryStack, migrate, withTurnRetry } from "@threadwise/memory";
import { extractiveSummarizer } from "@threadwise/summarize";
import { createAgent } from "langchain";
import pg from "pg";
import { exampleModel } from "./support/live-model.js";
import { exampleTempDir } from "./support/temp-dir.js";

const dir = exampleTempDir("recipe-postgres");
let dsn = process.env.POSTGRES_MEMORY_DSN;
let stopEmbedded: (() => Promise<void>) | undefined;
if (!dsn) {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 8 });
  await server.start();
  dsn = `postgresql://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
  stopEmbedded = async () => {
    await server.stop();
    await db.close();
  };
}

// Deploy step, once per release: DDL with a privileged role (here the same DSN), and a keyring.
const migrated = await migrate({ dsn });
console.log(`threadwise migrate: applied ${migrated.applied.join(", ") || "nothing (current)"}`);
const keyringPath = join(dir, "keyring.json");
createKeyring(keyringPath);

// What every replica's environment holds.
const env: NodeJS.ProcessEnv = {
  MEMORY_BACKEND: "postgres",
  POSTGRES_MEMORY_DSN: dsn,
  THREADWISE_MEMORY_KEYRING: keyringPath,
  MEMORY_STRICT_MODE: "true",
  MEMORY_RETENTION_DAYS: "30",
};
const { model, live } = await exampleModel(() => scriptedModel((_messages, call) => `Noted (${call + 1}).`));
const shared = process.env.POSTGRES_MEMORY_DSN ? undefined : new pg.Pool({ connectionString: dsn, max: 1 });
function replica() {
  const stack = memoryStack({
    env,
    logger: false,
    encryption: { agentId: "support-agent" },
    ...(shared ? { pool: shared } : {}),
    ...(live ? {} : { models: { summarize: extractiveSummarizer() } }),
  });
  return { stack, agent: hideMemoryState(createAgent({ model, systemPrompt: "You are a support agent.", ...stack })) };
}
const replicas = [replica(), replica()];
await replicas[0]?.stack.checkpointer?.ready(); // fail fast: schema version, keyring

const config = { configurable: { thread_id: "ticket-1042" } };
const turns = ["My passport number is X1234567.", "I need to change my flight to Friday.", "Window seat, please.", "Thanks!"];
for (const [i, text] of turns.entries()) {
  const { agent } = replicas[i % 2] as (typeof replicas)[number];
  await withTurnRetry(() => agent.invoke({ messages: [new HumanMessage(text)] }, config));
  console.log(`turn ${i + 1} on replica ${(i % 2) + 1}: ${text}`);
}

const stored = (await replicas[1]?.stack.checkpointer?.getTuple(config))?.checkpoint.channel_values.messages as unknown[];
const client = new pg.Client({ connectionString: dsn });
if (shared) await shared.end();
await client.connect();
const secret = Buffer.from("X1234567");
const { rows } = await client.query<{ n: string }>(
  `SELECT (SELECT count(*) FROM checkpoint_blobs WHERE position($1::bytea IN blob) > 0)
        + (SELECT count(*) FROM checkpoint_writes WHERE position($1::bytea IN blob) > 0)
        + (SELECT count(*) FROM checkpoints WHERE checkpoint::text LIKE '%X1234567%' OR metadata::text LIKE '%X1234567%') AS n`,
  [secret],
);
await client.end();
console.log(`stored messages: ${stored.length}; rows holding the passport number in plaintext: ${rows[0]?.n}`);

assert.equal(stored.length, turns.length * 2, "every turn of both replicas is stored");
assert.equal(Number(rows[0]?.n), 0, "the database holds ciphertext only");
assert.throws(
  () => memoryStack({ env: { ...env, THREADWISE_MEMORY_KEYRING: undefined } }),
  /keyring/i,
  "strict mode refuses to start without a keyring",
);
console.log("recipe multi-replica PostgreSQL with encryption: ok");
if (!shared) for (const { stack } of replicas) await stack.checkpointer?.close();
await stopEmbedded?.();
