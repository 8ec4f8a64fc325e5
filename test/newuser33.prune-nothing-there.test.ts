/**
 * `threadwise prune --thread-id X` on an id that matched nothing says why, and never claims
 * "tombstones written": an id deleted before (`already_deleted`, with the tombstone's time), an
 * id never used (`not_found`), a thread written after the `--older-than-days` cutoff
 * (`not_idle`); exit code 0 in each (nothing to delete is not a failure), `--json` carries
 * `thread.status`. Was: "deleted 0 thread(s) (...); 0 skipped (...); tombstones written." English
 * and Korean thread ids, on SQLite.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, prune } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliRun } from "./support/cli-run.js";

const cli = cliRun;

const dir = mkdtempSync(join(tmpdir(), "tw-prune-none-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const sqlitePath = join(dir, "prune.sqlite");
const IDS = { English: "trip-notes", Korean: "여행-메모" } as const;

beforeAll(async () => {
  const stack = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
  const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
  for (const id of Object.values(IDS)) await agent.invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: id } });
  await stack.checkpointer?.close();
});

describe("prune --thread-id on an id with nothing to delete", () => {
  for (const [language, id] of Object.entries(IDS)) {
    it(`${language}: a second --apply says the thread was already deleted`, async () => {
      const first = await cli(["prune", "--sqlite", sqlitePath, "--thread-id", id, "--apply"]);
      expect(first.stdout).toContain("deleted 1 thread(s)");
      expect(first.stdout).toContain("tombstones written");
      for (const apply of [["--apply"], []]) {
        const again = await cli(["prune", "--sqlite", sqlitePath, "--thread-id", id, ...apply]);
        expect(again.code).toBe(0);
        expect(again.stdout).not.toContain("tombstones written");
        expect(again.stdout).toMatch(new RegExp(`thread ${JSON.stringify(id)} was already deleted at \\d{4}-\\d\\d-\\d\\dT`));
        expect(again.stdout).toContain(apply.length ? "nothing was deleted" : "nothing would be deleted");
      }
      const json = JSON.parse((await cli(["prune", "--sqlite", sqlitePath, "--thread-id", id, "--apply", "--json"])).stdout);
      expect(json.thread).toMatchObject({ threadId: id, status: "already_deleted" });
    });
  }

  it("an id never used is not_found; a thread not idle long enough is not_idle", async () => {
    const missing = await cli(["prune", "--sqlite", sqlitePath, "--thread-id", "no-such-thread", "--apply"]);
    expect(missing.code).toBe(0);
    expect(missing.stdout).toContain('thread "no-such-thread" was not found');
    expect(missing.stdout).not.toContain("tombstones written");
    const stack = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
    const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
    await agent.invoke({ messages: [new HumanMessage("오늘 대화")] }, { configurable: { thread_id: "fresh" } });
    await stack.checkpointer?.close();
    const report = await prune({ sqlitePath, threadId: "fresh", olderThanDays: 1, apply: true });
    expect(report.thread).toEqual({ threadId: "fresh", status: "not_idle" });
    expect(report.totals.threads).toBe(0);
    const recent = await cli(["prune", "--sqlite", sqlitePath, "--thread-id", "fresh", "--older-than-days", "1", "--apply"]);
    expect(recent.stdout).toContain("was written after the --older-than-days cutoff");
  });

  it("--older-than-days matching nothing says nothing was deleted", async () => {
    const none = await cli(["prune", "--sqlite", sqlitePath, "--older-than-days", "30", "--apply"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toContain("deleted 0 thread(s): no thread matched, nothing was deleted.");
    expect(none.stdout).not.toContain("tombstones written");
  });
});
