/**
 * What the ThreadwiseSaver wrapper (thread registry touch + tombstone check on every write) costs
 * per turn, next to the bare saver, on SQLite and PostgreSQL. Prints a table; not a test.
 *
 *   THREADWISE_BENCH_POSTGRES_URL=postgresql://postgres:postgres@127.0.0.1:5432/postgres \
 *     pnpm tsx packages/memory/bench/saver-overhead.ts [turns=40]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import type { BaseCheckpointSaver } from "@langchain/langgraph-checkpoint";
import { PostgresSaver } from "@langchain/langgraph-checkpoint-postgres";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { scriptedModel } from "@threadwise/core/testing";
import { createCheckpointer, createMemoryPool, migrate, resolveMemoryConfig } from "@threadwise/memory";
import { createAgent } from "langchain";
import pg from "pg";

const turns = Number(process.argv[2] ?? 40);

async function msPerTurn(checkpointer: BaseCheckpointSaver, thread: string): Promise<number> {
  const agent = createAgent({ model: scriptedModel(() => "ok"), checkpointer });
  await agent.invoke({ messages: [new HumanMessage("warm-up")] }, { configurable: { thread_id: `${thread}-warm` } });
  const start = performance.now();
  for (let i = 0; i < turns; i += 1)
    await agent.invoke({ messages: [new HumanMessage(`turn ${i}`)] }, { configurable: { thread_id: thread } });
  return (performance.now() - start) / turns;
}

const rows: Array<[string, number, number]> = [];
const dir = mkdtempSync(join(tmpdir(), "tw-bench-"));
try {
  // Each pair runs twice, alternating, and the faster run counts (the first pays JIT warm-up).
  const bareSqlite = SqliteSaver.fromConnString(join(dir, "bare.sqlite"));
  const config = resolveMemoryConfig({ backend: "sqlite", sqlitePath: join(dir, "wrapped.sqlite") }, {});
  const wrappedSqlite = createCheckpointer(config) as BaseCheckpointSaver;
  const [b1, w1, b2, w2] = [
    await msPerTurn(bareSqlite, "t1"),
    await msPerTurn(wrappedSqlite, "t1"),
    await msPerTurn(bareSqlite, "t2"),
    await msPerTurn(wrappedSqlite, "t2"),
  ];
  rows.push(["sqlite", Math.min(b1, b2), Math.min(w1, w2)]);

  const base = process.env.THREADWISE_BENCH_POSTGRES_URL;
  if (base) {
    const name = `tw_bench_${Date.now()}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    try {
      await migrate({ dsn: url.toString() });
      const pool = createMemoryPool(url.toString());
      const barePg = new PostgresSaver(pool);
      const pgConfig = resolveMemoryConfig({ backend: "postgres", postgresDsn: url.toString(), allowPlaintext: true }, {});
      const wrappedPg = createCheckpointer(pgConfig, { pool }) as BaseCheckpointSaver;
      const [pb1, pw1, pb2, pw2] = [
        await msPerTurn(barePg, "b1"),
        await msPerTurn(wrappedPg, "w1"),
        await msPerTurn(barePg, "b2"),
        await msPerTurn(wrappedPg, "w2"),
      ];
      rows.push(["postgres", Math.min(pb1, pb2), Math.min(pw1, pw2)]);
      await pool.end();
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

console.log(`turns per backend: ${turns}`);
console.log("backend   | bare saver ms/turn | ThreadwiseSaver ms/turn | overhead");
for (const [backend, bare, wrapped] of rows)
  console.log(
    `${backend.padEnd(9)} | ${bare.toFixed(2).padStart(18)} | ${wrapped.toFixed(2).padStart(23)} | ${(((wrapped - bare) / bare) * 100).toFixed(0)}%`,
  );
