/**
 * Triggers and keep by tokens, messages or a fraction of the model's context window, in the
 * shapes of LangChain's `summarizationMiddleware` (issue 23), each with an agent model that has a
 * profile (`profile.maxInputTokens`) and one that has none.
 */
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import {
  createTokenCounter,
  messageText,
  readSummarySlot,
  SUMMARY_SLOT_KEY,
  type SummaryRecord,
  ThreadwiseConfigError,
} from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { summarize } from "./summarize.js";
import { resolveSummarizeOptions } from "./summarize-options.js";
import { DEFAULT_SUMMARY_PROMPT } from "./summarizer-input.js";
import { profileMaxInputTokens } from "./summary-trigger.js";

const counter = createTokenCounter();
const tokensOf = (messages: readonly BaseMessage[]) => counter.countMessages(messages.filter((m) => m.getType() !== "system"));

/** An agent model (never called here) with `profile.maxInputTokens`, or without a profile (`{}`, as BaseChatModel's default). */
function agentModel(maxInputTokens?: number) {
  const model = scriptedModel(() => "ok");
  Object.defineProperty(model, "profile", { value: maxInputTokens === undefined ? {} : { maxInputTokens } });
  return model;
}

/** Exchange `k`: a user message and an answer of varied length (10 to ~250 tokens), ids `u<k>`, `a<k>`. */
function exchange(k: number): BaseMessage[] {
  return [
    new HumanMessage({ id: `u${k}`, content: `question ${k}` }),
    new AIMessage({ id: `a${k}`, content: `answer ${k} ${"with details ".repeat(3 * ((k * 7) % 40))}` }),
  ];
}

/** A summarizer that records how many calls it got and answers `S<n>`. */
function summarizer() {
  let calls = 0;
  return {
    calls: () => calls,
    model: {
      async invoke() {
        calls += 1;
        return new AIMessage(`S${calls}`);
      },
    },
  };
}

/** One model call through the hook: the summary update (if any) and the messages sent. */
async function modelCall(
  middleware: ReturnType<typeof summarize>,
  stored: BaseMessage[],
  summary: SummaryRecord | undefined,
  model: object,
) {
  let sent: BaseMessage[] = [];
  const request = {
    messages: stored,
    systemMessage: new SystemMessage("sys"),
    state: { messages: stored, [SUMMARY_SLOT_KEY]: summary ? { summary } : {} },
    tools: [],
    model,
    runtime: { configurable: { thread_id: "trigger" } },
  };
  // biome-ignore lint/suspicious/noExplicitAny: the hook's request type needs a full agent runtime
  const result = await (middleware.wrapModelCall as any)(request, async (r: { messages: BaseMessage[] }) => {
    sent = r.messages;
    return new AIMessage("ok");
  });
  const update =
    result instanceof Command ? (result.update as Record<string, { summary: SummaryRecord }>)[SUMMARY_SLOT_KEY]?.summary : undefined;
  return { update, sent };
}

/**
 * Grows a thread one exchange per model call and returns, for every call, the tokens and
 * messages the summary did not cover before it, and whether a summary was made on it.
 */
async function drive(options: Parameters<typeof summarize>[0], model: object, turns: number) {
  const s = summarizer();
  const middleware = summarize({ ...options, model: s.model, logger: false });
  const stored: BaseMessage[] = [];
  let summary: SummaryRecord | undefined;
  const calls: Array<{
    uncoveredTokens: number;
    uncoveredMessages: number;
    made: boolean;
    sent: BaseMessage[];
    summaryBefore?: SummaryRecord;
  }> = [];
  for (let k = 1; k <= turns; k += 1) {
    stored.push(...exchange(k));
    stored.push(new HumanMessage({ id: `n${k}`, content: `next ${k}` }));
    const from = summary?.coveredThroughId ? stored.findIndex((m) => m.id === summary?.coveredThroughId) + 1 : 0;
    const uncovered = stored.slice(from);
    const before = s.calls();
    const summaryBefore = summary;
    const { update, sent } = await modelCall(middleware, [...stored], summary, model);
    if (update && update.coveredCount > 0) summary = update;
    calls.push({
      uncoveredTokens: tokensOf(uncovered),
      uncoveredMessages: uncovered.length,
      made: s.calls() > before,
      sent,
      summaryBefore,
    });
    stored.pop(); // the "next" user message stands for the pending turn only
  }
  return { calls, summary };
}

