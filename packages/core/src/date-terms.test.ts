import { describe, expect, it } from "vitest";
import { parseCalendarDate, timestampTerms } from "./date-terms.js";
import { tokenize } from "./text-analysis.js";

describe("dates as terms (issue 25)", () => {
  it("reads a month in a question, English and Korean, and keeps the modal may a stop word", () => {
    expect(tokenize("What did she do in May 2023?")).toEqual(["month:5", "2023"]);
    expect(tokenize("2023년 5월에 뭐 했어?")).toEqual(["2023", "month:5"]);
    expect(tokenize("since March, on 8 May, 2023, in june, Aug 14")).toEqual([
      "sinc",
      "month:3",
      "8",
      "month:5",
      "2023",
      "month:6",
      "month:8",
      "14",
    ]);
    expect(tokenize("May I ask? I may go. We march on. an august family")).toEqual(["ask", "go", "march", "august", "family"]);
    expect(tokenize("4월 15일부터 3박 4일")).toEqual(["month:4", "15", "3", "박", "4"]);
  });

  it("reads no month in words that only look up an object's properties (constructor, toString)", () => {
    expect(tokenize("the constructor toString valueOf hasOwnProperty")).not.toContainEqual(expect.stringMatching(/^month:/));
    expect(tokenize("Constructor of the bridge")).not.toContainEqual(expect.stringMatching(/^month:/));
  });

  it("reads the date of timestamps as recall keeps them", () => {
    expect(parseCalendarDate("1:56 pm on 8 May, 2023")).toEqual({ year: 2023, month: 5, day: 8 });
    expect(parseCalendarDate("2024년 3월 4일 오후 7시 10분")).toEqual({ year: 2024, month: 3, day: 4 });
    expect(parseCalendarDate("2024-09-01T23:30:00-09:00")).toEqual({ year: 2024, month: 9, day: 1 });
    expect(parseCalendarDate("September 3, 2024")).toEqual({ year: 2024, month: 9, day: 3 });
    expect(parseCalendarDate("yesterday-ish")).toBeUndefined();
  });

  it("resolves relative months and years against the message's own date", () => {
    expect(timestampTerms("1:56 pm on 8 May, 2023", "I moved last month")).toEqual(["month:5", "2023", "month:4", "2023"]);
    expect(timestampTerms("2024-01-05T10:00:00Z", "지난달에 이사했어요")).toEqual(["month:1", "2024", "month:12", "2023"]);
    expect(timestampTerms("2024년 3월 4일", "작년에 결혼했어요")).toEqual(["month:3", "2024", "2023"]);
    expect(timestampTerms(undefined, "last month")).toEqual([]);
  });
});
