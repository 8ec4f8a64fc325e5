/**
 * How long a rewrite of a thread with a large archive (R37: `REMOVE_ALL_MESSAGES` and the kept
 * messages, as an edit reaching archived messages does) holds the thread's lock: the time spent
 * inside the registry's write transaction of each checkpoint (`commitCheckpoint`'s `write`), for
 * the rewrite's checkpoints and, next to it, for an ordinary turn on the same thread. The rewrite
 * empties the archive and keeps the digests of what it held (`ArchiveRecords.clear`), which
 * decodes every archived message. Prints a table, or JSON with `--json`; not a test.
 *
 *   THREADWISE_BENCH_POSTGRES_URL=postgresql://postgres:postgres@127.0.0.1:5432/postgres \
 *     pnpm tsx packages/memory/bench/archive-rewrite.ts [--messages 50000] [--json]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import { createCheckpointer, migrate, resolveMemoryConfig, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import pg from "pg";

const argv = process.argv.slice(2);
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const messages = Number(flag("--messages") ?? 50_000);
const json = argv.includes("--json");

interface Row {
  backend: string;
  archived: number;
  /** Longest time inside one write transaction of the rewrite turn, ms. */
  rewriteLockMs: number;
  /** The rewrite turn, end to end, ms. */
  rewriteTurnMs: number;
  /** Longest time inside one write transaction of an ordinary turn on the same thread before the rewrite, ms. */
  turnLockMs: number;
}

/** Wraps the saver's registry so each `commitCheckpoint` reports the time its `write` ran (under the thread's lock). */
function lockTimer(saver: ThreadwiseSaver) {
  const registry = saver.registry as unknown as { commitCheckpoint: (...args: unknown[]) => Promise<unknown> };
  const original = registry.commitCheckpoint.bind(registry);
  let max = 0;
  registry.commitCheckpoint = (threadId: unknown, commit: unknown, write: unknown) =>
    original(threadId, commit, async (locked: unknown) => {
      const start = performance.now();
      try {
        return await (write as (l: unknown) => Promise<unknown>)(locked);
      } finally {
        max = Math.max(max, performance.now() - start);
      }
    });
  return {
    reset: () => {
      max = 0;
    },
    max: () => max,
  };
}

async function measure(backend: string, saver: ThreadwiseSaver): Promise<Row> {
  const timer = lockTimer(saver);
  const agent = createAgent({ model: scriptedModel(() => "ok"), checkpointer: saver });
  const config = { configurable: { thread_id: `rewrite-${backend}` } };
  await agent.invoke({ messages: [new HumanMessage("first")] }, config);
  // The archive: `messages` messages that left the hot thread, English and Korean text.
  const batch = 5_000;
  for (let from = 0; from < messages; from += batch) {
    const slice = [];
    for (let i = from; i < Math.min(messages, from + batch); i += 1)
      slice.push(
        i % 2 === 0
          ? new HumanMessage({ id: `h-${i}`, content: `message ${i}: I moved to Busan last spring / 작년 봄에 부산으로 이사했어요` })
          : new AIMessage({ id: `a-${i}`, content: `answer ${i}: noted, you live in Busan now.` }),
      );
    await saver.archiveMessages(config.configurable.thread_id, slice);
  }
  timer.reset();
  await agent.invoke({ messages: [new HumanMessage("an ordinary turn")] }, config);
  const turnLockMs = timer.max();
  timer.reset();
  const start = performance.now();
  await agent.invoke({ messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage("start over")] }, config);
  const rewriteTurnMs = performance.now() - start;
  const archivedAfter = (await saver.archivedMessages(config.configurable.thread_id)).length;
  if (archivedAfter !== 0) throw new Error(`the rewrite left ${archivedAfter} archived messages`);
  return { backend, archived: messages, rewriteLockMs: timer.max(), rewriteTurnMs, turnLockMs };
}

const rows: Row[] = [];
const dir = mkdtempSync(join(tmpdir(), "tw-bench-rewrite-"));
try {
  const sqlite = createCheckpointer(
    resolveMemoryConfig({ backend: "sqlite", sqlitePath: join(dir, "rewrite.sqlite") }, {}),
  ) as ThreadwiseSaver;
  rows.push(await measure("sqlite", sqlite));
  await sqlite.close();
  const memory = createCheckpointer(resolveMemoryConfig({ backend: "in_memory" }, {})) as ThreadwiseSaver;
  rows.push(await measure("in_memory", memory));
  const base = process.env.THREADWISE_BENCH_POSTGRES_URL;
  if (base) {
    const name = `tw_bench_rw_${Date.now()}`;
    const admin = new pg.Client({ connectionString: base });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(base);
    url.pathname = `/${name}`;
    try {
      await migrate({ dsn: url.toString() });
      const saver = createCheckpointer(
        resolveMemoryConfig({ backend: "postgres", postgresDsn: url.toString(), allowPlaintext: true }, {}),
      ) as ThreadwiseSaver;
      rows.push(await measure("postgres", saver));
      await saver.close();
    } finally {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const machine = `${cpus().length} x ${cpus()[0]?.model ?? "cpu"}, node ${process.version}`;
if (json) process.stdout.write(`${JSON.stringify({ machine, messages, rows }, null, 2)}\n`);
else {
  process.stdout.write(`archive rewrite: time inside the thread's write transaction (${machine})\n\n`);
  process.stdout.write(
    "| backend | archived | rewrite: longest in lock (ms) | rewrite turn (ms) | ordinary turn: longest in lock (ms) |\n|---|---:|---:|---:|---:|\n",
  );
  for (const r of rows)
    process.stdout.write(
      `| ${r.backend} | ${r.archived} | ${r.rewriteLockMs.toFixed(1)} | ${r.rewriteTurnMs.toFixed(1)} | ${r.turnLockMs.toFixed(1)} |\n`,
    );
}
