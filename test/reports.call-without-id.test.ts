/**
 * Tool calls that come without an id (Ollama's native API, some OpenAI-compatible local servers)
 * under the stack.
 *
 * - https://github.com/ollama/ollama/issues/11417 "Consistent Tool Call Ids" (the chat API pairs a
 *   result with its call by tool name only) and https://github.com/ollama/ollama-python/issues/667
 *   "id in ToolCall missing";
 * - https://github.com/neuron-core/neuron-ai/issues/145 "Error when using file chat history with
 *   tools and ollama" (the second tool turn failed on the missing call id);
 * - https://github.com/langchain-ai/langchain/pull/29921 "return ToolMessage from tools when tool
 *   call ID is empty string".
 *
 * A thread of such calls stores AI messages whose calls have no id (or ""), each answered by a
 * result with an empty `tool_call_id`. Gemini pairs calls and results by position, and accepts
 * them; the stack must neither throw on them nor send one result twice or a call without its
 * results, across the window and the summary.
 */
import { AIMessage, HumanMessage, type ToolMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { strictModel, validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { isTool, lastOf, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

/** "PAIR" gets two lookup calls without ids in one answer, "ONE" one; after results it reports them. */
function idlessModel(id: string | undefined) {
  return strictModel({
    providers: ["gemini"],
    answer: (messages) => {
      const last = lastOf(messages);
      if (isTool(last)) return `got ${messages.filter(isTool).length} results`;
      const text = messageText(last).split("\n\n").at(-1) ?? "";
      const k = text.startsWith("PAIR") ? 2 : text.startsWith("ONE") ? 1 : 0;
      if (k === 0) return `ok: ${text}`;
      return new AIMessage({
        content: "",
        tool_calls: Array.from({ length: k }, (_, i) => ({ id, name: "lookup", args: { n: i + 1 }, type: "tool_call" as const })) as never,
      });
    },
  });
}

describe("public reports: tool calls without ids under the stack", () => {
  for (const id of ["", undefined]) {
    it(`calls with id ${JSON.stringify(id)}: every request pairs each call with its own result, across the window and the summary`, async () => {
      const model = idlessModel(id);
      const summarizer = summarizerModel();
      const { agent } = stackAgent({ model, windowSize: 4, summarizeThreshold: 6, summarizer: summarizer.model });
      const threadId = `idless-${String(id)}`;
      const config = { configurable: { thread_id: threadId } };
      for (const turn of ["hello", "PAIR two lookups", "and?", "ONE more", "PAIR again", "thanks"])
        await agent.invoke({ messages: [new HumanMessage(turn)] }, config);
      expect(model.providerLog.rejections).toBe(0);
      const stored = await storedMessages(agent.graph as never, threadId);
      expect(stored.filter(isTool).map((m) => messageText(m))).toEqual(["result 1", "result 2", "result 1", "result 1", "result 2"]);
      expect(messageText(lastOf(stored))).toBe("ok: thanks");
      for (const request of requests(model)) {
        expect(validateProviderRequest(request, { providers: ["gemini"] })).toEqual([]);
        // Each run of results follows the AI message whose calls it answers, as many results as calls.
        request.forEach((m, k) => {
          if (m.getType() !== "ai" || ((m as AIMessage).tool_calls ?? []).length === 0) return;
          const calls = (m as AIMessage).tool_calls ?? [];
          const after = request.slice(k + 1);
          const run = after.slice(0, after.findIndex((x) => !isTool(x)) === -1 ? after.length : after.findIndex((x) => !isTool(x)));
          expect(run.map((r) => messageText(r))).toEqual(calls.map((c) => `result ${(c.args as { n: number }).n}`));
        });
      }
      // The results after the second PAIR answered it: the call after them saw both.
      expect(
        requests(model)
          .filter((r) => isTool(lastOf(r)))
          .map((r) => (r.filter(isTool) as ToolMessage[]).length)
          .at(-1),
      ).toBe(2);
      expect(summarizer.inputs.length).toBeGreaterThan(0);
    });
  }
});
