/**
 * `archive` turned off again on a thread that archived while it was on (newuser65). The archive
 * keeps what it took (`readThread` and `threadwise export` read it whatever `archive` says), and
 * the stack must keep reading it too: `archive` decides whether messages move, not whether the
 * moved ones still count. Was: with `archive: false` the stack wired no archive reader, so recall
 * searched the checkpoint's hot part only and a booking code said early in the thread (archived)
 * was no longer recalled: the model was asked "What was my booking code?" without it, though the
 * same thread with the archive on recalled it.
 *
 * The oracle: the same thread (a copy of the SQLite file) continued with the archive still on.
 * Turning the archive off changes no request; it only stops the archive from growing.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { hideMemoryState, memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { BOOKING_CODE_CASES, bookingStackOptions } from "./support/booking-code-cases.js";

const dir = mkdtempSync(join(tmpdir(), "tw-newuser65-archive-off-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREAD = "archive-off";

const CASES = BOOKING_CODE_CASES;

/** Runs `inputs` as turns on the file with `archive`; returns the text of each request the agent's model got. */
async function turns(path: string, archive: boolean, inputs: readonly string[]) {
  const requests: string[][] = [];
  const stack = memoryStack(bookingStackOptions(path, archive));
  const model = scriptedModel((messages: BaseMessage[]) => {
    requests.push(messages.map((m) => `${m.getType()}: ${messageText(m)}`));
    return "Noted.";
  });
  const agent = hideMemoryState(createAgent({ model, tools: [], ...stack }));
  const config = { configurable: { thread_id: THREAD } };
  for (const content of inputs) await agent.invoke({ messages: [{ role: "user", content }] }, config);
  const archived = (await stack.checkpointer?.archivedMessages(THREAD))?.length ?? 0;
  const thread = (await stack.checkpointer?.readThread(config))?.map(messageText) ?? [];
  await stack.checkpointer?.close();
  return { requests, archived, thread };
}

function copySqlite(from: string, to: string) {
  for (const suffix of ["", "-wal", "-shm"]) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix);
}

describe("archive turned off on a thread that archived", () => {
  for (const c of CASES)
    it(`keeps reading what was archived: recall finds it, requests as with the archive on (${c.lang})`, async () => {
      const on = join(dir, `${c.lang}-on.sqlite`);
      const off = join(dir, `${c.lang}-off.sqlite`);
      const history = [c.filler(0), c.said, ...Array.from({ length: 30 }, (_, i) => c.filler(i + 1))];
      const before = await turns(on, true, history);
      // The booking code left the checkpoint for the archive while the archive was on.
      expect(before.archived).toBeGreaterThan(0);
      expect(before.thread).toContain(c.said);
      copySqlite(on, off);

      const still = await turns(on, true, [c.ask, c.filler(100)]);
      const then = await turns(off, false, [c.ask, c.filler(100)]);
      // The oracle recalls the code from the archive (the hot part does not hold it).
      expect(still.requests[0]?.join("\n")).toContain("QX-4417");
      expect(then.requests).toEqual(still.requests);
      // Off moves nothing more, and the thread read back is whole.
      expect(then.archived).toBe(before.archived);
      expect(then.thread).toEqual(still.thread);
    });
});

/**
 * Facts of the last batch archived before the archive was turned off: factRecall reads them gone
 * from the checkpoint at the next model call, and only the archive tells archived from removed
 * (`archivedAmong`). Was: with the archive off nothing asked it, so their facts were dropped as
 * if the user had removed the messages (20 turns of statements: the facts block lost a third).
 */
const STATEMENTS = {
  en: (i: number) => [`I live in City${i}.`, `I work at Company${i}.`, `I like Fruit${i}.`][i % 3] as string,
  ko: (i: number) => [`저는 도시${i}에 살아요.`, `제 직업은 직업${i}이에요.`, `저는 과일${i}을 좋아해요.`][i % 3] as string,
};

async function factTurns(path: string, archive: boolean, inputs: readonly string[]) {
  const stack = memoryStack({ ...bookingStackOptions(path, archive), factsMode: "heuristic" });
  const agent = createAgent({ model: scriptedModel(() => "Noted."), tools: [], ...stack });
  const config = { configurable: { thread_id: THREAD } };
  for (const content of inputs) await agent.invoke({ messages: [{ role: "user", content }] }, config);
  const facts = ((await agent.graph.getState(config)).values._threadwise_facts?.facts ?? []) as Array<{
    text: string;
    history?: Array<{ text: string }>;
  }>;
  const archived = (await stack.checkpointer?.archivedMessages(THREAD))?.length ?? 0;
  await stack.checkpointer?.close();
  return { facts: facts.map((f) => [f.text, ...(f.history ?? []).map((h) => h.text)].join(" / ")), archived };
}

describe("archive turned off: the facts of what was archived stay", () => {
  for (const c of CASES)
    it(`the facts after the next turn are those of the same thread with the archive on (${c.lang})`, async () => {
      const on = join(dir, `facts-${c.lang}-on.sqlite`);
      const off = join(dir, `facts-${c.lang}-off.sqlite`);
      const before = await factTurns(
        on,
        true,
        Array.from({ length: 20 }, (_, i) => STATEMENTS[c.lang](i)),
      );
      expect(before.archived).toBeGreaterThan(0);
      copySqlite(on, off);
      const still = await factTurns(on, true, [c.filler(100)]);
      const then = await factTurns(off, false, [c.filler(100)]);
      expect(still.facts.length).toBeGreaterThan(0);
      expect(then.facts).toEqual(still.facts);
    });
});
