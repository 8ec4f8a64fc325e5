/**
 * What a default `memoryStack` (archive off, a thread that never archived) pays per turn, on each
 * backend: CPU and wall ms per turn (medians), store queries per model call, and the archive reads
 * the stack asks per model call (session 65, archiveoff65).
 *
 *   pnpm tsx bench/archive-off.ts --json --backend sqlite --turns 60
 *   pnpm tsx bench/archive-off.ts --json --backend postgres --turns 60   # POSTGRES_MEMORY_DSN or THREADWISE_TEST_POSTGRES_URL, MEMORY_PG_SCHEMA migrated
 *   pnpm tsx bench/archive-off.ts --json --backend in_memory --data <LoCoMo file>
 *
 * Options: `--data` (LoCoMo format; default the file bench/recall.ts reads: the user turns sent are
 * its first speaker's turns, in order, from the start again when the file has fewer), `--json`,
 * `--built`, `--backend` (in_memory | sqlite | postgres, default sqlite), `--turns` (default 60; the
 * first 10 are warm-up, not counted). One user turn is one model call (a scripted model that
 * answers without tools, at once: the turn's later steps then overlap its checkpoint writes more
 * than behind a real model). `toModelMs`: wall ms from `invoke` to the model call (median), what
 * the user waits before the provider is asked. `queriesPerCall`: statements the store ran (better-sqlite3 `run`/`get`/
 * `all`/`iterate` on SQLite, `pg.Client#query` on PostgreSQL, BEGIN/COMMIT included) per counted
 * turn; `archiveReadsPerCall`: calls of the saver's archive readers (`archivedMessages`,
 * `archivedAmong`, `archivedChanges`, `archiveClearedDigests`) per counted turn, each at least one
 * indexed query on a SQL store. The counters add a JS call per statement: compare CPU across runs
 * of this bench only. A bad `--backend` or `--turns` ends the run with exit 2 naming the option.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { scriptedModel } from "@threadwise/core/testing";
import { hideMemoryState, memoryStack } from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { benchArgs, printJson } from "./support/cli.js";
import { BenchOptionError } from "./support/data-file.js";
import { LOCOMO_PATH, loadLocomo } from "./support/locomo.js";

const args = benchArgs(LOCOMO_PATH, { backend: { type: "string", default: "sqlite" }, turns: { type: "string", default: "60" } });
const backend = String(args.values.backend) as "in_memory" | "sqlite" | "postgres";
if (!["in_memory", "sqlite", "postgres"].includes(backend))
  throw new BenchOptionError("--backend", `expected in_memory, sqlite or postgres, got ${backend}`);
const TURNS = Number(args.values.turns);
if (!Number.isInteger(TURNS) || TURNS < 11) throw new BenchOptionError("--turns", `expected a whole number > 10, got ${args.values.turns}`);
// The user turns sent, in order: the `--data` file's turns (LoCoMo format), its first speaker's, again from the start when the file has fewer.
const USER_TEXTS = loadLocomo(args.data).flatMap((conversation) =>
  conversation.turns.filter((turn) => turn.speaker === conversation.speakerA).map((turn) => turn.text),
);
const WARM = 10;

let queries = 0;
// Every statement the store runs: the prototypes both savers' and registries' statements share.
const probe = new Database(":memory:");
const statementProto = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, (...args: unknown[]) => unknown>;
probe.close();
for (const name of ["run", "get", "all", "iterate"]) {
  const original = statementProto[name] as (...args: unknown[]) => unknown;
  statementProto[name] = function (this: unknown, ...args: unknown[]) {
    queries += 1;
    return original.apply(this, args);
  };
}
const clientQuery = pg.Client.prototype.query as (...args: unknown[]) => unknown;
(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (this: unknown, ...args: unknown[]) {
  queries += 1;
  return clientQuery.apply(this, args);
};

const dir = mkdtempSync(join(tmpdir(), "archive-off-"));
const dsn = process.env.POSTGRES_MEMORY_DSN ?? process.env.THREADWISE_TEST_POSTGRES_URL;
const stack = memoryStack({
  backend,
  logger: false,
  ...(backend === "sqlite" ? { sqlitePath: join(dir, "memory.sqlite") } : {}),
  env:
    backend === "postgres"
      ? { POSTGRES_MEMORY_DSN: dsn, MEMORY_ALLOW_PLAINTEXT: "true", MEMORY_PG_SCHEMA: process.env.MEMORY_PG_SCHEMA ?? "public" }
      : {},
});
let archiveReads = 0;
const saver = stack.checkpointer as unknown as Record<string, (...args: unknown[]) => unknown>;
for (const name of ["archivedMessages", "archivedAmong", "archivedChanges", "archiveClearedDigests"]) {
  const original = saver[name] as (...args: unknown[]) => unknown;
  saver[name] = (...args: unknown[]) => {
    archiveReads += 1;
    return original.apply(saver, args);
  };
}
/** When the model was called in the current turn (performance.now()). */
let modelAt = 0;
const model = scriptedModel(() => {
  modelAt = performance.now();
  return "Noted, thanks.";
});
const agent = hideMemoryState(createAgent({ model, tools: [], ...stack }));
const config = { configurable: { thread_id: `archive-off-${process.pid}-${Date.now()}` } };
const cpu: number[] = [];
const wall: number[] = [];
const toModel: number[] = [];
let counted = { queries: 0, archiveReads: 0 };
for (let i = 0; i < TURNS; i++) {
  if (i === WARM) counted = { queries, archiveReads };
  const c0 = process.cpuUsage();
  const w0 = performance.now();
  const text = USER_TEXTS[i % USER_TEXTS.length] as string;
  await agent.invoke({ messages: [{ role: "user", content: text }] }, config);
  const c = process.cpuUsage(c0);
  if (i >= WARM) {
    cpu.push((c.user + c.system) / 1000);
    wall.push(performance.now() - w0);
    toModel.push(modelAt - w0);
  }
}
const n = TURNS - WARM;
const median = (values: number[]) => {
  const sorted = values.slice().sort((a, b) => a - b);
  return Number((sorted[sorted.length >> 1] as number).toFixed(3));
};
const result = {
  data: args.data,
  backend,
  turns: TURNS,
  counted: n,
  cpuMsPerTurn: median(cpu),
  wallMsPerTurn: median(wall),
  toModelMs: median(toModel),
  queriesPerCall: Number(((queries - counted.queries) / n).toFixed(2)),
  archiveReadsPerCall: Number(((archiveReads - counted.archiveReads) / n).toFixed(2)),
};
await stack.checkpointer?.close();
rmSync(dir, { recursive: true, force: true });
if (args.json) printJson(result);
else console.log(result);
