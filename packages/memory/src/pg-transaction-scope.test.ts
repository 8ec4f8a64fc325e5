import type pg from "pg";
import { describe, expect, it } from "vitest";
import { PgTransactionScope } from "./pg-transaction-scope.js";

/** A pool whose one client records the statements it is sent. */
function recordingPool() {
  const sent: string[] = [];
  const client = {
    query: async (text: string) => {
      sent.push(text);
      return { command: text.split(" ")[0], rows: [], rowCount: 0 };
    },
    release: () => sent.push("<release>"),
  };
  const pool = {
    connect: async () => client,
    query: async (text: string) => {
      sent.push(`pool: ${text}`);
      return { rows: [] };
    },
  };
  return { sent, client: client as unknown as pg.PoolClient, pool: pool as unknown as pg.Pool };
}

/** What PostgresSaver's put does on its pool: connect, BEGIN, statements, COMMIT (ROLLBACK and re-throw on an error), release. */
async function saverPut(pool: pg.Pool, statements: string[], fail?: Error, swallow = false) {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    for (const statement of statements) await client.query(statement);
    if (fail) throw fail;
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK");
    if (!swallow) throw error;
  } finally {
    client.release();
  }
}

describe("PgTransactionScope: the wrapped saver's statements inside the registry's transaction", () => {
  it("sends the saver's statements on the held client, and not its BEGIN, COMMIT or release", async () => {
    const { sent, client, pool } = recordingPool();
    const scope = new PgTransactionScope();
    await scope.run(client, () => saverPut(scope.pool(pool), ["INSERT blob", "INSERT checkpoint"]));
    expect(sent).toEqual(["INSERT blob", "INSERT checkpoint"]);
    // Outside a run: the real pool, its statements as they are.
    await saverPut(scope.pool(pool), ["INSERT x"]);
    expect(sent.slice(2)).toEqual(["BEGIN", "INSERT x", "COMMIT", "<release>"]);
  });

  it("a saver that fails re-throws its error; its ROLLBACK is left to the registry", async () => {
    const { sent, client, pool } = recordingPool();
    const scope = new PgTransactionScope();
    const error = new Error("unique violation");
    await expect(scope.run(client, () => saverPut(scope.pool(pool), ["INSERT blob"], error))).rejects.toBe(error);
    expect(sent).toEqual(["INSERT blob"]);
  });

  it("a saver that rolls back and returns normally makes run reject (nothing may be committed)", async () => {
    const { client, pool } = recordingPool();
    const scope = new PgTransactionScope();
    await expect(scope.run(client, () => saverPut(scope.pool(pool), ["INSERT blob"], new Error("x"), true))).rejects.toThrow(
      /rolled back inside the registry's transaction/,
    );
  });
});
