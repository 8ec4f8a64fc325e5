/**
 * LangGraph's checkpoint-validation suite (`@langchain/langgraph-checkpoint-validation`, the
 * contract LangGraph's own savers are held to) against `ThreadwiseSaver` as `createCheckpointer`
 * makes it ({@link validateThreadwiseSaver}).
 *
 * Every check passes but the deviations the saver makes by design ({@link DEVIATIONS}). Those
 * run too, and each must fail with the saver's typed error: a check that starts passing, or fails
 * another way, fails, and so does a deviation the suite no longer runs (renamed upstream).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uuid6 } from "@langchain/langgraph-checkpoint";
import { ThreadwiseThreadIdError } from "@threadwise/core";
import {
  createCheckpointer,
  type MemoryConfigInput,
  resolveMemoryConfig,
  ThreadwiseConcurrentTurnError,
  type ThreadwiseSaver,
} from "@threadwise/memory";
import pg from "pg";
import * as vitest from "vitest";
import { type Backend, backendStorage } from "./threadwise-savers.js";

/** A check of the suite the saver fails by design: which (by its full name), why, and the error it must fail with. */
interface Deviation {
  /** Matches the check's full name (`describe` path and name, joined by " > "). */
  name: RegExp;
  why: string;
  expected: (error: unknown) => boolean;
}

const DEVIATIONS: readonly Deviation[] = [
  {
    // LangGraph's savers look the undefined thread up and find nothing; LangGraph itself never
    // asks without one (a run or getState on a checkpointer requires configurable.thread_id).
    name: /#getTuple > namespace: (root|child) > failure cases > should return undefined if the thread_id is undefined$/,
    why: "every thread id goes through normalizeThreadId: a missing one is refused by name, not read as no thread",
    expected: (error) => error instanceof ThreadwiseThreadIdError,
  },
  {
    // The check stores a checkpoint, then one whose parent is the first's parent (a sibling).
    name: /#put > should only store channel_values that have changed \(based on newVersions\)$/,
    why: "a step's checkpoint commits only on top of the thread's head (compare-and-set, spec R38)",
    expected: (error) => ThreadwiseConcurrentTurnError.find(error)?.reason === "stale-parent",
  },
  {
    // The check stores a parent with pending sends, then a child of the thread's first checkpoint.
    name: /#getTuple > namespace: child > should migrate pending sends$/,
    why: "a step's checkpoint whose parent is no longer the head is refused (the turn lease, spec R38)",
    expected: (error) => {
      const reason = ThreadwiseConcurrentTurnError.find(error)?.reason;
      return reason === "lease-lost" || reason === "stale-parent";
    },
  },
];

/** Full names of the deviations met, per backend (each must be met exactly once per namespace it names). */
const met = new Map<string, string[]>();
let backendNow: Backend | undefined;

/** `it` / `test` for the suite: a deviation runs and must fail with its error; any other check as it is. */
function checking(base: typeof vitest.it): typeof vitest.it {
  const wrap = (name: string, fn?: (...args: unknown[]) => unknown, timeout?: number) =>
    base(
      name,
      fn &&
        (async (...args: unknown[]) => {
          const full = vitest.expect.getState().currentTestName ?? name;
          const deviation = DEVIATIONS.find((d) => d.name.test(full));
          if (!deviation) return fn(...args);
          met.set(String(backendNow), [...(met.get(String(backendNow)) ?? []), full]);
          let failure: unknown;
          try {
            await fn(...args);
          } catch (error) {
            failure = error;
          }
          vitest.expect(failure, `${full}: expected to fail by design (${deviation.why})`).toBeDefined();
          if (!deviation.expected(failure)) throw failure;
        }),
      timeout,
    );
  return new Proxy(base, { apply: (_target, _this, args: Parameters<typeof wrap>) => wrap(...args) });
}

/**
 * Runs the validation suite on `backends`, each in its own `describe`. Call it once, at the top
 * level of a test file: it installs the jest-style globals the suite calls (this project runs
 * vitest without globals) and the storage of `backendStorage`.
 */
export async function validateThreadwiseSaver(backends: readonly Backend[]): Promise<void> {
  Object.assign(globalThis, {
    describe: vitest.describe,
    it: checking(vitest.it),
    test: checking(vitest.test),
    expect: vitest.expect,
    beforeAll: vitest.beforeAll,
    afterAll: vitest.afterAll,
    beforeEach: vitest.beforeEach,
    afterEach: vitest.afterEach,
  });
  const { validate } = await import("@langchain/langgraph-checkpoint-validation");
  // PostgreSQL through `backendStorage` only when asked for (it makes and migrates a database).
  const postgres = backends.includes("postgres") ? backendStorage("twval") : undefined;
  const dir = mkdtempSync(join(tmpdir(), "tw-twval-"));
  vitest.afterAll(() => rmSync(dir, { recursive: true, force: true }));
  /** PostgreSQL: the one schema, migrated once and emptied as each checkpointer is destroyed (the suite lists every thread of a checkpointer). */
  let pool: pg.Pool | undefined;

  const configOf = (backend: Backend): MemoryConfigInput => {
    if (backend === "in_memory") return { backend };
    if (backend === "sqlite") return { backend, sqlitePath: join(dir, `${uuid6(-1)}.db`) };
    if (!postgres) throw new Error("validateThreadwiseSaver: postgres was not in its backends");
    return postgres(backend);
  };

  async function open(backend: Backend): Promise<ThreadwiseSaver> {
    const config = configOf(backend);
    if (backend === "postgres") pool ??= new pg.Pool({ connectionString: config.postgresDsn, max: 1 });
    return createCheckpointer(resolveMemoryConfig(config, {})) as ThreadwiseSaver;
  }

  async function destroy(backend: Backend, saver: ThreadwiseSaver): Promise<void> {
    await saver.close();
    if (backend !== "postgres" || !pool) return;
    const schema = configOf(backend).postgresSchema ?? "public";
    const { rows } = await pool.query<{ name: string }>(
      "SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) AS name FROM pg_tables WHERE schemaname = $1 AND tablename NOT IN ('threadwise_schema_version', 'checkpoint_migrations')",
      [schema],
    );
    await pool.query(`TRUNCATE ${rows.map((row) => row.name).join(", ")}`);
  }

  vitest.afterAll(async () => {
    await pool?.end();
  });

  for (const backend of backends)
    vitest.describe(`ThreadwiseSaver (${backend})`, () => {
      vitest.beforeAll(() => {
        backendNow = backend;
      });
      validate({
        checkpointerName: `threadwise-${backend}`,
        createCheckpointer: () => open(backend),
        destroyCheckpointer: (saver: ThreadwiseSaver) => destroy(backend, saver),
      });
      vitest.it("met each deviation by design, and no other", () => {
        const names = met.get(backend) ?? [];
        // The thread-id deviation is met in both namespaces, the others once.
        vitest.expect(names).toHaveLength(4);
        for (const deviation of DEVIATIONS) {
          const seen = names.some((name) => deviation.name.test(name));
          vitest.expect(seen, deviation.why).toBe(true);
        }
      });
    });
}
