/**
 * The backlog warning (spec R39): a call whose view leaves out messages neither summarized yet
 * nor sent warns, each such call, with core's count (the multiturn line's
 * `unsummarized_dropped`), naming `maxPassesPerCall` and `MEMORY_SUMMARIZE_MAX_PASSES`; a call
 * not behind does not. Threads of English questions and Korean answers.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import type { SummaryRecord, ThreadwiseLogger } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { importedThread, modelCall, recordingSummarizer } from "./fixtures/imported-thread.js";
import { summarize } from "./summarize.js";

describe("summarize warns of a backlog neither summarized nor sent", () => {
  it("on each call behind, with that call's multiturn count; never when not behind", async () => {
    const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
    const dropped: number[] = [];
    const logger: ThreadwiseLogger = {
      info: (_message, fields) => void dropped.push((fields?.unsummarized_dropped as number | undefined) ?? 0),
      warn: (message, fields) => void warnings.push({ message, fields }),
    };
    const middleware = summarize({ windowSize: 20, threshold: 40, maxInputTokens: 1000, maxPassesPerCall: 1, logger });
    const summarizer = recordingSummarizer();
    const stored: BaseMessage[] = importedThread(300);
    let summary: SummaryRecord | undefined;
    const turn = async (call: number) => {
      stored.push(new AIMessage({ id: `answer${call}`, content: "ok" }), new HumanMessage({ id: `next${call}`, content: `다음 ${call}` }));
      const { update } = await modelCall(middleware, stored, summary, summarizer.model);
      if (update && update.text !== "") summary = update;
    };
    const warnedCounts = () => warnings.map((w) => w.fields?.unsummarized_dropped);
    let call = 0;
    await turn(call++);
    expect(dropped[0]).toBeGreaterThan(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain(`${dropped[0]} message(s)`);
    expect(warnings[0]?.message).toContain("maxPassesPerCall (1)");
    expect(warnings[0]?.message).toContain("MEMORY_SUMMARIZE_MAX_PASSES");
    expect(warnings[0]?.fields).toEqual({ unsummarized_dropped: dropped[0], max_passes_per_call: 1 });
    // Caught up over the next calls: one warning per call behind, each with its own count.
    while (dropped.at(-1) !== 0 && call < 200) await turn(call++);
    expect(dropped.at(-1)).toBe(0);
    expect(dropped.filter((n) => n > 0).length).toBeGreaterThan(1);
    expect(warnedCounts()).toEqual(dropped.filter((n) => n > 0));
    // Calls that are not behind do not warn.
    const warned = warnings.length;
    for (let i = 0; i < 3; i += 1) await turn(call++);
    expect(warnings).toHaveLength(warned);
    // A second import into the same thread: behind again, warned again.
    stored.push(...importedThread(300).map((m) => Object.assign(m, { id: `again-${m.id}` })));
    await turn(call++);
    expect(dropped.at(-1)).toBeGreaterThan(0);
    expect(warnings).toHaveLength(warned + 1);
    expect(warnings.at(-1)?.fields?.unsummarized_dropped).toBe(dropped.at(-1));
  });
});
