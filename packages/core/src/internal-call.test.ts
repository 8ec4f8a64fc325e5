import { AIMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { internalAnswerText, withoutThinking } from "./internal-call.js";

describe("withoutThinking", () => {
  it.each([
    ["no tags", "The user moved.", "The user moved."],
    ["a closed block", "<think>they said so</think>\nThe user moved.", "\nThe user moved."],
    ["two blocks", "<think>a</think>The user <think>b</think>moved.", "The user moved."],
    ["`<thinking>`, any case", "<Thinking>a</Thinking>The user moved.", "The user moved."],
    ["a nested block", "<think>a <think>b</think> c</think>The user moved.", "The user moved."],
    ["only a closing tag (the template opened it)", "reasoning\n</think>\nThe user moved.", "\nThe user moved."],
    ["an unclosed block (cut off)", "<think>still reasoning", ""],
    ["text before an unclosed block", "The user moved.<think>more", "The user moved."],
    ["only reasoning", "<think>all of it</think>", ""],
  ])("%s", (_, text, expected) => {
    expect(withoutThinking(text)).toBe(expected);
  });
});

describe("internalAnswerText", () => {
  it("reads strings and message content, trimmed and without reasoning", () => {
    expect(internalAnswerText("  <think>x</think> The user moved. ")).toBe("The user moved.");
    expect(
      internalAnswerText(
        new AIMessage({
          content: [
            { type: "text", text: "<think>x</think>" },
            { type: "text", text: "Moved." },
          ],
        }),
      ),
    ).toBe("Moved.");
  });

  it("is empty for an answer of only reasoning", () => {
    expect(internalAnswerText(new AIMessage({ content: "", additional_kwargs: { reasoning_content: "the summary" } }))).toBe("");
    expect(internalAnswerText(new AIMessage({ content: [{ type: "reasoning", reasoning: "r" } as never] }))).toBe("");
    expect(internalAnswerText(undefined)).toBe("");
  });
});
