/**
 * Recall and fact recall on an imported thread (archive on): a thread lives 25 turns, an early one
 * stating a fact and a locker code (en/ko); it is exported (`exportThread`) and imported into a new
 * thread with one `updateState`; both then take the same turns. Asked about the early turn, the
 * new thread's request recalls the early message and the fact exactly as the lived thread's does
 * (same recall lines, same facts block), once the import's messages were archived too; after a
 * fork of the new thread (a question run from its checkpoint one turn back) the same; an edit by id
 * of an archived message is refused typed (`ThreadwiseArchivedMessageError`, as the README says),
 * an edit of a hot one is stored and read back by a fresh stack. SQLite and PostgreSQL.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage, mapStoredMessagesToChatMessages } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import {
  exportThread,
  type MemoryStackOptions,
  memoryStack,
  migrate,
  ThreadwiseArchivedMessageError,
  type ThreadwiseSaver,
} from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { archivedStackOptions } from "./support/archived-stack.js";
import { freshDatabase } from "./support/postgres.js";

const dir = mkdtempSync(join(tmpdir(), "tw-b62b-import-recall-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FACT = "I live in Busan and my locker code is 4417. 저는 부산에 살아요. 제 사물함 번호는 4417이에요.";
const FILLER = (k: number) => (k % 2 ? `오늘 ${k}번째 날씨는 흐려요` : `Day ${k}: the weather is cloudy today`);
const QUESTION = "Where do I live and what is my locker code? 제 사물함 번호가 뭐죠?";

/** The parts of a request's system message that recall and fact recall wrote. */
function memoryBlocks(request: string): { recalled: string[]; facts: string[] } {
  const lines = request.split("\n");
  const section = (title: string) => {
    const start = lines.findIndex((line) => line.startsWith(title));
    if (start < 0) return [];
    const rest = lines.slice(start + 1);
    const end = rest.findIndex((line) => line.startsWith("[") || line.startsWith("human:"));
    return end < 0 ? rest : rest.slice(0, end);
  };
  return { recalled: section("[Recalled from earlier"), facts: section("[Known facts") };
}

async function importRecall(options: MemoryStackOptions, target: { sqlitePath?: string; dsn?: string }) {
  const requests: string[] = [];
  const model = scriptedModel((messages, k) => {
    requests.push(messages.map((m) => `${m.getType()}: ${messageText(m)}`).join("\n"));
    return `answer ${k}`;
  });
  const stack = memoryStack(options);
  const saver = stack.checkpointer as ThreadwiseSaver;
  const agent = createAgent({ model, ...stack });
  const lived = { configurable: { thread_id: "lived" } };
  const copy = { configurable: { thread_id: "imported" } };
  const ask = async (config: { configurable: Record<string, unknown> }, text = QUESTION) => {
    requests.length = 0;
    await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    return memoryBlocks(requests.at(-1) as string);
  };
  try {
    await agent.invoke({ messages: [new HumanMessage(FACT)] }, lived);
    for (let k = 0; k < 24; k += 1) await agent.invoke({ messages: [new HumanMessage(FILLER(k))] }, lived);
    expect((await saver.archivedMessages("lived")).length).toBeGreaterThan(0);
    const exported = await exportThread({ ...target, threadId: "lived", env: {} });
    await agent.graph.updateState(copy, { messages: mapStoredMessagesToChatMessages(exported.messages) });
    // The same turns on both, enough for the import's messages to be archived too.
    for (let k = 100; k < 104; k += 1)
      for (const config of [lived, copy]) await agent.invoke({ messages: [new HumanMessage(FILLER(k))] }, config);
    const archivedCopy = await saver.archivedMessages("imported");
    expect(archivedCopy.map(messageText)).toContain(FACT);

    const fromLived = await ask(lived);
    const fromCopy = await ask(copy);
    expect(fromLived.recalled.some((line) => line.includes("4417"))).toBe(true);
    expect(fromLived.facts.some((line) => line.includes("부산"))).toBe(true);
    // The early turn's lines as the lived thread recalls them (numbering and the newest turns aside: the threads' own answers differ).
    const early = (blocks: { recalled: string[] }) => blocks.recalled.filter((line) => /4417|Day 0:/.test(line));
    expect(early(fromLived).length).toBeGreaterThan(0);
    expect(early(fromCopy)).toEqual(early(fromLived));
    expect(fromCopy.facts).toEqual(fromLived.facts);

    // A fork of the imported thread: the question run from its checkpoint one turn back.
    const history: Awaited<ReturnType<typeof agent.graph.getState>>[] = [];
    for await (const snapshot of agent.graph.getStateHistory(copy)) history.push(snapshot);
    const back = history.find(
      (s) => (s.values.messages as BaseMessage[]).at(-1)?.getType() === "ai" && s.next.length === 0 && s !== history[0],
    );
    expect(back).toBeDefined();
    const forked = await ask(back?.config as { configurable: Record<string, unknown> });
    expect(early(forked)).toEqual(early(fromLived));
    expect(forked.facts).toEqual(fromLived.facts);

    // Edits by id: an archived message refused typed; a hot one stored.
    const archivedFact = archivedCopy.find((m) => messageText(m) === FACT) as BaseMessage;
    const refused = await agent.graph
      .updateState(copy, { messages: [new HumanMessage({ id: archivedFact.id, content: "My locker code is 9999." })] })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(ThreadwiseArchivedMessageError.find(refused), String(refused)).toBeDefined();
    const hot = (await agent.graph.getState(copy)).values.messages as BaseMessage[];
    const hotUser = [...hot].reverse().find((m) => m.getType() === "human") as BaseMessage;
    await agent.graph.updateState(copy, { messages: [new HumanMessage({ id: hotUser.id, content: "고친 질문 edited question" })] });
  } finally {
    await saver.close();
  }
  const fresh = memoryStack(options);
  try {
    const read = (await (fresh.checkpointer as ThreadwiseSaver).readThread(copy)).map(messageText);
    expect(read).toContain("고친 질문 edited question");
    expect(read.filter((text) => text === FACT)).toHaveLength(1);
    expect(read).not.toContain("My locker code is 9999.");
  } finally {
    await (fresh.checkpointer as ThreadwiseSaver).close();
  }
}

const recallOptions = { factsMode: "heuristic", recallMaxTokens: 300 } as const;

describe("recall and fact recall on an imported thread: SQLite", () => {
  it("the early fact recalled as in the lived thread, after a fork too; archived edit refused, hot edit stored (en/ko)", async () => {
    const sqlitePath = join(dir, "import.sqlite");
    await importRecall(archivedStackOptions({ backend: "sqlite", sqlitePath, ...recallOptions }), { sqlitePath });
  }, 180_000);
});

describe.skipIf(skipUnlessRealPostgres("recall on an imported thread on PostgreSQL"))(
  "recall and fact recall on an imported thread: PostgreSQL",
  () => {
    it("the early fact recalled as in the lived thread, after a fork too; archived edit refused, hot edit stored (en/ko)", async () => {
      const db = await freshDatabase("twb62bimp");
      try {
        await migrate({ dsn: db.url });
        await importRecall(archivedStackOptions({ backend: "postgres", postgresDsn: db.url, allowPlaintext: true, ...recallOptions }), {
          dsn: db.url,
        });
      } finally {
        await db.drop();
      }
    }, 300_000);
  },
);
