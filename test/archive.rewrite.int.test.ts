/**
 * A rewrite of an archived thread (issue 27, R2 of the breaker's report): `REMOVE_ALL_MESSAGES`
 * followed by the kept messages (a caller's input, `updateState`, LangChain's
 * `summarizationMiddleware`, and `persistTrim`, which writes its trim this way) empties the
 * archive in the transaction of the checkpoint the rewrite produces, so the thread read back is
 * what the rewrite kept, as in a run without the archive. Was: the archived messages stayed and
 * were read back before the kept ones. On every backend, a second saver on the same store (a
 * replica, whose cached archive predates the rewrite) reads the same; archiving goes on afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, RemoveMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import { scriptedModel } from "@threadwise/core/testing";
import {
  type MemoryConfigInput,
  memoryStack,
  messageArchive,
  migrate,
  ThreadwiseSaver as Saver,
  ThreadwiseArchivedMessageError,
  ThreadwiseConcurrentTurnError,
  type ThreadwiseSaver,
  turnAdmission,
} from "@threadwise/memory";
import { persistTrim } from "@threadwise/persist-trim";
import { coveredDigestsOf } from "@threadwise/summarize";
import { createAgent, createMiddleware } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshDatabase, isPglite, testPoolMax } from "./support/postgres.js";

const ids = (messages: readonly BaseMessage[]) => messages.map((m) => String(m.id));
const dir = mkdtempSync(join(tmpdir(), "tw-rewrite-"));
let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase("twrw");
  await migrate({ dsn: db.url, schema: db.schema });
});
afterAll(async () => {
  await db.drop();
  rmSync(dir, { recursive: true, force: true });
});

let threads = 0;
type Backend = "in_memory" | "sqlite" | "postgres";

function backendOptions(backend: Backend, file: string): Partial<MemoryConfigInput> {
  if (backend === "sqlite") return { backend, sqlitePath: file };
  if (backend === "postgres")
    return { backend, postgresDsn: db.url, postgresSchema: db.schema, pgPoolMax: testPoolMax(), allowPlaintext: true };
  return { backend };
}

/** An agent archiving all but two groups in batches of two, on `saver`, and one without the archive (another agent) on the same saver. */
function agents(saver: ThreadwiseSaver, otherMiddleware: ReturnType<typeof persistTrim>[] = []) {
  const model = scriptedModel(
    (_messages, call) => new AIMessage({ id: `a${call}-${Math.random().toString(36).slice(2, 6)}`, content: `answer ${call}` }),
  );
  const archiving = createAgent({
    model,
    checkpointer: saver,
    middleware: [turnAdmission(saver), messageArchive(saver, { keepGroups: 2, batchMessages: 2, logger: false })],
  });
  const other = createAgent({ model, checkpointer: saver, middleware: [turnAdmission(saver), ...otherMiddleware] });
  return { archiving, other };
}

