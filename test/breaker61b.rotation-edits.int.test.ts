/**
 * Key rotation meets edits and forks on an archived, sealed thread (`memoryStack({ archive: true })`,
 * keyring k1): the key is rotated (k2 active, k1 kept for reads; the stack restarted, as the
 * encryption README says), then, on the new stack: an `updateState` by id of an archived message is
 * refused (`ThreadwiseArchivedMessageError`, `archived-edit`) and stores nothing; a fork from a
 * checkpoint sealed with k1 runs a turn; a rewrite of the thread (remove all, then its messages
 * again, under k1) empties the archive under a marker whose sealed digests reencrypt moves to k2; `getStateHistory`
 * reads every checkpoint, both kids. With k1 removed before re-encryption, a fresh stack's read
 * fails with a typed error naming k1 (`unknown-kid`), no plaintext and no partial thread; after
 * `threadwise keyring reencrypt` and `retireKey(k1)`, a fresh stack reads the whole history, every
 * branch and the archive, as before. SQLite and PostgreSQL (a real server; required in CI), en/ko.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, retireKey, rotateKeyring, sealedKid, ThreadwiseDecryptionError } from "@threadwise/encryption";
import { type MemoryStackOptions, memoryStack, migrate, ThreadwiseArchivedMessageError, type ThreadwiseSaver } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { archivedStackOptions } from "./support/archived-stack.js";
import { cliRun } from "./support/cli-run.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-b61b-rotation-edits-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TURNS = Array.from({ length: 20 }, (_, k) => (k % 2 === 0 ? `English turn ${k}: trains and weather` : `한국어 턴 ${k}: 기차와 날씨`));
const THREAD = "rotated-edits";
const config = { configurable: { thread_id: THREAD } };

const stackOptions = archivedStackOptions;

async function withAgent<T>(
  options: MemoryStackOptions,
  body: (agent: ReturnType<typeof createAgent>, saver: ThreadwiseSaver) => Promise<T>,
) {
  const stack = memoryStack(options);
  const agent = createAgent({
    model: scriptedModel((messages, k) => `답 answer ${k}: ${messageText(messages.at(-1) as BaseMessage).slice(0, 14)}`),
    ...stack,
  });
  try {
    return await body(agent, stack.checkpointer as ThreadwiseSaver);
  } finally {
    await (stack.checkpointer as ThreadwiseSaver).close();
  }
}

/** Every checkpoint of the thread (all branches), read: its id and message texts; and the whole thread at the head. */
const everything = (options: MemoryStackOptions) =>
  withAgent(options, async (agent, saver) => {
    const history: string[] = [];
    for await (const snapshot of agent.graph.getStateHistory(config))
      history.push(
        `${snapshot.config.configurable?.checkpoint_id} ${((snapshot.values as { messages?: BaseMessage[] }).messages ?? []).map(messageText).join("|")}`,
      );
    return { history, thread: (await saver.readThread(config)).map(messageText) };
  });

/** The kid the digests of the thread's rewrite marker are sealed with (`undefined`: no marker, or not sealed). */
const markerKid = (options: MemoryStackOptions) =>
  withAgent(options, async (_agent, saver) => {
    const marker = (await saver.registry.readArchive(THREAD, "default", 0)).rows.find((row) => row.messageId === "");
    const parsed = marker ? (JSON.parse(marker.record) as unknown[]) : [];
    return sealedKid(parsed[2]);
  });

