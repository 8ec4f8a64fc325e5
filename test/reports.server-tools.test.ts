/**
 * Anthropic server tools (web search, code execution) in the answers the stack sends back.
 *
 * - https://github.com/BerriAI/litellm/issues/22240 "Incorrect handling of ContentBlocks (Anthropic)
 *   for Code Execution tool" (history replay kept the `server_tool_use` block and dropped its
 *   `*_tool_result`: 400);
 * - https://github.com/BerriAI/litellm/issues/17737 (`server_tool_use` sent back as `tool_use`:
 *   "`tool_use` ids were found without `tool_result` blocks immediately after: srvtoolu_...");
 * - https://github.com/vercel/ai/issues/13040 ("`code_execution` tool use with id srvtoolu_... was
 *   found without a corresponding `code_execution_tool_result` block") and
 *   https://github.com/agno-agi/agno/pull/7766 (server tool blocks dropped from the history).
 *
 * An answer of `ChatAnthropic` with web search holds `server_tool_use` and its
 * `web_search_tool_result` in its content, beside a client `tool_use` with its `tool_calls` entry.
 * The server call is answered inside the same message: the stack must not treat it as a call that
 * needs a ToolMessage, and every copy it sends (call ids renamed, the client call left out) must
 * keep each server block with its result, as stored.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

type Block = Record<string, unknown>;

/** A web search answer as `@langchain/anthropic` stores it; the client call reuses one id on every turn (a proxy's numbering). */
function searchAnswer(turn: number, withClientCall: boolean): AIMessage {
  const server = `srvtoolu_0${turn}search`;
  const content: Block[] = [
    { type: "text", text: "Let me search." },
    { type: "server_tool_use", id: server, name: "web_search", input: { query: `topic ${turn}` } },
    {
      type: "web_search_tool_result",
      tool_use_id: server,
      content: [
        {
          type: "web_search_result",
          url: `https://example.com/${turn}`,
          title: `Result ${turn}`,
          encrypted_content: `Eq${"x".repeat(300)}`,
        },
      ],
    },
    {
      type: "text",
      text: `Found page ${turn}.`,
      citations: [{ type: "web_search_result_location", url: `https://example.com/${turn}`, cited_text: "x" }],
    },
  ];
  if (!withClientCall) return new AIMessage({ content: content as never });
  content.push({ type: "tool_use", id: "toolu_same", name: "lookup", input: { n: turn } });
  return new AIMessage({
    content: content as never,
    tool_calls: [{ id: "toolu_same", name: "lookup", args: { n: turn }, type: "tool_call" }],
  });
}

const serverIssues = (request: readonly BaseMessage[]) =>
  request.flatMap((m, k) => {
    if (m.getType() !== "ai" || !Array.isArray(m.content)) return [];
    const blocks = m.content as Block[];
    return blocks.flatMap((b, i) => {
      if (b.type !== "server_tool_use") return [];
      const result = blocks[i + 1];
      return result?.type === "web_search_tool_result" && result.tool_use_id === b.id
        ? []
        : [`message ${k}: ${String(b.id)} without its result`];
    });
  });

describe("public reports: Anthropic server tool blocks under the stack", () => {
  for (const windowSize of [4, 10]) {
    it(`window ${windowSize}: each server_tool_use is sent with its result, never answered as a call, through renamed copies`, async () => {
      let turn = 0;
      const model = strictModel({
        answer: (messages) => {
          const last = lastOf(messages);
          if (isTool(last)) return `looked up: ${messageText(last)}`;
          turn += 1;
          return searchAnswer(turn, messageText(last).includes("and look up"));
        },
      });
      const summarizer = summarizerModel();
      const { agent } = stackAgent({ model, windowSize, summarizeThreshold: windowSize + 4, summarizer: summarizer.model });
      const threadId = `server-tools-${windowSize}`;
      const config = { configurable: { thread_id: threadId } };
      for (const text of [
        "search this",
        "search and look up",
        "thanks",
        "search and look up again",
        "search once more",
        "search and look up at last",
      ])
        await agent.invoke({ messages: [new HumanMessage(text)] }, config);
      expect(model.providerLog.rejections).toBe(0);
      const stored = await storedMessages(agent.graph as never, threadId);
      // Only the client calls got results; the server calls were answered by Anthropic in the message.
      expect(stored.filter(isTool)).toHaveLength(3);
      expect(stored.filter((m) => m.getType() === "ai" && JSON.stringify(m.content).includes("server_tool_use"))).toHaveLength(6);
      let renamed = 0;
      for (const request of requests(model)) {
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        expect(serverIssues(request)).toEqual([]);
        for (const m of request) if (m.getType() === "ai" && JSON.stringify(m.content).includes("toolu_same_r")) renamed += 1;
      }
      // A window of several client calls sends the later toolu_same ids renamed; those copies kept the server blocks too.
      if (windowSize > 4) expect(renamed).toBeGreaterThan(0);
    });
  }
});
