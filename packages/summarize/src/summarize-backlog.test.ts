/**
 * Backlogs larger than one summarizer input (spec R39, issue 23): a thread imported with hundreds or
 * thousands of messages, or a summarizer that failed for a while. Every message that leaves the
 * window is summarized exactly once, in passes that each fit `maxInputTokens`; none is left out.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createTokenCounter, messageText, type SummaryRecord } from "@threadwise/core";
import { describe, expect, it } from "vitest";
import { catchUp, importedThread, modelCall, recordingSummarizer } from "./fixtures/imported-thread.js";
import { summarize } from "./summarize.js";
import {
  boundedTokenCount,
  buildSummarizerInput,
  DEFAULT_SUMMARY_PROMPT,
  SHORTENED_MARKER,
  summarizerPasses,
  summarizerPassLines,
  transcriptLine,
} from "./summarizer-input.js";

const counter = createTokenCounter();

describe("summarizerPasses", () => {
  for (const size of [400, 2000]) {
    for (const cap of [256, 2000, 8000]) {
      it(`${size} messages under a ${cap}-token cap: consecutive passes, each input within the cap, no message left out`, () => {
        const span = importedThread(size);
        const passes = summarizerPasses({ span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: cap, counter });
        expect(passes.flat()).toEqual(span);
        // The longest summary a previous pass can hand on: half the cap (a longer one is shortened).
        const previousSummary = "summary ".repeat(cap);
        for (const pass of passes) {
          const input = buildSummarizerInput({ previousSummary, span: pass, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: cap, counter });
          expect(input.tokens).toBeLessThanOrEqual(cap);
          const text = messageText(input.messages[1] as BaseMessage);
          expect(text).not.toContain("more messages left out");
          // A pass holds more than one message only when all of them fit whole.
          if (pass.length > 1) expect(input.shortened).toBe(0);
          // It ends right before a tool result only when it holds nothing but that call and its
          // results (a call whose results alone are over a pass).
          const after = span[span.indexOf(pass.at(-1) as BaseMessage) + 1];
          if (after?.getType() === "tool") {
            for (const m of pass) expect(m.getType() === "tool" || ((m as AIMessage).tool_calls?.length ?? 0) > 0).toBe(true);
          }
        }
        expect(passes.length).toBeGreaterThan(size === 400 && cap === 8000 ? 0 : 1);
      });
    }
  }

  it("maxPasses: the first passes of the whole split, counting only their lines and the next (O(passes), not O(backlog); issue 21)", () => {
    const span = importedThread(2000);
    const all = summarizerPasses({ span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: 2000, counter: createTokenCounter() });
    expect(all.length).toBeGreaterThan(6);
    for (const maxPasses of [1, 3, all.length, all.length + 5]) {
      // A fresh counter per split: what it tokenized is what this split read.
      const fresh = createTokenCounter();
      const first = summarizerPasses({ span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: 2000, counter: fresh, maxPasses });
      expect(first).toEqual(all.slice(0, maxPasses));
      const read = first.flat().length + (first.flat().length < span.length ? 1 : 0);
      const lines = span.slice(0, read).map((m) => transcriptLine(m).length + 1);
      // Lines beyond the passes kept are never counted: what it tokenized is at most those lines plus the fixed texts.
      expect(fresh.encodedCharacters).toBeLessThanOrEqual(lines.reduce((a, b) => a + b, 0) + 2 * DEFAULT_SUMMARY_PROMPT.length + 200);
    }
  });

  it("summarizerPassLines: the passes of summarizerPasses with each line and its count; an input built from them is the one built from the messages", () => {
    const span = [
      ...importedThread(120),
      new AIMessage({ id: "long", content: "long ".repeat(5000) }),
      new HumanMessage({ id: "word", content: "x".repeat(3000) }),
      ...importedThread(30).map((m, i) => Object.assign(m, { id: `again${i}` })),
    ];
    for (const cap of [256, 512, 2000, 8000]) {
      const passes = summarizerPassLines({ span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: cap, counter, maxPasses: 50 });
      expect(passes.map((p) => p.messages)).toEqual(
        summarizerPasses({ span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: cap, counter, maxPasses: 50 }),
      );
      for (const pass of passes) {
        expect(pass.lines).toEqual(pass.messages.map(transcriptLine));
        pass.lineTokens.forEach((tokens, i) => {
          if (tokens !== undefined) expect(tokens).toBe(boundedTokenCount(counter, `${pass.lines[i]}\n`));
        });
        for (const previousSummary of [undefined, "short summary", "summary ".repeat(cap)]) {
          const args = { previousSummary, span: pass.messages, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: cap, counter };
          expect(buildSummarizerInput({ ...args, read: pass })).toEqual(buildSummarizerInput(args));
        }
      }
    }
  });

  it("buildSummarizerInput with what the passes read writes no transcript line again (a summary read each message's content once for its lines)", () => {
    let reads = 0;
    const span = importedThread(20).map((message) => {
      const content = message.content;
      Object.defineProperty(message, "content", {
        get: () => {
          reads += 1;
          return content;
        },
      });
      return message;
    });
    const args = { previousSummary: "S", span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: 8000, counter };
    const read = { lines: span.map(transcriptLine), lineTokens: span.map((m) => boundedTokenCount(counter, `${transcriptLine(m)}\n`)) };
    reads = 0;
    const input = buildSummarizerInput({ ...args, read });
    expect(reads).toBe(0);
    expect(input).toEqual(buildSummarizerInput(args));
  });

  it("a message alone over a pass is a pass of its own, shortened with the marker", () => {
    const span = [
      new HumanMessage({ id: "u0", content: "hello" }),
      new AIMessage({ id: "a0", content: "long ".repeat(5000) }),
      new HumanMessage({ id: "u1", content: "bye" }),
    ];
    const passes = summarizerPasses({ span, prompt: DEFAULT_SUMMARY_PROMPT, maxInputTokens: 512, counter });
    expect(passes.map((p) => p.map((m) => m.id))).toEqual([["u0"], ["a0"], ["u1"]]);
    const input = buildSummarizerInput({
      previousSummary: undefined,
      span: passes[1] as BaseMessage[],
      prompt: "p",
      maxInputTokens: 512,
      counter,
    });
    expect(messageText(input.messages[1] as BaseMessage)).toContain(SHORTENED_MARKER.split("{n}")[1]);
  });
});

describe("summarize over an imported thread (backlog)", () => {
  it("covers every evicted message exactly once over the next calls, the view bounded meanwhile, and keeps what passes made before a failed one", async () => {
    const stored = importedThread(400);
    const imported = stored.length;
    const windowSize = 20;
    const summarizer = recordingSummarizer([2]);
    const middleware = summarize({ windowSize, threshold: 40, maxInputTokens: 1000, maxPassesPerCall: 3, logger: false });
    let summary: SummaryRecord | undefined;
    const coveredAt = () => (summary ? stored.findIndex((m) => m.id === summary?.coveredThroughId) + 1 : 0);
    const coverage: number[] = [];
    let calls = 0;
    for (; calls < 100 && coveredAt() < imported - windowSize; calls += 1) {
      // The user goes on talking after the import: one exchange per turn (a failed summary is
      // tried again on the next turn).
      if (calls > 0)
        stored.push(
          new AIMessage({ id: `answer${calls}`, content: "ok" }),
          new HumanMessage({ id: `next${calls}`, content: `next ${calls}` }),
        );
      const { update, sent } = await modelCall(middleware, stored, summary, summarizer.model);
      if (update && update.text !== "") summary = update;
      coverage.push(coveredAt());
      // Never the whole backlog in one request: the window, plus what the summary covers not yet
      // only when that is less than a period.
      expect(sent.length).toBeLessThanOrEqual(windowSize + 22);
    }
    // The first call's second pass failed: the first pass's coverage was kept, and the next call
    // went on from there (the failure is retried on the next user turn).
    expect(coverage[0]).toBeGreaterThan(0);
    expect(summarizer.calls()).toBeLessThanOrEqual(3 * calls);
    expect(calls).toBeGreaterThan(3);
    // Every message that left the window was in exactly one summarizer input, whole, in order.
    const covered = coveredAt();
    expect(covered).toBeGreaterThanOrEqual(imported - windowSize);
    expect(summary?.coveredCount).toBe(covered);
    const expected = stored.slice(0, covered).map((m) => transcriptLine(m));
    expect(summarizer.inputs.flat()).toEqual(expected);
  });
});

describe("a summarizer down over an imported thread (backlog)", () => {
  // The record of a failed attempt (`lastAttempt`) keeps in the view what the failing call's view
  // held; a backlog that view had left out stays out, even one that one call's passes would fold.
  it("the failing first call sends the window, not the import; the next failing call keeps that view and what came since", async () => {
    const stored = [...importedThread(400), new HumanMessage({ id: "now", content: "그리고 지금은? And now?" })];
    const summarizer = recordingSummarizer(Array.from({ length: 300 }, (_, i) => i + 1));
    const middleware = summarize({ windowSize: 20, threshold: 40, maxInputTokens: 8000, maxPassesPerCall: 100, logger: false });
    const first = await modelCall(middleware, [...stored], undefined, summarizer.model);
    expect(summarizer.calls()).toBe(1);
    expect(first.sent.length).toBeLessThanOrEqual(20);
    expect(first.update?.lastAttempt).toEqual({ turnId: "now", failed: true, viewFromId: first.sent[0]?.id });
    stored.push(new AIMessage({ id: "ok1", content: "ok" }), new HumanMessage({ id: "next1", content: "next" }));
    const second = await modelCall(middleware, [...stored], first.update, summarizer.model);
    expect(summarizer.calls()).toBe(2);
    // Was: the window again, the first view's oldest messages neither summarized nor sent.
    expect(second.sent.map((m) => m.id)).toEqual([...first.sent.map((m) => m.id), "ok1", "next1"]);
    expect(second.update?.lastAttempt).toEqual({ turnId: "next1", failed: true, viewFromId: first.sent[0]?.id });
  });
});

describe("summarize over an imported thread in the background (backlog)", () => {
  it("400 messages, a 1,000-token cap: every evicted message in exactly one input, each pass within the cap, the view bounded", async () => {
    const run = await catchUp({ size: 400, maxInputTokens: 1000, background: true, maxPassesPerCall: 3 });
    expect(run.covered).toBeGreaterThanOrEqual(400 - 20);
    expect(run.inputs.flat()).toEqual(run.stored.slice(0, run.covered).map((m) => transcriptLine(m)));
    expect(run.summary?.passes).toBe(run.inputs.length);
    expect(run.largestPass).toBeLessThanOrEqual(1000);
    expect(run.largestView).toBeLessThanOrEqual(20 + 22);
    // Three passes per job: the backlog takes several calls, none of which sends it whole.
    expect(run.calls).toBeGreaterThan(3);
  });
});