async function rotationWithEdits(options: MemoryStackOptions, keyring: string, target: string[]) {
  // Under k1: turns until messages are archived, a rewrite of the thread (remove all, then its
  // messages again: the archive is emptied under a marker keeping sealed digests), more turns.
  const { archivedId, forkPoints } = await withAgent(options, async (agent, saver) => {
    for (const text of TURNS.slice(0, 12)) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect((await saver.archivedMessages(THREAD)).length).toBeGreaterThan(0);
    const hot = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    await agent.graph.updateState(config, { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...hot] });
    for (const text of TURNS.slice(12)) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    const archived = await saver.archivedMessages(THREAD);
    expect(archived.length).toBeGreaterThan(0);
    const states = [];
    for await (const snapshot of agent.graph.getStateHistory(config)) states.push(snapshot);
    // Checkpoints sealed with k1 to fork from later, newest first (the head's parent on).
    return { archivedId: archived[0]?.id as string, forkPoints: states.slice(1, 8).map((state) => state.config) };
  });
  expect(await markerKid(options)).toBe("k1");
  rotateKeyring(keyring, { kid: "k2" });
  await withAgent(options, async (agent) => {
    // An archived message edited by id: refused, nothing stored.
    const head = (await agent.graph.getState(config)).config.configurable?.checkpoint_id;
    const edit = await agent.graph.updateState(config, { messages: [new AIMessage({ id: archivedId, content: "고친 edited" })] }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(ThreadwiseArchivedMessageError.find(edit)?.reason).toBe("archived-edit");
    expect((await agent.graph.getState(config)).config.configurable?.checkpoint_id).toBe(head);
    // A fork from a checkpoint sealed with k1 runs, on its own branch: the newest one after the
    // last archiving (an older one is refused archived-fork, as documented, and stores nothing).
    let forked: BaseMessage[] | undefined;
    for (const point of forkPoints) {
      const outcome = await agent.invoke({ messages: [new HumanMessage("갈래 fork: where were we?")] }, point as never).then(
        (result) => result.messages as BaseMessage[],
        (error: unknown) => error,
      );
      if (Array.isArray(outcome)) {
        forked = outcome;
        break;
      }
      expect(ThreadwiseArchivedMessageError.find(outcome)?.reason, String(outcome)).toBe("archived-fork");
    }
    expect(messageText(forked?.at(-1) as BaseMessage)).toMatch(/^답 answer/);
    // Back on the newest branch, under k2.
    await agent.invoke({ messages: [new HumanMessage("Back to the newest branch. 최신으로.")] }, config);
  });
  const before = await everything(options);
  expect(before.history.length).toBeGreaterThan(TURNS.length);
  expect(before.thread.at(-2)).toBe("Back to the newest branch. 최신으로.");

  // k1 removed before re-encryption: a typed error naming it, no partial thread.
  const withoutK1 = join(dir, `without-k1-${target[0]}.json`);
  copyFileSync(keyring, withoutK1);
  retireKey(withoutK1, "k1");
  const refused = await everything({ ...options, keyringPath: withoutK1 }).then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(ThreadwiseDecryptionError);
  expect((refused as ThreadwiseDecryptionError).problem).toBe("unknown-kid");
  expect(String((refused as Error).message)).toContain('"k1"');

  // Re-encrypt, retire k1: everything reads as before.
  const applied = await cliRun(["keyring", "reencrypt", "--keyring", keyring, ...target]);
  expect(applied.code, applied.stderr).toBe(0);
  expect(await markerKid(options)).toBe("k2");
  retireKey(keyring, "k1");
  expect(await everything(options)).toEqual(before);
  // And the thread goes on (summarize reads the marker's digests at its coverage checks).
  const after = await withAgent(options, async (agent) =>
    agent.invoke({ messages: [new HumanMessage("Still here? 아직 있어요?")] }, config),
  );
  expect(messageText(after.messages.at(-1) as BaseMessage)).toMatch(/^답 answer/);
}

describe("rotation with edits, forks and a rewrite: SQLite", () => {
  it("archived edit refused, k1 fork runs, history reads across kids; reencrypt then retire keeps all (en/ko)", async () => {
    const sqlitePath = join(dir, "memory.sqlite");
    const keyring = join(dir, "keyring.json");
    createKeyring(keyring, { kid: "k1" });
    await rotationWithEdits(stackOptions({ backend: "sqlite", sqlitePath, keyringPath: keyring }), keyring, ["--sqlite", sqlitePath]);
  }, 180_000);
});

describe.skipIf(skipUnlessRealPostgres("rotation with edits on PostgreSQL"))("rotation with edits, forks and a rewrite: PostgreSQL", () => {
  it("archived edit refused, k1 fork runs, history reads across kids; reencrypt then retire keeps all (en/ko)", async () => {
    const db = await freshDatabase("twb61brot");
    try {
      await migrate({ dsn: db.url });
      const keyring = join(dir, "pg-keyring.json");
      createKeyring(keyring, { kid: "k1" });
      await rotationWithEdits(stackOptions({ backend: "postgres", postgresDsn: db.url, keyringPath: keyring }), keyring, ["--dsn", db.url]);
    } finally {
      await db.drop();
    }
  }, 300_000);
});
