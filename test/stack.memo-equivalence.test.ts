/**
 * Memoized = from scratch, over the whole stack (issue 16, Correctness). The middlewares keep
 * per-thread state between model calls (core's shared view memo, fact-recall's fact index,
 * summarize's plan, tokenCap's token counts, ...); any of it can go stale. Random threads (see
 * `test/support/stack-threads.ts`: parallel calls answered in any order, orphans, stored system
 * messages, Korean and English, fact-bearing sentences) run through a real `createAgent` with a
 * MemorySaver (so every invoke reads fresh message objects, as a checkpointer deserializes them),
 * then a random sequence of operations, each ending in a turn of the agent:
 * - `turn`: a new user message (and the tool rounds and answer the model script asks for);
 * - `remove`: `RemoveMessage`s of random stored messages, sent with the next user message;
 * - `cut`: a persistTrim-like rewrite (`REMOVE_ALL_MESSAGES`, then the stored suffix);
 * - `travel`: the turn resumes from an older checkpoint (`configurable.checkpoint_id`);
 * - `replay`: any checkpoint of the history is resumed, mid-run ones too (`invoke(null)`: the
 *   tool node after a tool-call answer, the model after tool results);
 * - `elsewhere`: a turn on a second thread served by the same instances, under the same ids;
 * - with STACK_MEMO_SAME_IDS=1 only: `edit` and `restart`, see below.
 * - each op runs in process A or B: two sets of middleware instances from two separately loaded
 *   copies of the threadwise modules (`vi.resetModules`, so each has its own shared view memo and
 *   module state), sharing one checkpointer and one thread, as two processes would.
 * The preset also runs persistTrim (`persistTrimKeepGroups`), which deletes in `afterAgent`.
 *
 * For every model call, the same call is computed from scratch: fresh middleware instances, a
 * thread id no cache has seen, deserialized copies of the stored messages, the same private state
 * (summary slot, fact slot). Compared: the request the model received (each message's type, id,
 * content, tool calls; the system message's content; the tool names), core's `viewReport`, the
 * info and warning lines logged (the multiturn line among them), and the private state after the
 * call (so the summary's input and the facts ranking). They must be identical. A self-check plants
 * three stale caches and shows each is caught. The machinery is in `test/support/memo-cases.ts`
 * and `memo-run.ts`.
 *
 * Replay: STACK_MEMO_SEED (seed), STACK_MEMO_RUNS (cases), STACK_MEMO_PATH (one reported case),
 * STACK_MEMO_SHRINK=1 (shrink a failure to a small case; slow), STACK_MEMO_SAME_IDS=1 (add the
 * operations that give a message id to other content: `edit`, a message sent again under its own
 * id, and `restart`, the thread deleted and begun again with the old ids; still known to fail:
 * the view memo checks a message's shape only at the positions it samples, and recall's index
 * ranks an edited message by its old words until it is placed).
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import fc from "fast-check";
import { type AgentMiddleware, createMiddleware } from "langchain";
import { beforeAll, describe, expect, it } from "vitest";
import { configArb, LIB_A, type Lib, loadSecondProcess, type MemoCase, memoCaseArb, type StackConfig } from "./support/memo-cases.js";
import { addCoverage, emptyCoverage, nextThreadId, runCase } from "./support/memo-run.js";
import { runModelCall } from "./support/model-call.js";
import type { TurnSpec } from "./support/stack-threads.js";

const SEED = Number(process.env.STACK_MEMO_SEED ?? 20261216);
const RUNS = Number(process.env.STACK_MEMO_RUNS ?? 40);
const PATH = process.env.STACK_MEMO_PATH;
/** Shrink a failure to a small case (minutes) instead of reporting the first one found. */
const SHRINK = process.env.STACK_MEMO_SHRINK === "1";
const SAME_IDS = process.env.STACK_MEMO_SAME_IDS === "1";
const caseArb = memoCaseArb(SAME_IDS);
/** Processes A and B: two loaded copies of the threadwise modules. */
let processes: Record<"A" | "B", Lib>;

