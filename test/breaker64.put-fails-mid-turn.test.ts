/**
 * A checkpoint write failing in the middle of a tool turn (session 64's breaker, gap (a) of its
 * brief). Under LangGraph's default `durability: "async"` a step's `put` runs while the next step
 * does: the run goes on (its model and tool calls may still be made, and `stream` shows their chunks)
 * until LangGraph waits for its puts at the end and rejects with the write's error; the puts after the
 * failed one are chained to it, so none of them is stored. Under `"sync"` each step waits for its put.
 *
 * Here the memory stack's SQLite saver's inner `put` fails at the k-th write of the turn "PARALLEL 2"
 * (its input, each step: turn admission, the model's two calls, the tools' results, the answer),
 * under both durabilities, English and Korean. What a caller sees, and what must hold:
 * - the run rejects with the storage error itself (or LangGraph's `AggregateError` of the step's
 *   failed tasks holding it: each call after the failure is refused with the run's refusal, the
 *   same error);
 * - `getState` right after it equals what a fresh process reads from the file, message ids
 *   included (nothing newer held in memory, nothing the store lacks), and read again it is the
 *   same; under async, what it holds was there before or was streamed (the stream may show more;
 *   under sync a step whose put failed is read but was never streamed);
 * - the next turn is admitted at once (the failed run's lease ends with it) and every request of it
 *   passes the strict provider validator (no unanswered call, no orphan result, alternation);
 * - nothing is stored twice (message ids unique), the failed turn's user message at most once, and
 *   the next turn ends with its answer.
 * What is lost is what was not stored: the steps after the failed write (a tool may have run; sent
 * again, the turn can run it again). That is LangGraph's, documented here, not changed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { type ReportGraph, stackAgent } from "./support/report-agent.js";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const TEXT = {
  en: { first: "hello there", next: "and then what?" },
  ko: { first: "안녕하세요", next: "그 다음은요?" },
} as const;

interface FailingInner {
  put: (...args: unknown[]) => Promise<unknown>;
}

/** The stack's inner saver's `put` fails with `failure` at its `at`-th call once `arm()` is called. */
function failPutAt(inner: FailingInner, at: number, failure: Error) {
  const put = inner.put.bind(inner);
  let armed = false;
  let count = 0;
  inner.put = async (...args: unknown[]) => {
    if (armed && ++count === at) throw failure;
    return put(...args);
  };
  return {
    arm: () => {
      armed = true;
    },
    disarm: () => {
      armed = false;
    },
    count: () => count,
  };
}

const ids = (messages: readonly BaseMessage[]) => messages.map((m) => m.id);
/** The messages of `agent`'s state at `config`. */
const messagesOf = async (agent: unknown, config: object) =>
  ((await (agent as ReportGraph).getState(config)).values.messages ?? []) as BaseMessage[];
/** `error` is the store's failure, or holds it (LangGraph's `AggregateError`, a `cause`). */
const holds = (error: unknown, failure: Error): boolean =>
  error instanceof Error &&
  (error === failure ||
    error.message === failure.message ||
    (error instanceof AggregateError && error.errors.some((e) => holds(e, failure))) ||
    holds(error.cause, failure));

describe.each(["async", "sync"] as const)("a checkpoint write failing mid-turn (durability %s)", (durability) => {
  for (const language of ["en", "ko"] as const) {
    for (const at of [1, 2, 3, 4, 5, 6]) {
      it(`write ${at} of a tool turn fails: typed as the store's error, read back as stored, the next turn clean (${language})`, async () => {
        const dir = mkdtempSync(join(tmpdir(), "tw-b64-put-"));
        dirs.push(dir);
        const sqlitePath = join(dir, "memory.db");
        const { agent, stack } = stackAgent({ backend: "sqlite", sqlitePath });
        const config = { configurable: { thread_id: `put-${at}` }, durability };
        await agent.invoke({ messages: [new HumanMessage({ id: "u1", content: TEXT[language].first })] }, config);

        const before = ids(await messagesOf(agent, config));
        const failure = new Error(`disk full at write ${at}`);
        const fault = failPutAt(stack.checkpointer?.inner as unknown as FailingInner, at, failure);
        fault.arm();
        const streamed: BaseMessage[][] = [];
        let thrown: unknown;
        try {
          const stream = await agent.stream(
            { messages: [new HumanMessage({ id: "u2", content: "PARALLEL 2" })] },
            { ...config, streamMode: "values" },
          );
          for await (const chunk of stream) streamed.push((chunk as { messages: BaseMessage[] }).messages);
        } catch (error) {
          thrown = error;
        }
        fault.disarm();
        expect(fault.count()).toBeGreaterThanOrEqual(at);

        // What this process reads right after the error is what a fresh one reads from the file.
        const after = await messagesOf(agent, config);
        const fresh = stackAgent({ backend: "sqlite", sqlitePath });
        const read = await messagesOf(fresh.agent, config);
        expect(holds(thrown, failure)).toBe(true);
        // Ids included: a result written by a step whose checkpoint was not stored is read from its
        // pending write; stored without an id, it had a new random one at each read.
        expect(ids(after)).toEqual(ids(read));
        const again = await messagesOf(agent, config);
        expect(ids(again)).toEqual(ids(after));
        // Under async what is read was there before the turn or was streamed (the stream may show
        // more: steps not stored). Under sync a step's chunk comes after its put, so a step whose own
        // put failed is read (from its pending writes) and was never streamed.
        const shown = new Set([...before, ...streamed.flatMap(ids)]);
        if (durability === "async") expect(ids(after).filter((id) => !shown.has(id))).toEqual([]);

        // The next turn, in the fresh process: admitted at once, every request valid (strictModel refuses otherwise).
        const calls = fresh.model.calls.length;
        await fresh.agent.invoke({ messages: [new HumanMessage({ id: "u3", content: TEXT[language].next })] }, config);
        expect(fresh.model.calls.length).toBeGreaterThan(calls);
        const thread = await messagesOf(fresh.agent, config);
        expect(new Set(ids(thread)).size).toBe(thread.length);
        expect(ids(thread).filter((id) => id === "u2").length).toBeLessThanOrEqual(1);
        expect(ids(thread).filter((id) => id === "u3")).toEqual(["u3"]);
        expect(thread.at(-1)?.getType()).toBe("ai");
        expect((thread.at(-1) as { tool_calls?: unknown[] }).tool_calls ?? []).toEqual([]);
      });
    }
  }
});
