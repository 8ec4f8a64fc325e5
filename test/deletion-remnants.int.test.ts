/**
 * Deletion leaves nothing readable (spec R24, issue 13): after a thread of a plaintext SQLite store
 * is deleted (`deleteThread` and `prune --thread-id --apply`), its text is found nowhere in the
 * file's bytes, the WAL included (`secure_delete` + `wal_checkpoint(TRUNCATE)`). A control scan
 * before the deletion proves the scan finds the sentinel. Prints the byte counts scanned.
 */
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage } from "@langchain/core/messages";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, prune } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-remnants-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Occurrences of `needle` in the file and its `-wal` / `-shm`, with bytes scanned. */
function scan(file: string, needle: string): { hits: number; bytes: number } {
  let hits = 0;
  let bytes = 0;
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (!existsSync(path)) continue;
    const data = readFileSync(path);
    bytes += data.length;
    for (let at = data.indexOf(needle); at >= 0; at = data.indexOf(needle, at + 1)) hits += 1;
  }
  return { hits, bytes };
}

describe("deleted text is not left in a plaintext SQLite file", () => {
  it.each(["deleteThread", "prune --thread-id"] as const)("after %s", async (how) => {
    const file = join(dir, `${how.replace(/\W+/g, "-")}.sqlite`);
    const sentinel = `SENTINEL-${randomUUID()}`;
    const stack = memoryStack({ backend: "sqlite", sqlitePath: file, env: {} });
    const agent = createAgent({
      model: scriptedModel((messages) => (JSON.stringify(messages.at(-1)?.content).includes(sentinel) ? `noted: ${sentinel}` : "noted")),
      ...stack,
    });
    for (const turn of [1, 2, 3])
      await agent.invoke(
        { messages: [new HumanMessage(`turn ${turn}: ${sentinel} ${"x".repeat(2000)}`)] },
        { configurable: { thread_id: "secret" } },
      );
    // A second thread keeps the file in use, so the deleted pages are reused or freed, not dropped with the file.
    await agent.invoke({ messages: [new HumanMessage("keep me")] }, { configurable: { thread_id: "other" } });
    const before = scan(file, sentinel);
    expect(before.hits).toBeGreaterThan(0);
    if (how === "deleteThread") await stack.checkpointer?.deleteThread("secret");
    else expect((await prune({ sqlitePath: file, threadId: "secret", apply: true })).totals.threads).toBe(1);
    const afterDelete = scan(file, sentinel);
    await stack.checkpointer?.close();
    const afterClose = scan(file, sentinel);
    console.log(
      `[deletion remnants] sqlite ${how}: sentinel hits before ${before.hits} (${before.bytes} bytes), after deletion ${afterDelete.hits} (${afterDelete.bytes} bytes), after close ${afterClose.hits}`,
    );
    expect(afterDelete.hits).toBe(0);
    expect(afterClose.hits).toBe(0);
  });
});
