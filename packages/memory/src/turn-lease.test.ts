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
});
