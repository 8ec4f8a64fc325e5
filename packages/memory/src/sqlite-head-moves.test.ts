import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { loadBetterSqlite3 } from "./optional-peers.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import type { CheckpointCommit, ThreadRegistry } from "./thread-registry.js";

const dir = mkdtempSync(join(tmpdir(), "tw-head-moves-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LEASE_MS = 1000;

/** One call on a thread's registry: a checkpoint (a step's or a run's start, on the head, an older one or none), the clock, a lease call. */
type Op =
  | {
      kind: "put";
      startsRun: boolean;
      branch: boolean;
      parent: "head" | "older" | "none";
      open: boolean;
      tenant: boolean;
      operation?: string;
    }
  | { kind: "failing-put"; startsRun: boolean; open: boolean }
  | { kind: "advance"; ms: number }
  | { kind: "renew" | "end" | "claim" };

const ops = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant("put" as const),
        startsRun: fc.boolean(),
        branch: fc.boolean(),
        parent: fc.constantFrom("head" as const, "head" as const, "older" as const, "none" as const),
        open: fc.boolean(),
        tenant: fc.boolean(),
        operation: fc.option(fc.constantFrom("op-1", "작업-2"), { nil: undefined, freq: 4 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("failing-put" as const), startsRun: fc.boolean(), open: fc.boolean() }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("advance" as const), ms: fc.integer({ min: 0, max: 2 * LEASE_MS }) }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constantFrom("renew" as const, "end" as const, "claim" as const) }) },
  ),
  { maxLength: 30 },
);

/** A registry on a fresh store, the clock it reads, and how a checkpoint is stored in the saver's own table. */
function openRegistry(kind: "in_memory" | "sqlite", now: () => number): { registry: ThreadRegistry; store: (id: string) => void } {
  if (kind === "in_memory") {
    const saver = new MemorySaver();
    const storage = saver.storage as Record<string, Record<string, Record<string, unknown>>>;
    return {
      registry: new MemoryThreadRegistry(saver, { now }),
      store: (id) => {
        storage.t ??= { "": {} };
        (storage.t[""] as Record<string, unknown>)[id] = {};
      },
    };
  }
  const db = new (loadBetterSqlite3())(join(dir, `moves-${Math.random()}.sqlite`));
  const registry = new SqliteThreadRegistry(db, { now });
  const insert = db.prepare(
    "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) VALUES ('t', '', ?, 'json', '{}', '{}')",
  );
  return { registry, store: (id) => void insert.run(id) };
}

/** What each call returned or refused (reason and times), and the head after it. */
async function run(kind: "in_memory" | "sqlite", sequence: readonly Op[]): Promise<unknown[]> {
  let clock = 5_000_000;
  const { registry, store } = openRegistry(kind, () => clock);
  const stored: string[] = [];
  const outcome = (error: unknown) =>
    ThreadwiseConcurrentTurnError.isInstance(error)
      ? { reason: error.reason, leaseExpiresInMs: error.leaseExpiresInMs, retryAfterMs: error.retryAfterMs, headId: error.headId }
      : { error: String(error) };
  const seen: unknown[] = [];
  for (const [i, op] of sequence.entries()) {
    const head = (await registry.head("t"))?.checkpointId;
    if (op.kind === "advance") clock += op.ms;
    else if (op.kind === "put" || op.kind === "failing-put") {
      const parent =
        op.kind === "failing-put" || op.parent === "head"
          ? head
          : op.parent === "older"
            ? (stored.find((id) => id !== head) ?? head)
            : undefined;
      const commit: CheckpointCommit = {
        checkpointNs: "",
        parentId: parent,
        checkpointId: `c${i}`,
        startsRun: op.startsRun,
        branch: op.kind === "put" && op.branch,
        leavesTurnOpen: op.open,
        turnLeaseMs: LEASE_MS,
        ...(op.kind === "put" && op.tenant
          ? { archiveTenantId: "acme", archiveLookupIds: op.startsRun ? ["m1", "메시지"] : undefined }
          : {}),
        ...(op.kind === "put" && op.operation !== undefined ? { operationId: op.operation } : {}),
      };
      const result = await registry
        .commitCheckpoint("t", commit, async () => {
          if (op.kind === "failing-put") throw new Error("write failed 저장 실패");
          store(commit.checkpointId);
          return "stored";
        })
        .catch(outcome);
      if (result === "stored") stored.push(commit.checkpointId);
      seen.push(result);
    } else if (head !== undefined) {
      const call =
        op.kind === "renew"
          ? registry.renewLease("t", head, LEASE_MS)
          : op.kind === "end"
            ? registry.endTurn("t", head)
            : registry.claimTurn("t", head, LEASE_MS);
      seen.push(await call.catch(outcome));
    }
    seen.push(await registry.head("t"));
  }
  seen.push((await registry.tenantThreads("acme", 10)).map((thread) => thread.threadId));
  return seen;
}

describe("a checkpoint's head move on SQLite (issue 27: moved by the statement taking the lock)", () => {
  it("stores, refuses and leases as the in-memory registry does, over random sequences of puts, failed writes, clocks and lease calls", async () => {
    await fc.assert(
      fc.asyncProperty(ops, async (sequence) => {
        expect(await run("sqlite", sequence)).toEqual(await run("in_memory", sequence));
      }),
      { seed: 536, numRuns: 100 },
    );
  });

  it("a step on the head takes its lease from the step's clock, and a run start on a live lease is refused with the time left", async () => {
    const sequence: Op[] = [
      { kind: "put", startsRun: true, branch: false, parent: "none", open: true, tenant: true },
      { kind: "advance", ms: 300 },
      { kind: "put", startsRun: false, branch: false, parent: "head", open: true, tenant: true },
      { kind: "advance", ms: 400 },
      { kind: "put", startsRun: true, branch: false, parent: "head", open: true, tenant: true },
      { kind: "advance", ms: 700 },
      { kind: "put", startsRun: true, branch: false, parent: "head", open: false, tenant: true },
    ];
    const seen = await run("sqlite", sequence);
    expect(seen.filter((entry) => typeof entry === "string" || (entry as { reason?: string }).reason !== undefined)).toEqual([
      "stored",
      "stored",
      // The lease the step renewed at +300 runs to +1300: 600 ms left at +700, the run going on for 700.
      { reason: "turn-in-progress", leaseExpiresInMs: 600, retryAfterMs: 600, headId: "c2" },
      "stored",
    ]);
    expect(seen).toEqual(await run("in_memory", sequence));
  });

  it("a step on the head after its turn's lease lapsed starts the lease anew (the time a run start is told to wait counts from it)", async () => {
    const sequence: Op[] = [
      { kind: "put", startsRun: true, branch: false, parent: "none", open: true, tenant: false },
      { kind: "advance", ms: 1500 },
      // Nobody took the thread over: the step is stored on the head, its lease starting now.
      { kind: "put", startsRun: false, branch: false, parent: "head", open: true, tenant: false },
      { kind: "advance", ms: 200 },
      { kind: "put", startsRun: true, branch: false, parent: "head", open: true, tenant: false },
    ];
    const seen = await run("sqlite", sequence);
    // 800 ms left; the run has gone on for 200 ms since the lapse (1,700 counted from its first start).
    expect(seen.filter((entry) => typeof entry === "string" || (entry as { reason?: string }).reason !== undefined)).toEqual([
      "stored",
      "stored",
      { reason: "turn-in-progress", leaseExpiresInMs: 800, retryAfterMs: 200, headId: "c2" },
    ]);
    expect(seen).toEqual(await run("in_memory", sequence));
  });
});
