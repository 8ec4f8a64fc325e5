/**
 * One reader of date lines and timestamps (session 66, data66): `parseDateTime` / `parseTimestamp`
 * read ISO 8601, year-first digits, Korean 년/월/일 with 오전/오후 and the other day-part words,
 * and English day-month-year or month-day-year with or without a time, as the benches' session
 * date lines and messages' timestamps write them; `Date.parse` read neither Korean lines nor
 * LoCoMo's `1:56 pm on 8 May, 2023`.
 */
import { afterEach, describe, expect, it } from "vitest";
import { parseCalendarDate, parseDateTime, parseTimestamp } from "./date-terms.js";

const utc = (y: number, m: number, d: number, h = 0, min = 0, s = 0) => Date.UTC(y, m - 1, d, h, min, s);

describe("parseTimestamp: a date line or timestamp to ms since the epoch", () => {
  it.each([
    // ISO 8601: with a zone to the millisecond, without one as a UTC wall clock.
    ["2026-03-02T09:00:00.123Z", Date.UTC(2026, 2, 2, 9, 0, 0, 123)],
    ["2024-09-01T14:00:00+09:00", utc(2024, 9, 1, 5)],
    ["2027-07-03 22:10", utc(2027, 7, 3, 22, 10)],
    ["2023-05-08", utc(2023, 5, 8)],
    // English, LoCoMo's line and others.
    ["1:56 pm on 8 May, 2023", utc(2023, 5, 8, 13, 56)],
    ["12:05 am on 8 May, 2023", utc(2023, 5, 8, 0, 5)],
    ["8 May, 2023", utc(2023, 5, 8)],
    ["Sun, 14 Feb 2027 09:12", utc(2027, 2, 14, 9, 12)],
    ["Saturday, 24 April 2027 at 07:45", utc(2027, 4, 24, 7, 45)],
    ["Monday 23rd August 2027 07:30", utc(2027, 8, 23, 7, 30)],
    ["Dec 30, 2027 10:10 PM", utc(2027, 12, 30, 22, 10)],
    ["19/11/2027 16:20", utc(2027, 11, 19, 16, 20)],
    // Korean, with the day-part words.
    ["2023년 5월 8일 오후 1:56", utc(2023, 5, 8, 13, 56)],
    ["2023년 5월 8일 오전 11:20", utc(2023, 5, 8, 11, 20)],
    ["2027년 9월 12일 일요일 저녁 7시", utc(2027, 9, 12, 19)],
    ["2024년 3월 4일 (월) 오후 7시 10분", utc(2024, 3, 4, 19, 10)],
    ["2027/12/24 (금) 밤 9:00", utc(2027, 12, 24, 21)],
    ["2027. 3. 21. 오전 10:40", utc(2027, 3, 21, 10, 40)],
    ["2026. 2. 7. 오후 10:10:00", utc(2026, 2, 7, 22, 10)],
    ["2027년 5월 8일 새벽 2시", utc(2027, 5, 8, 2)],
    ["2024년 3월", utc(2024, 3, 1)],
    ["7월 10일 (토) 오후 1시 10분, 2027", utc(2027, 7, 10, 13, 10)],
    ["6월 19일(토) 오전 11시 30분, 2027", utc(2027, 6, 19, 11, 30)],
  ])("%s", (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });

  it("orders a Korean and an English line of one moment alike, and the morning before the afternoon", () => {
    expect(parseTimestamp("2023년 5월 8일 오후 1:56")).toBe(parseTimestamp("1:56 pm on 8 May, 2023"));
    expect(parseTimestamp("2023년 5월 8일 오전 1:56")).toBeLessThan(parseTimestamp("2023년 5월 8일 오후 1:56") as number);
    expect(parseTimestamp("1:56 am on 8 May, 2023")).toBeLessThan(parseTimestamp("1:56 pm on 8 May, 2023") as number);
  });

  it.each(["어제 저녁", "yesterday evening", "", "2023-02-30", "2023년 2월 30일 오후 1:56"])("reads no time from %j", (text) => {
    expect(parseTimestamp(text)).toBeUndefined();
  });

  it("leaves out a time that is not one, keeping the date", () => {
    expect(parseDateTime("2023년 5월 8일 25:10")).toEqual({ year: 2023, month: 5, day: 8 });
    expect(parseTimestamp("8 May, 2023 25:10")).toBe(utc(2023, 5, 8));
  });

  it("gives the calendar date as parseCalendarDate reads it, the zone not applied", () => {
    for (const text of ["2024-09-01T23:30:00-05:00", "1:56 pm on 8 May, 2023", "2023년 5월 8일 오후 1:56", "2024년 3월"]) {
      const { hour: _h, minute: _m, second: _s, ...date } = parseDateTime(text) ?? {};
      expect(parseCalendarDate(text)).toEqual(date);
    }
    expect(parseCalendarDate("2024-09-01T23:30:00-05:00")).toEqual({ year: 2024, month: 9, day: 1 });
  });
});

