/**
 * `readThread` at a thread's first checkpoint (the input's, step -1: no message stored yet), stored
 * before the archive was turned on for the thread (review65, after newuser65's fix). Such a
 * checkpoint has no archive mark and holds no message, so `archivedBefore` found none of its own in
 * the archive and gave it the whole archive: every message said after it. A checkpoint with no
 * messages had none of the archive either (the archive keeps its newest groups hot, so a thread
 * that archived never stores an empty checkpoint but by a rewrite, which empties the archive).
 * The oracle: what the same call returned before the archive was turned on.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-review65-read-first-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREAD = "first-checkpoint";
const CASES = [
  { lang: "en", turn: (i: number) => `Turn ${i}: my flight to Busan is on Friday.` },
  { lang: "ko", turn: (i: number) => `${i}번째 말: 부산행 비행기는 금요일이에요.` },
] as const;

const stackOn = (path: string, archive: boolean) =>
  memoryStack({
    backend: "sqlite",
    sqlitePath: path,
    archive,
    windowSize: 4,
    summarizeThreshold: 8,
    models: { summarize: scriptedModel(() => "s", { strict: false }) },
    logger: false,
    env: {},
  });

describe("readThread at the first checkpoint of a thread stored before the archive was turned on", () => {
  for (const c of CASES)
    it(`reads what that checkpoint held, the same as before the archive (${c.lang})`, async () => {
      const path = join(dir, `${c.lang}.sqlite`);
      const config = { configurable: { thread_id: THREAD } };
      const model = scriptedModel((messages) => `answer ${messages.length}`);
      const texts = (messages: readonly Parameters<typeof messageText>[0][]) => messages.map((m) => messageText(m));

      const off = stackOn(path, false);
      const agentOff = createAgent({ model, tools: [], ...off });
      for (let i = 0; i < 24; i++) await agentOff.invoke({ messages: [{ role: "user", content: c.turn(i) }] }, config);
      // The oldest two checkpoints: the input's (no message) and the one that stored the first turn.
      const ids: string[] = [];
      for await (const tuple of off.checkpointer?.list(config) ?? []) ids.push(tuple.config.configurable?.checkpoint_id as string);
      const oldest = ids.slice(-2);
      const at = (checkpointer: typeof off.checkpointer, id: string) =>
        checkpointer?.readThread({ configurable: { thread_id: THREAD, checkpoint_id: id } }) ?? Promise.resolve([]);
      const expected = await Promise.all(oldest.map(async (id) => texts(await at(off.checkpointer, id))));
      expect(expected.map((e) => e.length)).toEqual([1, 0]);
      await off.checkpointer?.close();

      const on = stackOn(path, true);
      const agentOn = createAgent({ model, tools: [], ...on });
      for (let i = 24; i < 30; i++) await agentOn.invoke({ messages: [{ role: "user", content: c.turn(i) }] }, config);
      expect((await on.checkpointer?.archivedMessages(THREAD))?.length ?? 0).toBeGreaterThan(0);
      for (const [k, id] of oldest.entries()) expect(texts(await at(on.checkpointer, id))).toEqual(expected[k]);
      await on.checkpointer?.close();
    });
});
