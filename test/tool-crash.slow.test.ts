/**
 * A process killed between a tool's result write and the checkpoint after it (spec R38; left by
 * ops32, whose draft only dropped the saver): a worker process (`fixtures/tool-crash-worker.ts`)
 * runs a turn whose model calls `book`; once the saver's `putWrites` of the tool's result has
 * resolved, the process sends itself SIGKILL (the parent checks the signal). A fresh process on the
 * same SQLite file or PostgreSQL database then takes the thread over:
 * - with an `operation_id`, the client's retry of the turn is refused `duplicate-operation` with no
 *   model call and no tool run, and `invoke(null)` finishes the turn from the stored result: the
 *   tool ran once over both processes;
 * - without one, `invoke(null)` finishes it the same way; a retry sent as a new turn is a new turn
 *   (README: only an id makes a turn idempotent), and what it sends the model is valid.
 * In every case the killed writer's lease keeps the thread, and for at most `turnLeaseMs`: a resume
 * sent at once from this process is refused `turn-in-progress` (naming less than `turnLeaseMs`) with
 * no model call and no tool run. Before the fix that came with this test, that resume ran on
 * PostgreSQL (its first put, coming before any call, was stored as a step of the dead writer's
 * turn; `test/turn-admission.resume-after-tool.test.ts` has the same in one process). Every model
 * request passes core's strict validator for the four providers (no orphan result, no unanswered
 * call: a refused request fails the turn). English and Korean.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type MemoryStackOptions, memoryStack, migrate, ThreadwiseConcurrentTurnError } from "@threadwise/memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { crashAgent } from "./fixtures/tool-crash-agent.js";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

/** Each worker process starts tsx and the whole stack: seconds each on a busy machine. */
const PROCESS_TEST_TIMEOUT_MS = 300_000;
/** Long enough that a fresh process usually starts inside the killed writer's lease (tsx and the stack take seconds). */
const TURN_LEASE_MS = 10_000;
const script = resolve(import.meta.dirname, "fixtures", "tool-crash-worker.ts");
const dir = mkdtempSync(join(tmpdir(), "tw-tool-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LANGUAGES = {
  en: "Book the 9:00 train to Busan.",
  ko: "부산행 9시 기차 예매해 줘.",
} as const;

interface Reply {
  ok?: boolean;
  event?: string;
  failure?: string;
  refusals?: Array<{ reason: string; leaseExpiresInMs?: number }>;
  messages?: Array<[string, string]>;
}

/** Runs one worker to its end: its JSON lines, and the signal that ended it. */
function worker(env: NodeJS.ProcessEnv): Promise<{ lines: Reply[]; signal: NodeJS.Signals | null; stderr: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", script], {
    cwd: resolve(import.meta.dirname, ".."),
    env: { PATH: process.env.PATH, HOME: process.env.HOME, THREADWISE_LOG: "silent", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk) => {
    stdout += String(chunk);
  });
  child.stderr.on("data", (chunk) => {
    stderr += String(chunk);
  });
  return new Promise((done) =>
    child.once("close", (_code, signal) =>
      done({
        lines: stdout
          .split("\n")
          .filter((line) => line.startsWith("{"))
          .map((line) => JSON.parse(line) as Reply),
        signal,
        stderr,
      }),
    ),
  );
}

/** The worker's backend env as `memoryStack` options, for this process's own agent. */
function stackOptions(env: NodeJS.ProcessEnv): MemoryStackOptions {
  return env.MEMORY_BACKEND === "sqlite"
    ? { backend: "sqlite", sqlitePath: env.MEMORY_SQLITE_PATH as string }
    : {
        backend: "postgres",
        postgresDsn: env.POSTGRES_MEMORY_DSN as string,
        postgresSchema: env.MEMORY_PG_SCHEMA as string,
        allowPlaintext: true,
      };
}

const lines = (file: string) => (existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : []);

