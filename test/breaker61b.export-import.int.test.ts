/**
 * Export, then import into a new thread (brief: operations meet): a sealed thread with tool calls,
 * summarized and partly archived (`memoryStack({ archive: true })`), with one message edited in
 * place by id, is exported (`exportThread` with its keyring) and imported into a new thread with
 * one `updateState` of the exported messages (`mapStoredMessagesToChatMessages`). Checked in a
 * fresh stack: the new thread reads back the same messages in order (types, ids, texts, tool
 * calls, each tool result right after its call), a turn on it runs and the model gets every tool
 * call with its result; its records are sealed for the NEW thread: an archived row of the old
 * thread copied byte for byte over the new thread's row of the same message id is refused
 * (`ThreadwiseDecryptionError`, `authentication-failed`), never read as the old thread's text.
 * SQLite and PostgreSQL (a real server; required in CI), English and Korean text.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, mapStoredMessagesToChatMessages, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createKeyring, ThreadwiseDecryptionError } from "@threadwise/encryption";
import { exportThread, type MemoryStackOptions, memoryStack, migrate, type ThreadwiseSaver } from "@threadwise/memory";
import Database from "better-sqlite3";
import { createAgent } from "langchain";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { archivedStackOptions } from "./support/archived-stack.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-b61b-export-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const weather = tool(async ({ city }: { city: string }) => `${city}: 맑음 sunny`, {
  name: "weather",
  description: "Weather of a city.",
  schema: z.object({ city: z.string() }),
});

const TURNS = [
  "My name is Ada and I live in Busan.",
  "부산 날씨 어때요? weather please",
  "제 이름은 에이다예요.",
  "What's the weather in Seoul?",
  "Tell me about trains.",
  "기차 얘기 해 주세요.",
  "서울 날씨는요? weather again",
  "Thanks, that is all.",
  "고마워요.",
  "One more: weather in Jeju?",
];

/** Turns on the imported thread: enough for its archive to take some of the imported messages. */
const NEXT = ["Where do I live? 제가 어디 살죠?", "What is my name?", "제 이름이 뭐예요?", "Good night.", "잘 자요."];

/** Answers with a weather call when the newest user text asks for weather, else with text naming it. */
function model() {
  return scriptedModel((messages, call) => {
    const last = messages.at(-1);
    if (last && ToolMessage.isInstance(last)) return new AIMessage({ content: `날씨 답 weather answer ${call}: ${messageText(last)}` });
    const text = last ? messageText(last) : "";
    if (/weather|날씨/.test(text))
      return new AIMessage({
        content: "",
        tool_calls: [{ id: `call_${call}`, name: "weather", args: { city: text.slice(0, 8) }, type: "tool_call" }],
      });
    return `답 answer ${call}: ${text.slice(0, 16)}`;
  });
}

const stackOptions = archivedStackOptions;

/** A message as the two threads are compared: type, id, text, tool calls, tool result's call id. */
function shapeOf(message: BaseMessage): string {
  const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []).map((c) => [c.id, c.name, c.args]) : [];
  const result = ToolMessage.isInstance(message) ? message.tool_call_id : undefined;
  return JSON.stringify([message.getType(), message.id, messageText(message), calls, result]);
}

/** Every tool call is followed by its results, and every result follows its call. */
function pairsIntact(messages: readonly BaseMessage[]): boolean {
  for (const [i, message] of messages.entries()) {
    if (AIMessage.isInstance(message) && (message.tool_calls?.length ?? 0) > 0) {
      const next = messages[i + 1];
      if (!next || !ToolMessage.isInstance(next) || next.tool_call_id !== message.tool_calls?.[0]?.id) return false;
    }
    if (ToolMessage.isInstance(message)) {
      const before = messages[i - 1];
      if (!before || !AIMessage.isInstance(before) || !(before.tool_calls ?? []).some((c) => c.id === message.tool_call_id)) return false;
    }
  }
  return true;
}

async function withStack<T>(options: MemoryStackOptions, body: (stack: ReturnType<typeof memoryStack>) => Promise<T>): Promise<T> {
  const stack = memoryStack(options);
  try {
    return await body(stack);
  } finally {
    await (stack.checkpointer as ThreadwiseSaver).close();
  }
}

const readThread = (options: MemoryStackOptions, thread: string) =>
  withStack(options, async (stack) => (stack.checkpointer as ThreadwiseSaver).readThread({ configurable: { thread_id: thread } }));

/** Rows of the archive: read and overwrite one (the raw store, as a database user could). */
interface RawArchive {
  record(thread: string, messageId: string): Promise<string | undefined>;
  ids(thread: string): Promise<string[]>;
  overwrite(thread: string, messageId: string, record: string): Promise<void>;
}

