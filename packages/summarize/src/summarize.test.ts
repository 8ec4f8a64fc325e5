import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { MemorySaver } from "@langchain/langgraph";
import {
  loneSurrogateAt,
  messageText,
  readSummarySlot,
  STABLE_TAIL_HEADER,
  SUMMARY_SLOT_KEY,
  summarySlotState,
  ThreadwiseConfigError,
  type ThreadwiseLogger,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent, createMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { EXTRACTIVE_SUMMARY_LABEL, extractiveSummarizer } from "./extractive-summarizer.js";
import { summarize } from "./summarize.js";
import { resolveSummarizeOptions } from "./summarize-options.js";
import { DEFAULT_SUMMARY_PROMPT } from "./summarizer-input.js";

function recordingLogger(): ThreadwiseLogger & { warnings: Array<{ message: string; fields?: Record<string, unknown> }> } {
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  return { warnings, info: () => {}, warn: (message, fields) => warnings.push({ message, fields }) };
}

const isSummarizerCall = (messages: BaseMessage[]) =>
  messages[0] !== undefined && messageText(messages[0]).startsWith(DEFAULT_SUMMARY_PROMPT);

/** A summarizer that answers `S1`, `S2`, ... and records the user message of every call. */
function countingSummarizer() {
  return scriptedModel((_messages, call) => `S${call + 1}`);
}

/** Runs turns `from..to` (user `u<k>`, the agent model answers `a<k>`) on one thread. */
async function runTurns(agent: { invoke: (input: never, config: never) => Promise<unknown> }, thread: string, from: number, to: number) {
  for (let k = from; k <= to; k += 1) {
    await agent.invoke(
      { messages: [new HumanMessage({ id: `u${k}`, content: `u${k}` })] } as never,
      { configurable: { thread_id: thread } } as never,
    );
  }
}

function agentModel() {
  return scriptedModel((messages) => {
    const last = [...messages].reverse().find((m) => m.getType() === "human" && !String(m.id ?? "").startsWith("tw-context-"));
    return `a${String(last?.id ?? "?").slice(1)}`;
  });
}

describe("summarize options", () => {
  it("validates with errors that name the option", () => {
    expect(() => summarize({ threshold: 0 })).toThrow(ThreadwiseConfigError);
    expect(() => summarize({ threshold: 0 })).toThrow(/summarize\.threshold/);
    expect(() => summarize({ windowSize: 2.5 })).toThrow(/summarize\.windowSize/);
    expect(() => summarize({ windowSize: -1 })).toThrow(/summarize\.windowSize/);
    // A string is a model name for initChatModel (summarize-model-string.test.ts); a blank one, or no model, is refused.
    expect(() => summarize({ model: 42 as never })).toThrow(/summarize\.model/);
    expect(() => summarize({ model: "" })).toThrow(/summarize\.model/);
    // biome-ignore lint/suspicious/noExplicitAny: an invalid value on purpose
    expect(() => summarize({ promptContextMode: "tail" as any })).toThrow(/summarize\.promptContextMode/);
  });

  it("reads env twins when an option is absent; the option wins", () => {
    const env = { MEMORY_WINDOW_SIZE: "6", MEMORY_SUMMARIZE_THRESHOLD: "9", MEMORY_SUMMARIZE_TIMEOUT_MS: "500" };
    expect(resolveSummarizeOptions({}, env)).toMatchObject({ windowSize: 6, threshold: 9, timeoutMs: 500, maxInputTokens: 8000 });
    expect(resolveSummarizeOptions({ threshold: 12 }, env).threshold).toBe(12);
    expect(() => resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_THRESHOLD: "lots" })).toThrow(/MEMORY_SUMMARIZE_THRESHOLD/);
    expect(resolveSummarizeOptions({}, {})).toMatchObject({ windowSize: 20, threshold: 40 });
  });
});

