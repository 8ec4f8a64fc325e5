/**
 * A summarizer on a reasoning model: its chain of thought in the answer's text, or all of its
 * answer in the reasoning and none in the text.
 *
 * - https://github.com/kwaroran/Risuai/pull/1375 "reject empty HypaV3 summary after stripping
 *   reasoning tags" (a reasoning model answered only `<think>...</think>`; an empty summary was stored)
 *   and https://github.com/Martian-Engineering/lossless-claw/pull/577 (a summary that is only a
 *   `<think>` block, or starts with one, was stored as the summary);
 * - https://github.com/NousResearch/hermes-agent/pull/4603 (DeepSeek-R1 / Qwen-QwQ answer with
 *   `<think>` blocks in the content, or with an empty content and the text in `reasoning_content`)
 *   and https://github.com/NousResearch/hermes-agent/pull/94473 (an empty answer dropped the middle
 *   of the conversation);
 * - https://github.com/lossless-claude/lcm/issues/339 (an empty answer stored as a summary of the
 *   first 500 input characters: "treat empty content as a failure").
 *
 * Local reasoning models (Qwen3, DeepSeek-R1 over Ollama or an OpenAI-compatible server) put their
 * reasoning in the answer's text between `<think>` tags, or send only `</think>` when the chat
 * template opened the block. The summary the agent's model receives on every later call must be
 * the answer after the reasoning; an answer that is only reasoning (cut off, or empty beside a
 * `reasoning_content`) is a failed summary: no summary is stored and every message is kept.
 */
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { messageText, readSummarySlot } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

const THOUGHT = "chain-of-thought-sentinel: the user said turn 1, then turn 2, let me think";

async function run(answer: () => string | AIMessage, threadId: string) {
  const summarizer = summarizerModel(answer);
  const { agent, model } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model });
  const config = { configurable: { thread_id: threadId } };
  for (let k = 1; k <= 7; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
  expect(summarizer.inputs.length).toBeGreaterThan(0);
  expect(model.providerLog.rejections).toBe(0);
  const summary = readSummarySlot((await agent.graph.getState(config)).values).summary;
  return { summary, sent: JSON.stringify(requests(model)), stored: await storedMessages(agent.graph as never, threadId) };
}

describe("public reports: a summarizer on a reasoning model", () => {
  for (const [name, text] of [
    ["a <think> block before the summary", `<think>\n${THOUGHT}\n</think>\n\nThe user counted turns.`],
    ["two <think> blocks", `<think>${THOUGHT}</think>The user <think>${THOUGHT}</think>counted turns.`],
    ["only the closing tag (the chat template opened the block)", `${THOUGHT}\n</think>\nThe user counted turns.`],
    ["an upper-case tag", `<THINK>${THOUGHT}</THINK> The user counted turns.`],
  ] as const) {
    it(`${name}: the summary is the answer after the reasoning, and the model never gets the reasoning`, async () => {
      const { summary, sent } = await run(() => text, `think-${name}`);
      expect(summary?.text).toBe("The user counted turns.");
      expect(sent).not.toContain("chain-of-thought-sentinel");
      expect(sent).toContain("The user counted turns.");
    });
  }

  for (const [name, answer] of [
    ["an unclosed <think> block (the answer ran out while reasoning)", () => `<think>\n${THOUGHT}`],
    ["only a <think> block", () => `<think>${THOUGHT}</think>\n`],
    ["empty text beside reasoning_content", () => new AIMessage({ content: "", additional_kwargs: { reasoning_content: THOUGHT } })],
  ] as const) {
    it(`${name}: no summary is stored, every message is kept, and the model never gets the reasoning`, async () => {
      const { summary, sent, stored } = await run(answer, `think-fail-${name}`);
      expect(summary?.text ?? "").toBe("");
      expect(sent).not.toContain("chain-of-thought-sentinel");
      expect(stored.map((m) => messageText(m))).toEqual(Array.from({ length: 7 }, (_, i) => [`turn ${i + 1}`, `ok: turn ${i + 1}`]).flat());
    });
  }

  it("the agent's answers with <think> blocks: the summarizer reads the answers, not the reasoning", async () => {
    const model = strictModel({
      answer: (messages, call) =>
        call % 3 === 2 ? `<think>${THOUGHT}</think>` : `<think>\n${THOUGHT}\n</think>\n\nanswer to ${messageText(lastOf(messages))}`,
    });
    const summarizer = summarizerModel();
    const { agent } = stackAgent({ model, windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model });
    const config = { configurable: { thread_id: "think-answers" } };
    for (let k = 1; k <= 7; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
    expect(model.providerLog.rejections).toBe(0);
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    const read = JSON.stringify(summarizer.inputs.map((input) => input.map((m) => messageText(m))));
    expect(read).toContain("answer to turn 1");
    expect(read).not.toContain("chain-of-thought-sentinel");
    // An answer of only reasoning is read as one: a note, not an empty line.
    expect(read).toContain("Assistant: (reasoning)");
  });
});
