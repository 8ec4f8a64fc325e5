/**
 * eraseUser on sealed user memory without its keyring (found running `threadwise erase-user
 * --threads` from a shell without THREADWISE_MEMORY_KEYRING): the dry run said "0 known
 * thread(s)" with no reason, and `--apply` erased the items, the only record of the user's
 * threads, while the threads stayed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring } from "@threadwise/encryption";
import { createAgent } from "langchain";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "./cli.js";
import { eraseUser, userMemoryRetention } from "./erase-user.js";
import { memoryStack } from "./memory-stack.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function sealedUser(agentId?: string) {
  const dir = mkdtempSync(join(tmpdir(), "tw-erase-user-"));
  dirs.push(dir);
  const keyringPath = join(dir, "keyring.json");
  createKeyring(keyringPath);
  const sqlitePath = join(dir, "memory.sqlite");
  const stack = memoryStack({
    backend: "sqlite",
    sqlitePath,
    keyringPath,
    userMemory: true,
    env: {},
    ...(agentId ? { encryption: { agentId } } : {}),
  });
  const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
  for (const thread of ["j-1", "j-2"])
    await agent.invoke(
      { messages: [{ role: "user", content: "I live in Seoul." }] },
      { configurable: { thread_id: thread, user_id: "jonas" } },
    );
  return { stack, sqlitePath, keyringPath };
}

describe("eraseUser with sealed items", () => {
  it("counts unreadable items in a dry run, and refuses --threads --apply without the keyring, erasing nothing", async () => {
    const { stack, sqlitePath, keyringPath } = await sealedUser();
    const store = stack.store;
    const dry = await eraseUser({ sqlitePath, store, userId: "jonas", threads: true });
    expect(dry.items).toBeGreaterThan(0);
    expect(dry.unreadableItems).toBe(dry.items);
    expect(dry.threadIds).toEqual([]);

    const refused = await eraseUser({ sqlitePath, store, userId: "jonas", threads: true, apply: true }).catch((e) => e);
    expect(ThreadwiseConfigError.isInstance(refused)).toBe(true);
    expect((refused as ThreadwiseConfigError).option).toBe("eraseUser.keyring");
    expect((await eraseUser({ sqlitePath, store, userId: "jonas" })).items).toBe(dry.items);

    const done = await eraseUser({ sqlitePath, store, userId: "jonas", threads: true, keyring: keyringPath, apply: true });
    expect(done.unreadableItems).toBe(0);
    expect(done.threadIds).toEqual(["j-1", "j-2"]);
    expect(done.threads.map((t) => t.status)).toEqual(["deleted", "deleted"]);
    expect((await eraseUser({ sqlitePath, store, userId: "jonas" })).items).toBe(0);
    await stack.checkpointer?.close();
  });
});

describe("eraseUser with items sealed for another agent id", () => {
  // Items sealed by a stack with `encryption.agentId` were read as agent "default": every one
  // counted unreadable, so `--threads --apply` was refused with the right keyring.
  it("reads them with agentId, and counts them unreadable without it", async () => {
    const { stack, sqlitePath, keyringPath } = await sealedUser("support-bot");
    const store = stack.store;
    const wrong = await eraseUser({ sqlitePath, store, userId: "jonas", threads: true, keyring: keyringPath });
    expect(wrong.unreadableItems).toBe(wrong.items);
    const right = await eraseUser({ sqlitePath, store, userId: "jonas", threads: true, keyring: keyringPath, agentId: "support-bot" });
    expect(right.unreadableItems).toBe(0);
    expect(right.threadIds).toEqual(["j-1", "j-2"]);
    const empty = await eraseUser({ sqlitePath, store, userId: "jonas", keyring: keyringPath, agentId: " " }).catch((e) => e);
    expect((empty as ThreadwiseConfigError).option).toBe("eraseUser.agentId");
    await stack.checkpointer?.close();
  });
});

describe("no store to open", () => {
  // `threadwise user-memory-retention --days 3` without --dsn said "eraseUser.store".
  it("names the function asked: userMemoryRetention.store, eraseUser.store", async () => {
    const retention = await userMemoryRetention({ days: 3 }).catch((e) => e);
    expect((retention as ThreadwiseConfigError).option).toBe("userMemoryRetention.store");
    expect((retention as Error).message).toContain("POSTGRES_MEMORY_DSN");
    const erase = await eraseUser({ userId: "u1" }).catch((e) => e);
    expect((erase as ThreadwiseConfigError).option).toBe("eraseUser.store");
  });

  it("names userMemoryRetention.now and .tenantId before any store is opened (review60)", async () => {
    // A DSN nothing listens on: a pool opened on it would fail with a connection error instead.
    const dsn = "postgresql://nobody@127.0.0.1:1/none";
    const clock = await userMemoryRetention({ days: 3, dsn, now: () => new Date(Number.NaN) }).catch((e) => e);
    expect((clock as ThreadwiseConfigError).option).toBe("userMemoryRetention.now");
    const tenant = await userMemoryRetention({ days: 3, dsn, tenantId: "" }).catch((e) => e);
    expect([(tenant as Error).name, (tenant as { field?: string }).field]).toEqual([
      "ThreadwiseUserIdError",
      "userMemoryRetention.tenantId",
    ]);
  });
});

describe("threadwise erase-user --sqlite", () => {
  // newuser34: `threadwise erase-user --sqlite FILE --user-id mina --threads` on a stack with user
  // memory printed "has 0 user-memory item(s) and 0 known thread(s)": the user had items and two
  // threads, but a SQLite target searches no store, and the threads are known from the items.
  it("says that no store of user memory was searched, instead of a bare count of 0 items", async () => {
    const { sqlitePath } = await sealedUser();
    for (const apply of [[], ["--apply"]]) {
      let printed = "";
      const code = await runCli(["erase-user", "--sqlite", sqlitePath, "--user-id", "jonas", "--threads", "--thread-id", "j-1", ...apply], {
        env: {},
        stdout: (text) => {
          printed += text;
        },
      });
      expect(code).toBe(0);
      expect(printed).toMatch(/ 1 (of 1 )?known/);
      expect(printed).toContain("no store of user memory searched: --sqlite holds threads only");
      expect(printed).toContain("--thread-id");
    }
  });

  // `threadwise erase-user ... --threads --thread-id nope --apply` said "threads deleted: 0 of 1
  // known." with no reason; prune says why for its --thread-id.
  it("says why a known thread was not deleted", async () => {
    const { sqlitePath } = await sealedUser();
    let printed = "";
    const argv = [
      "erase-user",
      "--sqlite",
      sqlitePath,
      "--user-id",
      "jonas",
      "--threads",
      "--thread-id",
      "j-1",
      "--thread-id",
      "nope",
      "--apply",
    ];
    const stdout = (text: string) => {
      printed += text;
    };
    expect(await runCli(argv, { env: {}, stdout })).toBe(0);
    expect(printed).toContain('threads deleted: 1 of 2 known (not deleted: "nope" not found)');
    printed = "";
    expect(await runCli(argv, { env: {}, stdout })).toBe(0);
    expect(printed).toContain('threads deleted: 0 of 2 known (not deleted: "j-1" already deleted, "nope" not found)');
  });
});