describe("summarize in an agent", () => {
  it("default 20/40: first summary at the call where the thread holds 40+, then every 20 evicted messages; none in between", async () => {
    const model = agentModel();
    const summarizer = countingSummarizer();
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [summarize({ model: summarizer, logger: false })] });
    const callsAfter: number[] = [];
    for (let k = 1; k <= 42; k += 1) {
      await runTurns(agent, "t-default", k, k);
      callsAfter.push(summarizer.calls.length);
    }
    // Turn 21's call sees 41 messages: 22 out of the 19-message window; turn 31 sees 61: 20 more out; turn 41: 81.
    const firstCallTurns = callsAfter
      .map((n, i) => (i === 0 ? n : n - (callsAfter[i - 1] as number)))
      .flatMap((d, i) => (d > 0 ? [i + 1] : []));
    expect(firstCallTurns).toEqual([21, 31, 41]);

    // Turn 21: the model sees the summary and the window of 20 messages, started on a user message
    // (the default startOn "human" moves it past a11): 19 messages.
    const turn21 = model.calls[20]?.messages as BaseMessage[];
    expect(messageText(turn21[0] as BaseMessage)).toBe("[Previous conversation summary]\nS1");
    expect(turn21.slice(1).map((m) => messageText(m))).toEqual([
      ...Array.from({ length: 10 }, (_, i) => [`u${i + 12}`, `a${i + 12}`])
        .flat()
        .slice(0, 19),
    ]);
    // Turn 30: no new summary; the view is everything not covered (59 messages, 22 covered).
    const turn30 = model.calls[29]?.messages as BaseMessage[];
    expect(turn30.length - 1).toBe(59 - 22);
    expect(messageText(turn30[1] as BaseMessage)).toBe("u12");

    // Incremental: the second call sends exactly S1 and the 20 messages evicted since.
    const second = summarizer.calls[1]?.messages as BaseMessage[];
    const span = Array.from({ length: 10 }, (_, i) => [`User: u${i + 12}`, `Assistant: a${i + 12}`]).flat();
    expect(messageText(second[1] as BaseMessage)).toBe(
      `<previous_summary>\nS1\n</previous_summary>\n\n<new_messages>\n${span.join("\n")}\n</new_messages>`,
    );

    const slot = readSummarySlot((await agent.graph.getState({ configurable: { thread_id: "t-default" } })).values);
    // The window starts on u32, so the summary covers through a31 (AI messages carry generated ids).
    expect(slot.summary).toMatchObject({ text: "S3", coveredCount: 62 });
    const stored = (await agent.graph.getState({ configurable: { thread_id: "t-default" } })).values.messages as BaseMessage[];
    expect(messageText(stored.find((m) => m.id === slot.summary?.coveredThroughId) as BaseMessage)).toBe("a31");
    // History is never deleted.
    expect((await agent.graph.getState({ configurable: { thread_id: "t-default" } })).values.messages).toHaveLength(84);
  });

  // Found trying the README as a new user: it said 21 messages out of the window at the first summary
  // and views of 20 to 39 messages, the figures of a window that may start on any message; under
  // the default startOn "human" the window holds 19 (it starts on a user message), so 22 leave it.
  it("the README's figures for the defaults on a plain chat are the ones a run gives", async () => {
    const readme = readFileSync(resolve(import.meta.dirname, "../README.md"), "utf8").replace(/\s+/g, " ");
    const schedule =
      /the first summary comes on turn (\d+) \((\d+) messages, (\d+) out of the window[^)]*\), then on turns (\d+), (\d+), (\d+)/.exec(
        readme,
      );
    const views = /With the defaults the view of a plain chat holds (\d+) to (\d+) messages/.exec(readme);
    expect(schedule).not.toBeNull();
    expect(views).not.toBeNull();
    const model = agentModel();
    const summarizer = countingSummarizer();
    const agent = createAgent({ model, checkpointer: new MemorySaver(), middleware: [summarize({ model: summarizer, logger: false })] });
    const summaryTurns: number[] = [];
    let firstCovered: number | undefined;
    for (let k = 1; k <= 51; k += 1) {
      const before = summarizer.calls.length;
      await runTurns(agent, "t-readme", k, k);
      if (summarizer.calls.length === before) continue;
      summaryTurns.push(k);
      firstCovered ??= readSummarySlot((await agent.graph.getState({ configurable: { thread_id: "t-readme" } })).values).summary
        ?.coveredCount;
    }
    const sizes = model.calls.map((call) => call.messages.filter((m) => m.getType() !== "system").length);
    const first = summaryTurns[0] as number;
    // A plain chat stores two messages a turn: the first summary's call sees the thread's 2 * turn - 1.
    expect(schedule?.slice(1).map(Number)).toEqual([first, 2 * first - 1, firstCovered, ...summaryTurns.slice(1, 4)]);
    expect(views?.slice(1).map(Number)).toEqual([Math.min(...sizes.slice(first - 1)), Math.max(...sizes)]);
  });

  it("threshold <= windowSize: windowSize is the period", async () => {
    const summarizer = countingSummarizer();
    const agent = createAgent({
      model: agentModel(),
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, windowSize: 4, threshold: 3, startOn: "any", logger: false })],
    });
    const turnsWithCall: number[] = [];
    for (let k = 1; k <= 12; k += 1) {
      const before = summarizer.calls.length;
      await runTurns(agent, "t-small", k, k);
      if (summarizer.calls.length > before) turnsWithCall.push(k);
    }
    // Turn 3 sees 5 messages (1 out of the window); then every 4 more evicted = every 2 turns.
    expect(turnsWithCall).toEqual([3, 5, 7, 9, 11]);
    expect(messageText(summarizer.calls[0]?.messages[1] as BaseMessage)).toBe("<new_messages>\nUser: u1\n</new_messages>");
  });

  it("uses the agent's own model when none is given, and never streams the summarizer call", async () => {
    const model = scriptedModel((messages, call) => (isSummarizerCall(messages) ? `SUMMARY-${call}` : `answer-${call}`));
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ windowSize: 2, threshold: 4, logger: false })],
    });
    const config = { configurable: { thread_id: "t-stream" } };
    const streamed: string[] = [];
    const runs: { tags: string[]; metadata: Record<string, unknown>; runName: unknown }[] = [];
    const callbacks = [
      {
        handleChatModelStart: (...args: unknown[]) =>
          void runs.push({ tags: (args[5] as string[]) ?? [], metadata: (args[6] as Record<string, unknown>) ?? {}, runName: args[7] }),
      },
    ];
    for (let k = 1; k <= 4; k += 1) {
      const stream = await agent.stream({ messages: [new HumanMessage(`u${k}`)] }, { ...config, streamMode: "messages", callbacks });
      for await (const [chunk] of stream) streamed.push(messageText(chunk as BaseMessage));
    }
    const summarizerCalls = model.calls.filter((c) => isSummarizerCall(c.messages as BaseMessage[]));
    expect(summarizerCalls.length).toBeGreaterThanOrEqual(1);
    const text = streamed.join("|");
    expect(text).toContain("answer-");
    expect(text).not.toContain("SUMMARY-");
    const internal = runs.filter((run) => run.tags.includes("threadwise:internal"));
    expect(internal.length).toBe(summarizerCalls.length);
    expect(internal[0]).toMatchObject({
      runName: "threadwise/summarize:summary",
      metadata: { threadwise_internal: "threadwise/summarize:summary" },
      tags: expect.arrayContaining(["nostream", "threadwise:summarize"]),
    });
    const slot = readSummarySlot((await agent.graph.getState(config)).values);
    expect(slot.summary?.text).toMatch(/^SUMMARY-\d+$/);
  });

  it("places the summary as stable_tail context on the newest user message, never in the stored thread", async () => {
    const model = agentModel();
    const agent = createAgent({
      model,
      systemPrompt: "You are helpful.",
      checkpointer: new MemorySaver(),
      middleware: [
        summarize({ model: countingSummarizer(), windowSize: 2, threshold: 4, promptContextMode: "stable_tail", logger: false }),
      ],
    });
    await runTurns(agent, "t-tail", 1, 3);
    const seen = model.calls[2]?.messages as BaseMessage[];
    expect(messageText(seen[0] as BaseMessage)).toBe("You are helpful.");
    // One more text block on the newest user message, in the request only (no second user turn).
    expect(seen.at(-1)?.id).toBe("u3");
    expect(seen.at(-1)?.content).toEqual([
      { type: "text", text: "u3" },
      { type: "text", text: `\n\n${STABLE_TAIL_HEADER}\n\n[Previous conversation summary]\nS1` },
    ]);
    const stored = (await agent.graph.getState({ configurable: { thread_id: "t-tail" } })).values.messages as BaseMessage[];
    expect(stored.map((m) => m.id)).toEqual(["u1", expect.any(String), "u2", expect.any(String), "u3", expect.any(String)]);
    expect(stored.some((m) => messageText(m).includes("Previous conversation summary"))).toBe(false);
  });

  it("merges a stored head SystemMessage into the one leading system message and never summarizes it", async () => {
    const model = agentModel();
    const summarizer = countingSummarizer();
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, windowSize: 2, threshold: 4, logger: false })],
    });
    const config = { configurable: { thread_id: "t-sys" } };
    await agent.invoke(
      { messages: [new SystemMessage({ id: "sys", content: "stored rules" }), new HumanMessage({ id: "u1", content: "u1" })] },
      config,
    );
    await runTurns(agent, "t-sys", 2, 6);
    for (const call of summarizer.calls) expect(messageText(call.messages[1] as BaseMessage)).not.toContain("stored rules");
    expect(summarizer.calls.length).toBeGreaterThanOrEqual(2);
    const last = model.calls.at(-1)?.messages as BaseMessage[];
    const systems = last.filter((m) => m.getType() === "system");
    expect(systems).toHaveLength(1);
    expect(last[0]).toBe(systems[0]);
    expect(messageText(systems[0] as BaseMessage)).toMatch(/^stored rules\n\n\[Previous conversation summary\]\nS\d+$/);
  });

  it("leaves the work-memory part of the slot alone", async () => {
    const entry = { id: "w1", text: "work", createdAt: "t" };
    const workWriter = createMiddleware({
      name: "test/work-writer",
      stateSchema: summarySlotState,
      afterModel: () => ({ [SUMMARY_SLOT_KEY]: { workMemory: { entries: [entry] } } }) as never,
    });
    const agent = createAgent({
      model: agentModel(),
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: countingSummarizer(), windowSize: 2, threshold: 4, logger: false }), workWriter],
    });
    await runTurns(agent, "t-work", 1, 4);
    const slot = readSummarySlot((await agent.graph.getState({ configurable: { thread_id: "t-work" } })).values);
    expect(slot.workMemory).toEqual({ entries: [entry] });
    expect(slot.summary?.text).toBe("S2");
  });

  it("works offline with the extractive summarizer, in Korean", async () => {
    const model = scriptedModel(() => "네, 기억할게요.");
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: extractiveSummarizer(), windowSize: 2, threshold: 4, logger: false })],
    });
    const config = { configurable: { thread_id: "t-ko" } };
    for (const text of [
      "저는 민지예요. 부산에 살아요.",
      "고양이를 키워요. 고양이 이름은 나비예요.",
      "다음 달에 서울로 이사해요.",
      "회사는 판교에 있어요.",
    ]) {
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    }
    const summary = readSummarySlot((await agent.graph.getState(config)).values).summary;
    expect(summary?.text.split("\n")[0]).toBe(EXTRACTIVE_SUMMARY_LABEL);
    expect(summary?.text).toContain("고양이");
    const seen = model.calls.at(-1)?.messages as BaseMessage[];
    expect(messageText(seen[0] as BaseMessage)).toContain(EXTRACTIVE_SUMMARY_LABEL);
  });
});

