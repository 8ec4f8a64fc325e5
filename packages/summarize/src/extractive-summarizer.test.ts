import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { CLIENT_TEXT_FORMS } from "@threadwise/core/testing";
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
        // `said` and `say` are one term (tokenize reads irregular forms as their base), so this
        // sentence holds the most frequent terms (vet, cat, say); "I took Nabi the cat to the vet
        // today." and "Did the vet say anything else?" repeat vet, cat and say, whose weights were squared.
        "- User: The vet said the cat is healthy.",
        "- User: Nothing else.",
      ].join("\n"),
    );
    expect(extractiveSummary(input, { maxSentences: 3 })).toBe(summary);
  });

  it.each(CLIENT_TEXT_FORMS.map((form) => [form.name, form] as const))(
    "summarizes a thread sent %s-encoded as the same thread in plain text (NFD from macOS, IME full-width, invisible characters)",
    (_name, form) => {
      const chat = [
        "User: 나 이번에 성수동으로 이사했어 😎 회사까지 걸어서 10분!",
        "Assistant: 오 축하해! 출퇴근 훨씬 편하겠다.",
        "User: 3시에 meeting 있어서 PR 리뷰는 내일 할게. 다음 주 화요일에 release 있어 ㅠㅠ",
        "User: 숙소예약 완료! 체크인은 2026.03.20 15:00, 예약번호 JX7Q2K야. 금연 트윈룸이야.",
        "Assistant: 좋아, 3월 20일 15시 체크인 기억해 둘게.",
        "User: 회의실 예약은 내가 했어. Room 3B, 오후 2시.",
      ].join("\n");
      const input = `<new_messages>\n${chat}\n</new_messages>`;
      for (const options of [{ maxSentences: 3 }, { maxSentences: 8, maxCharacters: 160 }]) {
        expect(extractiveSummary(form.encode(input), options)).toBe(extractiveSummary(input, options));
      }
    },
  );

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

  it("never quotes the note of a message without text (`User: (empty)`, `User: (image)`)", () => {
    const input = [
      "<new_messages>",
      "User: (empty)",
      "Assistant: Did you mean to send something?",
      "User: (image)",
      "User: (image, file)",
      "Assistant: (empty)",
      "User: (yes) the garden photo, from the garden.",
      "</new_messages>",
    ].join("\n");
    const summary = extractiveSummary(input, { maxSentences: 10 });
    expect(summary.split("\n").slice(1)).toEqual([
      "- Assistant: Did you mean to send something?",
      "- User: (yes) the garden photo, from the garden.",
    ]);
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

describe("extractiveSummary with a repeated acknowledgement (newuser61)", () => {
  // A Korean trip conversation summarized offline by memoryStack's summarize: the assistant's
  // "네, 알겠어요." after every user message was the first sentence picked, ahead of the facts
  // (in English, "Got it, I will remember that." the second).
  it.each([
    [
      "ko",
      "Assistant: 네, 알겠어요.",
      [
        "저는 판교에 있는 게임 회사에서 백엔드 개발자로 일해요.",
        "다음 주 금요일에 부산으로 출장을 가요.",
        "제 사원 번호는 KR-20931이에요.",
        "저는 땅콩 알레르기가 있어요.",
        "회의는 토요일 오전 10시에 센텀시티에서 있어요.",
        "지난달에 마포구에서 성수동으로 이사했어요.",
      ],
    ],
    [
      "en",
      "Assistant: Got it, I will remember that.",
      [
        "I work as a backend developer at a game company in Pangyo.",
        "Next Friday I travel to Busan for work.",
        "My employee number is KR-20931.",
        "I am allergic to peanuts.",
        "The meeting is on Saturday at 10 am in Centum City.",
        "Last month I moved from Mapo to Seongsu.",
      ],
    ],
  ])("picks what the user said, not the acknowledgement (%s)", (_language, ack, said) => {
    const input = `<new_messages>\n${said.map((s) => `User: ${s}\n${ack}`).join("\n")}\n</new_messages>`;
    const lines = extractiveSummary(input, { maxSentences: 3 }).split("\n").slice(1);
    expect(lines).toHaveLength(3);
    expect(lines.every((line) => line.startsWith("- User: "))).toBe(true);
  });
});
