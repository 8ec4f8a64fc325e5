/**
 * Property tests of summarize's timing and coverage over random growing threads (spec R5,
 * R10-R12): user turns with random tool loops, a random window and threshold, with or without
 * persistTrim deleting old groups after every turn. Replays the planner as the middleware uses it
 * (one plan per model call, a summary covering `pending` whenever due) and checks, at every call:
 * the summary and the view together are exactly the conversation so far, in order; the cut never
 * splits a group; nothing is deleted before it is summarized; between summaries fewer than one
 * period of messages wait; and the number of summaries matches the period arithmetic.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { findOrphans, type SummaryRecord } from "@threadwise/core";
import { messagesToDelete } from "@threadwise/persist-trim";
import { planSummary } from "@threadwise/summarize";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

/** One user turn: how many tool rounds (each 1-3 parallel calls) before the final answer. */
const turn = fc.array(fc.integer({ min: 1, max: 3 }), { maxLength: 2 });

describe("summarize planner over random threads", () => {
  it("coverage + view = the conversation; no split group; no deletion before summary; period respected", () => {
    let runsWithSummary = 0;
    let runsWithDeletion = 0;
    fc.assert(
      fc.property(
        fc.array(turn, { minLength: 1, maxLength: 40 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 30 }),
        fc.option(fc.integer({ min: 1, max: 20 }), { nil: undefined }),
        (turns, windowSize, threshold, keepGroups) => {
          const period = threshold > windowSize ? threshold - windowSize : windowSize;
          let stored: BaseMessage[] = [];
          const conversation: string[] = [];
          let summary: SummaryRecord | undefined;
          let seq = 0;
          const add = (m: BaseMessage) => {
            stored = [...stored, m];
            conversation.push(m.id as string);
          };
          const modelCall = () => {
            const plan = planSummary(stored, summary, { windowSize, threshold });
            if (plan.due) {
              const last = plan.pending.at(-1) as BaseMessage;
              summary = {
                text: "s",
                coveredThroughId: last.id ?? null,
                coveredCount: (summary?.coveredCount ?? 0) + plan.pending.length,
                updatedAt: "t",
              };
            }
            const cut = plan.due ? plan.windowStart : plan.uncoveredStart;
            const view = stored.slice(cut);
            const covered = summary?.coveredCount ?? 0;
            // The view starts on a group boundary and holds no orphan.
            expect(findOrphans(view)).toEqual([]);
            // Covered prefix + view = the whole conversation, in order (nothing lost, nothing twice).
            expect([...conversation.slice(0, covered), ...view.map((m) => m.id)]).toEqual(conversation);
            // Waiting messages (left the window, not summarized) stay under one period once summaries run.
            if (covered > 0 && !plan.due) expect(plan.pending.length).toBeLessThan(period);
          };
          for (const rounds of turns) {
            seq += 1;
            add(new HumanMessage({ id: `u${seq}`, content: "q" }));
            modelCall();
            for (const [r, calls] of rounds.entries()) {
              const ids = Array.from({ length: calls }, (_, c) => `call_${c}`); // ids repeat across rounds
              add(
                new AIMessage({
                  id: `c${seq}_${r}`,
                  content: "",
                  tool_calls: ids.map((id) => ({ id, name: "f", args: {}, type: "tool_call" as const })),
                }),
              );
              for (const id of ids) add(new ToolMessage({ id: `r${seq}_${r}_${id}`, content: "x", tool_call_id: id }));
              modelCall();
            }
            add(new AIMessage({ id: `a${seq}`, content: "a" }));
            if (keepGroups !== undefined) {
              const before = stored.length;
              const marker = summary ?? { text: "", coveredThroughId: null, coveredCount: 0, updatedAt: "t" };
              const ids = new Set<string>(messagesToDelete(stored, keepGroups, marker.coveredCount > 0 ? marker.coveredThroughId : null));
              stored = stored.filter((m) => !ids.has(m.id as string));
              if (ids.size > 0) runsWithDeletion += 1;
              // Everything deleted so far is covered by the summary.
              expect(conversation.length - stored.length).toBeLessThanOrEqual(summary?.coveredCount ?? 0);
              expect(stored.length).toBeLessThanOrEqual(before);
              expect(findOrphans(stored)).toEqual([]);
            }
          }
          if (summary && summary.coveredCount > 0) runsWithSummary += 1;
        },
      ),
      { numRuns: 300 },
    );
    // Not vacuous: most runs summarize, many delete.
    expect(runsWithSummary).toBeGreaterThan(100);
    expect(runsWithDeletion).toBeGreaterThan(50);
  });
});
