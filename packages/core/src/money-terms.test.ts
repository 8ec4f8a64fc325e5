import { describe, expect, it } from "vitest";
import { MONEY_TERM } from "./money-terms.js";
import { tokenize } from "./text-analysis.js";

const money = (text: string) => tokenize(text).includes(MONEY_TERM);

describe("a sum of money and a question about one share a term (session 60)", () => {
  it("reads English amounts and money words", () => {
    for (const text of [
      "a mechanic fixed it for $380",
      "it's £21,430 as agreed",
      "we need like $9k",
      "registration is 5 grand alone",
      "$15/hr",
      "30 dollars",
    ]) {
      expect([text, money(text)]).toEqual([text, true]);
    }
    for (const text of [
      "what did it cost",
      "how much did they pay a month",
      "what's the price",
      "how much did they spend",
      "what's the budget",
    ]) {
      expect([text, money(text)]).toEqual([text, true]);
    }
  });

  it("reads Korean amounts in 원, glued or apart, and money words, but not 얼마나, 얼마 전, 돈까스", () => {
    for (const text of [
      "팔십만원에 샀어",
      "월세 45만 원",
      "사만 이천 원",
      "만원씩 걷자",
      "태블릿 얼마 줬어",
      "얼마에 샀어요?",
      "병원비 얼마 나왔어",
      "비용은?",
      "돈이 없어서",
    ]) {
      expect([text, money(text)]).toEqual([text, true]);
    }
    for (const text of ["얼마나 걸려?", "얼마 전에 이사했어", "돈까스 먹자", "준비가 됐어", "I ran 5 km", "in 2026", "일원이 되었어"]) {
      expect([text, money(text)]).toEqual([text, false]);
    }
  });
});
