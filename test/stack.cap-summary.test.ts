/**
 * "The cap drops what no summary covers": with `[windowTrim(), summarize(), tokenCap()]` (and
 * `memoryStack({ maxHistoryTokens })`, same order) a cap smaller than the window, in tokens, cut
 * messages that had left neither into the summary (they were still in the window, or had left it
 * less than a period ago): the model received them neither in the view nor in the summary, and
 * tokenCap only warned. Now the cap asks the summary to cover them first (core's
 * `extendSummaryCoverage`), so every non-system message before the first one a model call sees is
 * in the summary that call carries. Asserted on what the model receives: the messages carry
 * markers, the summarizer keeps every marker it reads, and each call's system prompt must hold
 * the marker of every stored message before its first one. The tool recipe (a tau-bench airline
 * run under the preset's default window and threshold) is checked by ids: the summary placed in
 * each call covers through the message before the first one sent.
 */
import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { MemorySaver } from "@langchain/langgraph";
import { messageText, messageType, SUMMARY_SLOT_KEY, systemText, type ThreadwiseLogger, viewReport } from "@threadwise/core";
import { characterTokenCounter, receivedRequestTokens, repeatedCallIdModel, replayModel, scriptedModel } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { summarize } from "@threadwise/summarize";
import { tokenCap } from "@threadwise/token-cap";
import { windowTrim } from "@threadwise/window-trim";
import { type AgentMiddleware, createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { assistantSteps, loadAirlineRuns, replayScript, replayTools } from "../examples/support/tau-replay.js";

/** One model call as the innermost middleware saw it. */
interface SeenCall {
  stored: BaseMessage[];
  messages: BaseMessage[];
  system: string;
  /** Id of the newest message the summary placed in the call covers (`undefined`: none placed). */
  summaryThroughId: string | null | undefined;
  unsummarizedDropped: number | undefined;
}

/** Innermost: what each model call sends, with core's figures of its view. */
function recorder(calls: SeenCall[]): AgentMiddleware {
  return createMiddleware({
    name: "test/cap-summary-recorder",
    wrapModelCall: (request, handler) => {
      const report = viewReport(request);
      calls.push({
        stored: [...((request.state?.messages ?? []) as BaseMessage[])],
        messages: [...request.messages],
        system: systemText(request.systemMessage),
        summaryThroughId: report.summary?.lastId,
        unsummarizedDropped: report.unsummarizedDropped,
      });
      return handler(request);
    },
  });
}

function recordingLogger(): ThreadwiseLogger & { lines: string[]; warnings: string[] } {
  const lines: string[] = [];
  const warnings: string[] = [];
  return { lines, warnings, info: (line) => lines.push(line), warn: (message) => warnings.push(message) };
}

/** The stored non-system messages before the first message `call` sends (found by id). */
function leftOut(call: SeenCall): BaseMessage[] {
  const first = call.messages.find((m) => typeof m.id === "string" && call.stored.some((s) => s.id === m.id));
  const at = first ? call.stored.findIndex((s) => s.id === first.id) : call.stored.length;
  return call.stored.slice(0, at).filter((m) => messageType(m) !== "system");
}

const MARKER = /⟦[a-z]\d+⟧/g;
const markersOf = (text: string) => text.match(MARKER) ?? [];

/** Keeps every marker it reads (previous summary and new messages), in order: a summary that loses nothing. */
const markerSummarizer = () =>
  scriptedModel((messages) => {
    const seen = [...new Set(messages.flatMap((m) => markersOf(messageText(m))))];
    return `Covered: ${seen.join(" ")}`;
  });

/** Long turns, English and Korean alternating (Hangul costs more tokens per character). */
const userTurn = (i: number) =>
  i % 2 === 0
    ? `⟦u${i}⟧ Question ${i}: I am planning the second leg of the trip from Seoul to Busan and need the fare rules, the baggage allowance and the change fees for each class of ticket. `.repeat(
        2,
      )
    : `⟦u${i}⟧ 질문 ${i}: 서울에서 부산까지 가는 기차표를 바꾸고 싶은데 위약금과 수하물 규정, 좌석 등급별 요금을 자세히 알려 주세요. `.repeat(
        2,
      );
const answer = (call: number) =>
  `⟦a${call}⟧ ${call % 2 === 0 ? "The fare rules of this route allow one free change before departure. " : "이 노선은 출발 전에 한 번 무료로 변경할 수 있습니다. "}`.repeat(
    4,
  );

describe("the cap never drops what the summary does not cover", () => {
  it("English and Korean long turns under [windowTrim(), summarize(), tokenCap()]: every message before the view is in the summary sent", async () => {
    const calls: SeenCall[] = [];
    const logger = recordingLogger();
    const summarizer = markerSummarizer();
    const agent = createAgent({
      model: scriptedModel((_messages, call) => answer(call)),
      tools: [],
      checkpointer: new MemorySaver(),
      middleware: [
        windowTrim({ maxMessages: 20, logger }),
        summarize({ model: summarizer, threshold: 30, logger }),
        tokenCap({ maxTokens: 1200, logger }),
        recorder(calls),
      ],
    });
    const config = { configurable: { thread_id: "ko-en" } };
    const turns = 24;
    for (let i = 1; i <= turns; i += 1) await agent.invoke({ messages: [new HumanMessage(userTurn(i))] }, config);

    expect(calls).toHaveLength(turns);
    // The cap cut inside the window (what the scenario is about), on most calls.
    const cutInsideWindow = calls.filter((call) => leftOut(call).length > 0 && call.stored.length - leftOut(call).length < 20);
    expect(cutInsideWindow.length).toBeGreaterThan(turns / 2);
    for (const [n, call] of calls.entries()) {
      const missing = leftOut(call)
        .flatMap((m) => markersOf(messageText(m)).slice(0, 1))
        .filter((marker) => !call.system.includes(marker));
      expect(missing, `call ${n + 1}: messages before the view that the summary sent does not hold`).toEqual([]);
      expect(call.unsummarizedDropped, `call ${n + 1}`).toBe(0);
    }
    // The summarizer is called once per extension, not on every call.
    expect(summarizer.calls.length).toBeGreaterThan(0);
    expect(summarizer.calls.length).toBeLessThan(turns / 2);
    expect(logger.warnings.filter((w) => w.includes("no summary covers"))).toEqual([]);
    // The stored thread is never changed by a view.
    const state = await agent.graph.getState(config);
    const stored = state.values.messages as BaseMessage[];
    expect(stored).toHaveLength(2 * turns);
    expect(messageText(stored[0] as BaseMessage)).toBe(userTurn(1));
    // The summary kept its bookkeeping: it covers through a stored message, with digests and passes.
    const summary = (state.values as Record<string, { summary?: { coveredThroughId: string; coveredDigests?: string; passes?: number } }>)[
      SUMMARY_SLOT_KEY
    ]?.summary;
    expect(stored.some((m) => m.id === summary?.coveredThroughId)).toBe(true);
    expect(summary?.coveredDigests?.length).toBeGreaterThan(0);
    expect(summary?.passes).toBe(summarizer.calls.length);
  });

  it("a cap that never cuts: the same summarizer calls, summaries and views as without the cap", async () => {
    const run = async (cap: boolean) => {
      const calls: SeenCall[] = [];
      const summarizer = markerSummarizer();
      const agent = createAgent({
        model: scriptedModel((_messages, call) => answer(call)),
        tools: [],
        checkpointer: new MemorySaver(),
        middleware: [
          windowTrim({ maxMessages: 4, logger: false }),
          summarize({ model: summarizer, threshold: 6, logger: false }),
          ...(cap ? [tokenCap({ maxTokens: 1200, logger: false })] : []),
          recorder(calls),
        ],
      });
      const config = { configurable: { thread_id: "kept-up" } };
      for (let i = 1; i <= 16; i += 1) await agent.invoke({ messages: [new HumanMessage(userTurn(i))] }, config);
      return { calls, summarizer };
    };
    const capped = await run(true);
    const uncapped = await run(false);
    // The view is what the summary does not cover, so a cap that never cuts into it sends the same.
    const texts = (calls: SeenCall[]) => calls.map((call) => call.messages.map((m) => messageText(m)));
    expect(texts(capped.calls)).toEqual(texts(uncapped.calls));
    expect(capped.calls.every((call) => call.unsummarizedDropped === 0)).toBe(true);
    expect(capped.summarizer.calls.length).toBeGreaterThan(0);
    expect(capped.summarizer.calls.length).toBe(uncapped.summarizer.calls.length);
    expect(capped.calls.map((call) => call.system)).toEqual(uncapped.calls.map((call) => call.system));
  });

  it("the tool recipe under the preset's default window and threshold: the summary placed covers every message before the view", async () => {
    const script = replayScript(loadAirlineRuns()[0] as Parameters<typeof replayScript>[0]);
    const calls: SeenCall[] = [];
    const logger = recordingLogger();
    const summarizer = markerSummarizer();
    const stack = memoryStack({ maxHistoryTokens: 3500, logger, env: {}, models: { summarize: summarizer } });
    const middleware: AgentMiddleware[] = [...stack.middleware, recorder(calls)];
    const agent = createAgent({
      model: replayModel(assistantSteps(script)),
      tools: replayTools(script),
      systemPrompt: script.systemPrompt,
      ...stack,
      middleware,
    });
    const config = { configurable: { thread_id: script.threadId }, recursionLimit: 60 };
    for (const turn of script.turns) await agent.invoke({ messages: [new HumanMessage(turn.user)] }, config);

    const cut = calls.filter((call) => leftOut(call).length > 0);
    expect(cut.length, "the cap cut the view").toBeGreaterThan(0);
    for (const [n, call] of calls.entries()) {
      const before = leftOut(call);
      if (before.length === 0) continue;
      const through = call.stored.findIndex((m) => m.id === call.summaryThroughId);
      const last = call.stored.indexOf(before[before.length - 1] as BaseMessage);
      expect(through, `call ${n + 1}: the summary sent covers through the message before the view`).toBeGreaterThanOrEqual(last);
      expect(call.system).toContain("[Previous conversation summary]");
      expect(call.unsummarizedDropped, `call ${n + 1}`).toBe(0);
    }
    expect(logger.lines.every((line) => !/unsummarized_dropped=[1-9]/.test(line))).toBe(true);
    expect(logger.warnings.filter((w) => w.includes("no summary covers"))).toEqual([]);
  });

  it("a provider compaction pinned ahead of the view takes room: the summary is extended at least through the cap's own cut", async () => {
    // Regression: the ahead cut (half the room the fixed part leaves) did not count the pinned
    // compaction the cap's cut counts, so it started before the cap's cut; the summary covered
    // only through it and the cap dropped the messages between, in no summary (a warning each call).
    const dropped: string[] = [];
    let extensions = 0;
    for (let maxTokens = 200; maxTokens <= 300; maxTokens += 20) {
      const calls: SeenCall[] = [];
      const logger = recordingLogger();
      const summarizer = markerSummarizer();
      const agent = createAgent({
        model: scriptedModel(
          (_messages, n) => `⟦a${n}⟧ ${n % 2 === 0 ? "The fare allows one free change." : "한 번 무료로 변경할 수 있습니다."}`,
        ),
        tools: [],
        systemPrompt: "You are a careful airline agent.",
        checkpointer: new MemorySaver(),
        middleware: [
          windowTrim({ maxMessages: 20, logger }),
          summarize({ model: summarizer, threshold: 30, logger }),
          tokenCap({ maxTokens, tokenCounter: characterTokenCounter(), logger }),
          recorder(calls),
        ],
      });
      const config = { configurable: { thread_id: `compaction-${maxTokens}` } };
      // An imported thread an Anthropic compaction summarized (core compactionBoundary): kept ahead of every view.
      const compaction = new AIMessage({
        id: "c0",
        content: [
          { type: "compaction", content: "p".repeat(400) },
          { type: "text", text: "⟦c0⟧ ok" },
        ] as never,
      });
      await agent.invoke(
        { messages: [new HumanMessage({ id: "h0", content: "⟦h0⟧ Start." }), compaction, new HumanMessage("⟦u0⟧ Check booking 0.")] },
        config,
      );
      for (let turn = 1; turn < 14; turn += 1)
        await agent.invoke(
          {
            messages: [
              new HumanMessage(
                turn % 2 === 0
                  ? `⟦u${turn}⟧ Check booking ${turn} and its fare rules.`
                  : `⟦u${turn}⟧ 예약 ${turn}번과 요금 규정을 확인해 주세요.`,
              ),
            ],
          },
          config,
        );
      for (const [n, call] of calls.entries()) {
        // The stored messages after the compaction and before the first one the view sends after it.
        const after = call.stored.findIndex((m) => m.id === "c0") + 1;
        const first = call.messages.find((m) => call.stored.findIndex((s) => s.id === m.id) >= after);
        const at = first ? call.stored.findIndex((s) => s.id === first.id) : call.stored.length;
        const missing = call.stored
          .slice(after, at)
          .flatMap((m) => markersOf(messageText(m)).slice(0, 1))
          .filter((marker) => !call.system.includes(marker));
        if (missing.length > 0 || call.unsummarizedDropped !== 0) dropped.push(`cap ${maxTokens}, call ${n + 1}: ${missing.join(" ")}`);
      }
      expect(
        logger.warnings.filter((w) => w.includes("no summary covers")),
        `cap ${maxTokens}`,
      ).toEqual([]);
      // The compaction went with every call.
      expect(calls.every((call) => call.messages.some((m) => m.id === "c0"))).toBe(true);
      extensions += summarizer.calls.length;
    }
    expect(extensions).toBeGreaterThan(0);
    expect(dropped).toEqual([]);
  });

  it("a model that numbers its calls call_0 on every turn: the request after the extension is within maxTokens as sent, renamed ids counted", async () => {
    // Core sends every repeated call id renamed (`call_0_r` + 12 hex characters), so the request
    // costs more than its stored messages; the cut made again after the summary is extended
    // (longer summary in the system prompt) must count it as sent too.
    const lookup = tool(async ({ q }: { q: string }) => `Result for ${q}: seat 12A is free.`, {
      name: "lookup",
      description: "Look up a booking.",
      schema: z.object({ q: z.string() }),
    });
    const renamed = /_r[0-9a-f]{12}$/;
    /** Tokens of one request the model received, with a fresh counter: the oracle. */
    const receivedTokens = (messages: readonly BaseMessage[]) =>
      receivedRequestTokens(messages, { tools: [lookup], encoding: "o200k_base" });
    const over: string[] = [];
    let renamedSent = 0;
    let extensions = 0;
    let cutCalls = 0;
    // Caps from room for a few turns to most of the window: each cut lands in another place.
    for (let maxTokens = 300; maxTokens <= 460; maxTokens += 20) {
      const calls: SeenCall[] = [];
      const logger = recordingLogger();
      const summarizer = markerSummarizer();
      const model = repeatedCallIdModel({
        tool: "lookup",
        args: (n) => ({ q: `booking ${n}` }),
        answer: (n) => `⟦a${n}⟧ Booking ${n} checked.`,
      });
      const agent = createAgent({
        model,
        tools: [lookup],
        systemPrompt: "You are a careful airline agent.",
        checkpointer: new MemorySaver(),
        middleware: [
          windowTrim({ maxMessages: 20, logger }),
          summarize({ model: summarizer, threshold: 30, logger }),
          tokenCap({ maxTokens, encoding: "o200k_base", logger }),
          recorder(calls),
        ],
      });
      const config = { configurable: { thread_id: `call-0-${maxTokens}` } };
      for (let turn = 0; turn < 10; turn += 1)
        await agent.invoke({ messages: [new HumanMessage(`⟦u${turn}⟧ Check booking ${turn}.`)] }, config);
      for (const [n, call] of model.calls.entries()) {
        const tokens = receivedTokens(call.messages);
        if (tokens > maxTokens) over.push(`cap ${maxTokens}, call ${n}: ${tokens} tokens`);
        renamedSent += call.messages.filter((m) => m.getType() === "tool" && renamed.test((m as ToolMessage).tool_call_id)).length;
      }
      for (const [n, call] of calls.entries()) {
        const missing = leftOut(call)
          .flatMap((m) => markersOf(messageText(m)).slice(0, 1))
          .filter((marker) => !call.system.includes(marker));
        expect(missing, `cap ${maxTokens}, call ${n + 1}: messages before the view that the summary sent does not hold`).toEqual([]);
        expect(call.unsummarizedDropped, `cap ${maxTokens}, call ${n + 1}`).toBe(0);
        if (leftOut(call).length > 0 && call.stored.length - leftOut(call).length < 20) cutCalls += 1;
      }
      expect(logger.warnings.filter((w) => w.includes("no summary covers"))).toEqual([]);
      extensions += summarizer.calls.length;
    }
    // The scenario: the cap cut inside the window, the summary was extended, ids were renamed.
    expect(cutCalls).toBeGreaterThan(0);
    expect(extensions).toBeGreaterThan(0);
    expect(renamedSent).toBeGreaterThan(0);
    expect(over).toEqual([]);
  });
});
