/**
 * `threadwise migrate --sqlite FILE` (newuser35): every other command of the CLI takes `--sqlite`,
 * so a SQLite user tries it on `migrate` too. It is refused with a typed error naming `--sqlite`
 * that says a SQLite file needs no migrate (the stack upgrades it when it opens it), the file left
 * as it was. Was: commander's "error: unknown option '--sqlite'", which said neither. `--help`
 * says it too.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { CLI_USAGE_EXIT_CODE, memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, expect, it } from "vitest";
import { cliRun } from "./support/cli-run.js";

const dir = mkdtempSync(join(tmpdir(), "tw-nu35-migrate-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const cli = cliRun;

it("migrate --sqlite says a SQLite file needs none, and changes nothing", async () => {
  const sqlitePath = join(dir, "memory.sqlite");
  const stack = memoryStack({ backend: "sqlite", sqlitePath, archive: true, env: {}, logger: false });
  const agent = createAgent({ model: scriptedModel(() => "네"), ...stack });
  await agent.invoke({ messages: [new HumanMessage("안녕하세요")] }, { configurable: { thread_id: "t" } });
  await stack.checkpointer?.close();
  const before = readFileSync(sqlitePath);
  const { code, stderr } = await cli(["migrate", "--sqlite", sqlitePath]);
  expect(code).toBe(CLI_USAGE_EXIT_CODE);
  expect(stderr).toContain("THREADWISE_INVALID_OPTION");
  expect(stderr).toContain("--sqlite: migrate is for PostgreSQL only; a SQLite file needs none");
  expect(readFileSync(sqlitePath).equals(before)).toBe(true);
});

it("migrate --help says a SQLite file needs no migrate", async () => {
  const { stdout } = await cli(["migrate", "--help"]);
  expect(stdout.replace(/\s+/g, " ")).toContain("A SQLite file needs no migrate");
});
