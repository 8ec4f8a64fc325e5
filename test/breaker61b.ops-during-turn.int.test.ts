/**
 * Operations from another connection while a turn is between its model call and its checkpoint
 * (the writer's saver holds every write after the answer, as `THREADWISE_TEST_HANG_AFTER_MODEL`
 * does in the worker): on a sealed, archived thread whose old records are under k1 and whose
 * writer runs with k2 active (rotated, restarted), `exportThread` and `threadwise keyring
 * reencrypt` run meanwhile. The export is the thread as stored before the turn (a consistent
 * snapshot, not half of the turn); the turn then commits whole; a dry run counts nothing under k1
 * (checkpoints and archive); after `retireKey(k1)` a fresh stack reads the whole thread, the turn
 * included, as the writer read it. SQLite and PostgreSQL (a real server; required in CI), en/ko.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, retireKey, rotateKeyring } from "@threadwise/encryption";
import { exportThread, type MemoryStackOptions, memoryStack, migrate, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { archivedStackOptions } from "./support/archived-stack.js";
import { cliRun } from "./support/cli-run.js";
import { holdWritesAfterAnswer } from "./support/held-turn.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-b61b-ops-turn-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TURNS = Array.from({ length: 12 }, (_, k) =>
  k % 2 === 0 ? `English turn ${k}: my seat is ${k}A` : `한국어 턴 ${k}: 제 좌석은 ${k}번이에요`,
);
const LIVE = "answered: 마지막 질문 last question";
const THREAD = "live";
const config = { configurable: { thread_id: THREAD } };

const stackOptions = archivedStackOptions;

const answerModel = () => scriptedModel((messages, k) => `답 answer ${k}: ${messageText(messages.at(-1) as BaseMessage).slice(0, 20)}`);

async function readThread(options: MemoryStackOptions): Promise<string[]> {
  const stack = memoryStack(options);
  try {
    return (await (stack.checkpointer as ThreadwiseSaver).readThread(config)).map(messageText);
  } finally {
    await (stack.checkpointer as ThreadwiseSaver).close();
  }
}

async function opsDuringTurn(
  options: MemoryStackOptions,
  keyring: string,
  target: { sqlitePath?: string; dsn?: string },
  cliTarget: string[],
) {
  // Under k1: the thread, archived in part.
  {
    const stack = memoryStack(options);
    const agent = createAgent({ model: answerModel(), ...stack });
    for (const text of TURNS) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect((await (stack.checkpointer as ThreadwiseSaver).archivedMessages(THREAD)).length).toBeGreaterThan(0);
    await (stack.checkpointer as ThreadwiseSaver).close();
  }
  const stored = await readThread(options);
  rotateKeyring(keyring, { kid: "k2" });

  // The writer (restarted: k2 active): its first saver write after the model's answer waits.
  const stack = memoryStack(options);
  const saver = stack.checkpointer as ThreadwiseSaver;
  const { atGate, open, model } = holdWritesAfterAnswer(saver);
  const agent = createAgent({ model, ...stack });
  try {
    const turn = agent.invoke({ messages: [new HumanMessage(LIVE)] }, config);
    await atGate;
    // Meanwhile, from other connections: an export and a re-encryption.
    const exported = await exportThread({ ...target, threadId: THREAD, keyring, env: {} });
    const reencrypted = await cliRun(["keyring", "reencrypt", "--keyring", keyring, ...cliTarget]);
    open();
    const result = await turn;
    expect(reencrypted.code, reencrypted.stderr).toBe(0);
    const texts = mapStoredMessagesToChatMessages(exported.messages).map(messageText);
    // The export is the thread before the turn, or before it plus its user message: never an answer without its question.
    expect([stored, [...stored, LIVE]]).toContainEqual(texts);
    expect(messageText(result.messages.at(-1) as BaseMessage)).toMatch(/^답 answer \d+: answered: /);
    const after = (await saver.readThread(config)).map(messageText);
    expect(after.slice(0, stored.length)).toEqual(stored);
    expect(after.slice(stored.length)).toEqual([LIVE, messageText(result.messages.at(-1) as BaseMessage)]);
  } finally {
    open();
    await saver.close();
  }
  const written = await readThread(options);
  // The turn wrote under k2; the run re-sealed the rest: nothing is left under k1.
  const dry = await cliRun(["keyring", "reencrypt", "--keyring", keyring, ...cliTarget, "--dry-run", "--json"]);
  expect(dry.code, dry.stderr).toBe(0);
  const counted = JSON.parse(dry.stdout) as {
    checkpoints: { recordsByKid: Record<string, number> };
    archive: { recordsByKid: Record<string, number> };
  };
  expect(Object.keys(counted.checkpoints.recordsByKid)).toEqual(["k2"]);
  expect(Object.keys(counted.archive.recordsByKid)).toEqual(["k2"]);
  retireKey(keyring, "k1");
  expect(await readThread(options)).toEqual(written);
}

describe("export and keyring reencrypt during a live turn: SQLite", () => {
  it("the export is a snapshot, the turn commits whole, every record ends under k2 and reads after k1 is retired (en/ko)", async () => {
    const sqlitePath = join(dir, "memory.sqlite");
    const keyring = join(dir, "keyring.json");
    createKeyring(keyring, { kid: "k1" });
    await opsDuringTurn(stackOptions({ backend: "sqlite", sqlitePath, keyringPath: keyring }), keyring, { sqlitePath }, [
      "--sqlite",
      sqlitePath,
    ]);
  }, 180_000);
});

describe.skipIf(skipUnlessRealPostgres("operations during a live turn on PostgreSQL"))(
  "export and keyring reencrypt during a live turn: PostgreSQL",
  () => {
    it("the export is a snapshot, the turn commits whole, every record ends under k2 and reads after k1 is retired (en/ko)", async () => {
      const db = await freshDatabase("twb61bops");
      try {
        await migrate({ dsn: db.url });
        const keyring = join(dir, "pg-keyring.json");
        createKeyring(keyring, { kid: "k1" });
        await opsDuringTurn(stackOptions({ backend: "postgres", postgresDsn: db.url, keyringPath: keyring }), keyring, { dsn: db.url }, [
          "--dsn",
          db.url,
        ]);
      } finally {
        await db.drop();
      }
    }, 300_000);
  },
);
