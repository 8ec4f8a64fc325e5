import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { indexThread } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { planSummary, summaryPeriod, uncoveredStartOf } from "./summary-plan.js";

/** `turns` exchanges u1/a1, u2/a2, ... with ids equal to their text. */
function thread(turns: number, withNewUser = true): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let k = 1; k <= turns; k += 1)
    out.push(new HumanMessage({ id: `u${k}`, content: `u${k}` }), new AIMessage({ id: `a${k}`, content: `a${k}` }));
  if (withNewUser) out.push(new HumanMessage({ id: `u${turns + 1}`, content: `u${turns + 1}` }));
  return out;
}
const record = (coveredThroughId: string | null, coveredCount: number) => ({ text: "S", coveredThroughId, coveredCount, updatedAt: "t" });

describe("summaryPeriod", () => {
  it("is threshold - windowSize, or windowSize when threshold <= windowSize", () => {
    expect(summaryPeriod(20, 40)).toBe(20);
    expect(summaryPeriod(20, 30)).toBe(10);
    expect(summaryPeriod(20, 20)).toBe(20);
    expect(summaryPeriod(20, 5)).toBe(20);
  });
});

describe("planSummary", () => {
  const defaults = { windowSize: 20, threshold: 40 };

  it("is not due below threshold; due once the thread holds threshold messages", () => {
    const at39 = planSummary(thread(19), undefined, defaults); // 39 messages
    expect(at39.threadMessages).toBe(39);
    expect(at39.due).toBe(false);
    expect(at39.pending).toHaveLength(19);
    const at41 = planSummary(thread(20), undefined, defaults); // 41 messages, 21 out of the window
    expect(at41.due).toBe(true);
    expect(at41.windowStart).toBe(21);
    expect(at41.pending.map((m) => m.id)).toEqual([...thread(10, false).map((m) => m.id), "u11"]);
  });

  it("after a summary, is due again only when a full period more has left the window", () => {
    const summary = record("u11", 21);
    const at59 = planSummary(thread(29), summary, defaults); // 59 messages: 39 out, 21 covered, 18 pending
    expect(at59.uncoveredStart).toBe(21);
    expect(at59.pending).toHaveLength(18);
    expect(at59.due).toBe(false);
    const at61 = planSummary(thread(30), summary, defaults);
    expect(at61.pending).toHaveLength(20);
    expect(at61.pending[0]?.id).toBe("a11");
    expect(at61.pending.at(-1)?.id).toBe("u21");
    expect(at61.due).toBe(true);
  });

  it("with threshold <= windowSize: first summary when a message leaves the window, then every windowSize", () => {
    const opts = { windowSize: 4, threshold: 3 };
    expect(planSummary(thread(2, false), undefined, opts).due).toBe(false); // 4 messages, none out
    const first = planSummary(thread(2), undefined, opts); // 5 messages, 1 out
    expect(first.due).toBe(true);
    expect(first.pending.map((m) => m.id)).toEqual(["u1"]);
    const summary = record("u1", 1);
    expect(planSummary(thread(3), summary, opts).due).toBe(false); // 7: 3 out, 2 pending
    expect(planSummary(thread(4, false), summary, opts).due).toBe(false); // 8: 4 out, 3 pending
    const second = planSummary(thread(4), summary, opts); // 9: 5 out, 4 pending
    expect(second.due).toBe(true);
    expect(second.pending.map((m) => m.id)).toEqual(["a1", "u2", "a2", "u3"]);
  });

  it("keeps tool-call groups whole and never counts stored system messages", () => {
    const messages: BaseMessage[] = [
      new SystemMessage({ id: "sys", content: "rules" }),
      ...thread(3, false),
      new AIMessage({ id: "c1", content: "", tool_calls: [{ id: "t1", name: "f", args: {}, type: "tool_call" }] }),
      new ToolMessage({ id: "r1", content: "x", tool_call_id: "t1" }),
      new AIMessage({ id: "a4", content: "a4" }),
      new HumanMessage({ id: "u5", content: "u5" }),
    ];
    // Window of 3 messages: u5 (protected), a4, then the 2-message tool group does not fit.
    const plan = planSummary(messages, undefined, { windowSize: 3, threshold: 4 });
    expect(plan.threadMessages).toBe(10);
    expect(plan.pending.map((m) => m.id)).toEqual(["u1", "a1", "u2", "a2", "u3", "a3", "c1", "r1"]);
    expect(messages[plan.windowStart]?.id).toBe("a4");
  });

  it("finds the boundary by id after old messages were deleted; a deleted boundary means all remaining are uncovered", () => {
    const full = thread(30);
    expect(uncoveredStartOf(full, record("u11", 21))).toBe(21);
    const trimmed = full.slice(10); // persistTrim removed u1..a5
    expect(uncoveredStartOf(trimmed, record("u11", 21))).toBe(11);
    const trimmedPast = full.slice(21); // removed through u11
    expect(uncoveredStartOf(trimmedPast, record("u11", 21))).toBe(0);
    expect(uncoveredStartOf(full, record(null, 4))).toBe(4);
  });
});

