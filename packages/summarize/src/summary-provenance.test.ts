/**
 * Provenance (issue 23): the summary records the ids of the messages it covers (first, last,
 * count) and the passes that built it; `viewReport(request).summary` and the multiturn line show them.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { Command } from "@langchain/langgraph";
import { SUMMARY_SLOT_KEY, type SummaryPass, type SummaryProvenance, type SummaryRecord, viewReport } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { summarize } from "./summarize.js";

function importedThread(exchanges: number): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (let i = 0; i < exchanges; i += 1)
    out.push(
      new HumanMessage({ id: `u${i}`, content: `Question ${i}: ${"where is my booking ".repeat(1 + (i % 5))}` }),
      new AIMessage({ id: `a${i}`, content: `Answer ${i}: ${"flight KE1401 at gate 5 ".repeat(1 + (i % 4))}` }),
    );
  return out;
}

describe("summary provenance", () => {
  it("records first and last covered ids, the count and every pass; viewReport and the multiturn line show them", async () => {
    const stored = importedThread(150);
    let calls = 0;
    let succeeded = 0;
    const summarizer = {
      async invoke() {
        calls += 1;
        if (calls === 2) throw new Error("summarizer down");
        succeeded += 1;
        return new AIMessage(`summary ${succeeded}`);
      },
    };
    const lines: string[] = [];
    const logger = { info: (message: string) => void lines.push(message), warn: () => {} };
    const middleware = summarize({ model: summarizer, windowSize: 10, threshold: 20, maxInputTokens: 600, maxPassesPerCall: 3, logger });
    let summary: SummaryRecord | undefined;
    const passes: SummaryPass[] = [];
    const reports: Array<SummaryProvenance | undefined> = [];
    for (let turn = 0; turn < 60; turn += 1) {
      if (turn > 0)
        stored.push(new AIMessage({ id: `r${turn}`, content: "ok" }), new HumanMessage({ id: `n${turn}`, content: `next ${turn}` }));
      const request = {
        messages: [...stored],
        systemMessage: new SystemMessage("sys"),
        state: { messages: [...stored], [SUMMARY_SLOT_KEY]: summary ? { summary } : {} },
        tools: [],
        model: summarizer,
        runtime: { configurable: { thread_id: "provenance" } },
      };
      // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
      const result = await (middleware.wrapModelCall as any)(request, async (r: Parameters<typeof viewReport>[0]) => {
        reports.push(viewReport(r).summary);
        return new AIMessage("ok");
      });
      const update =
        result instanceof Command ? (result.update as Record<string, { summary: SummaryRecord }>)[SUMMARY_SLOT_KEY]?.summary : undefined;
      if (update && update.coveredCount > 0) {
        summary = update;
        passes.push(...(update.lastPasses ?? []));
        // The call that made it already shows it.
        expect(reports.at(-1)).toMatchObject({ firstId: "u0", lastId: update.coveredThroughId, count: update.coveredCount });
        expect(lines.at(-1)).toContain(
          `summary_covers=${update.coveredCount} summary_from=u0 summary_through=${update.coveredThroughId} summary_passes=${update.passes}`,
        );
      }
    }
    const record = summary as SummaryRecord;
    expect(record.coveredFromId).toBe("u0");
    expect(record.passes).toBe(succeeded);
    expect(passes).toHaveLength(succeeded);
    expect(succeeded).toBeGreaterThan(5);
    // The passes are consecutive slices of the thread from its first message to the last covered one.
    const ids = stored.map((m) => m.id);
    let next = 0;
    for (const pass of passes) {
      expect(pass.fromId).toBe(ids[next]);
      next += pass.messages;
      expect(pass.throughId).toBe(ids[next - 1]);
      expect(pass.inputTokens).toBeLessThanOrEqual(600);
    }
    expect(next).toBe(record.coveredCount);
    expect(ids[next - 1]).toBe(record.coveredThroughId);
  });
});
