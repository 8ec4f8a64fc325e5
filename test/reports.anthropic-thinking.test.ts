/**
 * Anthropic extended thinking in a tool loop under the stack.
 *
 * https://github.com/anomalyco/opencode/issues/3077 "Expected `thinking` or `redacted_thinking`, but
 * found `tool_use`": "When `thinking` is enabled, a final `assistant` message must start with a
 * thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks)". A history
 * manager that cut, merged or rewrote the loop's AI message lost its thinking block and every
 * later call of the loop was refused. Here each AI message of a long loop starts with a signed
 * thinking block; the loop outgrows the window and the summary threshold, fans out in parallel,
 * and reuses call ids. Each request is read as `@langchain/anthropic` sends it.
 */
import { convertPromptToAnthropic } from "@langchain/anthropic";
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { END, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { memoryStack } from "@threadwise/memory";
import { createAgent } from "langchain";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, lookup, requests, stackAgent, summarizerModel } from "./support/report-agent.js";

type Block = { type: string; signature?: string; thinking?: string };
type Payload = { messages: Array<{ role: string; content: string | Block[] }> };

/**
 * The Anthropic rule for a request that ends in tool results: the assistant message that made the
 * newest calls starts with a thinking block, and it is the one the model signed.
 */
function thinkingFirst(request: BaseMessage[]): string | undefined {
  const payload = convertPromptToAnthropic(new ChatPromptValue(request)) as unknown as Payload;
  const last = payload.messages.at(-1);
  const endsInResults = Array.isArray(last?.content) && last.content.some((b) => b.type === "tool_result");
  if (!endsInResults) return undefined;
  const assistant = payload.messages.at(-2);
  const first = Array.isArray(assistant?.content) ? assistant.content[0] : undefined;
  if (first?.type !== "thinking") return `the final assistant message starts with ${first?.type ?? "text"}`;
  if (!first.signature?.startsWith("sig-")) return "the thinking block lost its signature";
  return undefined;
}

describe("public reports: Anthropic thinking blocks in a tool loop", () => {
  it("every call of a long loop (parallel fan-outs, reused call ids, a window and summaries) sends its last AI message starting with its thinking block", async () => {
    let step = 0;
    const model = strictModel({
      answer: (messages) => {
        const last = lastOf(messages);
        const text = messageText(last);
        if (!isTool(last) && !text.startsWith("research")) return `ok: ${text}`;
        step += 1;
        if (step > 12 && isTool(last)) {
          step = 0;
          return new AIMessage({
            content: [
              { type: "thinking", thinking: "enough", signature: "sig-end" },
              { type: "text", text: "all done" },
            ] as never,
          });
        }
        // Every third step fans out to three calls; ids restart at toolu_0 on every step.
        const k = step % 3 === 0 ? 3 : 1;
        const calls = Array.from({ length: k }, (_, i) => ({
          id: `toolu_${i}`,
          name: "lookup",
          args: { n: step * 10 + i },
          type: "tool_call" as const,
        }));
        return new AIMessage({
          content: [
            { type: "thinking", thinking: `step ${step}: look up more`, signature: `sig-${step}` },
            ...calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.args })),
          ] as never,
          tool_calls: calls,
        });
      },
    });
    const summarizer = summarizerModel();
    const { agent } = stackAgent({ windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model, model });
    const config = { configurable: { thread_id: "thinking-loop" }, recursionLimit: 500 };
    await agent.invoke({ messages: [new HumanMessage("hello")] }, config);
    await agent.invoke({ messages: [new HumanMessage("research the fares")] }, config);
    await agent.invoke({ messages: [new HumanMessage("thanks")] }, config);
    await agent.invoke({ messages: [new HumanMessage("research the seats")] }, config);
    expect(model.providerLog.rejections).toBe(0);
    const inLoop = requests(model).filter((r) => isTool(lastOf(r)));
    expect(inLoop.length).toBeGreaterThan(20);
    for (const request of inLoop) {
      expect(thinkingFirst(request)).toBeUndefined();
      expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
    }
  });

  // Two agents in sequence on one thread (a writer, then a checker with thinking on): the thread
  // holds the writer's answer right before the checker's calls. Gemini and Bedrock refuse two model
  // turns in a row, so the view sends them as one AI message; it opened with the writer's text and
  // Anthropic refused every call of the checker's loop ("Expected `thinking` or
  // `redacted_thinking`, but found `text`").
  it("an agent's answer right before a thinking agent's calls (agents in sequence): the merged final assistant message starts with the thinking block", async () => {
    const writer = strictModel({ answer: (messages) => `draft for ${messageText(lastOf(messages))}` });
    let step = 0;
    const checker = strictModel({
      answer: (messages) => {
        if (isTool(lastOf(messages)))
          return new AIMessage({
            content: [
              { type: "thinking", thinking: "fine", signature: "sig-end" },
              { type: "text", text: "checked" },
            ] as never,
          });
        step += 1;
        const call = { id: `toolu_${step}`, name: "lookup", args: { n: step }, type: "tool_call" as const };
        return new AIMessage({
          content: [
            { type: "thinking", thinking: "check the draft", signature: `sig-${step}` },
            { type: "tool_use", id: call.id, name: call.name, input: call.args },
          ] as never,
          tool_calls: [call],
        });
      },
    });
    const stack = memoryStack({ backend: "in_memory", windowSize: 6, recallMaxTokens: false, logger: false, env: {} });
    const agent = (model: typeof writer, prompt: string) =>
      createAgent({ model, tools: [lookup], systemPrompt: prompt, middleware: stack.middleware }).graph as never;
    const pipeline = new StateGraph(MessagesAnnotation)
      .addNode("writer", agent(writer, "Write a draft."))
      .addNode("checker", agent(checker, "Check the draft."))
      .addEdge(START, "writer")
      .addEdge("writer", "checker")
      .addEdge("checker", END)
      .compile({ checkpointer: stack.checkpointer });
    const config = { configurable: { thread_id: "writer-checker" } };
    for (const text of ["fares", "seats", "meals", "bags"]) await pipeline.invoke({ messages: [new HumanMessage(text)] }, config);
    expect(checker.providerLog.rejections).toBe(0);
    const inLoop = requests(checker).filter((r) => isTool(lastOf(r)));
    expect(inLoop).toHaveLength(4);
    for (const request of [...requests(checker), ...requests(writer)])
      expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
    for (const request of inLoop) {
      expect(thinkingFirst(request)).toBeUndefined();
      // The writer's draft is still sent, in the same assistant turn.
      expect(messageText(request.at(-2) as BaseMessage)).toContain("draft for");
    }
  });
});
