/**
 * The view's sent copy against `@langchain/anthropic`'s real converter (`convertPromptToAnthropic`,
 * which runs `_convertMessagesToAnthropicPayload`): for each stored shape of content the strict
 * validator refuses for Anthropic (blank text beside other blocks or beside tool calls, a tool
 * result's blank block, an answer of only `reasoning` blocks), the stored thread as sent gives a
 * payload with an empty or blank block, and the view's request gives none, with the validator
 * accepting it for every provider. The stored thread is never changed.
 */
import { convertPromptToAnthropic } from "@langchain/anthropic";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { ChatPromptValue } from "@langchain/core/prompt_values";
import { assembleView, EMPTY_DECISIONS } from "@threadwise/core";
import { validateProviderRequest } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";

const calls = (id: string) => [{ id, name: "lookup", args: { q: id }, type: "tool_call" as const }];
const toolUse = (id: string) => ({ type: "tool_use", id, name: "lookup", input: { q: id } });
const blank = { type: "text", text: "" };

/** Stored shapes, each a message (or a call and its result) between two user turns. */
const SHAPES: Record<string, BaseMessage[]> = {
  "AI: blank block before tool_use": [
    new AIMessage({ id: "a", content: [blank, toolUse("c1")] as never, tool_calls: calls("c1") }),
    new ToolMessage({ id: "t", content: "42", tool_call_id: "c1", name: "lookup" }),
  ],
  "AI: whitespace string beside calls": [
    new AIMessage({ id: "a", content: " \n", tool_calls: calls("c1") }),
    new ToolMessage({ id: "t", content: "42", tool_call_id: "c1", name: "lookup" }),
  ],
  "AI: only a blank block beside calls": [
    new AIMessage({ id: "a", content: [{ type: "text", text: "  " }] as never, tool_calls: calls("c1") }),
    new ToolMessage({ id: "t", content: "42", tool_call_id: "c1", name: "lookup" }),
  ],
  "AI: blank block after text": [new AIMessage({ id: "a", content: [{ type: "text", text: "It is 42." }, blank] as never })],
  "AI: only reasoning (output ran out while reasoning)": [
    new AIMessage({ id: "a", content: [{ type: "reasoning", reasoning: "The user wants..." }] as never }),
  ],
  "tool result: blank block beside text": [
    new AIMessage({ id: "a", content: "", tool_calls: calls("c1") }),
    new ToolMessage({ id: "t", content: [blank, { type: "text", text: "42" }] as never, tool_call_id: "c1", name: "lookup" }),
  ],
  "tool result: only a blank block": [
    new AIMessage({ id: "a", content: "", tool_calls: calls("c1") }),
    new ToolMessage({ id: "t", content: [{ type: "text", text: " " }] as never, tool_call_id: "c1", name: "lookup" }),
  ],
  "user: blank block beside a picture": [
    new AIMessage({ id: "a0", content: "Send it." }),
    new HumanMessage({ id: "p", content: [blank, { type: "image_url", image_url: { url: "https://example.com/a.png" } }] as never }),
    new AIMessage({ id: "a", content: "A cat." }),
  ],
};

/** Where the Anthropic payload holds empty content or a blank text block (also inside a tool_result). */
function payloadProblems(sent: BaseMessage[]): string[] {
  const { messages } = convertPromptToAnthropic(new ChatPromptValue(sent)) as { messages: Array<{ content: unknown }> };
  const problems: string[] = [];
  const check = (content: unknown, where: string) => {
    if (typeof content === "string") {
      if (content.trim() === "" && !where.includes("tool_result")) problems.push(`${where}: empty string`);
      return;
    }
    if (!Array.isArray(content)) return;
    if (content.length === 0 && !where.includes("tool_result")) problems.push(`${where}: no block`);
    content.forEach((block: { type?: string; text?: unknown; content?: unknown }, k) => {
      if (block.type === "text" && String(block.text ?? "").trim() === "") problems.push(`${where}.${k}: blank text block`);
      if (block.type === "tool_result") check(block.content, `${where}.${k}.tool_result`);
    });
  };
  for (const [i, message] of messages.entries()) check(message.content, `messages.${i}`);
  return problems;
}

describe("the view against @langchain/anthropic's converter", () => {
  it.each(Object.entries(SHAPES))(
    "%s: refused as stored, sent without an empty or blank block, the stored thread unchanged",
    (_name, shape) => {
      const thread = [
        new HumanMessage({ id: "h1", content: "사진 봐줘 / look" }),
        ...shape,
        new HumanMessage({ id: "h2", content: "next" }),
      ];
      const before = JSON.stringify(thread);
      const system = new SystemMessage("Be brief.");
      const stored = [system, ...thread];
      expect(payloadProblems(stored).length).toBeGreaterThan(0);
      expect(validateProviderRequest(stored, { providers: ["anthropic"] }).map((v) => v.rule)).toContain("empty_content");
      const view = assembleView(thread, system, EMPTY_DECISIONS);
      const sent = [view.systemMessage, ...view.messages];
      expect(payloadProblems(sent)).toEqual([]);
      expect(validateProviderRequest(sent)).toEqual([]);
      expect(JSON.stringify(thread)).toBe(before);
    },
  );
});
