/**
 * `readThread` (and `threadwise export --checkpoint-id`) at a checkpoint stored before the archive
 * was turned on for the thread (newuser65). Such a checkpoint has no archive mark (nothing was
 * archived when it was stored) and was read with the whole archive: the archived messages the
 * checkpoint does not hold (said after it) came first, then the checkpoint's own, which were
 * also archived since; a thread of 10 messages at turn 5 read back as 49, turns 6-25 before 1-5.
 * The archive is a prefix of the thread: a checkpoint whose messages include archived ones
 * starts where the first of them stands in the archive, so only the archived messages before it
 * are its. A checkpoint that holds no message (the thread's first, the input's) had none of the
 * archive (a thread that archived stores no empty checkpoint but by a rewrite, which empties the
 * archive; review65). The oracle: what the same call returned before the archive was turned on.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { mapChatMessagesToStoredMessages } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { exportThread, memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-newuser65-read-before-archive-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const THREAD = "before-archive";
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

describe("readThread at a checkpoint stored before the archive was turned on", () => {
  for (const c of CASES)
    it(`returns the thread as it stood there, not the later archived messages (${c.lang})`, async () => {
      const path = join(dir, `${c.lang}.sqlite`);
      const config = { configurable: { thread_id: THREAD } };
      const model = scriptedModel((messages) => `answer ${messages.length}`);
      const shape = (messages: readonly { id?: string }[]) =>
        messages.map((m) => `${m.id}|${messageText(m as Parameters<typeof messageText>[0])}`);

      const off = stackOn(path, false);
      const agentOff = createAgent({ model, tools: [], ...off });
      let early: { configurable?: Record<string, unknown> } | undefined;
      for (let i = 0; i < 24; i++) {
        await agentOff.invoke({ messages: [{ role: "user", content: c.turn(i) }] }, config);
        if (i === 4) early = (await agentOff.graph.getState(config)).config;
      }
      const checkpointId = early?.configurable?.checkpoint_id as string;
      const expected = shape(
        (await off.checkpointer?.readThread({ configurable: { thread_id: THREAD, checkpoint_id: checkpointId } })) ?? [],
      );
      expect(expected).toHaveLength(10);
      await off.checkpointer?.close();

      const on = stackOn(path, true);
      const agentOn = createAgent({ model, tools: [], ...on });
      for (let i = 24; i < 30; i++) await agentOn.invoke({ messages: [{ role: "user", content: c.turn(i) }] }, config);
      // The early checkpoint's messages are archived now, with what followed them.
      const archived = (await on.checkpointer?.archivedMessages(THREAD)) ?? [];
      expect(archived.length).toBeGreaterThan(expected.length);
      const read = await on.checkpointer?.readThread({ configurable: { thread_id: THREAD, checkpoint_id: checkpointId } });
      expect(shape(read ?? [])).toEqual(expected);
      // The head reads whole, in order.
      const head = (await on.checkpointer?.readThread(config))?.map((m) => messageText(m)) ?? [];
      expect(head.filter((_, i) => i % 2 === 0)).toEqual(Array.from({ length: 30 }, (_, i) => c.turn(i)));
      await on.checkpointer?.close();

      // threadwise export --checkpoint-id reads the same.
      expect(existsSync(path)).toBe(true);
      const exported = await exportThread({ sqlitePath: path, threadId: THREAD, checkpointId, env: {} });
      expect(exported.messages).toEqual(mapChatMessagesToStoredMessages(read ?? []));
    });

  // The thread's first checkpoint (the input's, step -1: no message stored yet) had none of the
  // archive either: it was read with the whole archive, every message said after it (review65).
  for (const c of CASES)
    it(`reads what that checkpoint held, the same as before the archive (${c.lang})`, async () => {
      const path = join(dir, `${c.lang}-first.sqlite`);
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
