import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { cliRun } from "./support/cli-run.js";

// newuser63: `threadwise export --sqlite FILE --thread-id X` on a sealed store without a keyring said
// "set THREADWISE_MEMORY_KEYRING to the keyring they were written with", the env variable only,
// while the command takes `--keyring FILE` for it (as its --help says). The CLI now names the flag too.
const dir = mkdtempSync(join(tmpdir(), "nu63-keyring-hint-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("newuser63: a sealed store read by the CLI without a keyring", () => {
  it("export's THREADWISE_KEYRING_REQUIRED names --keyring as well as the env variable", async () => {
    const keyring = join(dir, "keyring.json");
    const sqlitePath = join(dir, "sealed.sqlite");
    expect((await cliRun(["keyring", "create", keyring])).code).toBe(0);
    const stack = memoryStack({ backend: "sqlite", sqlitePath, keyringPath: keyring, env: {} });
    const agent = createAgent({ model: scriptedModel(() => "네."), tools: [], ...stack });
    await agent.invoke({ messages: [new HumanMessage("제 사물함 번호는 17번이에요.")] }, { configurable: { thread_id: "t1" } });
    await stack.checkpointer?.close();
    const run = await cliRun(["export", "--sqlite", sqlitePath, "--thread-id", "t1"], {});
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^threadwise: THREADWISE_KEYRING_REQUIRED: .*THREADWISE_MEMORY_KEYRING/);
    expect(run.stderr).toContain("--keyring FILE");
  });
});

// newuser63: `keyring reencrypt --help` listed what it re-seals as "the checkpoints and, on
// PostgreSQL, every user's user-memory items", leaving out the message archive it has re-sealed
// since session 61, and said "retire the old kid" with no command for it (retiring is
// `retireKey(path, kid)` from code).
describe("newuser63: keyring reencrypt --help", () => {
  it("names the archive among what it re-seals, and how the old kid is retired", async () => {
    const run = await cliRun(["keyring", "reencrypt", "--help"]);
    expect(run.code).toBe(0);
    const help = run.stdout.replace(/\s+/g, " ");
    expect(help).toContain("the message archive (threadwise_archive)");
    expect(help).toContain("retireKey(path, oldKid)");
  });
});
