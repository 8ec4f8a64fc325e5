/**
 * A tool result's `status: "error"` and `artifact` on the copies of it the view sends.
 *
 * - https://github.com/langchain4j/langchain4j/issues/4481 "propagate isError to Anthropic
 *   tool_result" and https://github.com/maximhq/bifrost/pull/5450 "carry tool-result is_error through
 *   chat completions" (a failed call replayed as a successful one: the model treats the two
 *   differently, and retried or trusted an error text);
 * - https://github.com/langchain-ai/langchain/pull/24628 (`ToolMessage.status`, sent by
 *   `@langchain/anthropic` as the `tool_result`'s `is_error` and by `@langchain/aws` as the
 *   `toolResult`'s `status`).
 *
 * The view sends copies of stored results: with the call id renamed (a model that numbers its calls
 * per answer, `call_0` every turn), shortened under `maxHistoryTokens`. Every copy must keep the
 * stored result's status (and its artifact, which the app reads from the thread), in every request.
 */
import { AIMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { PROVIDERS, strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

/** `lookup`: odd numbers fail with a long error text; even ones answer with an artifact. */
const lookup = tool(
  async ({ n }: { n: number }) => {
    if (n % 2 === 1) throw new Error(`lookup ${n} failed: ${"upstream timeout; ".repeat(400)}`);
    return [`result ${n}`, { rows: [n, n * 2] }];
  },
  { name: "lookup", description: "Looks a number up.", schema: z.object({ n: z.number() }), responseFormat: "content_and_artifact" },
);

/** Calls `lookup` with id `call_0` on every user message (number = turn), then reports the result. */
function callZeroModel() {
  let turn = 0;
  return strictModel({
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `saw: ${messageText(last).slice(0, 20)}`;
      turn += 1;
      return new AIMessage({ content: "", tool_calls: [{ id: "call_0", name: "lookup", args: { n: turn }, type: "tool_call" }] });
    },
  });
}

describe("public reports: a failed tool result stays failed on the copies the view sends", () => {
  for (const maxHistoryTokens of [undefined, 800]) {
    it(`maxHistoryTokens ${maxHistoryTokens ?? "unset"}: every result sent keeps its stored status and artifact`, async () => {
      const model = callZeroModel();
      const summarizer = summarizerModel();
      const { agent } = stackAgent({
        model,
        tools: [lookup] as never,
        windowSize: 12,
        summarizeThreshold: 16,
        summarizer: summarizer.model,
        ...(maxHistoryTokens ? { maxHistoryTokens } : {}),
      });
      const threadId = `tool-status-${maxHistoryTokens ?? "none"}`;
      const config = { configurable: { thread_id: threadId } };
      for (let k = 1; k <= 6; k += 1) await agent.invoke({ messages: [new HumanMessage(`turn ${k}`)] }, config);
      expect(model.providerLog.rejections).toBe(0);
      const stored = (await storedMessages(agent.graph as never, threadId)).filter(isTool) as ToolMessage[];
      expect(stored.map((m) => m.status)).toEqual(["error", "success", "error", "success", "error", "success"]);
      expect(stored.filter((m) => m.status === "success").map((m) => m.artifact)).toEqual([
        { rows: [2, 4] },
        { rows: [4, 8] },
        { rows: [6, 12] },
      ]);
      const byId = new Map(stored.map((m) => [m.id, m]));
      let renamed = 0;
      let shortened = 0;
      for (const request of requests(model)) {
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        for (const sent of request.filter(isTool) as ToolMessage[]) {
          const original = byId.get(sent.id) as ToolMessage;
          expect(original, `result ${sent.id}`).toBeDefined();
          expect(sent.status ?? "success", `result ${sent.id}`).toBe(original.status ?? "success");
          expect(sent.artifact).toEqual(original.artifact);
          if (sent.tool_call_id !== original.tool_call_id) renamed += 1;
          if (messageText(sent) !== messageText(original)) shortened += 1;
        }
      }
      // Without a cap the window holds several call_0 turns (renamed copies); under it, one shortened result at a time.
      if (maxHistoryTokens) expect(shortened).toBeGreaterThan(0);
      else expect(renamed).toBeGreaterThan(0);
    });
  }
});