describe("trigger and keep options", () => {
  it("take LangChain's shapes; threshold and windowSize are their shorthands; both at once is an error naming the option", () => {
    expect(resolveSummarizeOptions({}, {})).toMatchObject({ trigger: [{ messages: 40 }], keep: { messages: 20 } });
    expect(resolveSummarizeOptions({ threshold: 30, windowSize: 10 }, {})).toMatchObject({
      trigger: [{ messages: 30 }],
      keep: { messages: 10 },
    });
    const both = [{ tokens: 5000, messages: 3 }, { fraction: 0.8 }];
    expect(resolveSummarizeOptions({ trigger: both, keep: { tokens: 2000 } }, {})).toMatchObject({ trigger: both, keep: { tokens: 2000 } });
    expect(() => summarize({ trigger: { tokens: 100 }, threshold: 40 })).toThrow(/summarize\.trigger: give `trigger` or `threshold`/);
    expect(() => summarize({ keep: { messages: 4 }, windowSize: 4 })).toThrow(/summarize\.keep/);
    expect(() => summarize({ trigger: {} })).toThrow(/summarize\.trigger: give at least one/);
    expect(() => summarize({ trigger: { fraction: 1.5 } })).toThrow(/summarize\.trigger\.fraction/);
    expect(() => summarize({ keep: { tokens: 10, messages: 2 } })).toThrow(/summarize\.keep: give exactly one/);
    expect(() => summarize({ trigger: [] })).toThrow(/summarize\.trigger/);
    // Was "summarize.trigger: Invalid input".
    expect(() => summarize({ trigger: 5 as never })).toThrow(
      "summarize.trigger: expected { tokens?, messages?, fraction? } or a list of them, got 5",
    );
    expect(() => summarize({ modelMaxInputTokens: 0 })).toThrow(/summarize\.modelMaxInputTokens/);
  });

  it("env twins: the trigger variables form one condition and take the place of threshold; at most one keep variable", () => {
    const env = {
      MEMORY_SUMMARIZE_THRESHOLD: "30",
      MEMORY_SUMMARIZE_TRIGGER_TOKENS: "6000",
      MEMORY_SUMMARIZE_TRIGGER_MESSAGES: "10",
      MEMORY_SUMMARIZE_KEEP_FRACTION: "0.25",
      MEMORY_SUMMARIZE_MODEL_MAX_INPUT_TOKENS: "200000",
    };
    expect(resolveSummarizeOptions({}, env)).toMatchObject({
      trigger: [{ tokens: 6000, messages: 10 }],
      keep: { fraction: 0.25 },
      modelMaxInputTokens: 200000,
    });
    // Options still win over env.
    expect(resolveSummarizeOptions({ trigger: { messages: 8 } }, env).trigger).toEqual([{ messages: 8 }]);
    expect(resolveSummarizeOptions({ threshold: 8 }, env).trigger).toEqual([{ messages: 8 }]);
    expect(resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_TRIGGER_FRACTION: "0.8" }).trigger).toEqual([{ fraction: 0.8 }]);
    expect(() => resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_TRIGGER_FRACTION: "80%" })).toThrow(/MEMORY_SUMMARIZE_TRIGGER_FRACTION/);
    expect(() => resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_TRIGGER_FRACTION: "0" })).toThrow(/MEMORY_SUMMARIZE_TRIGGER_FRACTION/);
    expect(() => resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_KEEP_TOKENS: "10", MEMORY_SUMMARIZE_KEEP_MESSAGES: "3" })).toThrow(
      /MEMORY_SUMMARIZE_KEEP_TOKENS.*set at most one/,
    );
    expect(resolveSummarizeOptions({}, { MEMORY_SUMMARIZE_KEEP_MESSAGES: "0" }).keep).toEqual({ messages: 0 });
  });

  it("reads the context window from the model's LangChain profile", () => {
    expect(profileMaxInputTokens(agentModel(128000))).toBe(128000);
    expect(profileMaxInputTokens(agentModel())).toBeUndefined();
    expect(profileMaxInputTokens({ invoke() {} })).toBeUndefined();
  });
});

