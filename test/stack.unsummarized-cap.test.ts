/**
 * "The preset drops history": `memoryStack({ maxHistoryTokens })` puts tokenCap inside summarize,
 * and a cap smaller than the window (in tokens) dropped messages that no summary covered yet: the
 * model received them neither in the view nor in the summary. The cap now has the summary cover
 * them first (core's `extendSummaryCoverage`; test/stack.cap-summary.test.ts asserts what the
 * model receives), so the preset drops nothing unsummarized. Loss remains possible only when the
 * summarizer fails (R13: the turn goes on, and the cap is a hard limit): tokenCap then warns on each
 * such call (deterministic from the stored thread, as R37 wants of every log line), naming the
 * count; a stack whose summary keeps up with the cap, and a cap without a summary, do not warn.
 */
import type { BaseMessage } from "@langchain/core/messages";
import { type BaseCheckpointSaver, MemorySaver } from "@langchain/langgraph";
import type { ThreadwiseLogger } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent } from "langchain";
import { describe, expect, it } from "vitest";

function recordingLogger(): ThreadwiseLogger & { lines: string[]; warnings: Array<[string, Record<string, unknown> | undefined]> } {
  const lines: string[] = [];
  const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
  return {
    lines,
    warnings,
    info: (message) => lines.push(message),
    warn: (message, fields) => warnings.push([message, fields as Record<string, unknown> | undefined]),
  };
}

/** Long answers (about 120 tokens each), so a few turns outgrow a small cap. */
const model = () =>
  scriptedModel((_messages: BaseMessage[], call: number) => `answer ${call}: ${"the fare rules of this route ".repeat(20)}`);

async function run(middleware: AgentMiddleware[], checkpointer: BaseCheckpointSaver = new MemorySaver(), turns = 14) {
  const agent = createAgent({ model: model(), tools: [], checkpointer, middleware });
  const config = { configurable: { thread_id: "capped" } };
  for (let i = 1; i <= turns; i += 1) await agent.invoke({ messages: [{ role: "user", content: `question ${i} about my trip` }] }, config);
}

const dropsOf = (lines: readonly string[]) => lines.map((line) => Number(/unsummarized_dropped=(\d+)/.exec(line)?.[1] ?? Number.NaN));

describe("a cap inside the summary (memoryStack with maxHistoryTokens)", () => {
  it("drops nothing that no summary covers: the summary covers what the cap cuts, with no warning", async () => {
    const logger = recordingLogger();
    const stack = memoryStack({ maxHistoryTokens: 700, recallMaxTokens: false, historyAware: false, logger, env: {} });
    await run(stack.middleware, stack.checkpointer);
    const drops = dropsOf(logger.lines);
    expect(drops.length).toBeGreaterThan(10);
    expect(drops.every((n) => n === 0)).toBe(true);
    expect(logger.lines.some((line) => line.includes("summary_covers="))).toBe(true);
    expect(logger.warnings.filter(([message]) => message.includes("no summary covers"))).toEqual([]);
  });

  it("warns on each call where the cap drops messages no summary covers because the summarizer failed, with the multiturn line's count", async () => {
    const logger = recordingLogger();
    const failing = scriptedModel(() => new Error("summarizer down"));
    const stack = memoryStack({
      maxHistoryTokens: 700,
      recallMaxTokens: false,
      historyAware: false,
      logger,
      env: {},
      models: { summarize: failing },
    });
    await run(stack.middleware, stack.checkpointer);
    expect(failing.calls.length, "the cap asked the summary to cover its cut").toBeGreaterThan(0);
    const drops = dropsOf(logger.lines);
    expect(
      drops.some((n) => n > 0),
      "the cap dropped unsummarized messages (what the warning is about)",
    ).toBe(true);
    const warned = logger.warnings.filter(([message]) => message.includes("no summary covers"));
    expect(warned.every(([message]) => message.includes("700 tokens"))).toBe(true);
    expect(warned.map(([, fields]) => fields)).toEqual(
      drops.filter((n) => n > 0).map((n) => ({ max_tokens: 700, unsummarized_dropped: n })),
    );
  });

  it("a summarizer that fails after the first pass of an extension: the warning says the call has a summary (the partial one it places), as a due summary's does", async () => {
    // The extension's warning named the record from before its passes, the due summary's the one
    // after them: on a thread's first call (no summary yet) they disagreed on has_previous.
    const logger = recordingLogger();
    let calls = 0;
    const summarizer = scriptedModel(() => {
      calls += 1;
      return calls === 1 ? "S1: the trip questions so far" : new Error("summarizer down");
    });
    const agent = createAgent({
      model: model(),
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [
        summarize({ model: summarizer, threshold: 1000, windowSize: 1000, maxInputTokens: 400, logger }),
        tokenCap({ maxTokens: 700, logger }),
      ],
    });
    // An imported thread, long enough for the cap to cut it on its first call.
    const history = Array.from({ length: 8 }, (_, i) => [
      { role: "user", content: `question ${i + 1} about my trip` },
      { role: "assistant", content: `answer ${i}: ${"the fare rules of this route ".repeat(20)}` },
    ]).flat();
    await agent.invoke(
      { messages: [...history, { role: "user", content: "question 9 about my trip" }] },
      { configurable: { thread_id: "partial" } },
    );
    expect(calls, "the extension made a first pass, and a second that failed").toBe(2);
    const failed = logger.warnings.filter(([message]) => message.includes("summarizer failed"));
    expect(failed.map(([, fields]) => fields?.has_previous)).toEqual([true]);
  });

  it("does not warn when the summary keeps up with the cap", async () => {
    const logger = recordingLogger();
    const stack = memoryStack({
      maxHistoryTokens: 1500,
      windowSize: 4,
      summarizeThreshold: 6,
      recallMaxTokens: false,
      historyAware: false,
      logger,
      env: {},
    });
    await run(stack.middleware, stack.checkpointer);
    const drops = dropsOf(logger.lines);
    expect(drops.length).toBeGreaterThan(10);
    expect(drops.every((n) => n === 0)).toBe(true);
    expect(logger.lines.some((line) => line.includes("summary_covers="))).toBe(true);
    expect(logger.warnings.filter(([message]) => message.includes("no summary covers"))).toEqual([]);
  });

  it("does not warn for a cap without a summary (nothing is promised to cover what it drops)", async () => {
    const logger = recordingLogger();
    await run([windowTrim({ maxMessages: 20, logger }), tokenCap({ maxTokens: 700, logger })]);
    // The cap cut inside the 20-message window: fewer messages sent than stored.
    const cut = logger.lines.filter((line) => {
      const [, stored, sent] = /thread_msgs=(\d+) .*sent_to_llm=(\d+)/.exec(line) ?? [];
      return Number(stored) <= 20 && Number(sent) < Number(stored);
    });
    expect(cut.length).toBeGreaterThan(0);
    expect(logger.warnings.filter(([message]) => message.includes("no summary covers"))).toEqual([]);
  });
});
