/**
 * Property tests over random threads (spec R2, R3, R4): parallel tool calls, repeated
 * tool_call_ids, stored orphans (strays, duplicates, calls without results), system messages and
 * messages without ids. For any thread and any settings of windowTrim and tokenCap: no orphan in
 * the view, the newest user message and the run's tool loop in it, stored system messages merged
 * into the one leading system message, alternating roles, the view a subsequence of the thread,
 * and the stored thread unchanged. fast-check prints the
 * seed and the shrunk thread of a failure.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { findOrphans, groupMessages, protectedTailStart, ThreadwiseStrayResultError } from "@threadwise/core";
import { characterTokenCounter, validateProviderRequest } from "@threadwise/core/testing";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decidedViewOf } from "./support/hook.js";

type Step =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string }
  | { kind: "system" }
  | { kind: "tools"; calls: string[]; order: number[]; missing: number; duplicate: boolean; stray: boolean; result: string }
  | { kind: "stray" }
  | { kind: "dangling"; call: string }
  | { kind: "empty"; form: number };

/** Content of an empty user message as clients store it (langchain-ai/langchain#35081): OpenAI answers it, the others refuse it. */
const EMPTY_CONTENTS: unknown[] = ["", [], "  \n", [{ type: "text", text: " \u3000" }]];

// A small id pool, so tool_call_ids repeat across (and inside) rounds as in the tau-bench data.
const callId = fc.constantFrom("call_1", "call_2", "call_3", "call_4");
const text = fc.string({ maxLength: 60 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("user" as const), text }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("assistant" as const), text }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("system" as const) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("tools" as const),
      calls: fc.uniqueArray(callId, { minLength: 1, maxLength: 4 }),
      order: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
      // 0: complete; n > 0: the n-th result is missing (a stored call without all results).
      missing: fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) }),
      duplicate: fc.boolean(),
      stray: fc.boolean(),
      result: fc.string({ maxLength: 200 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("stray" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("dangling" as const), call: callId }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("empty" as const), form: fc.nat({ max: EMPTY_CONTENTS.length - 1 }) }) },
);

/** Builds a thread; `withIds` false leaves every third message without an id (made by a hook). */
function buildThread(steps: Step[], withIds: boolean): BaseMessage[] {
  const out: BaseMessage[] = [];
  let n = 0;
  const id = () => {
    n += 1;
    return withIds || n % 3 !== 0 ? `m${n}` : undefined;
  };
  for (const s of steps) {
    if (s.kind === "user") out.push(new HumanMessage({ id: id(), content: `u:${s.text}` }));
    else if (s.kind === "assistant") out.push(new AIMessage({ id: id(), content: `a:${s.text}` }));
    else if (s.kind === "system") out.push(new SystemMessage({ id: id(), content: "system rules" }));
    else if (s.kind === "empty") out.push(new HumanMessage({ id: id(), content: EMPTY_CONTENTS[s.form] as never }));
    else if (s.kind === "stray") out.push(new ToolMessage({ id: id(), content: "stray", tool_call_id: "call_9" }));
    else if (s.kind === "dangling") {
      out.push(new AIMessage({ id: id(), content: "", tool_calls: [{ id: s.call, name: "f", args: {}, type: "tool_call" }] }));
    } else {
      out.push(
        new AIMessage({
          id: id(),
          content: "",
          tool_calls: s.calls.map((c) => ({ id: c, name: "f", args: { c }, type: "tool_call" as const })),
        }),
      );
      const results = s.calls.filter((_, i) => i + 1 !== s.missing);
      const ordered = results.map((c, i) => ({ c, k: s.order[i] ?? 0 })).sort((a, b) => a.k - b.k);
      for (const { c } of ordered) out.push(new ToolMessage({ id: id(), content: `r:${s.result}`, tool_call_id: c }));
      if (s.duplicate && results[0]) out.push(new ToolMessage({ id: id(), content: "again", tool_call_id: results[0] }));
      if (s.stray) out.push(new ToolMessage({ id: id(), content: "other", tool_call_id: "call_8" }));
    }
  }
  return out;
}

const settings = fc.record({
  maxMessages: fc.integer({ min: 1, max: 30 }),
  maxTokens: fc.integer({ min: 5, max: 600 }),
  startOn: fc.constantFrom("human" as const, "any" as const),
  eviction: fc.constantFrom("sliding" as const, "chunked" as const),
  withIds: fc.boolean(),
});

/** The roles the model gets break no provider's rule: one leading system message, then alternating turns. */
function rolesProblem(sent: BaseMessage[]): string | undefined {
  const types = sent.map((m) => m.getType());
  if (types.lastIndexOf("system") > 0) return `system message not leading: ${types.join(",")}`;
  for (let i = 1; i < types.length; i += 1) {
    if (types[i] === "human" && types[i - 1] === "human") return `two user turns in a row: ${types.join(",")}`;
    if (types[i] === "ai" && types[i - 1] === "ai") return `two assistant turns in a row: ${types.join(",")}`;
  }
  return undefined;
}

/** Messages that must be in every view: the newest user turn and what follows it (stored system messages go into the system message). */
function mustKeep(thread: BaseMessage[]): BaseMessage[] {
  const groups = groupMessages(thread);
  const candidates = groups.filter((g) => g.kind !== "system" && g.kind !== "orphan");
  const kept = new Set(candidates.slice(protectedTailStart(candidates)).flatMap((g) => g.messages));
  return asSent(thread).filter((m) => kept.has(m));
}

