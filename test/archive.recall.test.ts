/**
 * recall with the message archive (issue 27) reads, at each model call, only what the archive
 * gained since the last one (`ThreadwiseSaver.archivedChanges`, recall's `ArchiveMirror`). A cache
 * must never change an answer: at every model call of a long-lived stack, the request recall hands
 * on is the one a fresh process computes from stored state (a new saver on the same SQLite file,
 * a new recall reading the whole archive), across archivings, another process's turns on the same
 * thread, a rewrite that empties the archive, a fork, and a deleted thread's messages imported
 * again under the same ids.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage, type SystemMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import { messageText } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import {
  type MemoryStackOptions,
  memoryStack,
  SqliteThreadRegistry,
  ThreadwiseArchivedMessageError,
  ThreadwiseSaver,
} from "@threadwise/memory";
import { RECALL_MIDDLEWARE_NAME, recall } from "@threadwise/recall";
import Database from "better-sqlite3";
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain";
import { afterAll, describe, expect, it } from "vitest";

const dir = mkdtempSync(join(tmpdir(), "tw-archive-recall-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RECALL_TOKENS = 300;
const WINDOW = 4;

interface Request {
  messages: BaseMessage[];
  systemMessage: SystemMessage;
  [key: string]: unknown;
}
const requestShape = (request: Request) => [request.systemMessage.text, ...request.messages.map((m) => `${m.id}|${messageText(m)}`)];

describe("recall with the archive: every model call as a fresh process computes it", () => {
  it("across archivings, another process's turns, a rewrite, a fork, and a deleted thread imported again", async () => {
    const path = join(dir, "recall.sqlite");
    const options: MemoryStackOptions = {
      backend: "sqlite",
      sqlitePath: path,
      archive: true,
      windowSize: WINDOW,
      summarizeThreshold: 2 * WINDOW,
      recallMaxTokens: RECALL_TOKENS,
      promptContextMode: "legacy_system",
      models: { summarize: scriptedModel(() => "s", { strict: false }) },
      logger: false,
      env: {},
    };
    let compared = 0;
    let recalledArchived = 0;
    /**
     * The oracle: a new recall reading the whole archive through a new saver (empty caches, as a
     * new process) on its own connection to the file, on the request recall got.
     */
    const db = new Database(path);
    const registry = new SqliteThreadRegistry(db);
    const inner = new SqliteSaver(db);
    const freshly = async (request: Request): Promise<string[]> => {
      const saver = new ThreadwiseSaver(inner, registry);
      const oracle = recall({
        maxTokens: RECALL_TOKENS,
        facts: false,
        promptContextMode: "legacy_system",
        archived: (threadId, o) => saver.archivedMessages(threadId, o),
        logger: false,
      });
      let out: Request | undefined;
      // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
      await (oracle.wrapModelCall as any)(request, async (r: Request) => {
        out = r;
        return new AIMessage("ok");
      });
      return requestShape(out as Request);
    };
    /** A stack (a process) on the file whose recall is checked against the oracle at every model call. */
    const openProcess = () => {
      const stack = memoryStack(options);
      const saver = stack.checkpointer as ThreadwiseSaver;
      const reads = { appended: 0, whole: 0 };
      const read = saver.archivedChanges.bind(saver);
      saver.archivedChanges = async (threadId, since) => {
        const changes = await read(threadId, since);
        reads[changes.appended ? "appended" : "whole"] += 1;
        return changes;
      };
      let into: Request | undefined;
      const before = createMiddleware({
        name: "test/before-recall",
        wrapModelCall: (request, handler) => {
          into = request as unknown as Request;
          return handler(request);
        },
      });
      const after = createMiddleware({
        name: "test/after-recall",
        wrapModelCall: async (request, handler) => {
          const sent = requestShape(request as unknown as Request);
          const expected = await freshly(into as Request);
          expect(sent).toEqual(expected);
          compared += 1;
          if (sent[0]?.includes("locker code is 4417")) recalledArchived += 1;
          return handler(request);
        },
      });
      const middleware = [...stack.middleware] as AgentMiddleware[];
      const at = middleware.findIndex((m) => m.name === RECALL_MIDDLEWARE_NAME);
      expect(at).toBeGreaterThan(0);
      middleware.splice(at, 1, before, middleware[at] as AgentMiddleware, after);
      const model = scriptedModel(
        (_messages, call) => new AIMessage({ id: `a-${Math.random().toString(36).slice(2)}-${call}`, content: `answer ${call}` }),
      );
      const agent = createAgent({ model, middleware, checkpointer: saver });
      return { agent, saver, reads };
    };
    const userText = (k: number) =>
      k === 2 ? "my locker code is 4417" : k % 5 === 4 ? `what was my locker code again? (${k})` : `note ${k} about the garden`;
    const turn = (agent: ReturnType<typeof openProcess>["agent"], thread: string, k: number, id = `u${k}`) =>
      agent.invoke({ messages: [new HumanMessage({ id, content: userText(k) })] }, { configurable: { thread_id: thread } });

    const a = openProcess();
    const b = openProcess();
    try {
      for (let k = 0; k < 24; k += 1) await turn(a.agent, "t1", k);
      expect((await a.saver.archivedMessages("t1")).length).toBeGreaterThanOrEqual(20);
      // Another process's turns on the thread (its archivings too), then this one goes on.
      for (let k = 24; k < 32; k += 1) await turn(b.agent, "t1", k);
      for (let k = 32; k < 40; k += 1) await turn(a.agent, "t1", k);
      // Another process rewrites the thread (REMOVE_ALL_MESSAGES and the newest messages empty the
      // archive) and archives more than this one had read before this one's next call.
      const config = { configurable: { thread_id: "t1" } };
      const seenBefore = (await a.saver.archivedMessages("t1")).length;
      const hot = (await b.agent.graph.getState(config)).values.messages as BaseMessage[];
      await b.agent.invoke(
        {
          messages: [
            new RemoveMessage({ id: REMOVE_ALL_MESSAGES }),
            ...hot.slice(-2),
            new HumanMessage({ id: "u40", content: userText(2) }),
          ],
        },
        config,
      );
      expect(await b.saver.archivedMessages("t1")).toEqual([]);
      let k = 41;
      while ((await b.saver.archivedMessages("t1")).length <= seenBefore + 4) await turn(b.agent, "t1", k++);
      for (const end = k + 10; k < end; k += 1) await turn(a.agent, "t1", k);
      // A fork from the newest checkpoint a fork is allowed from (after the last archiving).
      let forked = false;
      for await (const snapshot of a.agent.graph.getStateHistory(config)) {
        if (snapshot.config.configurable?.checkpoint_id === (await a.agent.graph.getState(config)).config.configurable?.checkpoint_id)
          continue;
        try {
          await a.agent.invoke({ messages: [new HumanMessage({ id: "fork-1", content: userText(4) })] }, snapshot.config);
          forked = true;
          break;
        } catch (error) {
          if (!ThreadwiseArchivedMessageError.isInstance(error)) throw error;
        }
      }
      expect(forked).toBe(true);
      for (const end = k + 6; k < end; k += 1) await turn(a.agent, "t1", k);
      // The thread deleted; its messages imported again under the same ids, other words, on another thread.
      const before = await a.saver.readThread(config);
      await a.saver.deleteThread("t1");
      for (const [i, message] of before.slice(0, 20).entries())
        if (HumanMessage.isInstance(message))
          await a.agent.invoke(
            { messages: [new HumanMessage({ id: message.id as string, content: i === 2 ? "my locker code is 4417" : `again ${i}` })] },
            { configurable: { thread_id: "t2" } },
          );
      for (const end = k + 8; k < end; k += 1) await turn(a.agent, "t2", k);
    } finally {
      await a.saver.close();
      await b.saver.close();
      db.close();
    }
    // Every model call was compared; recall placed archived messages; the reads were mostly appended rows.
    expect(compared).toBeGreaterThan(80);
    expect(recalledArchived).toBeGreaterThan(5);
    expect(a.reads.appended).toBeGreaterThan(a.reads.whole * 3);
    expect(a.reads.whole).toBeGreaterThan(2);
  });
});
