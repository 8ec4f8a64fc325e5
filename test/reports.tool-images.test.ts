/**
 * Tool results that carry images, as they leave the window and reach the summarizer.
 *
 * - https://github.com/myriade-ai/agentlys/pull/347 "summarize images by placeholder, not base64"
 *   (a summary request of 2,113,402 tokens from chart renders in tool results) and
 *   https://github.com/Soju06/codex-lb/pull/1457 (image-heavy tool output wedged compaction);
 * - https://github.com/UKGovernmentBEIS/inspect_ai/pull/4493 (issue 3600) and
 *   https://github.com/Arize-ai/phoenix/pull/14932: an oversized tool output made the summarization
 *   request itself exceed the summarizer's context window;
 * - https://github.com/agent-sh/computer-use-linux/issues/145: a screenshot inlined as a data URL
 *   inside a tool's JSON text (about 120K characters).
 *
 * The summarizer must get each result's text (and a note for its image), never the image data,
 * and an input within `maxInputTokens` (8000 by default) however long one result is.
 */
import { AIMessage, type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { createTokenCounter, messageText } from "@threadwise/core";
import { strictModel } from "@threadwise/core/testing";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, stackAgent, summarizerModel } from "./support/report-agent.js";

const DATA = "iVBORw0KGgoAAAANSUhEUg".repeat(6_000);

const screenshot = tool(
  async ({ kind }: { kind: string }) => {
    if (kind === "openai")
      return [
        { type: "text", text: "chart_id=c-17 rendered" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${DATA}` } },
      ];
    if (kind === "anthropic")
      return [
        { type: "text", text: "chart_id=c-18 rendered" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: DATA } },
      ];
    return JSON.stringify({ window: "Settings", chart_id: "c-19", screenshot: { data_url: `data:image/png;base64,${DATA}` } });
  },
  { name: "screenshot", description: "Renders a chart.", schema: z.object({ kind: z.string() }) },
);

describe("public reports: tool results with images, summarized", () => {
  it("the summarizer gets each result's text, no image data, and inputs within its budget", async () => {
    let n = 0;
    // OpenAI Chat Completions takes no image in a tool message (`tool_result_parts`): the tool's
    // shape, sent as plain LangChain sends it (test/reports.graph-ops-3.test.ts, langchainjs#7371).
    const model = strictModel({
      providers: ["anthropic", "gemini", "bedrock"],
      answer: (messages) => {
        const last = lastOf(messages);
        if (isTool(last)) return "rendered";
        const text = messageText(last);
        const kind = /^render (\w+)/.exec(text)?.[1];
        if (kind) {
          n += 1;
          return new AIMessage({
            content: "",
            tool_calls: [{ id: `call_shot_${n}`, name: "screenshot", args: { kind }, type: "tool_call" }],
          });
        }
        return `ok: ${text}`;
      },
    });
    const summarizer = summarizerModel();
    const { agent } = stackAgent({
      windowSize: 4,
      summarizeThreshold: 6,
      summarizer: summarizer.model,
      model,
      tools: [screenshot] as never,
    });
    const config = { configurable: { thread_id: "tool-images" } };
    for (const text of ["render openai", "render anthropic", "render json", "one", "two", "three", "four"])
      await agent.invoke({ messages: [new HumanMessage(text)] }, config);
    expect(model.providerLog.rejections).toBe(0);
    expect(summarizer.inputs.length).toBeGreaterThan(0);
    const sent = JSON.stringify(summarizer.inputs.map((input) => input.map((m) => messageText(m))));
    for (const id of ["c-17", "c-18", "c-19"]) expect(sent).toContain(id);
    const counter = createTokenCounter();
    for (const input of summarizer.inputs) expect(counter.countMessages(input as BaseMessage[])).toBeLessThanOrEqual(8_000 + 200);
    // Structured images never reach the summarizer; the data URL inlined in text is cut to the budget.
    const lines = summarizer.inputs.flatMap((input) => input.flatMap((m) => messageText(m).split("\n")));
    for (const id of ["c-17", "c-18"]) for (const line of lines.filter((l) => l.includes(id))) expect(line).not.toContain("iVBORw0KGgo");
    expect(sent.split("iVBORw0KGgo").length - 1).toBeLessThan(2_000);
  });
});
