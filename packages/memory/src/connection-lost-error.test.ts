import { MemorySaver } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { connectionLostDuring, connectionLostReason, ThreadwiseConnectionLostError } from "./connection-lost-error.js";
import { MemoryThreadRegistry } from "./memory-thread-registry.js";
import { ThreadwiseSaver } from "./threadwise-saver.js";

describe("connectionLostReason", () => {
  it("names a reset, a shutdown, a socket closed without a code, and the pool's timeout; nothing else", () => {
    expect(connectionLostReason(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }))).toBe("ECONNRESET");
    expect(connectionLostReason(Object.assign(new Error("terminating connection"), { code: "57P01" }))).toBe("57P01");
    expect(connectionLostReason(new Error("Connection terminated unexpectedly"))).toBe("connection-terminated");
    // pg-pool's error when no connection was free or opened within connectionTimeoutMillis (no code).
    expect(connectionLostReason(new Error("timeout exceeded when trying to connect"))).toBe("connect-timeout");
    expect(connectionLostReason(Object.assign(new Error('relation "x" does not exist'), { code: "42P01" }))).toBeUndefined();
    expect(connectionLostReason(new Error("the model timed out: timeout exceeded when trying to connect to the API"))).toBeUndefined();
  });
});

describe("connectionLostDuring", () => {
  it("types a lost connection as retryable, naming the operation and what to do; leaves other errors as they are", () => {
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    const lost = connectionLostDuring("put", reset) as ThreadwiseConnectionLostError;
    expect(ThreadwiseConnectionLostError.isInstance(lost)).toBe(true);
    expect({ operation: lost.operation, reason: lost.reason, attempts: lost.attempts, retryable: lost.retryable }).toEqual({
      operation: "put",
      reason: "ECONNRESET",
      attempts: 1,
      retryable: true,
    });
    expect(lost.cause).toBe(reset);
    expect(lost.message).toBe(
      "put: the connection to PostgreSQL was lost (ECONNRESET); what the thread stored is kept: once PostgreSQL answers, read the thread (getState); when it holds the turn's user message, resume the run with invoke(null, config), else send the turn again",
    );
    const timeout = connectionLostDuring("getTuple", new Error("timeout exceeded when trying to connect")) as ThreadwiseConnectionLostError;
    expect(timeout.message).toMatch(
      /^getTuple: no connection to PostgreSQL was free or could be opened within the pool's connectionTimeoutMillis; /,
    );
    // Already typed, or not a connection: as it was.
    expect(connectionLostDuring("turnCall", lost)).toBe(lost);
    const config = new ThreadwiseConfigError("x", "bad");
    expect(connectionLostDuring("put", config)).toBe(config);
    const sql = Object.assign(new Error("duplicate key"), { code: "23505" });
    expect(connectionLostDuring("put", sql)).toBe(sql);
  });
});

describe("ThreadwiseSaver's archive reads on a lost connection", () => {
  it("reject with the typed error naming the read, as every other operation does", async () => {
    const inner = new MemorySaver();
    const registry = new MemoryThreadRegistry(inner);
    const reset = () => Promise.reject(Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" }));
    registry.readArchive = reset;
    registry.readArchiveTail = reset;
    registry.archivedAmong = reset;
    registry.archiveMark = reset;
    const saver = new ThreadwiseSaver(inner, registry, { turnLeaseMs: 0 });
    const reads: Array<[string, () => Promise<unknown>]> = [
      ["archivedMessages", () => saver.archivedMessages("t1")],
      ["archivedMessages", () => saver.archivedMessages("t1", { last: 2 })],
      ["archivedAmong", () => saver.archivedAmong("t1", ["m1"])],
      ["archivedChanges", () => saver.archivedChanges("t1")],
      ["archiveClearedDigests", () => saver.archiveClearedDigests("t1")],
    ];
    for (const [operation, read] of reads) {
      const error = await read().then(
        () => undefined,
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(ThreadwiseConnectionLostError);
      expect((error as ThreadwiseConnectionLostError).operation).toBe(operation);
    }
  });
});