async function exportsAndImports(
  options: MemoryStackOptions,
  target: { sqlitePath?: string; dsn?: string },
  keyring: string,
  raw: RawArchive,
) {
  const tools = { tools: [weather] };
  // The original thread: turns with tool calls, summarized, partly archived; one answer edited in place by id.
  const archivedIds = await withStack(options, async (stack) => {
    const agent = createAgent({ model: model(), ...tools, ...stack });
    const config = { configurable: { thread_id: "orig" } };
    for (const text of TURNS) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    const hot = (await agent.graph.getState(config)).values.messages as BaseMessage[];
    const edited = [...hot].reverse().find((m: BaseMessage) => AIMessage.isInstance(m) && (m.tool_calls?.length ?? 0) === 0) as AIMessage;
    await agent.graph.updateState(config, { messages: [new AIMessage({ id: edited.id, content: "고친 답 edited answer" })] });
    return (await (stack.checkpointer as ThreadwiseSaver).archivedMessages("orig")).map((m) => m.id as string);
  });
  expect(archivedIds.length).toBeGreaterThan(0);
  const original = await readThread(options, "orig");
  expect(original.map(messageText)).toContain("고친 답 edited answer");
  expect(pairsIntact(original)).toBe(true);

  const exported = await exportThread({ ...target, threadId: "orig", keyring, env: {} });
  const restored = mapStoredMessagesToChatMessages(exported.messages);
  expect(restored.map(shapeOf)).toEqual(original.map(shapeOf));

  // Import: one updateState of the exported messages into a new thread; then a turn on it.
  const seen: BaseMessage[][] = [];
  await withStack(options, async (stack) => {
    const spying = scriptedModel((messages, call) => {
      seen.push(messages);
      return `가져온 답 imported answer ${call}`;
    });
    const agent = createAgent({ model: spying, ...tools, ...stack });
    const config = { configurable: { thread_id: "copy" } };
    await agent.graph.updateState(config, { messages: restored });
    for (const text of NEXT) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
  });
  const copy = await readThread(options, "copy");
  expect(copy.slice(0, original.length).map(shapeOf)).toEqual(original.map(shapeOf));
  expect(copy.slice(original.length).map(messageText)).toEqual(NEXT.flatMap((text, k) => [text, `가져온 답 imported answer ${k}`]));
  expect(pairsIntact(copy)).toBe(true);
  expect(seen.length).toBeGreaterThan(0);
  for (const request of seen) expect(pairsIntact(request.filter((m) => m.getType() !== "system"))).toBe(true);

  // The new thread's archive is sealed for it: the old thread's row of the same message id,
  // copied byte for byte over it, is refused, never read.
  const copyArchived = await raw.ids("copy");
  const shared = copyArchived.find((id) => archivedIds.includes(id));
  expect(shared, "the copy archived a message the original archived too").toBeDefined();
  const stolen = (await raw.record("orig", shared as string)) as string;
  expect(stolen).not.toBe(await raw.record("copy", shared as string));
  await raw.overwrite("copy", shared as string, stolen);
  const refused = await readThread(options, "copy").then(
    () => undefined,
    (error: unknown) => error,
  );
  expect(refused).toBeInstanceOf(ThreadwiseDecryptionError);
  expect((refused as ThreadwiseDecryptionError).problem).toBe("authentication-failed");
}

describe("export, then import into a new thread: SQLite", () => {
  it("same messages and tool pairs; the new thread's archived rows are bound to it (en/ko)", async () => {
    const sqlitePath = join(dir, "memory.sqlite");
    const keyring = join(dir, "keyring.json");
    createKeyring(keyring, { kid: "k1" });
    const db = () => new Database(sqlitePath);
    const raw: RawArchive = {
      record: async (thread, id) => {
        const h = db();
        try {
          return (
            h.prepare("SELECT record FROM threadwise_archive WHERE thread_id = ? AND message_id = ?").get(thread, id) as
              | { record: string }
              | undefined
          )?.record;
        } finally {
          h.close();
        }
      },
      ids: async (thread) => {
        const h = db();
        try {
          return (
            h.prepare("SELECT message_id FROM threadwise_archive WHERE thread_id = ? ORDER BY seq").all(thread) as Array<{
              message_id: string;
            }>
          ).map((r) => r.message_id);
        } finally {
          h.close();
        }
      },
      overwrite: async (thread, id, record) => {
        const h = db();
        try {
          h.prepare("UPDATE threadwise_archive SET record = ? WHERE thread_id = ? AND message_id = ?").run(record, thread, id);
        } finally {
          h.close();
        }
      },
    };
    await exportsAndImports(stackOptions({ backend: "sqlite", sqlitePath, keyringPath: keyring }), { sqlitePath }, keyring, raw);
  }, 120_000);
});

describe.skipIf(skipUnlessRealPostgres("export and import on PostgreSQL"))("export, then import into a new thread: PostgreSQL", () => {
  it("same messages and tool pairs; the new thread's archived rows are bound to it (en/ko)", async () => {
    const db = await freshDatabase("twb61bexp");
    const pool = new pg.Pool({ connectionString: db.url, max: 1 });
    try {
      await migrate({ dsn: db.url });
      const keyring = join(dir, "pg-keyring.json");
      createKeyring(keyring, { kid: "k1" });
      const raw: RawArchive = {
        record: async (thread, id) =>
          (
            await pool.query<{ record: string }>("SELECT record FROM threadwise_archive WHERE thread_id = $1 AND message_id = $2", [
              thread,
              id,
            ])
          ).rows[0]?.record,
        ids: async (thread) =>
          (
            await pool.query<{ message_id: string }>("SELECT message_id FROM threadwise_archive WHERE thread_id = $1 ORDER BY seq", [
              thread,
            ])
          ).rows.map((r) => r.message_id),
        overwrite: async (thread, id, record) => {
          await pool.query("UPDATE threadwise_archive SET record = $1 WHERE thread_id = $2 AND message_id = $3", [record, thread, id]);
        },
      };
      await exportsAndImports(
        stackOptions({ backend: "postgres", postgresDsn: db.url, keyringPath: keyring }),
        { dsn: db.url },
        keyring,
        raw,
      );
    } finally {
      await pool.end();
      await db.drop();
    }
  }, 300_000);
});
