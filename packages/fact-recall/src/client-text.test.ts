import { HumanMessage } from "@langchain/core/messages";
import { messageText } from "@threadwise/core";
import { CLIENT_TEXT_FORMS } from "@threadwise/core/testing";
import { describe, expect, it } from "vitest";
import { detectLanguage, extractFactsHeuristic } from "./extract-heuristic.js";
import { createFactIndex } from "./fact-index.js";
import { factKey, normalizeValue } from "./fact-store.js";
import { replayStatements as replay } from "./fixtures/replay-statements.js";

/** Statements as users write them, Korean (반말, 존댓말, English words, emoji) and English. */
const STATEMENTS = [
  "나 요즘 성수동 살아 ㅋㅋ",
  "저는 부산으로 이사했어요.",
  "나 28살이야 🎂",
  "판교에 있는 AI 스타트업에서 backend 개발자로 일해요",
  "나 갑각류 알레르기 있어 ㅠㅠ",
  "우리 강아지 이름은 보리야",
  "예전에는 인천에 살았는데 지금은 수원에 살아요.",
  "I moved to Busan last month and I work at Samsung.",
];
const QUESTIONS = ["내가 어디 살지?", "몇 살이야?", "무슨 일 해요?", "알레르기 있는 거 뭐였지?", "where do I live?"];

describe("fact rules and fact recall read text as clients send it like the plain text", () => {
  it.each(CLIENT_TEXT_FORMS.map((form) => [form.name, form] as const))("%s: the same facts from every statement", (_name, form) => {
    for (const text of STATEMENTS) {
      expect(extractFactsHeuristic(form.encode(text)), text).toEqual(extractFactsHeuristic(text));
      expect(extractFactsHeuristic(form.encode(`민재: ${text}`), { speakerPrefix: true }), text).toEqual(
        extractFactsHeuristic(`민재: ${text}`, { speakerPrefix: true }),
      );
      expect(detectLanguage(form.encode(text)), text).toBe(detectLanguage(text));
    }
  });

  it.each(CLIENT_TEXT_FORMS.map((form) => [form.name, form] as const))("%s: the same facts recalled for every question", (_name, form) => {
    const plain = replay(STATEMENTS);
    const encoded = replay(STATEMENTS.map(form.encode));
    expect(encoded.facts.map((f) => [f.key, f.value])).toEqual(plain.facts.map((f) => [f.key, f.value]));
    const index = createFactIndex(plain.facts);
    for (const question of QUESTIONS) {
      const expected = index.search(question, 5).map((r) => [r.fact.key, r.score]);
      expect(expected.length, question).toBeGreaterThan(0);
      expect(
        index.search(form.encode(question), 5).map((r) => [r.fact.key, r.score]),
        question,
      ).toEqual(expected);
    }
  });

  it("states the same facts when a statement ends in chat marks (emoji, ㅋㅋ, ㅠㅠ, ~~)", () => {
    const tails = [" ㅋㅋ", "ㅋㅋㅋ", " ㅠㅠ", " 😊", "😎", " 👍🏻", " ❤️", "~~", " ㅎㅎ 😊"];
    for (const text of [...STATEMENTS, "저는 서른두 살이에요.", "우리 형은 서른다섯 살이야", "I live in Busan."]) {
      const expected = extractFactsHeuristic(text);
      for (const tail of tails) {
        expect(extractFactsHeuristic(`${text}${tail}`), `${text}${tail}`).toEqual(expected);
        expect(extractFactsHeuristic(`${text.replace(/[.!?]+$/, "")}${tail}`), `${text}${tail}`).toEqual(expected);
      }
    }
  });

  it("a message sent as several text blocks states the facts of each block, as ingest reads it (was 'name=KimI live')", () => {
    const blocks = (...texts: string[]) => new HumanMessage({ content: texts.map((text) => ({ type: "text", text })) });
    const facts = (...texts: string[]) => extractFactsHeuristic(messageText(blocks(...texts))).map((f) => `${f.attribute}=${f.value}`);
    expect(facts("My name is Kim", "I live in Busan")).toEqual(["name=Kim", "residence=Busan"]);
    expect(facts("저는 서울에 살아요", "저는 네이버에서 일해요")).toEqual(["residence=서울", "work=네이버"]);
  });

  it("keys a value the same however its digits and Hangul were encoded", () => {
    expect(normalizeValue("２８")).toBe(normalizeValue("28"));
    expect(factKey({ subject: "user", attribute: "pet", value: "보리".normalize("NFD"), multi: true })).toBe(
      factKey({ subject: "user", attribute: "pet", value: "보리", multi: true }),
    );
  });
});
