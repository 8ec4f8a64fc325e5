/**
 * The message archive keeps the thread's order when a parallel call's result is a stray inside the
 * call's span (issue 27, R37; the slow archive fuzz, seed 302 case 10). A call id of a parallel
 * call edited in place (`updateState`, as humanInTheLoop's edit does) leaves the result of the old
 * id between the call and the result it still answers; core groups the call with that result and
 * the stray as an orphan group after it. messageArchive moved the call's group and left the stray
 * hot, so the thread read back (archive, then hot) had the two results swapped against a run
 * without the archive, at the head and at every later checkpoint, and in a fresh process.
 *
 * Each backend runs the same turns twice on a ThreadwiseSaver: with `messageArchive` and without
 * (the control). Every request the model receives, the thread read back at every checkpoint of the
 * history (`readThread` with its `checkpoint_id`), and what a fresh saver on the same store reads
 * (SQLite, PostgreSQL) equal the control's. English and Korean text.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack, messageArchive, migrate, type ThreadwiseSaver, turnAdmission } from "@threadwise/memory";
import { windowTrim } from "@threadwise/window-trim";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { freshDatabase, testPoolMax } from "./support/postgres.js";

const THREAD = "stray-result";
const config = { configurable: { thread_id: THREAD } };
const dir = mkdtempSync(join(tmpdir(), "threadwise-archive-stray-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lookup = tool(async ({ q }: { q: string }) => `lookup ${q}: ok`, {
  name: "lookup",
  description: "Looks things up.",
  schema: z.object({ q: z.string() }),
});

/** A message as two runs are compared: type, id (a tool result's call id: ToolNode draws its ids per run), text, tool calls. */
function shapeOf(message: BaseMessage): string {
  const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []).map((c) => [c.id, c.name, c.args]) : [];
  const id = ToolMessage.isInstance(message) ? `tool:${message.tool_call_id}` : message.id;
  return JSON.stringify([message.getType(), id, message.content, calls]);
}

const TURNS = [
  "저는 서울에 살아요. Where do I live, and what's the weather?",
  "I moved to Busan last month.",
  "부산으로 이사했어요. 날씨는 어때요?",
  "That sounds good, thank you.",
  "고마워요!",
];

type Options = { backend: "in_memory" } | { backend: "sqlite"; sqlitePath: string } | Record<string, unknown>;

/**
 * One run: turn 0 makes a parallel call (two results), its first call id is then edited in place
 * (its result becomes a stray between the call and the other result), and four more turns follow.
 * With `archive`, messageArchive keeps 3 groups hot and moves batches of 2 or more messages.
 */