// A summarizer answer cut mid-emoji (`max_tokens`, a stream that ended) holds a lone surrogate;
// stored and placed as it came, Anthropic and Gemini refused every later request of the thread.
describe("a summarizer answer with a lone UTF-16 surrogate", () => {
  it("is stored and placed well-formed: the lone surrogate as U+FFFD", async () => {
    const cut = `Mina likes 🍣 and ${"🍜".slice(0, 1)}`;
    const model = agentModel();
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: scriptedModel(() => cut), windowSize: 2, threshold: 4, logger: false })],
    });
    await runTurns(agent, "t-cut", 1, 3);
    const slot = readSummarySlot((await agent.graph.getState({ configurable: { thread_id: "t-cut" } })).values);
    expect(slot.summary?.text).toBe("Mina likes 🍣 and \uFFFD");
    const sent = ((model.calls[2]?.messages ?? []) as BaseMessage[]).map(messageText).join("\n");
    expect(sent).toContain("Mina likes 🍣 and \uFFFD");
    expect(loneSurrogateAt(sent)).toBe(-1);
  });
});

describe("summarizer failures", () => {
  /** A summarizer whose n-th call does what `plan[n]` says. */
  function plannedSummarizer(plan: Array<"ok" | "throw" | "hang" | "empty">) {
    const model = fakeModel();
    const calls: string[] = [];
    const runnable = {
      invoke: async (messages: BaseMessage[]) => {
        const step = plan[calls.length] ?? "ok";
        calls.push(messageText(messages[1] as BaseMessage));
        if (step === "throw") throw new Error("provider exploded: secret-ish detail");
        if (step === "hang") return new Promise(() => {});
        if (step === "empty") return new AIMessage("   ");
        return new AIMessage(`GOOD-${calls.length}`);
      },
    };
    return { runnable, calls, model };
  }

  for (const failure of ["throw", "hang", "empty"] as const) {
    it(`${failure}: keeps the previous summary and all history, warns, the turn proceeds, no error text placed`, async () => {
      const { runnable, calls } = plannedSummarizer(["ok", failure, "ok"]);
      const logger = recordingLogger();
      const model = agentModel();
      // window 2, threshold 6: period 4 messages = every 2 turns.
      const agent = createAgent({
        model,
        checkpointer: new MemorySaver(),
        middleware: [summarize({ model: runnable, windowSize: 2, threshold: 6, timeoutMs: 50, startOn: "any", logger })],
      });
      const config = { configurable: { thread_id: `t-${failure}` } };
      await runTurns(agent, `t-${failure}`, 1, 4); // turn 4 (7 messages): first summary GOOD-1 through u3
      expect(readSummarySlot((await agent.graph.getState(config)).values).summary).toMatchObject({
        text: "GOOD-1",
        coveredThroughId: "u3",
      });
      await runTurns(agent, `t-${failure}`, 5, 6); // turn 6: due, fails
      expect(calls).toHaveLength(2);
      const state = await agent.graph.getState(config);
      expect(readSummarySlot(state.values).summary).toMatchObject({ text: "GOOD-1", coveredThroughId: "u3", coveredCount: 5 });
      expect(state.values.messages).toHaveLength(12);
      expect(messageText(state.values.messages.at(-1) as BaseMessage)).toBe("a6");
      expect(logger.warnings).toHaveLength(1);
      expect(logger.warnings[0]?.message).toMatch(/summarizer failed/);
      expect(logger.warnings[0]?.fields).toMatchObject({
        reason: failure === "throw" ? "Error" : failure === "hang" ? "threadwise/summarize:summary timed out after 50 ms" : "empty answer",
      });
      expect(JSON.stringify(logger.warnings[0]?.fields)).not.toContain("secret-ish");
      const seen = model.calls[5]?.messages as BaseMessage[];
      expect(messageText(seen[0] as BaseMessage)).toBe("[Previous conversation summary]\nGOOD-1");
      expect(seen.map((m) => messageText(m)).join(" ")).not.toMatch(/error|exploded|timed out/i);
      // The failed turn keeps every message the summary does not cover (spec R33): none is in
      // neither the summary nor the view.
      expect(seen.slice(1).map((m) => messageText(m))).toEqual(["a3", "u4", "a4", "u5", "a5", "u6"]);
      // The next user turn tries again and succeeds, still incremental from GOOD-1.
      await runTurns(agent, `t-${failure}`, 7, 7);
      expect(calls).toHaveLength(3);
      expect(readSummarySlot((await agent.graph.getState(config)).values).summary).toMatchObject({
        text: "GOOD-3",
        coveredThroughId: "u6",
        coveredCount: 11,
      });
      expect(calls[2]).toBe(
        "<previous_summary>\nGOOD-1\n</previous_summary>\n\n<new_messages>\nAssistant: a3\nUser: u4\nAssistant: a4\nUser: u5\nAssistant: a5\nUser: u6\n</new_messages>",
      );
    });
  }

  it("a failed first summary leaves no summary at all", async () => {
    const { runnable } = plannedSummarizer(["throw"]);
    const model = agentModel();
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: runnable, windowSize: 2, threshold: 4, logger: false })],
    });
    await runTurns(agent, "t-none", 1, 3); // turn 3: the first summary is due and fails
    const state = await agent.graph.getState({ configurable: { thread_id: "t-none" } });
    // Only the marker that covers nothing (written on the first call), never error text.
    expect(readSummarySlot(state.values).summary).toMatchObject({ text: "", coveredThroughId: null, coveredCount: 0 });
    expect((model.calls[2]?.messages ?? []).some((m) => messageText(m).includes("summary"))).toBe(false);
  });
});