describe("parseTimestamp: a zone written after the clock, as Date's toString and RFC 2822 write it (review66)", () => {
  // `String(new Date())` on a server in Seoul, or an e-mail's Date header: Date.parse read the
  // offset; the one reader read the wall clock as UTC, nine hours late, so a message stamped this
  // way was ordered after statements made up to nine hours later (user memory's statedAt).
  it.each([
    ["Mon May 08 2023 13:56:00 GMT+0900 (Korean Standard Time)", utc(2023, 5, 8, 4, 56)],
    ["Mon May 08 2023 13:56:00 GMT+0900 (한국 표준시)", utc(2023, 5, 8, 4, 56)],
    ["Mon May 08 2023 08:56:00 GMT-0500 (Central Daylight Time)", utc(2023, 5, 8, 13, 56)],
    ["Mon, 08 May 2023 13:56:00 +0900", utc(2023, 5, 8, 4, 56)],
    ["Mon, 08 May 2023 13:56:00 GMT", utc(2023, 5, 8, 13, 56)],
    ["8 May 2023 13:56 UTC+09:00", utc(2023, 5, 8, 4, 56)],
  ])("%s", (text, ms) => {
    expect(parseTimestamp(text)).toBe(ms);
  });
  it("a clock range or a date line without a zone still reads as a UTC wall clock", () => {
    expect(parseTimestamp("8 May 2023 10:30-11:00")).toBe(utc(2023, 5, 8, 10, 30));
    expect(parseTimestamp("2023년 5월 8일 오후 1:56")).toBe(utc(2023, 5, 8, 13, 56));
  });
});

describe("parseDateTime: Date.parse's forms without a zone read as written, whatever the process's zone (review66)", () => {
  // Date.parse reads `2023-5-8` or `May 8 2023 1:56 PM` in the process's local zone; the UTC date
  // and time of that instant is the day before on a server in Seoul (15:00 UTC), so recall's date
  // terms and user memory's order depended on the server's TZ. process.env.TZ is read by V8 at
  // each Date call in Node.
  const zone = process.env.TZ;
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });
  it.each(["Asia/Seoul", "America/Chicago", "UTC"])("in %s", (tz) => {
    process.env.TZ = tz;
    expect(parseCalendarDate("2023-5-8")).toEqual({ year: 2023, month: 5, day: 8 });
    expect(parseCalendarDate("5/8/23")).toEqual({ year: 2023, month: 5, day: 8 });
    expect(parseTimestamp("2023-5-8 13:56")).toBe(utc(2023, 5, 8, 13, 56));
    // With a zone, the instant as before (its UTC date and time).
    expect(parseTimestamp("2023-5-8 13:56 GMT+0900")).toBe(utc(2023, 5, 8, 4, 56));
  });
});
