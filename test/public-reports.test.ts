/**
 * Public bug reports against LangChain's memory middlewares (and their ports in other agent
 * frameworks), replayed against threadwise's stack through a real `createAgent` with fake models.
 * Each case cites the report it reproduces. The agent model is {@link strictModel}: a request that
 * OpenAI, Anthropic, Gemini or Bedrock would refuse fails the call, as the provider would.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { Command, MemorySaver } from "@langchain/langgraph";
import {
  convertCompletionsMessageToBaseMessage,
  convertMessagesToCompletionsMessageParams,
  convertMessagesToResponsesInput,
} from "@langchain/openai";
import { createTokenCounter, messageText, readSummarySlot } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { getEncoding } from "js-tiktoken";
import { createAgent, createMiddleware, humanInTheLoopMiddleware, modelCallLimitMiddleware } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { book, isTool, lastOf, lookup, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";
import { responsesAnswer } from "./support/responses-answer.js";

const o200k = getEncoding("o200k_base");
const encode = (text: string) => o200k.encode(text);

describe("public reports: trimming and summarizing around tool calls", () => {
  // https://github.com/langchain-ai/langchain/issues/38352 (cut point keeps orphan ToolMessages),
  // https://github.com/langchain-ai/langchainjs/pull/9740 and
  // https://github.com/langchain-ai/langchain/issues/34282 (keep 6 messages after a 10-call fan-out:
  // "No tool call found for function call output"), https://github.com/langchain-ai/deepagents/issues/270.
  it("a window smaller than a parallel fan-out never sends a tool result without its call, nor a call without its results", async () => {
    const summarizer = summarizerModel();
    const { agent, model } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model });
    const config = { configurable: { thread_id: "fanout" } };
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    await agent.invoke({ messages: [new HumanMessage("PARALLEL 10 read ten files")] }, config);
    await agent.invoke({ messages: [new HumanMessage("and then?")] }, config);
    await agent.invoke({ messages: [new HumanMessage("PARALLEL 3 three more")] }, config);
    await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
    // The call right after the 10 results (the window of 4 lies inside them) still answers them all.
    const afterFanout = requests(model).find((r) => lastOf(r).getType() === "tool") as BaseMessage[];
    expect(afterFanout.filter(isTool)).toHaveLength(10);
    expect(readSummarySlot((await agent.graph.getState(config)).values).summary?.text).toMatch(/^summary \d+$/);
  });

  // https://github.com/langchain-ai/langchain/pull/38449 (a tool-result run whose ids belong to two AI
  // messages, one already cut away): a stored thread with an orphan result next to a paired one, as
  // left by a destructive trimmer before threadwise was added.
  it("a stored orphan tool result next to a paired one is not sent", async () => {
    const { agent, model } = stackAgent({ windowSize: 6 });
    const config = { configurable: { thread_id: "mixed-orphan" } };
    await agent.invoke({ messages: [new HumanMessage("start")] }, config);
    await agent.graph.updateState(config, {
      messages: [
        new AIMessage({ id: "ai-c", content: "", tool_calls: [{ id: "call_c", name: "lookup", args: { n: 3 }, type: "tool_call" }] }),
        new ToolMessage({ id: "t-x", tool_call_id: "call_gone", content: "result of a call summarized away" }),
        new ToolMessage({ id: "t-c", tool_call_id: "call_c", content: "result 3" }),
        new AIMessage({ id: "ai-d", content: "three" }),
      ],
    } as never);
    await agent.invoke({ messages: [new HumanMessage("what was it?")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const last = requests(model).at(-1) as BaseMessage[];
    expect(validateProviderRequest(last, { providers: PROVIDERS })).toEqual([]);
    expect(last.some((m) => isTool(m) && (m as ToolMessage).tool_call_id === "call_gone")).toBe(false);
  });

  // https://github.com/langchain-ai/langchain/pull/33489 (a new message on a thread interrupted
  // while tool calls were pending) and https://github.com/langchain-ai/langchainjs/pull/11437
  // ("the broken message is checkpointed, so the whole thread stays broken"). Failed before the fix:
  // the `updateState` that stored the pending call held the thread's turn lease, so this turn was
  // refused `turn-in-progress` for `turnLeaseMs` (10 s).
  it("a thread whose last AI message has unanswered calls accepts a new user message at once", async () => {
    const { agent, model } = stackAgent({ windowSize: 6 });
    const config = { configurable: { thread_id: "dangling" } };
    await agent.invoke({ messages: [new HumanMessage("start")] }, config);
    await agent.graph.updateState(config, {
      messages: [
        new AIMessage({
          id: "ai-pending",
          content: "",
          tool_calls: [{ id: "call_p", name: "book", args: { seat: "1A" }, type: "tool_call" }],
        }),
      ],
    } as never);
    await agent.invoke({ messages: [new HumanMessage("never mind, what is 2+2?")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const last = requests(model).at(-1) as BaseMessage[];
    expect(last.some((m) => m.id === "ai-pending")).toBe(false);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, "dangling")))).toBe("ok: never mind, what is 2+2?");
  });

  // https://github.com/langchain-ai/langgraphjs/pull/269 (LangGraph's "edit graph state" guide: store
  // an edited tool call with `updateState`, then run it with `invoke(null)`). Failed before the fix:
  // the resume was refused `turn-in-progress` until the lease the update took lapsed.
  it("an edited tool call stored with updateState runs with invoke(null)", async () => {
    const model = strictModel({
      answer: (messages) => {
        const last = lastOf(messages);
        if (isTool(last)) return `done: ${messageText(last)}`;
        if (messageText(last).startsWith("book"))
          return new AIMessage({
            id: "ai-book",
            content: "",
            tool_calls: [{ id: "call_b", name: "book", args: { seat: "1A" }, type: "tool_call" }],
          });
        return `ok: ${messageText(last)}`;
      },
    });
    const hitl = humanInTheLoopMiddleware({ interruptOn: { book: true } });
    const { agent } = stackAgent({ windowSize: 6, model, extra: [hitl] });
    const config = { configurable: { thread_id: "edit-call" } };
    await agent.invoke({ messages: [new HumanMessage("start")] }, config);
    // The model's call, edited by a reviewer outside any interrupt, written as the model node wrote it.
    await agent.graph.updateState(config, {
      messages: [
        new AIMessage({
          id: "ai-edited",
          content: "",
          tool_calls: [{ id: "call_e", name: "book", args: { seat: "14C" }, type: "tool_call" }],
        }),
      ],
    } as never);
    expect((await agent.graph.getState(config)).next).toEqual(["tools"]);
    await agent.invoke(null as never, config);
    const stored = await storedMessages(agent.graph as never, "edit-call");
    expect(stored.slice(-2).map((m) => messageText(m))).toEqual(["booked seat 14C", "done: booked seat 14C"]);
    expect(model.providerLog.rejections).toBe(0);
  });

  // LangGraph's time travel writes state as a node would: `updateState(config, values, "__input__")`
  // stores an input checkpoint (a turn's user message, the run not started), `bulkUpdateState`
  // rebuilds a thread from such updates ("recreating a thread from a list of updates"), and
  // `updateState(config, undefined, "__copy__")` copies a checkpoint as a fork; then `invoke(null)`
  // runs what they left to run. Failed before the fix (the breaker's fuzz, STACK_FUZZ_SEED=32
  // STACK_FUZZ_CASE=1, archive part): the checkpoint, stored by no run, took the thread's turn
  // lease, so the next update and the resume were refused `turn-in-progress` until it lapsed
  // (`turnLeaseMs`, 10 s).
  it("a user message written as __input__, bulkUpdateState (input, then the model's call), a __copy__ fork: each runs with invoke(null)", async () => {
    const { agent, model } = stackAgent({ windowSize: 6 });
    const config = { configurable: { thread_id: "as-input" } };
    await agent.invoke({ messages: [new HumanMessage("start")] }, config);
    await agent.graph.updateState(config, { messages: [new HumanMessage({ id: "u-queued", content: "queued question" })] }, "__input__");
    await agent.invoke(null as never, config);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, "as-input")))).toBe("ok: queued question");
    await agent.graph.bulkUpdateState(config, [
      { updates: [{ values: { messages: [new HumanMessage({ id: "u-bulk", content: "look 5 up" })] }, asNode: "__input__" }] },
      {
        updates: [
          {
            values: {
              messages: [
                new AIMessage({
                  id: "ai-bulk",
                  content: "",
                  tool_calls: [{ id: "call_bulk", name: "lookup", args: { n: 5 }, type: "tool_call" }],
                }),
              ],
            },
            asNode: "model_request",
          },
        ],
      },
    ]);
    const pending = await agent.graph.getState(config);
    expect(pending.next).toEqual(["tools"]);
    await agent.invoke(null as never, config);
    const stored = await storedMessages(agent.graph as never, "as-input");
    expect(stored.slice(-3).map((m) => m.getType())).toEqual(["ai", "tool", "ai"]);
    // The checkpoint that waited for the tools, copied as a fork, run again.
    const copy = await agent.graph.updateState(pending.config, undefined, "__copy__");
    expect((await agent.graph.getState(copy)).next).toEqual(["tools"]);
    await agent.invoke(null as never, copy);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, "as-input")))).toBe("done with result 5");
    expect(model.providerLog.rejections).toBe(0);
  });

  // https://github.com/langchain-ai/deepagentsjs/issues/150 (two parallel calls, HITL interrupts one,
  // the reviewer rejects it: "tool_call_ids did not have response messages") and
  // https://github.com/langchain-ai/langchainjs/pull/11437 (on a reject, langchain's HITL middleware
  // stores the AI message with both calls, answers only the rejected one and skips the tool node, so
  // the auto-approved call never runs and stays unanswered in the checkpoint: upstream, open).
  it("rejecting one of two parallel calls in human-in-the-loop review: the stored unanswered call is dropped from every request", async () => {
    const run = async (withStack: boolean) => {
      const model = strictModel({
        answer: (messages) => {
          const last = lastOf(messages);
          if (isTool(last))
            return `done: ${messages
              .filter(isTool)
              .map((m) => messageText(m))
              .join(" | ")}`;
          if (messageText(last).startsWith("book")) {
            return new AIMessage({
              content: "",
              tool_calls: [
                { id: "call_book", name: "book", args: { seat: "12A" }, type: "tool_call" },
                { id: "call_free", name: "lookup", args: { n: 7 }, type: "tool_call" },
              ],
            });
          }
          return `ok: ${messageText(last)}`;
        },
        onViolation: "record",
      });
      const hitl = humanInTheLoopMiddleware({ interruptOn: { book: true } });
      const agent = withStack
        ? stackAgent({ windowSize: 6, model, extra: [hitl] }).agent
        : createAgent({ model, tools: [lookup, book], checkpointer: new MemorySaver(), middleware: [hitl] });
      const config = { configurable: { thread_id: "hitl-reject" } };
      await agent.invoke({ messages: [new HumanMessage("book seat 12A and look up 7")] }, config);
      await agent.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no booking today" }] } }) as never, config);
      await agent.invoke({ messages: [new HumanMessage("which lookup result did I get?")] }, config);
      const stored = await storedMessages(agent as never, "hitl-reject");
      return { model, stored };
    };
    // Without threadwise the provider refuses the request after the review.
    expect((await run(false)).model.providerLog.rejections).toBeGreaterThan(0);
    const { model, stored } = await run(true);
    expect(model.providerLog.rejections).toBe(0);
    // The stored AI message keeps both calls; only the rejected one has a result.
    const calls = stored.find((m) => m.getType() === "ai" && (m as AIMessage).tool_calls?.length) as AIMessage;
    expect(calls.tool_calls?.map((c) => c.id).sort()).toEqual(["call_book", "call_free"]);
    expect(stored.some((m) => isTool(m) && (m as ToolMessage).tool_call_id === "call_free")).toBe(false);
    // Every request shows the AI message with the answered call only, and the reviewer's answer.
    for (const request of requests(model).slice(1)) {
      const ai = request.find((m) => m.id === calls.id) as AIMessage;
      expect(ai.tool_calls?.map((c) => c.id)).toEqual(["call_book"]);
      expect(request.some((m) => isTool(m) && messageText(m) === "no booking today")).toBe(true);
    }
  });
});

describe("public reports: summaries", () => {
  // https://github.com/langchain-ai/langchain/issues/38867 and
  // https://github.com/s2b-dev/smart-second-brain/issues/435: a failed summary call deleted the history
  // and stored "Error generating summary: ..." as the summary.
  it("a failing summarizer keeps every message and never stores its error as the summary", async () => {
    const summarizer = summarizerModel(() => new Error("summarizer-down-sentinel: 429 rate limited, Error generating summary"));
    const { agent, model } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model });
    const config = { configurable: { thread_id: "summary-fails" } };
    for (let k = 1; k <= 6; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    const stored = await storedMessages(agent.graph as never, "summary-fails");
    expect(stored.map((m) => messageText(m))).toEqual(Array.from({ length: 6 }, (_, i) => [`turn ${i + 1}`, `ok: turn ${i + 1}`]).flat());
    // A distinctive text: message ids and digests are random hex, which may hold "429".
    expect(JSON.stringify(readSummarySlot((await agent.graph.getState(config)).values))).not.toMatch(
      /summarizer-down-sentinel|Error generating/,
    );
    expect(JSON.stringify(requests(model))).not.toMatch(/summarizer-down-sentinel|rate limited/);
  });

  // https://github.com/langchain-ai/deepagentsjs/pull/739: a summarizer answering with content blocks
  // (a reasoning block with its signature, text fragments) had the blocks' JSON stored as the summary.
  it("a summarizer answering with reasoning and text blocks gives a summary of the text only", async () => {
    const signature = `sig-${"x".repeat(2000)}`;
    const summarizer = summarizerModel(
      () =>
        new AIMessage({
          content: [
            { type: "reasoning", reasoning: "thinking about the summary", signature } as never,
            { type: "text", text: "The user " },
            { type: "text", text: "greeted twice." },
          ],
        }),
    );
    const { agent, model } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model });
    const config = { configurable: { thread_id: "summary-blocks" } };
    for (let k = 1; k <= 6; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
    const summary = readSummarySlot((await agent.graph.getState(config)).values).summary;
    expect(summary?.text).toBe("The user greeted twice.");
    expect(JSON.stringify(requests(model))).not.toContain(signature);
  });

  // https://github.com/langchain-ai/langchain/issues/39261: a single long tool loop with no user message
  // in the part to summarize produced a placeholder summary (the summarizer was never called) and a
  // request without a user message. threadwise never cuts or summarizes the run in progress
  // (windowTrim README, "How it cuts"): the loop is summarized once later turns push it out.
  it("one long tool loop under one user message: every request starts on it, and the loop is summarized from its messages once it leaves the window", async () => {
    let call = 0;
    const model = strictModel({
      answer: (messages) => {
        call += 1;
        if (call <= 8)
          return new AIMessage({
            content: `step ${call}`,
            tool_calls: [{ id: `call_${call}`, name: "lookup", args: { n: call }, type: "tool_call" }],
          });
        return `ok: ${messageText(lastOf(messages))}`;
      },
    });
    const summarizer = summarizerModel((c) => `loop summary ${c + 1}`);
    const { agent } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model, model });
    const config = { configurable: { thread_id: "tool-loop" } };
    await agent.invoke({ messages: [new HumanMessage("research this for me")] }, config);
    expect(summarizer.inputs).toHaveLength(0);
    for (const request of requests(model)) {
      expect(messageText(request[0] as BaseMessage)).toBe("You are a helpful assistant.");
      expect(messageText(request[1] as BaseMessage)).toBe("research this for me");
    }
    for (const text of ["thanks", "and now?", "bye"]) await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect(model.providerLog.rejections).toBe(0);
    for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
    const rendered = JSON.stringify(summarizer.inputs.map((input) => input.map((m) => messageText(m))));
    expect(rendered).toContain("research this for me");
    expect(rendered).toContain("result 8");
    const last = requests(model).at(-1) as BaseMessage[];
    expect(messageText(last[0] as BaseMessage)).toMatch(/loop summary \d+/);
    expect(last.some((m) => messageText(m) === "result 1")).toBe(false);
  });
  // https://github.com/bytedance/deer-flow/pull/2638 (issue 2622): when the kept tail alone is over a
  // token trigger, each pass selected only the previous summary and summarized it again, every call.
  it("a window over the token cap by itself never makes the summarizer re-summarize only its own summary", async () => {
    const summarizer = summarizerModel((c) => `summary ${c + 1}`);
    const { agent, model } = stackAgent({ windowSize: 4, summarizeThreshold: 6, maxHistoryTokens: 200, summarizer: summarizer.model });
    const config = { configurable: { thread_id: "tail-over-cap" } };
    const long = (k: number) => `turn ${k}: ${"word ".repeat(150)}`;
    for (let k = 1; k <= 10; k += 1) await agent.invoke({ messages: [new HumanMessage(long(k))] }, config);
    expect(model.providerLog.rejections).toBe(0);
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    const seen = new Set<string>();
    for (const input of summarizer.inputs) {
      const turns = new Set(JSON.stringify(input.map((m) => messageText(m))).match(/turn \d+:/g) ?? []);
      const fresh = [...turns].filter((t) => !seen.has(t));
      expect(fresh.length, "each summarizer call folds in at least one message no earlier call had").toBeGreaterThan(0);
      for (const t of turns) seen.add(t);
    }
    expect(summarizer.inputs.length).toBeLessThanOrEqual(10);
  });
});

describe("public reports: messages and tokens", () => {
  // https://github.com/langchain-ai/langchainjs/issues/11303 (countTokensApproximately undercounts
  // non-Latin scripts, so token-budget triggers never fire) and
  // https://github.com/headroomlabs-ai/headroom/pull/1093: the cap must hold in real tokens.
  it("the token cap holds for Korean text measured with the o200k tokenizer", async () => {
    const maxHistoryTokens = 300;
    const { agent, model } = stackAgent({ windowSize: false, maxHistoryTokens });
    const config = { configurable: { thread_id: "korean" } };
    const sentence = "랭체인은 언어 모델을 기반으로 애플리케이션을 개발하기 위한 프레임워크입니다.";
    for (let k = 1; k <= 10; k += 1) await agent.invoke({ messages: [new HumanMessage(`${k}. ${sentence} ${sentence}`)] }, config);
    const last = requests(model).at(-1) as BaseMessage[];
    const history = last.filter((m) => m.getType() !== "system");
    const real = history.reduce((sum, m) => sum + encode(messageText(m)).length, 0);
    expect(real).toBeLessThanOrEqual(maxHistoryTokens);
    expect(history.length).toBeLessThan(20);
    // The counter threadwise uses is the same encoding, not 4 characters per token.
    expect(createTokenCounter().countText(sentence)).toBe(encode(sentence).length);
  });

  // https://github.com/langchain-ai/langchainjs/issues/11472 and
  // https://github.com/raullenchai/Rapid-MLX/issues/1543: a SystemMessage in the middle of the thread
  // ("System messages are only permitted as the first passed message").
  it("a system message stored in the middle of the thread is not sent at its position", async () => {
    const { agent, model } = stackAgent({ windowSize: 8 });
    const config = { configurable: { thread_id: "mid-system" } };
    await agent.invoke({ messages: [new HumanMessage("hi")] }, config);
    await agent.invoke(
      { messages: [new SystemMessage("From now on answer only BLUE."), new HumanMessage("What colour is the sky?")] },
      config,
    );
    expect(model.providerLog.rejections).toBe(0);
    const last = requests(model).at(-1) as BaseMessage[];
    expect(validateProviderRequest(last, { providers: PROVIDERS })).toEqual([]);
    expect(last.slice(1).some((m) => m.getType() === "system")).toBe(false);
    // The instruction is not dropped: it reaches the model in the system message.
    expect(messageText(last[0] as BaseMessage)).toContain("From now on answer only BLUE.");
  });

  // https://github.com/openai/openai-agents-js/issues/326 and https://github.com/openai/openai-agents-js/issues/929
  // (a reasoning item replayed without the item it belongs to: 400) and
  // https://github.com/bytedance/deer-flow/pull/1823 (list content crashed a middleware): AI
  // messages with content blocks (reasoning, text, empty text next to tool calls) pass through
  // the window unchanged, and the summarizer gets their text.
  it("AI messages with content blocks are sent unchanged and summarized by their text", async () => {
    const reasoning = { type: "reasoning", reasoning: "compare seats", id: "rs_1" };
    let call = 0;
    const model = strictModel({
      answer: (messages) => {
        call += 1;
        const last = lastOf(messages);
        if (isTool(last)) return new AIMessage({ content: [reasoning as never, { type: "text", text: `seat ok (${call})` }] });
        if (messageText(last).startsWith("book"))
          return new AIMessage({
            content: [reasoning as never],
            tool_calls: [{ id: `call_b${call}`, name: "book", args: { seat: "3C" }, type: "tool_call" }],
          });
        return new AIMessage({ content: [{ type: "text", text: `ok ${call}` }] });
      },
    });
    const summarizer = summarizerModel();
    const { agent } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model, model });
    const config = { configurable: { thread_id: "blocks" } };
    for (const text of ["book 3C", "hello", "book again", "thanks", "book once more"])
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const stored = await storedMessages(agent.graph as never, "blocks");
    for (const request of requests(model)) {
      for (const m of request.filter((x) => x.getType() === "ai")) {
        const original = stored.find((s) => s.id === m.id);
        expect(original, "an AI message the model got is the stored one").toBeDefined();
        expect(m.content).toEqual(original?.content);
      }
    }
    const rendered = JSON.stringify(summarizer.inputs.map((input) => input.map((m) => messageText(m))));
    expect(rendered).toContain("seat ok");
    expect(rendered).not.toContain("[object Object]");
  });

  // https://github.com/open-multi-agent/open-multi-agent/pull/196, https://github.com/myriade-ai/agentlys/pull/347
  // and https://github.com/langchain-ai/langchain/pull/34557: the summary request inlined a base64
  // image (a 2.1M-token summary prompt refused). The image reaches the model while in the window;
  // the summarizer gets the text around it, not the data.
  it("an image in the summarized part never reaches the summarizer as base64", async () => {
    const summarizer = summarizerModel();
    const { agent, model } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model });
    const config = { configurable: { thread_id: "image" } };
    const data = "iVBORw0KGgo".repeat(20_000);
    await agent.invoke(
      {
        messages: [
          new HumanMessage({
            content: [
              { type: "text", text: "look at this chart" },
              { type: "image_url", image_url: { url: `data:image/png;base64,${data}` } },
            ],
          }),
        ],
      },
      config,
    );
    for (let k = 1; k <= 6; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
    expect(JSON.stringify(requests(model)[0])).toContain(data);
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    const sent = JSON.stringify(summarizer.inputs);
    expect(sent).toContain("look at this chart");
    expect(sent).not.toContain("iVBORw0KGgo");
    expect(sent.length).toBeLessThan(10_000);
  });

  // https://github.com/langchain-ai/langchain/pull/33390 (Claude returns an AI message with no content
  // and no tool calls; "all messages must have non-empty content except for the optional final
  // assistant message") and https://github.com/langchain-ai/langchainjs/pull/11117 (Bedrock: "Content
  // blocks are empty"): an empty answer stored in the thread is not sent back.
  it("an empty AI answer stored in the thread is not sent to Anthropic, Gemini or Bedrock", async () => {
    let call = 0;
    const model = strictModel({
      answer: (messages) => {
        call += 1;
        if (call === 2) return new AIMessage({ content: [] });
        if (call === 3) return new AIMessage({ content: "" });
        return `ok: ${messageText(lastOf(messages))}`;
      },
    });
    const { agent } = stackAgent({ windowSize: 8, model });
    const config = { configurable: { thread_id: "empty-answer" } };
    for (const text of ["hello", "are you there?", "hello?", "what is 2+2?"])
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const stored = await storedMessages(agent.graph as never, "empty-answer");
    expect(stored.filter((m) => m.getType() === "ai" && messageText(m) === "")).toHaveLength(2);
    for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
  });

  // https://github.com/langchain-ai/langchainjs/issues/9418 and
  // https://github.com/langchain-ai/langchainjs/issues/9717: `responseFormat` with `wrapModelCall`
  // middleware broke structured output.
  it("responseFormat works under the stack, and the summary still reaches the model", async () => {
    const schema = z.object({ answer: z.string(), turn: z.number() }).meta({ title: "extract" });
    let call = 0;
    const model = strictModel({
      answer: () => {
        call += 1;
        return new AIMessage({
          content: "",
          tool_calls: [{ id: `call_sr${call}`, name: "extract", args: { answer: `a${call}`, turn: call }, type: "tool_call" }],
        });
      },
    });
    const summarizer = summarizerModel((c) => `structured summary ${c + 1}`);
    const { agent } = stackAgent({
      windowSize: 4,
      summarizeThreshold: 6,
      summarizer: summarizer.model,
      model,
      responseFormat: schema,
    });
    const config = { configurable: { thread_id: "structured" } };
    let result: { structuredResponse?: unknown } = {};
    for (let k = 1; k <= 6; k += 1) result = (await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config)) as never;
    expect(result.structuredResponse).toEqual({ answer: `a${call}`, turn: call });
    expect(model.providerLog.rejections).toBe(0);
    expect(messageText((requests(model).at(-1) as BaseMessage[])[0] as BaseMessage)).toMatch(/structured summary \d+/);
  });
});

describe("public reports: jumps and limits", () => {
  // https://github.com/langchain-ai/langchainjs/issues/11207 (a beforeModel `jumpTo: "end"`, as
  // `modelCallLimitMiddleware({ exitBehavior: "end" })` returns, ends the graph without the afterAgent
  // chain) and https://github.com/langchain-ai/docs/pull/1590 (the documented guard that answers and
  // jumps to the end): a run ended that way leaves the thread free for the next turn at once, and
  // the next request is valid.
  it("a run ended by a beforeModel jump (call limit, guard) leaves a thread the next turn can use at once", async () => {
    const guard = createMiddleware({
      name: "test/blocked-content",
      beforeModel: {
        canJumpTo: ["end"],
        hook: (state) => {
          const last = state.messages.at(-1) as BaseMessage | undefined;
          if (last && messageText(last).includes("BLOCKED"))
            return { messages: [new AIMessage("I cannot respond to that request.")], jumpTo: "end" };
          return undefined;
        },
      },
    });
    const limit = modelCallLimitMiddleware({ runLimit: 1, exitBehavior: "end" });
    const { agent, model } = stackAgent({ windowSize: 6, extra: [guard, limit] });
    const config = { configurable: { thread_id: "jumps" } };
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    await agent.invoke({ messages: [new HumanMessage("say BLOCKED please")] }, config);
    await agent.invoke({ messages: [new HumanMessage("and now?")] }, config);
    expect(
      requests(model)
        .at(-1)
        ?.map((m) => messageText(m)),
    ).toContain("I cannot respond to that request.");
    expect(messageText(lastOf(await storedMessages(agent.graph as never, "jumps")))).toBe("ok: and now?");
    // One model call per run: the call after the tool results is refused by the limit, in beforeModel.
    await agent.invoke({ messages: [new HumanMessage("PARALLEL 2 two lookups")] }, config);
    const stored = await storedMessages(agent.graph as never, "jumps");
    expect(messageText(lastOf(stored))).toMatch(/^Model call limits exceeded/);
    // The next turn is admitted at once (no turn lease left behind). Its answer is the limit's
    // again: upstream, the limit's own afterAgent reset is skipped too (langchainjs#11207, open).
    await agent.invoke({ messages: [new HumanMessage("hello again")] }, config);
    expect((await storedMessages(agent.graph as never, "jumps")).map((m) => messageText(m))).toContain("hello again");
    expect(model.providerLog.rejections).toBe(0);
    for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
  });
});

describe("public reports: a run stopped by the recursion limit", () => {
  // https://github.com/keurcien/auxilia/pull/97 (the recursion limit fired mid tool loop; the next
  // message got a provider 400 for the dangling call; fixed there with PatchToolCallsMiddleware and
  // a stored AI reply) and https://github.com/langchain-ai/langchainjs/issues/6724 (Bedrock
  // Converse: "A conversation must alternate between user and assistant roles" when a tool result
  // is followed by a user message). The view leaves the dangling call out; before the fix it then
  // sent the loop's last results followed by the new user message, which Bedrock refuses.
  it("the next message is accepted by every provider, and the model still sees what the tools did", async () => {
    const model = strictModel({
      answer: (messages) => {
        const last = lastOf(messages);
        if (isTool(last) || messageText(last).startsWith("BOOK"))
          return new AIMessage({
            content: "",
            tool_calls: [{ id: `call_${messages.length}`, name: "book", args: { seat: "14C" }, type: "tool_call" }],
          });
        return `seen: ${messages
          .filter(isTool)
          .map((m) => messageText(m))
          .join(", ")}`;
      },
    });
    const { agent } = stackAgent({ windowSize: false, model });
    const config = { configurable: { thread_id: "recursion-limit" } };
    await expect(agent.invoke({ messages: [new HumanMessage("BOOK 14C")] }, { ...config, recursionLimit: 6 })).rejects.toThrow(
      /recursion/i,
    );
    await agent.invoke({ messages: [new HumanMessage("Which seat did I get?")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    expect(messageText(lastOf(await storedMessages(agent.graph as never, "recursion-limit")))).toContain("booked seat 14C");
  });
});

describe("public reports: updateState on the stack's checkpointer", () => {
  // https://github.com/langchain-ai/langgraphjs/pull/629 (issue 591: MemorySaver threw without
  // `checkpoint_ns`; other savers default it to ""). `agent.graph.updateState({ configurable: { thread_id } }, ...)`,
  // as LangGraph's docs call it, failed on memoryStack's checkpointer with "Invalid configurable
  // value for key checkpoint_ns": ThreadwiseSaver.getTuple read the head by `checkpoint_id` alone and
  // the inner saver echoed that config, which updateState then wrote its pending writes with.
  for (const backend of ["in_memory", "sqlite"] as const) {
    it(`${backend}: updateState with only a thread id edits the thread, and the next request shows the edit`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "tw-reports-"));
      try {
        const { agent, model } = stackAgent({
          backend,
          sqlitePath: join(dir, "m.sqlite"),
          windowSize: 6,
          tools: [lookup],
          systemPrompt: false,
        });
        const config = { configurable: { thread_id: "edit" } };
        await agent.invoke({ messages: [new HumanMessage({ id: "u1", content: "my seat is 12A" })] }, config);
        await agent.graph.updateState(config, { messages: [new HumanMessage({ id: "u1", content: "my seat is 14C" })] } as never);
        await agent.invoke({ messages: [new HumanMessage("what is my seat?")] }, config);
        const last = requests(model).at(-1) as BaseMessage[];
        expect(last.map((m) => messageText(m))).toEqual(["my seat is 14C", "ok: my seat is 12A", "what is my seat?"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("public reports: OpenAI Responses answers", () => {
  // https://github.com/langchain-ai/langchainjs/pull/11437 (one of two parallel calls rejected in a
  // human-in-the-loop review: "the next model request then fails with `400 No tool output found for
  // function call ...` on the OpenAI Responses API") and https://github.com/langchain-ai/langchainjs/pull/9954
  // (`@langchain/openai` stores a Responses answer's output items in `response_metadata.output` and
  // sends the message as those items). The view left the unanswered call out of `tool_calls`, but
  // the copy kept the stored items, so the converter still sent the call without a result.
  const fc = (callId: string, name: string, args: object) => ({
    type: "function_call",
    id: `fc_${callId}`,
    call_id: callId,
    name,
    arguments: JSON.stringify(args),
    status: "completed",
  });
  const said = (text: string) => ({
    type: "message",
    id: `msg_${text.length}`,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  });

  /** A model answering as `ChatOpenAI` with the Responses API stores answers (reasoning item first). */
  function responsesModel() {
    let answers = 0;
    const respond = (items: object[]) => {
      answers += 1;
      const output = [{ type: "reasoning", id: `rs_${answers}`, summary: [] }, ...items];
      return responsesAnswer(`resp_${answers}`, output);
    };
    return strictModel({
      answer: (messages) => {
        const last = lastOf(messages);
        if (isTool(last))
          return respond([
            said(
              `done: ${messages
                .filter(isTool)
                .map((m) => messageText(m))
                .join(" | ")}`,
            ),
          ]);
        if (messageText(last).startsWith("book"))
          return respond([fc("call_book", "book", { seat: "12A" }), fc("call_free", "lookup", { n: 7 })]);
        return respond([said(`ok: ${messageText(last)}`)]);
      },
      onViolation: "record",
    });
  }

  /** The Responses API input `@langchain/openai` builds for a request: calls sent, results sent, reasoning items without a following item. */
  function wire(request: BaseMessage[]) {
    const input = convertMessagesToResponsesInput({ messages: request, zdrEnabled: false, model: "gpt-5" }) as Array<{
      type?: string;
      call_id?: string;
    }>;
    const of = (type: string) => input.filter((item) => item.type === type).map((item) => item.call_id);
    const bareReasoning = input.filter(
      (item, k) => item.type === "reasoning" && (input[k + 1] === undefined || input[k + 1]?.type === "reasoning"),
    ).length;
    return { calls: of("function_call").sort(), results: of("function_call_output").sort(), bareReasoning };
  }

  for (const backend of ["in_memory", "sqlite"] as const) {
    it(`${backend}: after rejecting one of two parallel calls, every call the converter sends has its result`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "tw-reports-"));
      try {
        const model = responsesModel();
        const hitl = humanInTheLoopMiddleware({ interruptOn: { book: true } });
        const { agent } = stackAgent({ backend, sqlitePath: join(dir, "m.sqlite"), windowSize: 6, model, extra: [hitl] });
        const config = { configurable: { thread_id: "responses-reject" } };
        await agent.invoke({ messages: [new HumanMessage("book seat 12A and look up 7")] }, config);
        await agent.invoke(new Command({ resume: { decisions: [{ type: "reject", message: "no booking today" }] } }) as never, config);
        await agent.invoke({ messages: [new HumanMessage("which lookup result did I get?")] }, config);
        const stored = await storedMessages(agent as never, "responses-reject");
        // The stored answer still holds both call items; only the rejected call has a result.
        const answer = stored.find((m) => m.id === "resp_1") as AIMessage;
        expect((answer.response_metadata.output as Array<{ type: string }>).filter((i) => i.type === "function_call")).toHaveLength(2);
        expect(requests(model).length).toBeGreaterThanOrEqual(3);
        for (const request of requests(model)) {
          const sent = wire(request);
          expect(sent.calls).toEqual(sent.results);
          expect(sent.bareReasoning).toBe(0);
        }
        expect(wire(requests(model).at(-1) as BaseMessage[]).calls).toEqual(["call_book"]);
        expect(model.providerLog.rejections).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("public reports: models that number their calls per answer", () => {
  // https://github.com/NVIDIA-NeMo/Switchyard/issues/502 (Grok over Chat Completions answers every
  // turn with `call_0`; Anthropic refuses the conversation from the second tool turn on: `400
  // tool_use ids must be unique`); Kimi K2 numbers its calls the same way (`functions.lookup:0`).
  // The view sent the stored ids as they were: one id in several AI messages of one request.
  const sameIdModel = (id: string) =>
    strictModel({
      answer: (messages) => {
        const last = lastOf(messages);
        if (isTool(last)) return `done: ${messageText(last)}`;
        const text = messageText(last);
        if (text.startsWith("look"))
          return new AIMessage({ content: "", tool_calls: [{ id, name: "lookup", args: { n: text.length }, type: "tool_call" }] });
        return `ok: ${text}`;
      },
    });
  const ids = (request: BaseMessage[]) => ({
    calls: request.flatMap((m) => (m.getType() === "ai" ? ((m as AIMessage).tool_calls ?? []).map((c) => c.id) : [])),
    results: request.filter(isTool).map((m) => (m as ToolMessage).tool_call_id),
  });

  for (const id of ["call_0", "functions.lookup:0"]) {
    it(`${id} on every tool turn: every request is accepted by every provider, each result answers its own call, the thread is stored as answered`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "tw-reports-"));
      try {
        const sqlitePath = join(dir, "m.sqlite");
        const model = sameIdModel(id);
        const { agent } = stackAgent({ backend: "sqlite", sqlitePath, windowSize: false, model, systemPrompt: false });
        const config = { configurable: { thread_id: "same-ids" } };
        for (const text of ["look up a", "look up bb", "hello", "look up ccc"])
          await agent.invoke({ messages: [new HumanMessage(text)] }, config);
        expect(model.providerLog.rejections).toBe(0);
        const last = requests(model).at(-1) as BaseMessage[];
        const sent = ids(last);
        expect(sent.calls).toHaveLength(3);
        expect(new Set(sent.calls).size).toBe(3);
        // Each result follows its own call, under the id that call was sent with.
        expect(sent.results).toEqual(sent.calls);
        expect(last.filter(isTool).map((m) => messageText(m))).toEqual(["result 9", "result 10", "result 11"]);
        // The stored thread keeps the model's ids.
        const stored = await storedMessages(agent as never, "same-ids");
        expect(new Set(stored.filter(isTool).map((m) => (m as ToolMessage).tool_call_id))).toEqual(new Set([id]));
        // A fresh process on the same file sends the same next request (the turn's first call: its
        // second one holds the new answer, whose message id is new in each run).
        const again = stackAgent({ backend: "sqlite", sqlitePath, windowSize: false, model: sameIdModel(id), systemPrompt: false });
        const head = (await agent.graph.getState(config)).config;
        await agent.invoke({ messages: [new HumanMessage("look up dddd")] }, head);
        await again.agent.invoke({ messages: [new HumanMessage("look up dddd")] }, head);
        const mine = ids(requests(model).at(-2) as BaseMessage[]);
        expect(mine.calls).toHaveLength(3);
        expect(ids(requests(again.model).at(-2) as BaseMessage[])).toEqual(mine);
        expect(again.model.providerLog.rejections + model.providerLog.rejections).toBe(0);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("public reports: a tool call whose arguments are not valid JSON", () => {
  // https://github.com/LibreChat-AI/agents/pull/366 (a call filed in `invalid_tool_calls` gets no
  // result, but its `tool_use` block still rides the AI message: the next call is refused, "fatal
  // on HITL resume") and https://github.com/charmbracelet/crush/issues/3408 (`an assistant message
  // with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'`).
  // `@langchain/openai` keeps the raw call in `additional_kwargs.tool_calls` and, when `tool_calls`
  // is empty, sends it; the agent ran no tool for it, so every later request had an orphan call.
  const cut = '{"n": 1';
  const answers = {
    openai: () =>
      convertCompletionsMessageToBaseMessage({
        message: {
          role: "assistant",
          content: "Let me look that up.",
          tool_calls: [{ id: "call_bad", type: "function", function: { name: "lookup", arguments: cut } }],
        },
        rawResponse: { id: "chatcmpl-1", model: "gpt-4o", usage: {} },
      } as never) as AIMessage,
    anthropic: () =>
      new AIMessage({
        content: [
          { type: "text", text: "Let me look that up." },
          { type: "tool_use", id: "toolu_bad", name: "lookup", input: cut },
        ],
        tool_calls: [],
        invalid_tool_calls: [{ id: "toolu_bad", name: "lookup", args: cut, error: "Malformed args.", type: "invalid_tool_call" }],
      }),
  };
  for (const [provider, answer] of Object.entries(answers)) {
    it(`${provider}: the answer's text is sent, its call is not, and every later request is accepted`, async () => {
      let calls = 0;
      const model = strictModel({
        answer: (messages) => {
          calls += 1;
          return calls === 1 ? answer() : `ok: ${messageText(lastOf(messages))}`;
        },
      });
      const { agent } = stackAgent({ windowSize: 6, model, systemPrompt: false });
      const config = { configurable: { thread_id: `invalid-${provider}` } };
      await agent.invoke({ messages: [new HumanMessage("look up 1")] }, config);
      await agent.invoke({ messages: [new HumanMessage("again")] }, config);
      expect(model.providerLog.rejections).toBe(0);
      const last = requests(model).at(-1) as BaseMessage[];
      const sent = last.find((m) => m.getType() === "ai") as AIMessage;
      expect(messageText(sent)).toBe("Let me look that up.");
      const wire = convertMessagesToCompletionsMessageParams({ messages: last, model: "gpt-4o" }) as Array<{ tool_calls?: unknown[] }>;
      expect(wire.flatMap((m) => m.tool_calls ?? [])).toEqual([]);
      expect(JSON.stringify(sent.content)).not.toContain("tool_use");
      // The stored answer is kept as the model gave it.
      const stored = (await storedMessages(agent as never, `invalid-${provider}`)).find((m) => m.getType() === "ai") as AIMessage;
      expect(stored.invalid_tool_calls).toHaveLength(1);
    });
  }
});

describe("public reports: two parallel calls of one answer under one id", () => {
  // https://github.com/HKUDS/nanobot/issues/4473 (Kimi's Anthropic-compatible endpoint gives parallel
  // `tool_use` blocks one id, `grep:3`: "tool call id grep:3 is duplicated"),
  // https://github.com/can1357/oh-my-pi/issues/2055 (MiMo and Kimi through proxies: "tool call result
  // does not follow tool call"), https://github.com/OpenRouterTeam/ai-sdk-provider/pull/471. LangChain
  // runs both calls and stores both results under the id, in call order; the view sent the answer as
  // stored, and Anthropic refuses a message whose `tool_use` ids repeat (`tool_use ids must be unique`).
  const twinCalls = (id: string, format: "openai" | "anthropic") =>
    strictModel({
      answer: (messages) => {
        const last = lastOf(messages);
        if (isTool(last)) return `done: ${messages.filter(isTool).slice(-2).map(messageText).join(", ")}`;
        const text = messageText(last);
        if (!text.startsWith("look")) return `ok: ${text}`;
        const calls = [1, 2].map((k) => ({ id, name: "lookup", args: { n: text.length * 10 + k }, type: "tool_call" as const }));
        return new AIMessage({
          content: format === "anthropic" ? calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })) : "",
          tool_calls: calls,
        });
      },
    });
  for (const [id, format, archive] of [
    ["grep:3", "anthropic", false],
    ["call_0", "openai", true],
  ] as const)
    it(`${id} twice in one ${format} answer (archive ${archive}): every request is accepted, each result goes with its own call, the stored thread keeps the ids`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "tw-reports-"));
      try {
        const model = twinCalls(id, format);
        const summarizer = summarizerModel();
        const { agent } = stackAgent({
          backend: "sqlite",
          sqlitePath: join(dir, "m.sqlite"),
          model,
          windowSize: 4,
          summarizer: summarizer.model,
          summarizeThreshold: 6,
          stack: { archive },
        });
        const config = { configurable: { thread_id: "twin-ids" } };
        for (const text of ["look up a", "hello", "look up bb", "thanks", "look up ccc", "and then?", "bye"])
          await agent.invoke({ messages: [new HumanMessage(text)] }, config);
        expect(model.providerLog.rejections).toBe(0);
        for (const request of requests(model)) expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        // The model saw both results of each answer, with their calls, and answered them.
        const stored = await storedMessages(agent as never, "twin-ids");
        expect(stored.filter((m) => m.getType() === "ai").map(messageText)).toContain("done: result 111, result 112");
        const afterTools = requests(model).filter((r) => isTool(lastOf(r)));
        expect(afterTools).toHaveLength(3);
        for (const request of afterTools) {
          const ai = request.at(-3) as AIMessage;
          const sent = (ai.tool_calls ?? []).map((c) => c.id);
          expect(new Set(sent).size).toBe(2);
          expect(request.slice(-2).map((m) => (m as ToolMessage).tool_call_id)).toEqual(sent);
          expect(request.slice(-2).map(messageText)).toEqual((ai.tool_calls ?? []).map((c) => `result ${c.args.n}`));
        }
        // Stored as the model gave them.
        const storedIds = stored.filter(isTool).map((m) => (m as ToolMessage).tool_call_id);
        expect(new Set(storedIds)).toEqual(new Set([id]));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
});