describe("memoized stack = from-scratch stack, call by call (issue 16)", () => {
  beforeAll(async () => {
    processes = { A: LIB_A, B: await loadSecondProcess() };
  });

  it("every model call of random threads with deletions, cuts, time travel and two processes", async () => {
    const coverage = emptyCoverage();
    console.log(`[stack.memo] seed=${SEED} runs=${RUNS} (replay: STACK_MEMO_SEED=${SEED})`);
    await fc.assert(
      fc.asyncProperty(caseArb, configArb, async (c, config) => {
        const run = await runCase(c, config, processes);
        addCoverage(coverage, run, config);
        if (run.mismatches.length > 0) throw new Error(`${run.mismatches.slice(0, 4).join("\n")}\nconfig: ${JSON.stringify(config)}`);
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: !SHRINK, ...(PATH ? { path: PATH } : {}) },
    );
    console.log(`[stack.memo] seed=${SEED} runs=${RUNS} calls compared=${coverage.calls}`, JSON.stringify(coverage));
    // The cases reach what the memos are about.
    expect(coverage.calls).toBeGreaterThan(RUNS * 3);
    for (const key of [
      "processB",
      "afterRemove",
      "afterCut",
      "afterTravel",
      "otherThread",
      "midRunReplays",
      "cutViews",
      "withSummary",
      "withFacts",
      "multiturnLines",
    ] as const)
      expect(coverage[key], key).toBeGreaterThan(0);
  }, 600_000);

  // Found by this property (STACK_MEMO_SEED=4, shrunk): recall's message index in process A, after
  // process B removed a tool-call message and the first message and persistTrim trimmed the head,
  // took the head trim for the whole deletion and dropped u2, still stored, from its index
  // (packages/recall/src/message-index.ts, MessageIndex sync's head-trim path).
  it("regression: recall's index after a RemoveMessage and a persistTrim in another process", async () => {
    const said = (text: string) => ({ text, blocks: false, image: false });
    const seoul = said("I live in Seoul.");
    const round = (calls: string[]) => ({ calls, queries: ["short", "short", "short"] });
    const turn = (calls: string[][]): TurnSpec => ({ user: seoul, rounds: calls.map(round), answer: "I live in Seoul." });
    const c: MemoCase = {
      seed: [
        { kind: "user", content: seoul },
        { kind: "dangling", call: "call_1" },
      ],
      first: turn([]),
      ops: [
        { kind: "travel", by: "A", turn: turn([["call_2", "call_3", "call_1"]]), back: 1 },
        { kind: "turn", by: "A", turn: turn([["call_2", "call_1"]]) },
        { kind: "remove", by: "B", turn: turn([["call_1"]]), picks: [879261461, 0] },
        { kind: "turn", by: "A", turn: turn([["call_1"]]) },
      ],
    };
    const config: StackConfig = {
      kind: "preset",
      mode: "legacy_system",
      defaults: false,
      maxMessages: 8,
      windowEviction: "sliding",
      maxTokens: 150,
      capEviction: "sliding",
      thresholdOver: 7,
      maxItems: 1,
      keepGroups: 3,
      recall: true,
    };
    const run = await runCase(c, config, processes);
    expect(run.calls.length).toBe(9);
    expect(run.calls[8]?.outcome.system).toContain("#1 user: I live in Seoul.");
    expect(run.mismatches).toEqual([]);
  });

  /** Ids of the messages one model call of `stack` sends for `messages` on `threadId`. */
  const sentIds = async (stack: AgentMiddleware[], messages: BaseMessage[], threadId: string) => {
    let ids: Array<string | undefined> = [];
    await runModelCall(
      stack,
      { messages, channels: {}, systemMessage: new SystemMessage(""), tools: [], configurable: { thread_id: threadId } },
      async (request) => {
        ids = request.messages.map((m) => m.id);
        return new AIMessage("ok");
      },
    );
    return ids;
  };

  // Regression (issue 16): the view memo validated a stored thread by message ids only, so a
  // message sent again under its own id with other text (an edit or a redaction; LangGraph's
  // messages reducer replaces it in place) kept the token cost of its old text, and tokenCap sent a
  // view over `maxTokens`. The memo now checks each checked position's id and shape (type, tool
  // call ids, content length and three characters; packages/core/src/view-memo.ts `shapeOf`). The
  // first message is always checked; an edit at a position the O(log n) sample skips is still not
  // seen (documented in `ViewMemo`).
  it("regression: an older message edited in place: tokenCap cuts as from scratch", async () => {
    const before = [
      new HumanMessage({ id: "u0", content: "hi" }),
      new AIMessage({ id: "a0", content: "hello" }),
      new HumanMessage({ id: "u1", content: "next" }),
    ];
    const long = "I moved to Busan last month and seat 12A is free. ".repeat(20);
    const after = [
      new HumanMessage({ id: "u0", content: long }),
      ...before.slice(1),
      new AIMessage({ id: "a1", content: "ok" }),
      new HumanMessage({ id: "u2", content: "more" }),
    ];
    const threadId = nextThreadId("memo-edit");
    const cap = tokenCap({ maxTokens: 100, logger: false });
    expect(await sentIds([cap], before, threadId)).toEqual(["u0", "a0", "u1"]);
    const fresh = await sentIds([tokenCap({ maxTokens: 100, logger: false })], after, `${threadId}-fresh`);
    expect(fresh).toEqual(["u1", "a1", "u2"]);
    // Memoized, before the fix: u0 still cost what "hi" cost, so all five messages (about 345 tokens) were sent.
    expect(await sentIds([cap], after, threadId)).toEqual(fresh);
  });

  // Regression (issue 16), same cause as the one above: a thread deleted and begun again under the
  // same thread_id, whose messages reuse the old ids (client-chosen ids such as `m1`, `m2`;
  // stack.property.slow's cases all use thread "prop" and ids `s1..`). The view memo's index kept
  // the old groups (m2 a plain answer, not a tool call), so the window started on m3, a tool result
  // without its call: every provider refuses the request (R4). The shape check rebuilds it.
  it("regression: a thread restarted under the same thread id and message ids: the same window as from scratch", async () => {
    const before = [
      new HumanMessage({ id: "m1", content: "a" }),
      new AIMessage({ id: "m2", content: "b" }),
      new HumanMessage({ id: "m3", content: "c" }),
    ];
    const after = [
      new HumanMessage({ id: "m1", content: "x" }),
      new AIMessage({ id: "m2", content: "", tool_calls: [{ id: "call_1", name: "lookup", args: {}, type: "tool_call" }] }),
      new ToolMessage({ id: "m3", content: "r", tool_call_id: "call_1" }),
      new AIMessage({ id: "m4", content: "d" }),
      new HumanMessage({ id: "m5", content: "e" }),
    ];
    const threadId = nextThreadId("memo-restart");
    const window = windowTrim({ maxMessages: 3, startOn: "any", logger: false });
    await sentIds([window], before, threadId);
    const fresh = await sentIds([windowTrim({ maxMessages: 3, startOn: "any", logger: false })], after, `${threadId}-fresh`);
    expect(fresh).toEqual(["m4", "m5"]);
    // Memoized, before the fix: ["m3", "m4", "m5"], m3 an orphan tool result.
    expect(await sentIds([window], after, threadId)).toEqual(fresh);
  });

  describe("self-check: a planted stale cache is caught", () => {
    const said = (text: string) => ({ text, blocks: false, image: false });
    const turn = (text: string, answer: string): TurnSpec => ({ user: said(text), rounds: [], answer });
    const c: MemoCase = {
      seed: [
        { kind: "user", content: said("My name is Mina.") },
        { kind: "assistant", content: said("Nice to meet you, Mina.") },
        { kind: "user", content: said("I live in Seoul.") },
        { kind: "assistant", content: said("Noted.") },
      ],
      first: {
        user: said("Can you check seat 12A for tomorrow?"),
        rounds: [{ calls: ["call_1", "call_2"], queries: ["short", "short", "short"] }],
        answer: "Free.",
      },
      ops: [
        { kind: "turn", by: "A", turn: turn("저는 간호사예요.", "알겠어요.") },
        { kind: "remove", by: "A", turn: turn("제 이름은 민지예요.", "반가워요, 민지 님."), picks: [2, 3] },
        { kind: "turn", by: "B", turn: turn("I have a dog named Coco.", "Cute.") },
        { kind: "travel", by: "A", turn: turn("I moved to Busan last month.", "Noted."), back: 2 },
        { kind: "turn", by: "A", turn: turn("Where do I live?", "Busan.") },
      ],
    };
    const config: StackConfig = {
      kind: "preset",
      mode: "legacy_system",
      defaults: false,
      maxMessages: 4,
      windowEviction: "sliding",
      maxTokens: 2000,
      capEviction: "sliding",
      thresholdOver: 2,
      maxItems: 3,
      keepGroups: undefined,
      recall: false,
    };
    const threadOf = (request: { runtime?: { configurable?: { thread_id?: unknown } } }) =>
      String(request.runtime?.configurable?.thread_id);

    it("the clean stack: no mismatch", async () => {
      const run = await runCase(c, config, processes);
      expect(run.mismatches).toEqual([]);
      expect(run.calls.length).toBe(7);
    });

    it("a thread cache that assumes the thread only grows: caught after the RemoveMessage", async () => {
      // Per process and thread, the messages seen so far, extended with what is past their count.
      const appendOnly = () => {
        const seen = new Map<string, BaseMessage[]>();
        return createMiddleware({
          name: "test/append-only-thread",
          wrapModelCall: (request, handler) => {
            const stored = request.state.messages as BaseMessage[];
            const known = seen.get(threadOf(request)) ?? [];
            const thread = [...known, ...stored.slice(known.length)];
            seen.set(threadOf(request), thread);
            return handler({ ...request, messages: thread, state: { ...request.state, messages: thread } });
          },
        });
      };
      const run = await runCase(c, config, processes, { outer: () => [appendOnly()] });
      expect(run.mismatches.length).toBeGreaterThan(0);
      expect(run.mismatches[0]).toMatch(/^call 3 \(op 1 remove \(A\)/);
    });

    it("a system message cached per thread until a stored system message changes: caught when a fact changes", async () => {
      const frozenSystem = () => {
        const cache = new Map<string, SystemMessage>();
        return createMiddleware({
          name: "test/frozen-system",
          wrapModelCall: (request, handler) => {
            const key = `${threadOf(request)}|${(request.state.messages as BaseMessage[]).filter((m) => m.getType() === "system").length}`;
            const cached = cache.get(key) ?? request.systemMessage;
            cache.set(key, cached);
            return handler({ ...request, systemMessage: cached });
          },
        });
      };
      // Innermost (inside the stack): it sees the assembled request.
      const run = await runCase(c, config, processes, { inner: () => [frozenSystem()] });
      expect(run.mismatches.some((m) => m.includes("system differs"))).toBe(true);
      expect(run.mismatches.some((m) => m.includes("Known facts about the user"))).toBe(true);
    });
  });
});
