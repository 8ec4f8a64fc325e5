/**
 * A failed model call leaves its user message unanswered in the thread (breaker66, session 66): with
 * the archive on, an odd number of them stopped archiving for good. Batches had to end where the
 * window cost counted from the hot part's first user message was a multiple of windowTrim's step,
 * right before a user message; one extra user message made every later such boundary odd (plain
 * turns add two messages each), so nothing left again and the checkpoint grew without limit
 * (issue 27). A run with the archive and a run without it take the same turns (some calls failing),
 * on MemorySaver (`in_memory`) and SQLite, en/ko turns, core's strict scripted model: every model
 * and summarizer request must be the same (R35), the thread read back the same, and the hot part
 * after N failed calls bounded as after none.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { comparedMessage, lockerTurnText } from "./support/compared-message.js";

const dir = mkdtempSync(join(tmpdir(), "tw-archive-unanswered-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const WINDOW = 4;
const TURNS = 40;
const config = { configurable: { thread_id: "t" } };
let files = 0;

/** An agent on memoryStack (windowSize 4, summarize due at 8), with or without the archive (memoryStack's own settings). */
function agentFor(archive: boolean, backend: "in_memory" | "sqlite", failing: ReadonlySet<number>) {
  files += 1;
  const summarizer = scriptedModel((messages) => `요약 summary of ${messages.map((m) => messageText(m)).join(" / ").length}`, {
    strict: false,
  });
  const model = scriptedModel((messages, call) => {
    const last = messages.at(-1) as BaseMessage;
    if (failing.has(Number(String(last.id).slice(1)))) return new Error("provider down");
    return new AIMessage({ id: `a-${call}`, content: `답 answer ${call}` });
  });
  const stack = memoryStack({
    backend,
    ...(backend === "sqlite" ? { sqlitePath: join(dir, `t${files}.sqlite`) } : {}),
    archive,
    windowSize: WINDOW,
    summarizeThreshold: 8,
    models: { summarize: summarizer },
    logger: false,
    env: {},
  });
  const saver = stack.checkpointer as ThreadwiseSaver;
  const agent = createAgent({ model, tools: [], checkpointer: saver, middleware: stack.middleware });
  return { agent, model, summarizer, saver };
}
type Run = ReturnType<typeof agentFor>;

/**
 * Both runs take TURNS turns; the calls of the turns in `failing` fail (their user message stays
 * unanswered), and the answers of the turns in `unanswering` are removed after the turn (an edit:
 * `updateState` with a `RemoveMessage`).
 */
async function runBoth(backend: "in_memory" | "sqlite", failing: ReadonlySet<number>, unanswering: ReadonlySet<number> = new Set()) {
  const archived = agentFor(true, backend, failing);
  const plain = agentFor(false, backend, failing);
  const hotOf = async () => ((await archived.agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages.length;
  let maxHot = 0;
  for (let k = 1; k <= TURNS; k += 1) {
    for (const run of [archived, plain]) {
      const turn = run.agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: lockerTurnText(k) })] }, config);
      if (failing.has(k)) await expect(turn).rejects.toThrow("provider down");
      else await turn;
      if (!unanswering.has(k)) continue;
      const answer = ((await run.agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages.at(-1) as BaseMessage;
      if (!AIMessage.isInstance(answer)) throw new Error(`turn ${k}: no answer to remove`);
      await run.agent.graph.updateState(config, { messages: [new RemoveMessage({ id: answer.id as string })] });
    }
    maxHot = Math.max(maxHot, await hotOf());
  }
  const requests = (run: Run) => run.model.calls.map((call) => call.messages.map(comparedMessage));
  const summaries = (run: Run) => run.summarizer.calls.map((call) => call.messages.map(comparedMessage));
  const result = {
    requestsEqual: JSON.stringify(requests(archived)) === JSON.stringify(requests(plain)),
    summariesEqual: JSON.stringify(summaries(archived)) === JSON.stringify(summaries(plain)),
    summarizerCalls: plain.summarizer.calls.length,
    threadEqual:
      JSON.stringify((await archived.saver.readThread(config)).map(comparedMessage)) ===
      JSON.stringify((await plain.saver.readThread(config)).map(comparedMessage)),
    archived: (await archived.saver.archivedMessages("t")).length,
    hot: await hotOf(),
    maxHot,
  };
  await archived.saver.close();
  await plain.saver.close();
  return result;
}

describe.each(["in_memory", "sqlite"] as const)("%s: unanswered user messages (failed model calls)", (backend) => {
  it("archiving goes on after 1, 2 or 3 failed calls (or removed answers) as after none, with the requests of a run without the archive", async () => {
    const none = await runBoth(backend, new Set());
    expect(none.archived).toBeGreaterThan(0);
    const cases: Array<[number[], number[]]> = [
      [[3], []],
      [[3, 4], []],
      [[3, 4, 5], []],
      [[3, 9, 21], []],
      // An edit that removes an answer leaves its user message unanswered too.
      [[], [5]],
      [[7], [12, 20]],
    ];
    for (const [failing, unanswering] of cases) {
      const run = await runBoth(backend, new Set(failing), new Set(unanswering));
      const label = `failed turns ${failing.join(",")}, answers removed ${unanswering.join(",")}: ${JSON.stringify(run)}`;
      expect(run.requestsEqual, label).toBe(true);
      expect(run.summariesEqual, label).toBe(true);
      expect(run.summarizerCalls, label).toBeGreaterThan(0);
      expect(run.threadEqual, label).toBe(true);
      // The hot part stays bounded as after no failed call: its largest size over the run at most
      // the failed calls' user messages more (before the fix it grew by two messages a turn).
      expect(run.maxHot, label).toBeLessThanOrEqual(none.maxHot + failing.length + unanswering.length);
      console.log(`[archive.unanswered-user] ${backend} none=${JSON.stringify(none)} ${label}`);
    }
  }, 600_000);
});
