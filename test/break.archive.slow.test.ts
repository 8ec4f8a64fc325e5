/**
 * Threads with the archive on (`memoryStack({ archive: true })`), on in_memory, SQLite and
 * PostgreSQL, as `test/break.threads.int.test.ts` drives them (over 30 s: slow project).
 */
import type { BaseMessage } from "@langchain/core/messages";
import { RemoveMessage } from "@langchain/core/messages";
import { ThreadwiseArchivedMessageError } from "@threadwise/memory";
import { afterAll, describe, expect, it } from "vitest";
import { BACKENDS, backendStorage, breakHarness } from "./support/break-agent.js";

const storage = backendStorage("brka");
const { build, cfg, refusals, say, messagesOf, headId, oracleTurn, busyThread, report } = breakHarness(storage);
let threadNo = 0;
afterAll(() => console.log(report("break.archive")));

describe.each(BACKENDS)("archived threads as LangGraph users drive them: %s", (backend) => {
  it("archive: RemoveMessage of an archived message by updateState is refused, nothing stored, the thread goes on", async () => {
    const b = build(backend, { archive: true });
    const thread = `archived-${backend}-${++threadNo}`;
    for (let i = 0; i < 3; i += 1) await busyThread(b, thread);
    const whole = (await b.checkpointer.readThread(cfg(thread))) as BaseMessage[];
    const hot = new Set((await messagesOf(b, thread)).map((m) => m.id));
    const archived = whole.find((m) => !hot.has(m.id));
    expect(archived).toBeDefined();
    const before = await headId(b, thread);
    const error = await b.agent.graph.updateState(cfg(thread), { messages: [new RemoveMessage({ id: archived?.id as string })] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    // Documented (memory README, "Edits and forks"): LangGraph's reducer refuses it before any
    // saver write, with its own error naming the id, not the typed ThreadwiseArchivedMessageError.
    expect(ThreadwiseArchivedMessageError.isInstance(error) || String(error).includes(archived?.id as string)).toBe(true);
    expect(await headId(b, thread)).toBe(before);
    if (backend === "in_memory") {
      // No fresh process on in_memory with the archive: the archive lives in the stack's own saver,
      // so another stack's middleware on this saver is refused (memory.checkpointer) as a split.
      await say(b, thread, "still there?");
      expect(refusals(b)).toEqual([]);
      return;
    }
    const { mine, fresh, freshRefusals } = await oracleTurn(backend, b, thread, "still there?");
    expect(refusals(b)).toEqual([]);
    expect(freshRefusals).toEqual([]);
    expect(mine).toEqual(fresh);
  });
});