for (const profile of [4000, undefined]) {
  const label = profile === undefined ? "a model without a profile" : `a model with profile.maxInputTokens ${profile}`;

  describe(`triggers with ${label}`, () => {
    it("messages: the first summary once 12 uncovered messages, then every 12 - 6 that left the window (profile not needed)", async () => {
      const { calls } = await drive({ trigger: { messages: 12 }, keep: { messages: 6 } }, agentModel(profile), 14);
      const first = calls.findIndex((c) => c.made);
      expect(calls[first]?.uncoveredMessages).toBeGreaterThanOrEqual(12);
      expect(calls[first - 1]?.uncoveredMessages).toBeLessThan(12);
      // Same due points as threshold/windowSize.
      const legacy = await drive({ threshold: 12, windowSize: 6 }, agentModel(profile), 14);
      expect(calls.map((c) => c.made)).toEqual(legacy.calls.map((c) => c.made));
      expect(calls.filter((c) => c.made).length).toBeGreaterThan(2);
    });

    it("tokens: the first summary on the call whose uncovered messages reach 1,500 tokens; the view keeps 400 tokens of groups", async () => {
      const { calls } = await drive({ trigger: { tokens: 1500 }, keep: { tokens: 400 } }, agentModel(profile), 24);
      const made = calls.flatMap((c, i) => (c.made ? [i] : []));
      expect(made.length).toBeGreaterThan(1);
      const first = made[0] as number;
      expect(calls[first]?.uncoveredTokens).toBeGreaterThanOrEqual(1500);
      for (const c of calls.slice(0, first)) expect(c.uncoveredTokens).toBeLessThan(1500);
      // After a summary: due again once 1,500 - 400 more tokens left the window, never before.
      for (const i of made.slice(1)) expect(calls[i]?.uncoveredTokens).toBeGreaterThanOrEqual(1500 - 400);
      // Right after a summary the view is the window: at most 400 tokens of stored messages, plus
      // the newest user turn (always kept).
      const after = calls[first] as { sent: BaseMessage[] };
      expect(tokensOf(after.sent.slice(0, -2))).toBeLessThanOrEqual(400);
    });

    if (profile !== undefined) {
      it("fraction: the trigger is floor(maxInputTokens * fraction) tokens of the profile", async () => {
        const { calls } = await drive({ trigger: { fraction: 0.25 }, keep: { fraction: 0.1 } }, agentModel(profile), 24);
        const asTokens = await drive({ trigger: { tokens: 1000 }, keep: { tokens: 400 } }, agentModel(profile), 24);
        expect(calls.map((c) => c.made)).toEqual(asTokens.calls.map((c) => c.made));
        expect(calls.some((c) => c.made)).toBe(true);
      });
    } else {
      it("fraction: a typed error naming summarize.trigger, before any summarizer call; modelMaxInputTokens is the stated fallback", async () => {
        const s = summarizer();
        const middleware = summarize({ model: s.model, trigger: { fraction: 0.25 }, logger: false });
        const stored = [...exchange(1), new HumanMessage({ id: "n1", content: "next" })];
        const error = await modelCall(middleware, stored, undefined, agentModel()).catch((e: unknown) => e);
        expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
        expect(String((error as Error).message)).toMatch(
          /summarize\.trigger: `fraction` needs the model's context window.*modelMaxInputTokens/,
        );
        expect(s.calls()).toBe(0);
        const keepError = await modelCall(summarize({ keep: { fraction: 0.1 }, logger: false }), stored, undefined, agentModel()).catch(
          (e: unknown) => e,
        );
        expect(String((keepError as Error).message)).toMatch(/summarize\.keep/);
        // With the fallback the same trigger works as with a profile of that size.
        const fallback = await drive({ trigger: { fraction: 0.25 }, keep: { fraction: 0.1 }, modelMaxInputTokens: 4000 }, agentModel(), 24);
        const profiled = await drive({ trigger: { fraction: 0.25 }, keep: { fraction: 0.1 } }, agentModel(4000), 24);
        expect(fallback.calls.map((c) => c.made)).toEqual(profiled.calls.map((c) => c.made));
        // The option wins over a profile.
        const overridden = await drive(
          { trigger: { fraction: 0.25 }, keep: { fraction: 0.1 }, modelMaxInputTokens: 4000 },
          agentModel(100_000),
          24,
        );
        expect(overridden.calls.map((c) => c.made)).toEqual(profiled.calls.map((c) => c.made));
      });
    }

    it("an array is OR and one condition is AND, as in LangChain", async () => {
      const and = await drive({ trigger: { tokens: 300, messages: 20 }, keep: { messages: 4 } }, agentModel(profile), 12);
      const first = and.calls.findIndex((c) => c.made);
      expect(and.calls[first]?.uncoveredMessages).toBeGreaterThanOrEqual(20);
      expect(and.calls[first - 1]?.uncoveredMessages).toBeLessThan(20);
      const or = await drive({ trigger: [{ tokens: 300 }, { messages: 20 }], keep: { messages: 4 } }, agentModel(profile), 12);
      const firstOr = or.calls.findIndex((c) => c.made);
      expect(firstOr).toBeLessThan(first);
      expect(or.calls[firstOr]?.uncoveredTokens).toBeGreaterThanOrEqual(300);
      expect(or.calls[firstOr]?.uncoveredMessages).toBeLessThan(20);
    });
  });
}

