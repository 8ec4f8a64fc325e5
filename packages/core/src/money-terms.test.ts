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

  it("does not read paying attention, spending time, a value in -값 nor rain or a ratio in -비 as money (review60)", () => {
    for (const text of [
      "pay attention to the logs",
      "we spent hours debugging",
      "I spend time with my kids",
      "they paid tribute to her",
      "기본값은 10이야",
      "결괏값이 이상해",
      "최댓값을 구해",
      "평균값 알려줘",
      "장맛비가 와",
      "가랑비에 옷 젖는다",
      "종횡비는 16:9",
      "무방비 상태였어",
      "기념비 앞에서",
    ]) {
      expect([text, money(text)]).toEqual([text, false]);
    }
    for (const text of [
      "I paid the bill",
      "how much did you spend",
      "they pay well",
      "집값이 올랐어",
      "책값 얼마였지",
      "관리비 냈어",
      "교통비가 많이 들어",
      "값이 얼마야",
    ]) {
      expect([text, money(text)]).toEqual([text, true]);
    }
  });
});

describe("money reads Korean words with text-analysis's particles, stemmer and numerals, and reads the object (session 61)", () => {
  it("reads a sum counted in 원 glued to its digits, mixed or in 억, as it reads it apart", () => {
    for (const text of [
      "45만원 냈어",
      "한달에 사만오천원이요ㅎㅎ",
      "3만5천원이었어",
      "3,000원이요",
      "1.5억원에 팔았대",
      "1.5억 원",
      "1억 원이었는데",
      "5천원이었어",
      "비용이었어",
      "월세라서 부담돼",
      "돈도 없고",
    ]) {
      expect([text, money(text)]).toEqual([text, true]);
    }
    // A number alone is no money, whatever its unit (`3만 명`): only its counter or sign says so.
    for (const text of ["45만 명", "1.5억 뷰", "3만5천", "오만원권 한 장", "원룸에 살아", "공원 가자"]) {
      expect([text, money(text)]).toEqual([text, false]);
    }
  });

  it("does not read a packed bus or train (만원, 滿員) as money, but ten thousand won is", () => {
    for (const text of ["만원 버스에 시달렸어", "지하철이 만원이었어", "퇴근길 만원 전철"]) {
      expect([text, money(text)]).toEqual([text, false]);
    }
    for (const text of ["만원 냈어", "만원짜리 한 장", "택시비 만원"]) {
      expect([text, money(text)]).toEqual([text, true]);
    }
  });

  it("reads the object of spend and pay past its determiners: time spent is no money, a rate is", () => {
    for (const text of ["we spent the weekend in Busan", "spend the night here", "I spent a whole month there", "she paid a visit"]) {
      expect([text, money(text)]).toEqual([text, false]);
    }
    for (const text of [
      "we spent the money on rent",
      "I pay 50 a month",
      "spent 30 dollars",
      "I paid the bill",
      "how much did they pay a month",
    ]) {
      expect([text, money(text)]).toEqual([text, true]);
    }
  });
});
