import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { createAgent } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { ThreadwiseConcurrentTurnError } from "./concurrent-turn-error.js";
import { memoryStack } from "./memory-stack.js";
import { MAX_THREAD_ID_BYTES, normalizeThreadId, ThreadwiseThreadIdError } from "./thread-id.js";
import { withTurnRetry } from "./turn-retry.js";

const text = (m: BaseMessage) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content));
const dir = mkdtempSync(join(tmpdir(), "tw-turns-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Answers after `delayMs`, naming the newest user text and how many user turns came before it. */
class SlowModel extends BaseChatModel {
  readonly delayMs: number;
  constructor(delayMs: number) {
    super({});
    this.delayMs = delayMs;
  }
  _llmType() {
    return "slow";
  }
  override bindTools() {
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    const humans = messages.filter((m) => m.getType() === "human").map(text);
    const answer = `answer to ${humans.at(-1)} after ${humans.length - 1}`;
    return { generations: [{ text: answer, message: new AIMessage(answer) }] };
  }
}

/** Two agents (as two replicas) on one store; the model takes `delayMs` so their turns overlap. */
function replicas(backend: "in_memory" | "sqlite", delayMs = 20) {
  const stack = memoryStack({ backend, sqlitePath: join(dir, `${backend}-${Math.random()}.sqlite`), windowSize: false, env: {} });
  const model = new SlowModel(delayMs);
  // Two agents on the same checkpointer behave like two processes on one database.
  return { stack, a: createAgent({ model, ...stack }), b: createAgent({ model, ...stack }) };
}

async function stored(agent: ReturnType<typeof replicas>["a"], thread: string) {
  const state = await agent.graph.getState({ configurable: { thread_id: thread } });
  return ((state.values as { messages?: BaseMessage[] }).messages ?? []).map(text);
}

describe.each(["in_memory", "sqlite"] as const)("concurrent turns on one thread (%s)", (backend) => {
  it("refuses the turn that lost with ThreadwiseConcurrentTurnError and stores nothing of it", async () => {
    const { a, b, stack } = replicas(backend);
    const say = (agent: typeof a, words: string) =>
      agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: "t" } });
    const results = await Promise.allSettled([say(a, "from a"), say(b, "from b")]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(1);
    const reason: unknown = lost[0]?.reason;
    expect(ThreadwiseConcurrentTurnError.isInstance(reason) && reason.retryable).toBe(true);
    const thread = await stored(a, "t");
    expect(thread).toHaveLength(2);
    expect(thread[1]).toBe(`answer to ${thread[0]} after 0`);
    await stack.checkpointer?.close();
  });

  it("withTurnRetry runs the losing turn again on top of the winner", async () => {
    const { a, b, stack } = replicas(backend);
    const say = (agent: typeof a, words: string) =>
      withTurnRetry(() => agent.invoke({ messages: [new HumanMessage(words)] }, { configurable: { thread_id: "r" } }), { baseDelayMs: 5 });
    await Promise.all([say(a, "one"), say(b, "two"), say(a, "three")]);
    const thread = await stored(a, "r");
    expect(thread).toHaveLength(6);
    expect(thread.filter((_, i) => i % 2 === 0).sort()).toEqual(["one", "three", "two"]);
    for (let i = 0; i < 6; i += 2) expect(thread[i + 1]).toBe(`answer to ${thread[i]} after ${i / 2}`);
    await stack.checkpointer?.close();
  });

  it("refuses thread ids that cannot be stored, naming the limit, and stores nothing", async () => {
    const { a, stack } = replicas(backend, 0);
    const cases: Array<[unknown, string]> = [
      [4242, "type"],
      ["", "empty"],
      ["a\u0000b", "nul"],
      ["x\uD800y", "utf16"],
      ["\uDC00", "utf16"],
      ["é".repeat(MAX_THREAD_ID_BYTES / 2 + 1), "length"],
    ];
    for (const [threadId, limit] of cases) {
      const error = await a
        .invoke({ messages: [new HumanMessage("hi")] }, { configurable: { thread_id: threadId } })
        .catch((e: unknown) => e);
      expect(ThreadwiseThreadIdError.isInstance(error), String(threadId)).toBe(true);
      expect((error as ThreadwiseThreadIdError).limit).toBe(limit);
    }
    expect(await stack.checkpointer?.registry.listIdle(new Date(Date.now() + 60_000))).toEqual([]);
    await stack.checkpointer?.close();
  });
});

describe("normalizeThreadId", () => {
  it("returns valid ids unchanged, including Korean and paired surrogates, up to the byte limit", () => {
    for (const id of ["t", "사용자-42", "😀 emoji", "a ", "x".repeat(MAX_THREAD_ID_BYTES)]) expect(normalizeThreadId(id)).toBe(id);
  });
  it("names the byte limit", () => {
    expect(() => normalizeThreadId("x".repeat(MAX_THREAD_ID_BYTES + 1))).toThrow(
      `257 bytes of UTF-8; the limit is ${MAX_THREAD_ID_BYTES} bytes`,
    );
  });
});

describe("withTurnRetry", () => {
  const busy = new ThreadwiseConcurrentTurnError("t", "turn-in-progress", {
    parentId: "a",
    headId: "b",
    retryAfterMs: 700,
    leaseExpiresInMs: 9000,
  });
  const stale = new ThreadwiseConcurrentTurnError("t", "stale-parent", { parentId: "a", headId: "b" });

  it("waits retryAfterMs (jittered) after turn-in-progress, exponential back-off after stale-parent, up to maxAttempts", async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withTurnRetry(
      async () => {
        calls += 1;
        if (calls < 4) throw calls === 2 ? stale : busy;
        return "done";
      },
      { sleep: async (ms) => void waits.push(ms), random: () => 0.25, baseDelayMs: 100 },
    );
    // busy: 700 x (0.5 + 0.25); stale (attempt 2): 100 x 2 x 0.25; busy again: 525.
    expect({ result, calls, waits }).toEqual({ result: "done", calls: 4, waits: [525, 50, 525] });
    await expect(withTurnRetry(async () => Promise.reject(new Error("boom")), { sleep: async () => {} })).rejects.toThrow("boom");
    let tries = 0;
    await expect(
      withTurnRetry(
        async () => {
          tries += 1;
          throw busy;
        },
        { maxAttempts: 4, sleep: async () => {} },
      ),
    ).rejects.toBe(busy);
    expect(tries).toBe(4);
    await expect(withTurnRetry(async () => 1, { maxAttempts: 0 })).rejects.toThrow("withTurnRetry.maxAttempts");
  });

  it("stops when the waits would pass maxTotalWaitMs, and never retries a duplicate operation", async () => {
    const waits: number[] = [];
    let tries = 0;
    const failing = async () => {
      tries += 1;
      throw busy;
    };
    await expect(
      withTurnRetry(failing, { maxTotalWaitMs: 1500, random: () => 0.5, sleep: async (ms) => void waits.push(ms) }),
    ).rejects.toBe(busy);
    expect({ tries, waits }).toEqual({ tries: 3, waits: [700, 700] });
    const duplicate = new ThreadwiseConcurrentTurnError("t", "duplicate-operation", {
      parentId: "a",
      headId: "b",
      operationId: "op",
      storedCheckpointId: "c",
    });
    expect(duplicate.retryable).toBe(false);
    tries = 0;
    await expect(
      withTurnRetry(async () => {
        tries += 1;
        throw duplicate;
      }),
    ).rejects.toBe(duplicate);
    expect(tries).toBe(1);
  });
});
