/**
 * All 150 tau-bench airline dev runs through `createAgent` with every documented stack, and the
 * first 50 with the tight variants and LangChain's middlewares in the same list (the fast
 * `tau-bench.agents.test.ts` replays the first 3 of each): every request checked by the strict provider validator, 0 rejections
 * besides the reported KNOWN FAILURES (`test/support/known-view-failures.ts`). Prints requests
 * checked and rejections per stack.
 */
import { describe, expect, it } from "vitest";
import { TAU_AIRLINE_PATH } from "../data/paths.js";
import { loadAirlineRuns } from "../examples/support/tau-replay.js";
import { DOCUMENTED_STACKS, LANGCHAIN_STACKS, sweepStacks, TIGHT_STACKS } from "./support/tau-agents.js";

const runs = loadAirlineRuns(TAU_AIRLINE_PATH);

describe("tau-bench airline, all 150 runs through createAgent, strict provider validator", () => {
  it.each([
    ["documented", DOCUMENTED_STACKS, runs],
    ["tight", TIGHT_STACKS, runs.slice(0, 50)],
    ["langchain", LANGCHAIN_STACKS, runs.slice(0, 50)],
  ] as const)(
    "%s stacks: 0 rejected requests besides the KNOWN FAILURES",
    async (group, stacks, selected) => {
      const { totals, failures } = await sweepStacks(group, stacks, selected);
      expect(failures.join("\n\n")).toBe("");
      expect(totals.rejections).toBe(0);
      expect(totals.requests).toBeGreaterThan(selected.length * 10);
    },
    3_600_000,
  );
});
