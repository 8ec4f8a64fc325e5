/**
 * The memory README shows what `threadwise migrate` prints on an empty schema and on a current
 * one (issue 24: it printed more steps than the README described). The CLI runs against an
 * embedded PGlite of its own (migrate holds its advisory lock on one connection while
 * PostgresSaver.setup() uses another, which the suites' shared one-connection PGlite refuses).
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { runCli } from "@threadwise/memory";
import { afterAll, describe, expect, it } from "vitest";
import { readmeBlock } from "../scripts/readme-block.js";

const readme = readFileSync(resolve(import.meta.dirname, "../packages/memory/README.md"), "utf8");
let stop: (() => Promise<void>) | undefined;
afterAll(async () => stop?.());

async function embeddedPostgres(): Promise<string> {
  const { PGlite } = await import("@electric-sql/pglite");
  const { PGLiteSocketServer } = await import("@electric-sql/pglite-socket");
  const db = await PGlite.create();
  const server = new PGLiteSocketServer({ db, port: 0, host: "127.0.0.1", maxConnections: 4 });
  await server.start();
  stop = async () => {
    await server.stop();
    await db.close();
  };
  return `postgresql://postgres:postgres@${server.getServerConn()}/postgres?sslmode=disable`;
}

async function migrate(url: string, schema: string): Promise<string> {
  let out = "";
  const code = await runCli(["migrate", "--dsn", url, "--schema", schema], {
    env: {},
    stdout: (text) => (out += text),
    stderr: (text) => console.error(text),
  });
  expect(code).toBe(0);
  return out.trim();
}

describe("threadwise migrate prints what the memory README shows", () => {
  it("on an empty schema, then on a current one", async () => {
    const url = await embeddedPostgres();
    expect(await migrate(url, "memory")).toBe(readmeBlock("migrate-output:", readme).trim());
    const current = await migrate(url, "memory");
    expect(readme).toContain(`\`${current}\``);
    expect(current).toMatch(/^schema already current; /);
  });
});
