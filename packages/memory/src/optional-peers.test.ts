import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { BACKEND_PEERS, loadPeer, ThreadwiseMissingPeerError } from "./optional-peers.js";

const root = resolve(import.meta.dirname, "../../..");

function missing(name: string): never {
  const error = new Error(`Cannot find module '${name}'\nRequire stack:\n- /app/node_modules/@threadwise/memory/dist/index.mjs`);
  (error as Error & { code: string }).code = "MODULE_NOT_FOUND";
  throw error;
}

describe("optional peers (issue 14)", () => {
  it("a missing peer throws ThreadwiseMissingPeerError naming the package and what to install", () => {
    let error: unknown;
    try {
      loadPeer("pg", "postgres", missing);
    } catch (caught) {
      error = caught;
    }
    expect(ThreadwiseMissingPeerError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: "THREADWISE_MISSING_PEER", packageName: "pg", backend: "postgres" });
    expect((error as Error).message).toContain("npm install pg @langchain/langgraph-checkpoint-postgres");
  });

  it("a peer that is there but misses one of its own modules is not reported as the peer missing", () => {
    const inner = () => missing("bindings");
    expect(() => loadPeer("better-sqlite3", "sqlite", inner)).toThrow("Cannot find module 'bindings'");
    expect(() => loadPeer("better-sqlite3", "sqlite", inner)).not.toThrow(ThreadwiseMissingPeerError);
  });

  it("loads an installed peer", () => {
    expect(typeof loadPeer<{ SqliteSaver: unknown }>("@langchain/langgraph-checkpoint-sqlite", "sqlite").SqliteSaver).toBe("function");
    expect(BACKEND_PEERS).toEqual({
      sqlite: ["better-sqlite3", "@langchain/langgraph-checkpoint-sqlite"],
      postgres: ["pg", "@langchain/langgraph-checkpoint-postgres"],
    });
  });

  it("without the peers installed, in_memory runs a turn and loads none of them; sqlite and postgres name what is missing", () => {
    const output = execFileSync(
      process.execPath,
      ["--import", "./test/fixtures/block-memory-peers.mjs", "--import", "tsx", "test/fixtures/memory-without-peers.mts"],
      { cwd: root, encoding: "utf8", env: { ...process.env, THREADWISE_LOG: "silent" } },
    );
    const result = JSON.parse(output.trim().split("\n").at(-1) as string);
    expect(result.inMemory).toEqual(["hi", "hello"]);
    expect(result.attemptsAfterInMemory).toEqual([]);
    expect(result.sqlite).toMatchObject({ code: "THREADWISE_MISSING_PEER", packageName: "better-sqlite3" });
    expect(result.sqlite.message).toContain("npm install better-sqlite3 @langchain/langgraph-checkpoint-sqlite");
    expect(result.postgres).toMatchObject({ code: "THREADWISE_MISSING_PEER", packageName: "@langchain/langgraph-checkpoint-postgres" });
  });
});
