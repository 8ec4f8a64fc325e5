import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { EXTRACTIVE_SUMMARY_LABEL, extractiveSummarizer, extractiveSummary } from "./extractive-summarizer.js";

describe("extractiveSummary", () => {
  const input = [
    "<previous_summary>",
    EXTRACTIVE_SUMMARY_LABEL,
    "- User: My cat Nabi is three years old.",
    "</previous_summary>",
    "",
    "<new_messages>",
    "User: I took Nabi the cat to the vet today. The vet said the cat is healthy.",
    "Assistant: Great news about the cat! Did the vet say anything else?",
    "User: Nothing else. It rained all day.",
    "</new_messages>",
  ].join("\n");

  it("keeps the label, picks frequent-term sentences without repeating itself, in original order, deterministically", () => {
    const summary = extractiveSummary(input, { maxSentences: 3 });
    expect(summary).toBe(
      [
        EXTRACTIVE_SUMMARY_LABEL,
        "- User: My cat Nabi is three years old.",
        "- User: I took Nabi the cat to the vet today.",
        // "The vet said the cat is healthy." repeats vet and cat, whose weights were squared.
        "- Assistant: Did the vet say anything else?",
      ].join("\n"),
    );
    expect(extractiveSummary(input, { maxSentences: 3 })).toBe(summary);
  });

  it("handles Korean sentences", () => {
    const korean =
      "<new_messages>\nUser: 저는 민지예요. 부산에 살아요. 고양이를 키워요.\nUser: 고양이 이름은 나비예요. 나비는 세 살이에요.\n</new_messages>";
    const summary = extractiveSummary(korean, { maxSentences: 2 });
    expect(summary.split("\n")).toHaveLength(3);
    expect(summary).toContain("- User: 고양이 이름은 나비예요.");
    // 살 (from 살아요 and 살이에요) is the most frequent term after stripping; its weight is squared
    // once 부산에 살아요 is picked, so the second pick is the 나비 sentence with 고양(이).
    expect(summary).toContain("- User: 부산에 살아요.");
  });

  it("respects maxCharacters and answers empty for empty input", () => {
    const long = `<new_messages>\n${Array.from({ length: 50 }, (_, i) => `User: Sentence number ${i} talks about the garden and the garden party.`).join("\n")}\n</new_messages>`;
    const summary = extractiveSummary(long, { maxSentences: 50, maxCharacters: 300 });
    expect(summary.length - EXTRACTIVE_SUMMARY_LABEL.length).toBeLessThanOrEqual(300 + 50);
    expect(extractiveSummary("<new_messages>\n\n</new_messages>")).toBe("");
  });
});

describe("ExtractiveSummarizer", () => {
  it("is a chat model that reads the user message and ignores the instructions", async () => {
    const model = extractiveSummarizer({ maxSentences: 1 });
    const answer = await model.invoke([
      new SystemMessage("Summarize please, about the moon."),
      new HumanMessage("<new_messages>\nUser: The garden needs water. The garden is big.\n</new_messages>"),
    ]);
    expect(answer.content).toBe(`${EXTRACTIVE_SUMMARY_LABEL}\n- User: The garden needs water.`);
  });
});
