import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { ThreadwiseConfigError } from "./errors.js";
import { conversationLanguage, promptLanguageFor, promptTexts, resolvePromptLanguage, textLanguage } from "./prompt-language.js";

describe("prompt language", () => {
  it("textLanguage: Korean from 30% Hangul letters (decomposed Hangul included), else English", () => {
    expect(textLanguage("부산에 살아요")).toBe("ko");
    expect(textLanguage("I live in Busan")).toBe("en");
    expect(textLanguage("제 MBTI는 INTJ예요")).toBe("ko");
    expect(textLanguage("\u1107\u116E\u1109\u1161\u11AB")).toBe("ko"); // 부산 in conjoining jamo
    expect(textLanguage("123 !!")).toBe("en");
  });

  it("conversationLanguage reads the newest user messages, so a short `ok` does not switch a Korean conversation", () => {
    const ko = [
      new HumanMessage("다음 주 금요일에 부산으로 출장 가요. 호텔 예약 좀 도와줘요."),
      new AIMessage("네, 어느 지역이 좋으세요?"),
      new HumanMessage("ok"),
    ];
    expect(conversationLanguage(ko)).toBe("ko");
    const en = [new HumanMessage("I fly to Busan next Friday, can you help me book a hotel near the station?"), new AIMessage("네")];
    expect(conversationLanguage(en)).toBe("en");
    // Tool results and answers are not the user's language.
    expect(
      conversationLanguage([new HumanMessage("Book it"), new ToolMessage({ content: "예약 완료 부산역 호텔", tool_call_id: "c1" })]),
    ).toBe("en");
    expect(conversationLanguage([])).toBe("en");
  });

  it("the newest user messages decide once there are enough letters: a conversation that switched to Korean is Korean", () => {
    const switched = [
      new HumanMessage("Please remember that my flight is on Friday morning."),
      new AIMessage("Sure."),
      new HumanMessage("이제 한국어로 얘기할게요. 금요일 아침 비행기예요."),
    ];
    expect(conversationLanguage(switched)).toBe("ko");
  });

  it("reads the messages each call: an array a caller changed in place is read as it is now, as a fresh process would", () => {
    const messages: BaseMessage[] = [new HumanMessage("Please remember that my flight is on Friday morning.")];
    expect(conversationLanguage(messages)).toBe("en");
    messages.push(new AIMessage("Sure."), new HumanMessage("이제 한국어로 얘기할게요. 금요일 아침 비행기예요."));
    expect(conversationLanguage(messages)).toBe("ko");
  });

  it("promptLanguageFor: a fixed language whatever the conversation; auto from it", () => {
    const ko = [new HumanMessage("부산에 살아요")];
    expect(promptLanguageFor("en", ko)).toBe("en");
    expect(promptLanguageFor("auto", ko)).toBe("ko");
  });

  it("resolvePromptLanguage: the option, else THREADWISE_PROMPT_LANGUAGE, else en; a bad env value names the variable", () => {
    expect(resolvePromptLanguage(undefined, {})).toBe("en");
    expect(resolvePromptLanguage(undefined, { THREADWISE_PROMPT_LANGUAGE: "ko" })).toBe("ko");
    expect(resolvePromptLanguage("en", { THREADWISE_PROMPT_LANGUAGE: "ko" })).toBe("en");
    let error: unknown;
    try {
      resolvePromptLanguage(undefined, { THREADWISE_PROMPT_LANGUAGE: "korean" });
    } catch (caught) {
      error = caught;
    }
    expect(ThreadwiseConfigError.isInstance(error)).toBe(true);
    expect((error as ThreadwiseConfigError).option).toBe("THREADWISE_PROMPT_LANGUAGE");
  });

  it("promptTexts: a given text in both languages, else the defaults", () => {
    expect(promptTexts("Notes", { en: "A", ko: "가" })).toEqual({ en: "Notes", ko: "Notes" });
    expect(promptTexts(undefined, { en: "A", ko: "가" })).toEqual({ en: "A", ko: "가" });
  });
});
