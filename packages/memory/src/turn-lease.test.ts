import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemorySaver } from "@langchain/langgraph-checkpoint";
import { afterAll, describe, expect, it } from "vitest";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { loadBetterSqlite3 } from "./optional-peers.js";
import { SqliteThreadRegistry } from "./sqlite-thread-registry.js";
import type { CheckpointCommit, ThreadRegistry } from "./thread-registry.js";

const dir = mkdtempSync(join(tmpdir(), "tw-lease-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LEASE_MS = 2000;

function commit(parentId: string | undefined, checkpointId: string, startsRun: boolean, leavesTurnOpen: boolean): CheckpointCommit {
  return { checkpointNs: "", parentId, checkpointId, startsRun, branch: false, leavesTurnOpen, turnLeaseMs: LEASE_MS };
}

/**
 * A writer that dies in the middle of a turn (SIGKILL: no error write, no release) leaves its
 * lease in the store. The lease keeps new turns out only for `turnLeaseMs` after the dead run's
 * last progress; then a new turn takes the thread over. Nothing waits: the refusal is immediate
 * and typed, with the time left.
 */
describe.each([
  [
    "in_memory",
    (now: () => number): { registry: ThreadRegistry; store: (id: string) => void } => {
      const saver = new MemorySaver();
      const registry = new MemoryThreadRegistry(saver, { now });
      // What the registry reads as the thread's head: MemorySaver's storage, thread -> ns -> id.
      const storage = saver.storage as Record<string, Record<string, Record<string, unknown>>>;
      const store = (id: string) => {
        storage.t ??= { "": {} };
        (storage.t[""] as Record<string, unknown>)[id] = {};
      };
      return { registry, store };
    },
  ],
  [
    "sqlite",
    (now: () => number): { registry: ThreadRegistry; store: (id: string) => void } => {
      const Database = loadBetterSqlite3();
      const db = new Database(join(dir, `lease-${Math.random()}.sqlite`));
      const registry = new SqliteThreadRegistry(db, { now });
      const insert = db.prepare(
        "INSERT INTO checkpoints (thread_id, checkpoint_ns, checkpoint_id, type, checkpoint, metadata) VALUES ('t', '', ?, 'json', '{}', '{}')",
      );
      return { registry, store: (id: string) => void insert.run(id) };
    },
  ],
])("turn lease left by a killed writer (%s)", (_kind, open) => {
  it("refuses a new turn with retryAfterMs until the lease ends, then lets it take over", async () => {
    let clock = 1_000_000;
    const { registry, store } = open(() => clock);
    // The dead writer's run: its input checkpoint, stored with tasks left (the model call it never finished).
    await registry.commitCheckpoint("t", commit(undefined, "c1", true, true), async () => store("c1"));

    clock += LEASE_MS - 500;
    const refused = await registry.commitCheckpoint("t", commit("c1", "c2", true, true), async () => store("c2")).catch((e) => e);
    expect(ThreadwiseConcurrentTurnError.isInstance(refused)).toBe(true);
    expect((refused as ThreadwiseConcurrentTurnError).code).toBe("THREADWISE_CONCURRENT_TURN");
    expect((refused as ThreadwiseConcurrentTurnError).reason).toBe("turn-in-progress");
    expect((refused as ThreadwiseConcurrentTurnError).retryAfterMs).toBe(500);

    clock += 500;
    await expect(registry.commitCheckpoint("t", commit("c1", "c2", true, true), async () => store("c2"))).resolves.toBeUndefined();
  });

  it("records the head whatever the ids sort as; forks are stored, stale implicit turns and lost leases are refused; a heartbeat extends the lease", async () => {
    let clock = 1_000_000;
    const { registry, store } = open(() => clock);
    const put = (c: CheckpointCommit) => registry.commitCheckpoint("t", c, async () => store(c.checkpointId));
    const reasonOf = async (c: CheckpointCommit) => ((await put(c).catch((e: unknown) => e)) as ThreadwiseConcurrentTurnError).reason;
    // Ids from a writer whose clock is behind sort before the head: the head is still the last write.
    await put(commit(undefined, "m-1", true, false));
    await put(commit("m-1", "a-2", true, false));
    expect(await registry.head("t")).toEqual({ checkpointId: "a-2", version: 2 });
    // An implicit turn from an older checkpoint lost the race; a branch from it (fork, update, replay) is stored.
    expect(await reasonOf(commit("m-1", "z-3", true, false))).toBe("stale-parent");
    await put({ ...commit("m-1", "b-3", true, false), branch: true });
    expect(await registry.head("t")).toEqual({ checkpointId: "b-3", version: 3 });
    // A run whose step follows a checkpoint that is no longer the head lost its lease to another run.
    await put(commit("b-3", "c-4", true, true));
    expect(await reasonOf(commit("a-2", "c-5", false, true))).toBe("lease-lost");
    // The heartbeat renews only the head's lease; past the original lease the run still holds it.
    clock += LEASE_MS - 100;
    expect(await registry.renewLease("t", "a-2", LEASE_MS)).toBe(false);
    expect(await registry.renewLease("t", "c-4", LEASE_MS)).toBe(true);
    clock += 500;
    expect(await reasonOf(commit("c-4", "d-5", true, true))).toBe("turn-in-progress");
    // An operation id is stored once.
    clock += LEASE_MS;
    await put({ ...commit("c-4", "e-6", true, false), operationId: "op" });
    expect(await reasonOf({ ...commit("e-6", "f-7", true, false), operationId: "op" })).toBe("duplicate-operation");
  });

  it("endTurn ends the lease held at the head only (a run whose next checkpoint failed to store)", async () => {
    const clock = 1_000_000;
    const { registry, store } = open(() => clock);
    const put = (c: CheckpointCommit) => registry.commitCheckpoint("t", c, async () => store(c.checkpointId));
    await put(commit(undefined, "c1", true, true));
    await put(commit("c1", "c2", false, true));
    // Not the head (the run lost the thread, or another checkpoint): the lease stays.
    expect(await registry.endTurn("t", "c1")).toBe(false);
    expect(((await put(commit("c2", "x3", true, true)).catch((e: unknown) => e)) as ThreadwiseConcurrentTurnError).reason).toBe(
      "turn-in-progress",
    );
    expect(await registry.endTurn("t", "c2")).toBe(true);
    // No lease left: nothing to end, and a new turn starts at once.
    expect(await registry.endTurn("t", "c2")).toBe(false);
    await expect(put(commit("c2", "d3", true, true))).resolves.toBeUndefined();
  });
});