describe.each<Backend>(["in_memory", "sqlite", "postgres"])("message archive: a rewrite empties the archive (%s)", (backend) => {
  async function setup() {
    threads += 1;
    const thread = `rw-${backend}-${threads}`;
    const config = { configurable: { thread_id: thread } };
    const options = {
      windowSize: false,
      summarize: false,
      recallMaxTokens: false,
      logger: false,
      env: {},
      ...backendOptions(backend, join(dir, `${thread}.sqlite`)),
    } as const;
    const stack = memoryStack(options as MemoryConfigInput);
    const saver = stack.checkpointer as ThreadwiseSaver;
    // A replica: another stack on the same store (in memory: the same saver).
    // (Embedded PGlite serves one connection: no second pool there.)
    const replica =
      backend === "in_memory" || (backend === "postgres" && isPglite())
        ? saver
        : (memoryStack(options as MemoryConfigInput).checkpointer as ThreadwiseSaver);
    const { archiving } = agents(saver);
    for (let k = 0; k < 6; k += 1) await archiving.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
    expect(ids(await saver.archivedMessages(thread))).toContain("u0");
    // The replica reads (and caches) the archive before the rewrite.
    expect(ids(await replica.readThread(config))).toEqual(ids(await saver.readThread(config)));
    const close = async () => {
      await saver.close();
      if (replica !== saver) await replica.close();
    };
    return { thread, config, saver, replica, archiving, close };
  }

  it("a rewrite by input (REMOVE_ALL_MESSAGES, then the newest messages) leaves what it kept; archiving goes on", async () => {
    const { thread, config, saver, replica, archiving, close } = await setup();
    try {
      const hot = ((await archiving.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
      const keep = hot.slice(-2);
      await archiving.invoke(
        { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...keep, new HumanMessage({ id: "u6", content: "u6" })] },
        config,
      );
      const rewritten = ids(await saver.readThread(config));
      // A run without the archive holds the two kept messages, u6 and its answer.
      expect(rewritten.slice(0, 3)).toEqual([...ids(keep), "u6"]);
      expect(rewritten).toHaveLength(4);
      expect(await saver.archivedMessages(thread)).toEqual([]);
      expect(ids(await replica.readThread(config))).toEqual(rewritten);
      for (let k = 7; k < 11; k += 1) await archiving.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
      const after = ids(await saver.readThread(config));
      expect(after.filter((id) => id.startsWith("u"))).toEqual([
        ...ids(keep).filter((id) => id.startsWith("u")),
        "u6",
        "u7",
        "u8",
        "u9",
        "u10",
      ]);
      expect((await saver.archivedMessages(thread)).length).toBeGreaterThan(0);
      expect(ids(await replica.readThread(config))).toEqual(after);
    } finally {
      await close();
    }
  }, 60_000);

  it("a rewrite by updateState on the head (REMOVE_ALL_MESSAGES, then the kept messages, or nothing) leaves what it kept; the next turn runs", async () => {
    const { thread, config, saver, replica, archiving, close } = await setup();
    try {
      const hot = ((await archiving.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
      const keep = hot.slice(-2);
      await archiving.graph.updateState(config, { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...keep] });
      expect(ids(await saver.readThread(config))).toEqual(ids(keep));
      expect(await saver.archivedMessages(thread)).toEqual([]);
      expect(ids(await replica.readThread(config))).toEqual(ids(keep));
      await archiving.invoke({ messages: [new HumanMessage({ id: "u6", content: "u6" })] }, config);
      expect(ids(await saver.readThread(config)).slice(0, 3)).toEqual([...ids(keep), "u6"]);
      // Everything removed: the thread reads back empty, and a turn starts it again.
      await archiving.graph.updateState(config, { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES })] });
      expect(await saver.readThread(config)).toEqual([]);
      await archiving.invoke({ messages: [new HumanMessage({ id: "u7", content: "u7" })] }, config);
      expect(ids(await saver.readThread(config))[0]).toBe("u7");
    } finally {
      await close();
    }
  }, 60_000);

  // The breaker's fuzz, seed 12 case 4 / seed 11 case 7: the rewrite's checkpoint was placed
  // against the archive it empties, so keeping nothing ("a branch with no message") or keeping an
  // archived message changed (a redaction by rewrite) was refused where a thread without the archive takes it.
  it("a rewrite by updateState on the head keeping an archived message changed, or nothing, while the archive holds messages: taken; the next turn runs", async () => {
    const { thread, config, saver, replica, archiving, close } = await setup();
    try {
      const whole = await saver.readThread(config);
      expect(ids(await saver.archivedMessages(thread))[0]).toBe("u0");
      const redacted = [new HumanMessage({ id: "u0", content: "u0 (redacted)" }), ...whole.slice(1)];
      await archiving.graph.updateState(config, { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...redacted] });
      expect((await saver.readThread(config)).map((m) => m.content)).toEqual(redacted.map((m) => m.content));
      expect(await saver.archivedMessages(thread)).toEqual([]);
      expect((await replica.readThread(config)).map((m) => m.content)).toEqual(redacted.map((m) => m.content));
      for (let k = 6; k < 9; k += 1) await archiving.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
      expect(ids(await saver.archivedMessages(thread))[0]).toBe("u0");
      expect((await saver.archivedMessages(thread))[0]?.content).toBe("u0 (redacted)");
      await archiving.graph.updateState(config, { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES })] });
      expect(await saver.readThread(config)).toEqual([]);
      expect(await saver.archivedMessages(thread)).toEqual([]);
      expect(await replica.readThread(config)).toEqual([]);
      await archiving.invoke({ messages: [new HumanMessage({ id: "u9", content: "u9" })] }, config);
      expect(ids(await saver.readThread(config))[0]).toBe("u9");
    } finally {
      await close();
    }
  }, 60_000);

  it("the rewrite's marker keeps the digests of what it emptied (summarize's coverage check); a rewrite that empties nothing keeps them; asked since a checkpoint, only a rewrite after it that emptied messages it had archived gives them", async () => {
    const { thread, config, saver, replica, close } = await setup();
    try {
      const archived = await saver.archivedMessages(thread);
      expect(await saver.archiveClearedDigests(thread)).toBeUndefined();
      // An agent without the archive: nothing is archived between the two rewrites.
      const { other, archiving } = agents(saver);
      const head = async () => (await other.graph.getState(config)).config.configurable?.checkpoint_id as string;
      const archivedAt = await head();
      const hot = ((await other.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
      await other.invoke(
        { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...hot.slice(-2), new HumanMessage({ id: "u6", content: "u6" })] },
        config,
      );
      const emptyAt = await head();
      expect(await saver.archivedMessages(thread)).toEqual([]);
      expect(await saver.archiveClearedDigests(thread)).toBe(coveredDigestsOf(archived));
      expect(await replica.archiveClearedDigests(thread)).toBe(coveredDigestsOf(archived));
      // Since a checkpoint (fact-recall's last read): only a rewrite after it that emptied messages it had archived.
      expect(await saver.archiveClearedDigests(thread, archivedAt)).toBe(coveredDigestsOf(archived));
      expect(await replica.archiveClearedDigests(thread, archivedAt)).toBe(coveredDigestsOf(archived));
      expect(await saver.archiveClearedDigests(thread, emptyAt)).toBeUndefined();
      expect(await saver.archiveClearedDigests(thread, "no-such-checkpoint")).toBe(coveredDigestsOf(archived));
      await other.invoke(
        { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ id: "u7", content: "u7" })] },
        config,
      );
      expect(ids(await saver.readThread(config))[0]).toBe("u7");
      expect(await saver.archiveClearedDigests(thread)).toBe(coveredDigestsOf(archived));
      expect(await replica.archiveClearedDigests(thread)).toBe(coveredDigestsOf(archived));
      // The second rewrite emptied an empty archive: the digests are the first's, no news after `emptyAt`.
      expect(await saver.archiveClearedDigests(thread, archivedAt)).toBe(coveredDigestsOf(archived));
      expect(await saver.archiveClearedDigests(thread, emptyAt)).toBeUndefined();
      // Archiving again: a checkpoint whose archived messages no rewrite emptied since gets none.
      for (let k = 8; k < 14; k += 1) await archiving.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
      expect((await saver.archivedMessages(thread)).length).toBeGreaterThan(0);
      expect(await saver.archiveClearedDigests(thread, await head())).toBeUndefined();
      expect(await replica.archiveClearedDigests(thread, await head())).toBeUndefined();
      expect(await saver.archiveClearedDigests(thread)).toBe(coveredDigestsOf(archived));
    } finally {
      await close();
    }
  }, 60_000);

  it("a fork from before the rewrite (its older messages were in the emptied archive) is refused archived-fork; after it, forks work", async () => {
    const { config, saver, archiving, close } = await setup();
    try {
      const history = [];
      for await (const snapshot of archiving.graph.getStateHistory(config)) history.push(snapshot);
      // The newest finished turn before the rewrite: its hot part follows archived messages.
      const before = history.find((snapshot) => snapshot.next.length === 0);
      expect(ids(((before?.values ?? {}) as { messages?: BaseMessage[] }).messages ?? [])[0]).not.toBe("u0");
      const hot = ((await archiving.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
      await archiving.invoke(
        { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...hot.slice(-2), new HumanMessage({ id: "u6", content: "u6" })] },
        config,
      );
      const rewritten = ids(await saver.readThread(config));
      // Was: accepted, and the branch read back without the messages the rewrite emptied from the archive.
      await expect(archiving.invoke({ messages: [new HumanMessage({ id: "f", content: "f" })] }, before?.config)).rejects.toSatisfy(
        (error) => ThreadwiseArchivedMessageError.find(error)?.reason === "archived-fork",
      );
      expect(ids(await saver.readThread(config))).toEqual(rewritten);
      const after = ids(await saver.readThread(config));
      const head = await archiving.graph.getState(config);
      await archiving.invoke({ messages: [new HumanMessage({ id: "g", content: "g" })] }, head.config);
      expect(ids(await saver.readThread(config)).slice(0, after.length + 1)).toEqual([...after, "g"]);
    } finally {
      await close();
    }
  }, 60_000);

  it("another agent's persistTrim (its trim is a rewrite) leaves what it kept", async () => {
    const { thread, config, saver, replica, close } = await setup();
    try {
      const { other } = agents(saver, [persistTrim({ keepGroups: 2, logger: false })]);
      await other.invoke({ messages: [new HumanMessage({ id: "u6", content: "u6" })] }, config);
      const hot = ids(((await other.graph.getState(config)).values as { messages: BaseMessage[] }).messages);
      expect(hot[0]).toBe("u6");
      expect(ids(await saver.readThread(config))).toEqual(hot);
      expect(await saver.archivedMessages(thread)).toEqual([]);
      expect(ids(await replica.readThread(config))).toEqual(hot);
    } finally {
      await close();
    }
  }, 60_000);

  it("a rewrite refused (another turn holds the thread) empties nothing", async () => {
    const { thread, config, saver, archiving, close } = await setup();
    try {
      const archived = ids(await saver.archivedMessages(thread));
      const before = ids(await saver.readThread(config));
      // Another turn inside its model call holds the thread's lease.
      let entered!: () => void;
      const inModel = new Promise<void>((resolve) => {
        entered = resolve;
      });
      let release!: () => void;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      const hold = createMiddleware({
        name: "hold",
        wrapModelCall: async (request, handler) => {
          entered();
          await held;
          return handler(request);
        },
      });
      const blocking = createAgent({
        model: scriptedModel(() => new AIMessage({ id: "slow", content: "slow" })),
        checkpointer: saver,
        middleware: [turnAdmission(saver), hold],
      });
      const turn = blocking.invoke({ messages: [new HumanMessage({ id: "h", content: "h" })] }, config);
      await inModel;
      await expect(
        archiving.invoke(
          { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), new HumanMessage({ id: "r", content: "r" })] },
          config,
        ),
      ).rejects.toSatisfy((error) => ThreadwiseConcurrentTurnError.isInstance(error));
      release();
      await turn;
      expect(ids(await saver.archivedMessages(thread))).toEqual(archived);
      expect(ids(await saver.readThread(config))).toEqual([...before, "h", "slow"]);
    } finally {
      await close();
    }
  }, 60_000);
});