/**
 * The thread as views send its messages: a partly answered parallel call's AI message is sent as
 * its copy without the unanswered calls (core `withoutCalls`, R37), everything else as stored.
 */
function asSent(thread: BaseMessage[]): BaseMessage[] {
  const sent = [...thread];
  for (const group of groupMessages(thread)) if (group.unanswered) sent[group.start] = group.messages[0] as BaseMessage;
  return sent;
}

const storedSystemTexts = (thread: BaseMessage[]) => thread.filter((m) => m.getType() === "system").map((m) => String(m.content));

/** `true` when `view` is `thread` with some messages left out (a shortened tool result matches its original by position). */
function isSubsequence(view: BaseMessage[], thread: BaseMessage[]): boolean {
  let j = 0;
  for (const m of view) {
    while (
      j < thread.length &&
      thread[j] !== m &&
      !(m.getType() === "tool" && thread[j]?.getType() === "tool" && thread[j]?.id === m.id && m.id !== undefined)
    )
      j += 1;
    if (j === thread.length) return false;
    j += 1;
  }
  return true;
}

/**
 * The view `middleware` decides for `thread`, or `undefined` when the call is refused because the
 * thread ends on stray tool results (answering no call right before them): then the refusal must
 * name the thread's last message, a result-only message (ThreadwiseStrayResultError's contract).
 */
async function viewOrStrayRefusal(middleware: Parameters<typeof decidedViewOf>[0], thread: BaseMessage[]) {
  try {
    return await decidedViewOf(middleware, thread);
  } catch (error) {
    if (!ThreadwiseStrayResultError.isInstance(error)) throw error;
    const last = thread.at(-1);
    expect(last?.getType()).toBe("tool");
    expect(error.messageIds).toContain(last?.id ?? "");
    return undefined;
  }
}

describe("random threads through windowTrim and tokenCap", () => {
  it("hold every invariant for any thread and settings", async () => {
    const counter = characterTokenCounter();
    let cutViews = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), settings, async (steps, s) => {
        const thread = buildThread(steps, s.withIds);
        const snapshot = JSON.stringify(thread);
        const copy = [...thread];
        const keep = mustKeep(thread);
        const middlewares = [
          windowTrim({ maxMessages: s.maxMessages, startOn: s.startOn, eviction: s.eviction, logger: false }),
          tokenCap({ maxTokens: s.maxTokens, eviction: s.eviction, tokenCounter: counter, logger: false }),
        ];
        for (const middleware of middlewares) {
          const decided = await viewOrStrayRefusal(middleware, thread);
          if (decided === undefined) continue;
          const view = decided.view;
          expect(findOrphans(decided.sent)).toEqual([]);
          expect(rolesProblem(decided.sent)).toBeUndefined();
          // Empty content only where the user sent it as the newest message (sent as typed).
          const newestUser = decided.sent.map((m) => m.getType()).lastIndexOf("human");
          const empties = validateProviderRequest(decided.sent).filter((v) => v.rule === "empty_content");
          for (const v of empties) expect(v.index).toBe(newestUser);
          for (const text of storedSystemTexts(thread)) expect(decided.system.text).toContain(text);
          for (const m of keep) {
            // tokenCap may shorten a kept tool result: same id and call id, new object.
            expect(view.some((v) => v === m || (m.getType() === "tool" && v.id === m.id && v.id !== undefined))).toBe(true);
          }
          expect(isSubsequence(view, asSent(thread))).toBe(true);
          if (view.length < thread.length) cutViews += 1;
        }
        expect(thread).toEqual(copy);
        expect(JSON.stringify(thread)).toBe(snapshot);
      }),
      { numRuns: 400 },
    );
    // The generator does produce threads that get cut, so the properties are not vacuous.
    expect(cutViews).toBeGreaterThan(200);
  });

  it("windowTrim never sends more than maxMessages unless the must-keep messages alone are more", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), settings, async (steps, s) => {
        const thread = buildThread(steps, true);
        const decided = await viewOrStrayRefusal(windowTrim({ maxMessages: s.maxMessages, eviction: s.eviction, logger: false }), thread);
        if (decided === undefined) return;
        const { view } = decided;
        expect(view.length).toBeLessThanOrEqual(Math.max(s.maxMessages, mustKeep(thread).length));
      }),
      { numRuns: 300 },
    );
  });

  it("tokenCap stays under maxTokens unless the must-keep messages alone are over", async () => {
    const counter = characterTokenCounter();
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), settings, async (steps, s) => {
        const thread = buildThread(steps, true);
        const decided = await viewOrStrayRefusal(
          tokenCap({ maxTokens: s.maxTokens, eviction: s.eviction, tokenCounter: counter, logger: false }),
          thread,
        );
        if (decided === undefined) return;
        const { view, system } = decided;
        const tokens = counter.countMessages(view) + (system.text === "" ? 0 : counter.countMessage(system));
        if (tokens > s.maxTokens) {
          // Over: the view is exactly the must-keep messages, shortened where possible.
          expect(view.map((m) => m.id)).toEqual(mustKeep(thread).map((m) => m.id));
        }
      }),
      { numRuns: 300 },
    );
  });
});