async function run(storage: Options, archive: boolean) {
  const stack = memoryStack({ ...storage, windowSize: false, summarize: false, recallMaxTokens: false, logger: false, env: {} } as never);
  const saver = stack.checkpointer as ThreadwiseSaver;
  const requests: string[][] = [];
  const model = scriptedModel((messages, call) => {
    requests.push(messages.map(shapeOf));
    const last = messages.at(-1);
    if (call === 0)
      return new AIMessage({
        id: "a0-0",
        content: "",
        tool_calls: [
          { id: "call_3", name: "lookup", args: { q: "서울" }, type: "tool_call" },
          { id: "call_1", name: "lookup", args: { q: "weather" }, type: "tool_call" },
        ],
      });
    if (last && ToolMessage.isInstance(last)) return new AIMessage({ id: `a${call}-final`, content: "You live in Seoul; 맑아요." });
    return new AIMessage({ id: `a${call}`, content: `answer ${call}: ${String(last?.content).slice(0, 12)}` });
  });
  const middleware = [turnAdmission(saver), windowTrim({ maxMessages: 3, eviction: "sliding", logger: false })];
  if (archive) middleware.push(messageArchive(saver, { keepGroups: 3, batchMessages: 2, logger: false }) as never);
  const agent = createAgent({ model, tools: [lookup], checkpointer: saver, middleware });
  const turn = (k: number) => agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: TURNS[k] as string })] }, config);
  await turn(0);
  // The parallel call's first call id edited in place: call_3's result is a stray now.
  const stored = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
  const call = stored.find((m) => m.id === "a0-0") as AIMessage;
  const renamed = (call.tool_calls ?? []).map((c, i) => ({ ...c, id: i === 0 ? "call_edit0" : c.id, type: "tool_call" as const }));
  await agent.graph.updateState(config, { messages: [new AIMessage({ id: "a0-0", content: "", tool_calls: renamed })] });
  for (let k = 1; k < TURNS.length; k += 1) await turn(k);
  const checkpoints: string[] = [];
  for await (const snapshot of agent.graph.getStateHistory(config)) checkpoints.push(snapshot.config.configurable?.checkpoint_id as string);
  /** The thread read back by `reader` at the head and at every checkpoint (by position in the history, newest first). */
  const threads = async (reader: ThreadwiseSaver) => ({
    head: (await reader.readThread(config)).map(shapeOf),
    history: await Promise.all(
      checkpoints.map(async (id) => (await reader.readThread({ configurable: { thread_id: THREAD, checkpoint_id: id } })).map(shapeOf)),
    ),
  });
  return { saver, requests, threads, archived: (await saver.archivedMessages(THREAD)).length };
}

async function compare(archiveStorage: Options, controlStorage: Options, fresh?: () => ThreadwiseSaver) {
  const control = await run(controlStorage, false);
  const archived = await run(archiveStorage, true);
  try {
    // Messages did move, past the stray (before the fix, the call's group left without it).
    expect(archived.archived).toBeGreaterThanOrEqual(5);
    expect(archived.requests).toEqual(control.requests);
    const want = await control.threads(control.saver);
    // The control's thread holds the stray between the call and the other result.
    expect(want.head.slice(1, 4).map((shape) => JSON.parse(shape)[1])).toEqual(["a0-0", "tool:call_3", "tool:call_1"]);
    expect(await archived.threads(archived.saver)).toEqual(want);
    if (fresh) {
      const reader = fresh();
      try {
        expect(await archived.threads(reader)).toEqual(want);
      } finally {
        await reader.close();
      }
    }
  } finally {
    await archived.saver.close();
    await control.saver.close();
  }
}

const quiet = { windowSize: false, summarize: false, recallMaxTokens: false, logger: false, env: {} } as const;

describe("message archive: a stray result inside a parallel call's span keeps its place", () => {
  it("in_memory: every request and the thread at every checkpoint equal a run without the archive", async () => {
    await compare({ backend: "in_memory" }, { backend: "in_memory" });
  });

  it("sqlite: the same, and a fresh process reads the same threads", async () => {
    const sqlitePath = join(dir, "archive.sqlite");
    await compare(
      { backend: "sqlite", sqlitePath },
      { backend: "sqlite", sqlitePath: join(dir, "control.sqlite") },
      () => memoryStack({ ...quiet, backend: "sqlite", sqlitePath }).checkpointer as ThreadwiseSaver,
    );
  });

  describe("postgres", () => {
    let db: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      db = await freshDatabase("twstray");
      await migrate({ dsn: db.url, schema: db.schema });
    });
    afterAll(async () => db.drop());

    it("postgres: the same, and a fresh process reads the same threads", async () => {
      const pgOptions = {
        backend: "postgres" as const,
        postgresDsn: db.url,
        postgresSchema: db.schema,
        pgPoolMax: testPoolMax(),
        allowPlaintext: true,
      };
      // The control on its own thread store (in memory): the thread id is the same.
      await compare(pgOptions, { backend: "in_memory" }, () => memoryStack({ ...quiet, ...pgOptions }).checkpointer as ThreadwiseSaver);
    }, 120_000);
  });
});