describe("planSummary with core's thread index (issue 16)", () => {
  it("plans exactly as from scratch while the thread grows, loses messages (persistTrim) and a covered id", () => {
    const strip = (plan: ReturnType<typeof planSummary>) => ({ ...plan, pending: plan.pending.map((m) => m.id) });
    let messages = thread(30);
    const summaries = [undefined, record("a5", 10), record("u12", 23), record("gone", 3), record(null, 7)];
    for (let step = 0; step < 12; step += 1) {
      if (step === 4) messages = messages.slice(6); // persistTrim deleted the oldest groups
      if (step === 8) messages = [new SystemMessage({ id: "s", content: "S" }), ...messages.filter((m) => m.id !== "a20")];
      messages = [...messages, new AIMessage({ id: `x${step}`, content: "x" }), new HumanMessage({ id: `y${step}`, content: "y" })];
      const index = indexThread(messages);
      for (const summary of summaries) {
        for (const startOn of ["any", "human"] as const) {
          const options = { windowSize: 6, threshold: 12, startOn };
          expect(strip(planSummary(messages, summary, { ...options, index }))).toEqual(strip(planSummary(messages, summary, options)));
        }
      }
    }
  });
});

// A rewrite by REMOVE_ALL_MESSAGES stores what it is given, an id held twice too (the edit fuzz:
// STACK_EDIT_SLOW_SEED=10 STACK_EDIT_CASE=59, a rewrite keeping a message `u2` and a new user
// message `u2`). A summary covering through the first `u2` was read (newest message with the id)
// as covering through the second: the messages between were neither summarized nor sent.
describe("planSummary on a thread holding an id twice", () => {
  const thread = [
    new HumanMessage({ id: "h1", content: "I live in Seoul." }),
    new AIMessage({ id: "a1", content: "Noted." }),
    new ToolMessage({ id: "dup", content: "stray result", tool_call_id: "call_9" }),
    new AIMessage({ id: "a2", content: "I have a dog named Coco." }),
    new HumanMessage({ id: "h3", content: "I'm allergic to peanuts." }),
    new AIMessage({ id: "a3", content: "Noted again." }),
    new HumanMessage({ id: "dup", content: "Where do I live?" }),
    new AIMessage({ id: "a4", content: "Seoul." }),
  ];
  it("the pending span ends before a message whose id is held again later, so the record it makes is found where it ends", () => {
    for (const index of [undefined, indexThread(thread)]) {
      const plan = planSummary(thread, undefined, { windowSize: 2, threshold: 4, windowStart: 3, index });
      expect(plan.pending.map((m) => m.id)).toEqual(["h1", "a1"]);
      const through = { text: "s", coveredThroughId: "a1", coveredCount: 2, updatedAt: "" };
      expect(uncoveredStartOf(thread, through)).toBe(2);
      // Unique ids: the span is everything out of the window, as before.
      expect(planSummary(thread, undefined, { windowSize: 2, threshold: 4, windowStart: 6, index }).pending).toHaveLength(6);
    }
  });
});