function crashCases(name: string, backendEnv: () => NodeJS.ProcessEnv) {
  for (const language of ["en", "ko"] as const)
    for (const withId of [true, false])
      it(
        `${name}: killed after the tool's result write, ${withId ? "with" : "without"} an operation id (${language})`,
        async () => {
          const tag = `${name}-${language}-${withId ? "id" : "noid"}`;
          const toolLog = join(dir, `${tag}.tools`);
          const modelLog = join(dir, `${tag}.models`);
          const base = {
            ...backendEnv(),
            MEMORY_TURN_LEASE_MS: String(TURN_LEASE_MS),
            WORKER_THREAD: `t-${tag}`,
            WORKER_TEXT: LANGUAGES[language],
            WORKER_TOOL_LOG: toolLog,
            WORKER_MODEL_LOG: modelLog,
            ...(withId ? { WORKER_OPERATION_ID: `req-${tag}` } : {}),
          };
          const killed = await worker({ ...base, WORKER_STEP: "kill-after-tool" });
          expect(killed.signal, killed.stderr).toBe("SIGKILL");
          expect(killed.lines).toEqual([{ event: "tool-result-stored" }]);
          const [killedPid] = lines(toolLog);
          // At once, in this process: the dead writer's lease holds the thread, for at most turnLeaseMs.
          const probe = memoryStack({
            ...stackOptions(backendEnv()),
            turnLeaseMs: TURN_LEASE_MS,
            summarize: false,
            recallMaxTokens: false,
            logger: false,
            env: {},
          });
          const probeCalls = lines(modelLog).length;
          const held = await crashAgent(probe, { toolLog, modelLog })
            .invoke(null as never, { configurable: { thread_id: `t-${tag}` } })
            .then(
              () => undefined,
              (error: unknown) => error,
            );
          await probe.checkpointer?.close();
          const lease = ThreadwiseConcurrentTurnError.find(held);
          expect(lease?.reason).toBe("turn-in-progress");
          expect(lease?.leaseExpiresInMs).toBeGreaterThan(0);
          expect(lease?.leaseExpiresInMs).toBeLessThanOrEqual(TURN_LEASE_MS);
          expect(lines(toolLog)).toEqual([killedPid]);
          expect(lines(modelLog)).toHaveLength(probeCalls);
          const modelCallsBefore = lines(modelLog).length;

          const refusalsOf: Reply[] = [];
          if (withId) {
            // The client's retry of the same request: refused, runs nothing.
            const retry = await worker({ ...base, WORKER_STEP: "retry" });
            const reply = retry.lines[0] as Reply;
            expect(reply, retry.stderr).toMatchObject({ ok: false, failure: "duplicate-operation" });
            refusalsOf.push(reply);
            expect(lines(toolLog)).toHaveLength(1);
            expect(lines(modelLog)).toHaveLength(modelCallsBefore);
          }
          // Finishing the killed turn from the stored result.
          const resumed = await worker({ ...base, WORKER_STEP: "resume" });
          const done = resumed.lines[0] as Reply;
          expect(done, resumed.stderr).toMatchObject({ ok: true });
          refusalsOf.push(done);
          expect(lines(toolLog)).toEqual([killedPid]);
          expect(lines(modelLog)).toHaveLength(modelCallsBefore + 1);
          expect(done.messages).toEqual([
            ["human", LANGUAGES[language]],
            ["ai", ""],
            ["tool", `ticket ${killedPid}`],
            ["ai", `done: ticket ${killedPid}`],
          ]);
          if (!withId) {
            // A retry with no id is a new turn: it runs the tool again, and its requests are valid.
            const again = await worker({ ...base, WORKER_STEP: "retry" });
            const reply = again.lines[0] as Reply;
            expect(reply, again.stderr).toMatchObject({ ok: true });
            expect(lines(toolLog)).toHaveLength(2);
            expect(reply.messages?.slice(0, 4)).toEqual(done.messages);
            expect(reply.messages?.slice(4).map(([type]) => type)).toEqual(["human", "ai", "tool", "ai"]);
          }
          console.log(
            `[tool crash] ${tag}: tool runs ${lines(toolLog).length}, model calls ${modelCallsBefore} killed + ${lines(modelLog).length - modelCallsBefore} fresh, refusals ${JSON.stringify(refusalsOf.map((r) => r.refusals))}`,
          );
          // The killed writer's lease held the thread at most turnLeaseMs from its last renewal.
          for (const reply of refusalsOf)
            for (const refusal of reply.refusals ?? [])
              if (refusal.reason === "turn-in-progress") expect(refusal.leaseExpiresInMs).toBeLessThanOrEqual(TURN_LEASE_MS);
        },
        PROCESS_TEST_TIMEOUT_MS,
      );
}

describe("a process killed after a tool's result write: SQLite", () => {
  crashCases("sqlite", () => ({ MEMORY_BACKEND: "sqlite", MEMORY_SQLITE_PATH: join(dir, "crash.sqlite") }));
});

// Two processes each hold a pooled connection: PGlite (one connection at a time) cannot serve that.
describe.skipIf(skipUnlessRealPostgres("PostgreSQL across processes"))("a process killed after a tool's result write: PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twtoolcrash");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => db.drop());
  crashCases("postgres", () => ({
    MEMORY_BACKEND: "postgres",
    POSTGRES_MEMORY_DSN: db.url,
    MEMORY_PG_SCHEMA: db.schema,
    MEMORY_PG_POOL_MAX: String(testPoolMax()),
    MEMORY_ALLOW_PLAINTEXT: "true",
  }));
});