describe("fraction trigger in an agent whose model has a profile", () => {
  it("summarizes on the turn the thread reaches the share of the context window, and the summary reaches the model", async () => {
    const model = scriptedModel(() => `answer ${"with details ".repeat(30)}`);
    Object.defineProperty(model, "profile", { value: { maxInputTokens: 2000 } });
    const summarizerModel = scriptedModel((_m, call) => `S${call + 1}`);
    const agent = createAgent({
      model,
      checkpointer: new MemorySaver(),
      middleware: [summarize({ model: summarizerModel, trigger: { fraction: 0.5 }, keep: { fraction: 0.2 }, logger: false })],
    });
    const config = { configurable: { thread_id: "fraction" } };
    let turns = 0;
    while (summarizerModel.calls.length === 0 && turns < 30) {
      turns += 1;
      await agent.invoke({ messages: [new HumanMessage({ id: `u${turns}`, content: `question ${turns}` })] }, config);
    }
    expect(summarizerModel.calls.length).toBe(1);
    const summarizerInput = summarizerModel.calls[0]?.messages as BaseMessage[];
    expect(messageText(summarizerInput[0] as BaseMessage)).toBe(DEFAULT_SUMMARY_PROMPT);
    // The call before it saw under 1,000 tokens of stored messages (the thread then ended on the
    // previous user message); this one reached them (the thread ending on this turn's message).
    const state = await agent.graph.getState(config);
    const stored = state.values.messages as BaseMessage[];
    expect(tokensOf(stored.slice(0, -3))).toBeLessThan(1000);
    expect(tokensOf(stored.slice(0, -1))).toBeGreaterThanOrEqual(1000);
    expect(readSummarySlot(state.values).summary?.text).toBe("S1");
    await agent.invoke({ messages: [new HumanMessage({ id: "after", content: "and now?" })] }, config);
    const last = model.calls.at(-1)?.messages as BaseMessage[];
    expect(messageText(last[0] as BaseMessage)).toContain("S1");
    // The view is what the summary does not cover: the window kept on the summary's turn (at most
    // 400 tokens of groups, besides that turn's user message), then that turn's answer and this turn.
    const covered = readSummarySlot(state.values).summary?.coveredThroughId;
    const from = stored.findIndex((m) => m.id === covered) + 1;
    expect(last.slice(1).map((m) => m.id)).toEqual([...stored.slice(from).map((m) => m.id), "after"]);
    expect(tokensOf(stored.slice(from, -2))).toBeLessThanOrEqual(400);
  });
});

describe("token triggers count what is sent", () => {
  // A ToolMessage whose call is not stored (an orphan, R4) is never sent: its tokens are no reason
  // to summarize. The trigger counted the stored messages and summarized a short thread for it.
  const long = "booking details ".repeat(400); // ~800 tokens
  const thread = (withOrphan: boolean): BaseMessage[] => [
    new HumanMessage({ id: "u1", content: "question 1" }),
    new AIMessage({ id: "a1", content: withOrphan ? "answer 1" : `answer 1 ${long}` }),
    ...(withOrphan ? [new ToolMessage({ id: "t-orphan", content: long, tool_call_id: "call_gone" })] : []),
    new HumanMessage({ id: "u2", content: "question 2" }),
    new AIMessage({ id: "a2", content: "answer 2" }),
    new HumanMessage({ id: "u3", content: "question 3" }),
  ];
  const madeOn = async (stored: BaseMessage[]) => {
    const s = summarizer();
    const middleware = summarize({ trigger: { tokens: 500 }, keep: { messages: 2 }, model: s.model, logger: false });
    await modelCall(middleware, stored, undefined, agentModel());
    return s.calls();
  };

  it("an orphan's tokens do not make a summary due; the same text sent does", async () => {
    expect(tokensOf(thread(true))).toBeGreaterThan(500);
    expect(await madeOn(thread(true))).toBe(0);
    expect(await madeOn(thread(false))).toBe(1);
  });
});