describe("summarize after a covered message is edited (R37)", () => {
  // A summary kept what a covered message said before it was edited in place (a redaction under
  // the message's own id), for good: incremental summaries only add the newly evicted span.
  it("the next due summary is made again from the stored messages; until then the summary stays, as in a fresh process", async () => {
    const summarizer = scriptedModel((messages) => {
      const input = messageText(messages.at(-1) as BaseMessage);
      return `S(${input.includes("u1 redacted") ? "redacted" : input.includes("u1") ? "original" : "span"})`;
    });
    const agent = createAgent({
      model: scriptedModel(() => "ok"),
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizer, windowSize: 2, threshold: 4, startOn: "any", logger: false })],
    });
    const config = { configurable: { thread_id: "edit-covered" } };
    const slot = async () => readSummarySlot((await agent.graph.getState(config)).values).summary;
    await runTurns(agent, "edit-covered", 1, 3);
    expect((await slot())?.text).toBe("S(original)");
    // Not yet due after the edit: the summary stays (it is stored state; a fresh process reads the same).
    await agent.updateState(config, { messages: [new HumanMessage({ id: "u1", content: "u1 redacted" })] });
    expect((await slot())?.text).toBe("S(original)");
    // Due on turn 4: u1 no longer says what the summary was made from, so it is made again from
    // every stored message outside the window, not incrementally on top of the old text.
    await runTurns(agent, "edit-covered", 4, 4);
    expect((await slot())?.text).toBe("S(redacted)");
    const input = messageText(summarizer.calls.at(-1)?.messages.at(-1) as BaseMessage);
    expect(input).toContain("u1 redacted");
    expect(input).not.toContain("S(original)");
    // Unedited, the next period is incremental again (previous summary + the new span only).
    await runTurns(agent, "edit-covered", 5, 5);
    expect(messageText(summarizer.calls.at(-1)?.messages.at(-1) as BaseMessage)).not.toContain("u1 redacted");
  });
});
