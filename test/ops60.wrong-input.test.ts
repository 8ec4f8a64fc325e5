/**
 * Wrong input to the thread operations (`prune`, `retention`, `eraseTenant`, `exportThread`), not
 * tried by newuser60 (test/newuser60.wrong-input.test.ts covers user memory's). Found by ops60 on a
 * SQLite store holding three idle threads (English and Korean ids):
 * - `prune({ threadID: "trip-notes", olderThanDays: 1, apply: true })`: the misspelt key was
 *   ignored, so every idle thread was deleted, not that one;
 * - `prune({ olderThanDays: 1, aply: true })` and `eraseTenant({ tenantId, aply: true })` were dry runs;
 * - `retention({ days: 1, dryRun: true })` applied, and `retention({ days: 1, tenantId })` deleted
 *   every tenant's idle threads (retention is not per tenant);
 * - `prune({ limit: -1, apply: true })` deleted every idle thread on SQLite (`LIMIT -1` is no limit);
 * - `prune({ limit: NaN })` or `1.5` threw SQLite's "datatype mismatch", naming nothing;
 * - `exportThread({ checkpointID })` exported the head, not that checkpoint;
 * - `apply: "false"` (a string) was truthy: `prune` deleted every idle thread, `eraseTenant` the
 *   whole tenant, `eraseUser` the user's threads.
 * Each is now a typed error naming the option, thrown before any store is opened: nothing is deleted.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { ThreadwiseConfigError, ThreadwiseUnknownOptionError, ThreadwiseUserIdError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { eraseTenant, eraseUser, exportThread, memoryStack, prune, retention, ThreadwiseThreadIdError } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeEach, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-ops60-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const IDS = ["trip-notes", "여행-메모", "budget"];
const LATER = () => new Date(Date.now() + 30 * 86_400_000);
let sqlitePath = "";
let n = 0;

/** A fresh SQLite store with three threads, one message each (English and Korean). */
beforeEach(async () => {
  n += 1;
  sqlitePath = join(dir, `ops-${n}.sqlite`);
  const stack = memoryStack({ backend: "sqlite", sqlitePath, env: {} });
  const agent = createAgent({ model: scriptedModel(() => "ok"), ...stack });
  for (const id of IDS)
    await agent.invoke(
      { messages: [new HumanMessage(id === "여행-메모" ? "부산에 살아요." : "I live in Busan.")] },
      { configurable: { thread_id: id } },
    );
  await stack.checkpointer?.close();
});

/** Threads still there, by a dry run that lists every idle one. */
const left = async () => (await prune({ sqlitePath, olderThanDays: 1, now: LATER })).candidates.length;

async function thrown(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => undefined,
    (error: unknown) => error,
  );
}

describe("thread operations refuse a misspelt option by name, deleting nothing", () => {
  it.each([
    [
      "prune",
      "threadID (deleted every idle thread)",
      () => prune({ sqlitePath, threadID: "trip-notes", olderThanDays: 1, apply: true, now: LATER } as never),
      "threadId",
    ],
    [
      "prune",
      "threadID (Korean id)",
      () => prune({ sqlitePath, threadID: "여행-메모", olderThanDays: 1, apply: true, now: LATER } as never),
      "threadId",
    ],
    ["prune", "aply (was a dry run)", () => prune({ sqlitePath, olderThanDays: 1, aply: true, now: LATER } as never), "apply"],
    ["retention", "dryRun (applied)", () => retention({ sqlitePath, days: 1, dryRun: true, now: LATER } as never), undefined],
    [
      "retention",
      "tenantId (deleted every tenant's)",
      () => retention({ sqlitePath, days: 1, tenantId: "acme", now: LATER } as never),
      undefined,
    ],
    ["eraseTenant", "aply (was a dry run)", () => eraseTenant({ sqlitePath, tenantId: "default", aply: true } as never), "apply"],
    [
      "eraseTenant",
      "threadIDs",
      () => eraseTenant({ sqlitePath, tenantId: "고객사", threadIDs: ["budget"], apply: true } as never),
      "threadIds",
    ],
    [
      "exportThread",
      "checkpointID (exported the head)",
      () => exportThread({ sqlitePath, threadId: "여행-메모", checkpointID: "x" } as never),
      "checkpointId",
    ],
  ])("%s: %s", async (operation, what, call, suggestion) => {
    const key = what.split(" ")[0] as string;
    const error = await thrown(call);
    expect(ThreadwiseUnknownOptionError.isInstance(error), String(error)).toBe(true);
    expect((error as ThreadwiseUnknownOptionError).option).toBe(`${operation}.${key}`);
    if (suggestion) expect((error as ThreadwiseUnknownOptionError).suggestion).toBe(suggestion);
    expect(await left()).toBe(IDS.length);
  });

  it.each([
    ["-1 (no limit on SQLite)", -1],
    ["0", 0],
    ["NaN", Number.NaN],
    ["1.5", 1.5],
  ])("prune: limit %s is refused naming prune.limit", async (_what, limit) => {
    const error = await thrown(() => prune({ sqlitePath, olderThanDays: 1, limit, apply: true, now: LATER }));
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe("prune.limit");
    expect(await left()).toBe(IDS.length);
  });

  it("prune: a clock giving an invalid Date is refused naming prune.now", async () => {
    const error = await thrown(() => prune({ sqlitePath, olderThanDays: 1, apply: true, now: () => new Date(Number.NaN) }));
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe("prune.now");
    expect(await left()).toBe(IDS.length);
  });

  it("retention: limit -1 is refused naming retention.limit", async () => {
    const error = await thrown(() => retention({ sqlitePath, days: 1, limit: -1, now: LATER }));
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe("retention.limit");
    expect(await left()).toBe(IDS.length);
  });

  it.each([
    ["prune", () => prune({ sqlitePath, olderThanDays: 1, apply: "false", now: LATER } as never)],
    ["eraseTenant", () => eraseTenant({ sqlitePath, tenantId: "default", apply: "false" } as never)],
    ["eraseUser", () => eraseUser({ sqlitePath, userId: "mina", threadIds: ["여행-메모"], threads: true, apply: "no" } as never)],
  ])('%s: apply "false" (a string from a config file) is refused, not read as true', async (operation, call) => {
    const error = await thrown(call);
    expect(error).toBeInstanceOf(ThreadwiseConfigError);
    expect((error as ThreadwiseConfigError).option).toBe(`${operation}.apply`);
    expect(await left()).toBe(IDS.length);
  });

  // Already refused before ops60 (kept as a guard): the id rules' own typed errors.
  it.each([
    ["prune", ThreadwiseThreadIdError, () => prune({ sqlitePath, threadId: "", apply: true })],
    ["eraseTenant", ThreadwiseUserIdError, () => eraseTenant({ sqlitePath, tenantId: "", apply: true })],
    ["exportThread", ThreadwiseThreadIdError, () => exportThread({ sqlitePath, threadId: "" })],
  ])("%s: an empty id is refused by the id rules, deleting nothing", async (_operation, type, call) => {
    expect(await thrown(call)).toBeInstanceOf(type);
    expect(await left()).toBe(IDS.length);
  });

  it("the right keys still work: prune one Korean thread, then retention deletes the rest", async () => {
    const one = await prune({ sqlitePath, threadId: "여행-메모", olderThanDays: 1, apply: true, now: LATER });
    expect(one.totals.threads).toBe(1);
    expect(await left()).toBe(IDS.length - 1);
    const rest = await retention({ sqlitePath, days: 1, limit: 10, now: LATER });
    expect(rest.totals.threads).toBe(IDS.length - 1);
    expect(await left()).toBe(0);
  });
});
