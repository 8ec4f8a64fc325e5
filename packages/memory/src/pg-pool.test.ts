import { ThreadwiseConfigError } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { createMemoryPool } from "./pg-pool.js";

// Port 1 on loopback: nothing listens, so nothing here ever connects.
const DSN = "postgresql://app:secret@127.0.0.1:1/app_memory";

describe("createMemoryPool (R22)", () => {
  it("defaults to at most 5 connections, minimum 0, idle connections closed after 10 s, a wait for a connection of up to 30 s", async () => {
    const pool = createMemoryPool(DSN);
    // 30 s (was 10 s, which a burst of turns outwaited under load: the slow fuzz, seed 534 case 8).
    expect(pool.options).toMatchObject({
      max: 5,
      min: 0,
      idleTimeoutMillis: 10_000,
      connectionTimeoutMillis: 30_000,
      allowExitOnIdle: true,
    });
    expect(createMemoryPool(DSN, { connectionTimeoutMillis: 500 }).options.connectionTimeoutMillis).toBe(500);
    expect(createMemoryPool(DSN, { mode: "session" }).options.idleTimeoutMillis).toBe(5_000);
    expect(createMemoryPool(DSN, { max: 2 }).options.max).toBe(2);
    await pool.end();
  });

  it("transaction mode refuses a named prepared statement before connecting", async () => {
    const pool = createMemoryPool(DSN, { mode: "transaction", connectionTimeoutMillis: 500 });
    let error: unknown;
    try {
      await pool.query({ name: "reused", text: "SELECT 1" });
    } catch (e) {
      error = e;
    }
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toContain("named prepared statements");
    expect(pool.totalCount).toBe(0);
    // Direct mode lets pg handle it: the failure is the connection, not the name.
    const direct = createMemoryPool(DSN, { connectionTimeoutMillis: 500 });
    const connectError = await direct.query({ name: "reused", text: "SELECT 1" }).catch((e: unknown) => e);
    expect(ThreadwiseConfigError.isInstance(connectError)).toBe(false);
    expect(String((connectError as Error).message)).not.toContain("secret");
    await Promise.all([pool.end(), direct.end()]);
  });
});
