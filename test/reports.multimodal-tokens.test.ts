/**
 * The token cap over user messages of content blocks: images in either OpenAI format, long text
 * in blocks, one message over the cap by itself.
 *
 * - https://github.com/langchain-ai/langchain/issues/40741 "count_tokens_approximately counts OpenAI
 *   input_image base64 payloads as characters (~1000x over-count)" (the same image counted 90 as
 *   `image_url` and 100,021 as a Responses `input_image`: trimming dropped the history);
 * - https://github.com/NousResearch/hermes-agent/pull/16369 (a message of content blocks sized by
 *   its number of blocks: 500 characters and an image counted as 10 tokens, the tail kept whole
 *   past the budget);
 * - https://github.com/BerriAI/litellm/issues/16567 "trim_messages silently fails with TypeError when
 *   message content is a list" (the untrimmed history was sent) and
 *   https://github.com/endolith/open-interpreter/issues/293 (a trimmer raising on image content
 *   fell back to the whole untrimmed history).
 *
 * Under `maxHistoryTokens` every request must stay within the cap by the stack's own count of what
 * is sent (the current turn aside, when it alone is over), keep older image turns while they fit,
 * and drop them once long text in blocks fills the cap; nothing throws.
 */
import { HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { receivedRequestTokens } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { agentModel, lastOf, requests, stackAgent } from "./support/report-agent.js";

/** A 1x1 PNG, then filler to about 400 KB of base64 (a screenshot's size): priced by its header, not its length. */
const PNG_1X1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const dataUrl = `data:image/png;base64,${PNG_1X1.replace(/=+$/, "")}${"A".repeat(400_000)}`;

const FORMS = {
  image_url: (text: string) => [
    { type: "text", text },
    { type: "image_url", image_url: { url: dataUrl } },
  ],
  input_image: (text: string) => [
    { type: "text", text },
    { type: "input_image", image_url: dataUrl },
  ],
  "standard image": (text: string) => [
    { type: "text", text },
    { type: "image", mimeType: "image/png", data: dataUrl.slice(dataUrl.indexOf(",") + 1) },
  ],
} as const;

const CAP = 6000;

describe("public reports: the token cap over content blocks", () => {
  for (const [form, blocks] of Object.entries(FORMS)) {
    it(`${form}: image turns stay while they fit, long text in blocks pushes them out, every request within the cap`, async () => {
      const model = agentModel();
      const { agent } = stackAgent({ model, windowSize: 40, maxHistoryTokens: CAP, systemPrompt: false });
      const config = { configurable: { thread_id: `multimodal-${form}` } };
      for (let k = 1; k <= 3; k += 1)
        await agent.invoke({ messages: [new HumanMessage({ content: blocks(`picture ${k}`) as never })] }, config);
      // The third request still holds the first two picture turns: three images are far below the cap.
      const third = requests(model)[2] ?? [];
      expect(third.filter((m) => m.getType() === "human")).toHaveLength(3);
      // A turn of long text in blocks (about 5,200 tokens: with the three picture turns, over the cap), then one over the cap by itself.
      const long = "The quick brown fox jumps over the lazy dog. ".repeat(520);
      await agent.invoke({ messages: [new HumanMessage({ content: blocks(`${long} long 1`) as never })] }, config);
      const huge = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ".repeat(900);
      await agent.invoke({ messages: [new HumanMessage({ content: [{ type: "text", text: `${huge} huge` }] })] }, config);
      await agent.invoke({ messages: [new HumanMessage("after")] }, config);
      expect(model.providerLog.rejections).toBe(0);
      const all = requests(model);
      for (const [k, request] of all.entries()) {
        const tokens = receivedRequestTokens(request);
        if (k === 4) expect(messageText(lastOf(request))).toContain("huge");
        else expect(tokens, `request ${k + 1}`).toBeLessThanOrEqual(CAP);
      }
      // The long turn pushed the picture turns out; the over-cap turn is sent whole, alone.
      expect(JSON.stringify(all[3])).not.toContain("picture 1");
      expect(all[4]?.filter((m) => m.getType() === "human")).toHaveLength(1);
      expect(messageText(lastOf(all[4] ?? []))).toBe(`${huge} huge`);
    });
  }
});