describe("message archive: a read sees this process's writes still in flight", () => {
  it("the first model call after a rewrite by input reads the emptied archive although the rewrite's checkpoint commits slowly (was: the removed messages, by timing)", async () => {
    const stack = memoryStack({
      windowSize: false,
      summarize: false,
      recallMaxTokens: false,
      logger: false,
      env: {},
      backend: "in_memory",
    });
    const base = stack.checkpointer as ThreadwiseSaver;
    // A slow store: every checkpoint commit (the rewrite's emptying of the archive is one) lands 150 ms late.
    const registry = new Proxy(base.registry, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== "commitCheckpoint" || typeof value !== "function") return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          await new Promise((resolve) => setTimeout(resolve, 150));
          return value.apply(target, args);
        };
      },
    });
    const saver = new Saver(base.inner, registry);
    const seen: string[][] = [];
    const probe = createMiddleware({
      name: "test/archive-reader",
      wrapModelCall: async (request, handler) => {
        seen.push(ids(await saver.archivedMessages("slow")));
        return handler(request);
      },
    });
    const model = scriptedModel((_messages, call) => new AIMessage({ id: `a${call}`, content: `answer ${call}` }));
    const agent = createAgent({
      model,
      checkpointer: saver,
      middleware: [turnAdmission(saver), messageArchive(saver, { keepGroups: 2, batchMessages: 2, logger: false }), probe],
    });
    const config = { configurable: { thread_id: "slow" } };
    for (let k = 0; k < 6; k += 1) await agent.invoke({ messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] }, config);
    expect((await saver.archivedMessages("slow")).length).toBeGreaterThan(0);
    const hot = ((await agent.graph.getState(config)).values as { messages: BaseMessage[] }).messages;
    seen.length = 0;
    await agent.invoke(
      { messages: [new RemoveMessage({ id: REMOVE_ALL_MESSAGES }), ...hot.slice(-2), new HumanMessage({ id: "u6", content: "u6" })] },
      config,
    );
    // What the thread holds once the run is stored: the archive is empty.
    expect(await saver.archivedMessages("slow")).toEqual([]);
    // And what the run's model call read.
    expect(seen).toEqual([[]]);
    await saver.close();
  }, 60_000);
});
