/**
 * Every run of the tau-bench airline dev set (150 GPT-4o support runs, OpenAI chat format) at a
 * sweep of budgets: at each point where the recorded agent called its model, windowTrim and
 * tokenCap build a view; no view may hold an orphan (spec R4), the newest user message and the
 * run's tool loop are always in it (R2), and the stored list is never changed.
 */
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { createTokenCounter, findOrphans, groupMessages, protectedTailStart } from "@threadwise/core";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { beforeAll, describe, expect, it } from "vitest";
import { TAU_AIRLINE_PATH } from "../data/paths.js";
import { loadAirlineRuns, runMessages } from "../examples/support/tau-replay.js";
import { viewOf } from "./support/hook.js";

let runs: BaseMessage[][] = [];
beforeAll(() => {
  runs = loadAirlineRuns(TAU_AIRLINE_PATH).map(runMessages);
});

describe("tau-bench airline sweep", () => {
  it("converts 150 runs with the data's quirks (repeated tool_call_ids, null content)", () => {
    expect(runs).toHaveLength(150);
    expect(runs.reduce((n, r) => n + r.length, 0)).toBe(3916);
    const repeated = runs.filter((r) => {
      const seen = new Set<string>();
      for (const m of r) {
        if (m.getType() !== "tool") continue;
        const id = (m as ToolMessage).tool_call_id;
        if (seen.has(id)) return true;
        seen.add(id);
      }
      return false;
    });
    // The data README says 49; counted here, 37 runs have a ToolMessage reusing an earlier tool_call_id.
    expect(repeated).toHaveLength(37);
    // The stored runs hold no orphans of their own: every drop below is a cut, not bad data.
    expect(runs.flatMap((r) => findOrphans(r))).toEqual([]);
  });

  it("every model-call point of every run, under 4 windows x 3 modes and 5 token caps x 2 modes: 0 orphans, tail kept, input unchanged", async () => {
    const counter = createTokenCounter();
    const windows = [1, 3, 8, 20].flatMap((n) => [
      windowTrim({ maxMessages: n, logger: false }),
      windowTrim({ maxMessages: n, startOn: "human", logger: false }),
      windowTrim({ maxMessages: Math.max(2, n), eviction: "chunked", logger: false }),
    ]);
    // The airline policy (a stored system message) is about 1,400 tokens: the two lowest caps are
    // below it, so they exercise the over-cap rule at every point.
    const caps = [300, 1500, 2500, 4000, 8000].flatMap((maxTokens) => [
      tokenCap({ maxTokens, tokenCounter: counter, logger: false }),
      tokenCap({ maxTokens, tokenCounter: counter, eviction: "chunked", logger: false }),
    ]);
    let points = 0;
    let views = 0;
    let orphans = 0;
    let cut = 0;
    let tailMissing = 0;
    for (const run of runs) {
      for (let end = 1; end < run.length; end += 1) {
        // The recorded agent called its model wherever an assistant message comes next.
        if (run[end]?.getType() !== "ai") continue;
        points += 1;
        const stored = run.slice(0, end);
        const snapshot = JSON.stringify(stored);
        const groups = groupMessages(stored).filter((g) => g.kind !== "system" && g.kind !== "orphan");
        const tail = groups.slice(protectedTailStart(groups)).flatMap((g) => g.messages.map((m) => m.id));
        for (const middleware of [...windows, ...caps]) {
          const view = await viewOf(middleware, stored);
          views += 1;
          orphans += findOrphans(view).length;
          if (view.length < stored.length) cut += 1;
          const ids = new Set(view.map((m) => m.id));
          if (!tail.every((id) => ids.has(id))) tailMissing += 1;
          // The stored system prompt (the airline policy) is always at the head.
          if (view[0]?.getType() !== "system") tailMissing += 1;
        }
        expect(JSON.stringify(stored)).toBe(snapshot);
      }
    }
    expect(points).toBe(1808);
    expect(views).toBe(points * 22);
    expect(orphans).toBe(0);
    expect(tailMissing).toBe(0);
    // The sweep really cuts: about half the views drop something (the stored policy message is
    // not counted by windowTrim: it is merged into the system message).
    expect(cut / views).toBeGreaterThan(0.45);
  });
});
