/**
 * The window mark (core's `ArchivedWindow`) read by another agent's plain windowTrim on an archived
 * thread (stack.archive.slow seed 501 case 30, session 55): its cut is a function of stored state,
 * the slot's mark and the archive, which it reads through the run's checkpointer (core's
 * `runArchiveReader`; memoryStack passes its own reader as `archived`). A running process and a
 * fresh one (new middleware instances, a new saver object on the same SQLite file) running the same
 * call from the same checkpoint cut at the same place. The seed's failure was the slow harness's:
 * its from-scratch call of another agent's stack had no run checkpointer, so it could not read the
 * archive and counted the hot part from its first user message (`windowFrom` 137 served, 132 from
 * scratch); the last check below is that call, and shows the mark moves this cut.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, SystemMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { readSummarySlot, SUMMARY_SLOT_KEY, summarySlotMiddleware, viewReport } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, messageArchive, type ThreadwiseSaver } from "@threadwise/memory";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent, createMiddleware } from "langchain";
import { afterAll, expect, it } from "vitest";
import { z } from "zod/v4";
import { runModelCall } from "./support/model-call.js";

const dir = mkdtempSync(join(tmpdir(), "tw-archive-window-mark-fresh-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, "t.sqlite");
const thread = { configurable: { thread_id: "t" } };
const WINDOW = 6;
const OTHER = 8;

/** Turn k's user message, Korean and English by turn. */
const userText = (k: number) => (k % 2 === 0 ? `질문 ${k}: 제 사물함 번호가 뭐였죠?` : `question ${k}: what did I say about the trip?`);
const lookup = tool(async ({ key }: { key: string }) => `${key}: 값 value`, {
  name: "lookup",
  description: "Looks a key up.",
  schema: z.object({ key: z.string() }),
});
/** Answers; a user message `u<k>` with k % 3 === 1 gets two lookups first (a call with two results). */
const answers = (prefix: string) =>
  scriptedModel((messages, call) => {
    const last = messages.at(-1) as BaseMessage;
    const turn = Number(String(last.id).slice(1));
    if (HumanMessage.isInstance(last) && turn % 3 === 1)
      return new AIMessage({
        id: `${prefix}call-${turn}`,
        content: "",
        tool_calls: [
          { id: `${prefix}c${turn}a`, name: "lookup", args: { key: `a${turn}` } },
          { id: `${prefix}c${turn}b`, name: "lookup", args: { key: `b${turn}` } },
        ],
      });
    return new AIMessage({ id: `${prefix}a-${call}`, content: `답 answer ${call}` });
  });

/** memoryStack on the SQLite file, the archive tight (keepGroups 7, batches of 2, aligned to the window's step 3). */
function archiveStack() {
  const stack = memoryStack({
    backend: "sqlite",
    sqlitePath: path,
    archive: true,
    windowSize: WINDOW,
    summarizeThreshold: 10,
    recallMaxTokens: false,
    models: { summarize: scriptedModel((messages) => `요약 summary of ${messages.length}`, { strict: false }) },
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const middleware = stack.middleware.map((m) =>
    m.name === "threadwise/message-archive"
      ? messageArchive(saver, { keepGroups: WINDOW + 1, batchMessages: 2, alignMessages: 3, logger: false })
      : m,
  );
  return { saver, middleware };
}

/**
 * Another agent's stack: the summary slot declared (its state holds the mark; the seed's other
 * stack had summarize, which declares it), a plain chunked windowTrim (no `archived`), then a
 * probe of where it cut (`windowFrom`).
 */
const otherStack = (seen: Array<number | undefined>) => [
  summarySlotMiddleware(),
  windowTrim({ maxMessages: OTHER, logger: false }),
  createMiddleware({
    name: "test/window-probe",
    wrapModelCall: (request, handler) => {
      seen.push(viewReport(request as never).windowFrom);
      return handler(request);
    },
  }),
];
const otherAgent = (saver: ThreadwiseSaver, seen: Array<number | undefined>) =>
  createAgent({ model: answers(`${seen.length}-`), tools: [lookup], checkpointer: saver, middleware: otherStack(seen) });

it("another agent's windowTrim on an archived thread: a running process and a fresh one over the same saver cut at the same place", async () => {
  const served = archiveStack();
  const agent = createAgent({ model: answers(""), tools: [lookup], checkpointer: served.saver, middleware: served.middleware });
  for (let k = 1; k <= 14; k += 1) await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: userText(k) })] }, thread);
  // A removal in the hot part (the seed removed and edited there before the other agent's turn):
  // the hot part's first user message, so the count from the hot part's first user message
  // (without the mark) and the one over the whole thread (with it) part.
  const hot = ((await agent.graph.getState(thread)).values as { messages: BaseMessage[] }).messages;
  const first = hot.find((m) => HumanMessage.isInstance(m)) as BaseMessage;
  await agent.graph.updateState(thread, { messages: [new RemoveMessage({ id: first.id as string })] });
  const state = await agent.graph.getState(thread);
  const slot = readSummarySlot(state.values);
  // The thread is archived and the slot holds the archive's window count.
  expect((await served.saver.archivedMessages("t")).length).toBeGreaterThan(0);
  expect(slot.archivedWindow).toBeDefined();

  const at = { configurable: { thread_id: "t", checkpoint_id: state.config.configurable?.checkpoint_id as string } };
  const ask = (k: number) => ({ messages: [new HumanMessage({ id: `o${k}`, content: userText(k) })] });
  // The running process: its windowTrim has served the thread before (a call from the same checkpoint first).
  const running: Array<number | undefined> = [];
  const other = otherAgent(served.saver, running);
  await other.invoke(ask(20), at);
  await other.invoke(ask(21), at);
  // A fresh process: new middleware instances, a new saver object on the same file, the same call from the same checkpoint.
  const fresh = archiveStack();
  const freshSeen: Array<number | undefined> = [];
  await otherAgent(fresh.saver, freshSeen).invoke(ask(21), at);
  expect(running[1]).toBeDefined();
  expect(freshSeen).toEqual([running[1]]);

  // The same call with the stored messages and slot but no run checkpointer (the slow harness's
  // from-scratch call before the fix): the archive cannot be read, the mark is not used, and the
  // cut differs: the mark decides this cut, so the two above agree on it, not by chance.
  const noArchive: Array<number | undefined> = [];
  const stored = (state.values as { messages: BaseMessage[] }).messages;
  await runModelCall(
    otherStack(noArchive) as never,
    {
      messages: [...stored, new HumanMessage({ id: "o21", content: userText(21) })],
      channels: { [SUMMARY_SLOT_KEY]: slot },
      systemMessage: new SystemMessage(""),
      tools: [],
      configurable: { thread_id: "t" },
    },
    async () => new AIMessage({ id: "x", content: "ok" }),
  );
  expect(noArchive).toHaveLength(1);
  expect(noArchive[0]).not.toBe(running[1]);
  await served.saver.close();
  await fresh.saver.close();
});
