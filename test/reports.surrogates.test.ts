/**
 * Emoji (and other characters outside the BMP) at the point where the stack cuts a long text.
 *
 * - https://github.com/vertesia/llumiverse/pull/462 "don't split surrogate pairs when truncating
 *   conversation text" (a forced truncation kept the high surrogate of an emoji on the boundary;
 *   Gemini on Vertex refused the whole request: `The input data is not valid json`, and the long
 *   agent run ended);
 * - https://github.com/elizaOS/eliza/issues/23662 and https://github.com/elizaOS/eliza/issues/23671
 *   (`.slice(0, n)` of user-controlled text at a 🦊: `lone leading surrogate in hex escape`, HTTP 400).
 *
 * tokenCap shortens tool results over the budget, and the summarizer's input cuts a result too
 * long for it; at every offset of the cut against the emoji, the requests to the agent's model and
 * to the summarizer must hold no lone surrogate (Anthropic: `no low surrogate in string`).
 */
import { type BaseMessage, HumanMessage } from "@langchain/core/messages";
import { loneSurrogateAt, messageText } from "@threadwise/core";
import { PROVIDERS, validateProviderRequest } from "@threadwise/core/testing";
import { tool } from "langchain";
import { describe, expect, it } from "vitest";
import { z } from "zod/v4";
import { agentModel, requests, stackAgent, storedMessages, summarizerModel } from "./support/report-agent.js";

/** `lookup`, answering with `offset` ASCII characters then emoji: each offset moves a cut against the pairs. */
const emojiLookup = (offset: number) =>
  tool(async ({ n }: { n: number }) => `${"x".repeat(offset + n)}${"🎉🦊 ".repeat(2500)}`, {
    name: "lookup",
    description: "Looks a number up.",
    schema: z.object({ n: z.number() }),
  });

/** Messages holding a lone surrogate: in their text, or anywhere in their content (`JSON.stringify` escapes only lone ones). */
const lone = (messages: readonly BaseMessage[]) =>
  messages.filter((m) => loneSurrogateAt(messageText(m)) >= 0 || /\\ud[89a-f][0-9a-f]{2}/i.test(JSON.stringify(m.content)));

describe("public reports: a cut against an emoji", () => {
  for (const offset of [0, 1, 2, 3]) {
    it(`offset ${offset}: no request to the model or the summarizer holds a lone surrogate`, async () => {
      const summarizer = summarizerModel();
      const model = agentModel();
      const { agent } = stackAgent({
        model,
        tools: [emojiLookup(offset)] as never,
        windowSize: 4,
        summarizeThreshold: 6,
        summarizer: summarizer.model,
        maxHistoryTokens: 3000,
      });
      const threadId = `surrogates-${offset}`;
      const config = { configurable: { thread_id: threadId } };
      for (const turn of ["PARALLEL 2", "and?", "PARALLEL 1", "more", "PARALLEL 2", "bye"])
        await agent.invoke({ messages: [new HumanMessage(turn)] }, config);
      expect(model.providerLog.rejections).toBe(0);
      for (const request of requests(model)) {
        expect(validateProviderRequest(request, { providers: PROVIDERS })).toEqual([]);
        expect(lone(request)).toEqual([]);
      }
      // The cap did cut a result, and the summarizer read results.
      expect(JSON.stringify(requests(model))).toContain("[threadwise: truncated");
      expect(summarizer.inputs.length).toBeGreaterThan(0);
      for (const input of summarizer.inputs) expect(lone(input)).toEqual([]);
      const stored = await storedMessages(agent.graph as never, threadId);
      expect(stored.filter((m) => m.getType() === "tool").every((m) => messageText(m).endsWith("🎉🦊 "))).toBe(true);
    });
  }
});
