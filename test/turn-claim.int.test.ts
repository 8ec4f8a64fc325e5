/**
 * `ThreadRegistry.claimTurn` on every backend (spec R38): the turn lease a run resumed at the head
 * takes before its first model or tool call (LangGraph stores such a run's first checkpoint only
 * after that call). Taken only at the head and only while no lease is live; a live one refuses it
 * `turn-in-progress`, and the lease it takes refuses a new turn the same way.
 */
import { uuid6 } from "@langchain/langgraph-checkpoint";
import { ThreadwiseConcurrentTurnError } from "@threadwise/memory";
import { describe, expect, it } from "vitest";
import { threadwiseSavers } from "./support/threadwise-savers.js";

const backends = threadwiseSavers("twclaim");

const LEASE_MS = 60_000;
const reasonOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => "admitted",
    (error) => ThreadwiseConcurrentTurnError.find(error)?.reason ?? String(error),
  );

describe.each(backends)("claimTurn (%s)", (_name, open) => {
  it("takes the lease only at the head and only while none is live; the lease refuses a new turn", async () => {
    const saver = open();
    const registry = saver.registry;
    const threadId = `t-${uuid6(-1)}`;
    try {
      // A finished turn: head `c1`, no lease.
      const commit = (checkpointId: string, parentId: string | undefined) => ({
        checkpointNs: "",
        parentId,
        checkpointId,
        startsRun: true,
        branch: false,
        leavesTurnOpen: false,
        turnLeaseMs: LEASE_MS,
      });
      await registry.commitCheckpoint(threadId, commit("c1", undefined), async () => undefined);
      // Not the head (a branch): nothing taken.
      expect(await registry.claimTurn(threadId, "c0", LEASE_MS)).toBe(false);
      expect(await reasonOf(registry.commitCheckpoint(threadId, commit("c2", "c1"), async () => undefined))).toBe("admitted");
      // At the head (now c2), no lease: taken.
      expect(await registry.claimTurn(threadId, "c2", LEASE_MS)).toBe(true);
      // A second claim and a new turn are refused while it is live.
      expect(await reasonOf(registry.claimTurn(threadId, "c2", LEASE_MS))).toBe("turn-in-progress");
      expect(await reasonOf(registry.commitCheckpoint(threadId, commit("c3", "c2"), async () => undefined))).toBe("turn-in-progress");
      // The claiming run's next checkpoint (a step of its run, not a start) commits on top.
      expect(await reasonOf(registry.commitCheckpoint(threadId, { ...commit("c3", "c2"), startsRun: false }, async () => undefined))).toBe(
        "admitted",
      );
      expect((await registry.head(threadId))?.checkpointId).toBe("c3");
      // That checkpoint left no turn open: the thread takes a new turn.
      expect(await reasonOf(registry.commitCheckpoint(threadId, commit("c4", "c3"), async () => undefined))).toBe("admitted");
      // A lease taken and ended (a refused or failed run): free again.
      expect(await registry.claimTurn(threadId, "c4", LEASE_MS)).toBe(true);
      expect(await registry.endTurn(threadId, "c4")).toBe(true);
      expect(await registry.claimTurn(threadId, "c4", LEASE_MS)).toBe(true);
    } finally {
      await saver.close();
    }
  });
});
