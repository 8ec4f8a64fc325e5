/**
 * A run that names a `configurable.checkpoint_id` its thread does not hold (a typo, an id of
 * another thread, a thread with no checkpoint yet) is refused by `turnAdmission` with a
 * `ThreadwiseConfigError` naming `configurable.checkpoint_id`, before any model call, storing
 * nothing. LangGraph's own loop finds no checkpoint (`getTuple` gives `undefined`), starts from an
 * empty state and stores it as the thread's head, so `getState` showed only the new turn (was).
 * A fork from an id the thread holds still runs (`test/time-travel*`). Runs on memoryStack's
 * in_memory, SQLite and (with a real server) PostgreSQL backends, English and Korean turns.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BaseMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { ThreadwiseConfigError } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { type MemoryStackOptions, memoryStack, migrate } from "@threadwise/memory";
import { createAgent } from "langchain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skipUnlessRealPostgres } from "./fixtures/memory-postgres.js";
import { freshDatabase } from "./support/postgres.js";

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const user = (content: string) => ({ messages: [{ role: "user", content }] });

const LANGUAGES = {
  english: ["first question", "second question", "third question", "fork of the first"],
  korean: ["첫 번째 질문입니다", "두 번째 질문입니다", "세 번째 질문입니다", "첫 질문에서 갈라진 질문"],
} as const;

/** A stack's agent whose fake model counts its calls. */
function counted(options: MemoryStackOptions) {
  const calls = { n: 0 };
  const model = scriptedModel((messages) => {
    calls.n += 1;
    return `answer to ${text(messages[messages.length - 1] as BaseMessage)}`;
  });
  const stack = memoryStack({ windowSize: false, env: {}, ...options });
  return { agent: createAgent({ model, tools: [], ...stack }), calls, close: () => stack.checkpointer?.close?.() };
}

type Counted = ReturnType<typeof counted>;

async function headOf(agent: Counted["agent"], thread: string) {
  const state = await agent.graph.getState({ configurable: { thread_id: thread } });
  return {
    id: state.config.configurable?.checkpoint_id as string | undefined,
    messages: ((state.values as { messages?: BaseMessage[] }).messages ?? []).map(text),
  };
}

async function historyIds(agent: Counted["agent"], thread: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of agent.graph.getStateHistory({ configurable: { thread_id: thread } }))
    ids.push(String(s.config.configurable?.checkpoint_id));
  return ids;
}

async function refusal(run: Promise<unknown>): Promise<ThreadwiseConfigError> {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  const found = ThreadwiseConfigError.find(error);
  if (!found) throw new Error(`expected a ThreadwiseConfigError, got ${String(error)}`);
  return found;
}

function suite(open: (name: string) => Counted) {
  for (const [language, [q1, q2, q3, fork]] of Object.entries(LANGUAGES)) {
    it(`${language}: an unknown checkpoint_id is refused before any model call; head and history unchanged`, async () => {
      const stack = open(`unknown-${language}`);
      try {
        const { agent, calls } = stack;
        const thread = `t-${language}`;
        await agent.invoke(user(q1), { configurable: { thread_id: thread } });
        await agent.invoke(user(q2), { configurable: { thread_id: thread } });
        const head = await headOf(agent, thread);
        const history = await historyIds(agent, thread);
        const before = calls.n;
        expect(before).toBe(2);

        const typo = { configurable: { thread_id: thread, checkpoint_id: "1f0-typo" } };
        for (const input of [user(q3), new Command({ update: user(q3) }), new Command({ resume: q3 })]) {
          const error = await refusal(agent.invoke(input, typo));
          expect(error.option).toBe("configurable.checkpoint_id");
          expect(error.message).toContain('no checkpoint "1f0-typo"');
        }
        // `updateState` from the unknown id: refused too, instead of a head holding only the update.
        expect((await refusal(agent.graph.updateState(typo, user(q3)))).option).toBe("configurable.checkpoint_id");
        // A replay (`invoke(null)`) from it: LangGraph's own EmptyInputError (empty state, no input), before any put.
        await expect(agent.invoke(null, typo)).rejects.toThrow(/no input/i);
        expect(calls.n).toBe(before);
        expect(await headOf(agent, thread)).toEqual(head);
        expect(head.messages).toEqual([q1, `answer to ${q1}`, q2, `answer to ${q2}`]);
        expect(await historyIds(agent, thread)).toEqual(history);

        // An id of another thread is unknown here too.
        await agent.invoke(user(q1), { configurable: { thread_id: `${thread}-other` } });
        const other = (await headOf(agent, `${thread}-other`)).id;
        const callsBefore = calls.n;
        await refusal(agent.invoke(user(q3), { configurable: { thread_id: thread, checkpoint_id: other } }));
        expect(calls.n).toBe(callsBefore);
        expect(await historyIds(agent, thread)).toEqual(history);

        // The next turn continues from the unchanged head.
        await agent.invoke(user(q3), { configurable: { thread_id: thread } });
        expect((await headOf(agent, thread)).messages).toEqual([q1, `answer to ${q1}`, q2, `answer to ${q2}`, q3, `answer to ${q3}`]);

        // A fork from a checkpoint the thread holds (the end of turn one) still runs and becomes the head.
        const turnOne = [];
        for await (const s of agent.graph.getStateHistory({ configurable: { thread_id: thread } }))
          if (((s.values as { messages?: BaseMessage[] }).messages ?? []).length === 2 && s.next.length === 0) turnOne.push(s);
        expect(turnOne).toHaveLength(1);
        const forkFrom = turnOne[0]?.config.configurable?.checkpoint_id as string;
        await agent.invoke(user(fork), { configurable: { thread_id: thread, checkpoint_id: forkFrom } });
        expect((await headOf(agent, thread)).messages).toEqual([q1, `answer to ${q1}`, fork, `answer to ${fork}`]);
      } finally {
        await stack.close();
      }
    });
  }

  it("a thread with no checkpoint and a checkpoint_id: refused, nothing stored", async () => {
    const stack = open("unknown-empty");
    try {
      const { agent, calls } = stack;
      const error = await refusal(agent.invoke(user("hello"), { configurable: { thread_id: "empty", checkpoint_id: "1f0-none" } }));
      expect(error.option).toBe("configurable.checkpoint_id");
      expect(calls.n).toBe(0);
      expect(await historyIds(agent, "empty")).toEqual([]);
      // The thread is usable afterwards.
      await agent.invoke(user("hello"), { configurable: { thread_id: "empty" } });
      expect((await headOf(agent, "empty")).messages).toEqual(["hello", "answer to hello"]);
    } finally {
      await stack.close();
    }
  });
}

const dir = mkdtempSync(join(tmpdir(), "tw-unknown-ckpt-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("unknown checkpoint_id on memoryStack in_memory", () => {
  suite(() => counted({ backend: "in_memory" }));
});

describe("unknown checkpoint_id on memoryStack SQLite", () => {
  suite((name) => counted({ backend: "sqlite", sqlitePath: join(dir, `${name}.sqlite`) }));
});

describe.skipIf(skipUnlessRealPostgres("unknown checkpoint_id on PostgreSQL"))("unknown checkpoint_id on memoryStack PostgreSQL", () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase("twunknown");
    await migrate({ dsn: db.url, schema: db.schema });
  });
  afterAll(async () => db?.drop());
  suite(() => counted({ backend: "postgres", postgresDsn: db.url, postgresSchema: db.schema, allowPlaintext: true }));
});
