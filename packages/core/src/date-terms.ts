/**
 * Dates as search terms (issue 25): a month is one term, `month:<1-12>`, whether it is written
 * `May`, `5월` or comes from a message's timestamp, and a year is its four digits (`2023`, as
 * `tokenize` keeps numbers). So "what did she do in May 2023?" and "2023년 5월에 뭐 했어?" meet
 * the messages said in May 2023, and the messages that mention that month.
 */

import { analysisText } from "./unicode.js";

const MONTHS: Readonly<Record<string, number>> = {
  january: 1,
  february: 2,
  march: 3,
  april: 4,
  may: 5,
  june: 6,
  july: 7,
  august: 8,
  september: 9,
  october: 10,
  november: 11,
  december: 12,
};
const ABBREVIATIONS: Readonly<Record<string, number>> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
/** The first three letters of every month name and abbreviation (all 3 to 9 letters long). */
const MONTH_START = /^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)/i;
/** Month names that are also common words (`may` the modal, `march` the verb, `august` the adjective). */
const AMBIGUOUS = new Set(["may", "march", "august"]);
/** Words after which a capitalized ambiguous month name is the month ("in May", "since March"). */
const BEFORE_MONTH = new Set(
  "in of since until till by early late mid last next this during from to through around before after each every".split(" "),
);

/** The term of month `month` (1-12). */
export function monthTerm(month: number): string {
  return `month:${month}`;
}

/**
 * The month an English word names in its place, or `undefined`: full names always, except `May`,
 * `March` and `August`, which name the month only when capitalized and next to a number or after
 * a word such as `in`, `since`, `last`; abbreviations (`Aug`, `Sept`) only next to a number.
 *
 * @param word - the word as written (case kept)
 * @param previous - the word before it, as written, or `undefined`
 * @param next - the word after it, as written, or `undefined`
 */
export function englishMonth(word: string, previous: string | undefined, next: string | undefined): number | undefined {
  // Called for every English word of every text indexed: most words leave here, without a copy.
  if (word.length < 3 || word.length > 9 || !MONTH_START.test(word)) return undefined;
  const lower = word.toLowerCase();
  const nearNumber = /^\d/.test(previous ?? "") || /^\d/.test(next ?? "");
  const full = Object.hasOwn(MONTHS, lower) ? MONTHS[lower] : undefined;
  if (full !== undefined) {
    if (!AMBIGUOUS.has(lower)) return full;
    const capitalized = word[0] !== lower[0];
    return capitalized && (nearNumber || BEFORE_MONTH.has((previous ?? "").toLowerCase())) ? full : undefined;
  }
  const short = Object.hasOwn(ABBREVIATIONS, lower) ? ABBREVIATIONS[lower] : undefined;
  return short !== undefined && nearNumber ? short : undefined;
}

/** A calendar date read from text; `day` may be unknown. */
export interface CalendarDate {
  year: number;
  /** 1-12. */
  month: number;
  day?: number;
}

const MONTH_NAME =
  "(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)";

/**
 * A date written in digits, year first, with dots or slashes: `2026.03.02`, `2026/3/2`, and
 * `2026. 3. 2.` as `toLocaleString("ko-KR")` writes it. Month 1-12, day 1-31.
 */
export const NUMERIC_DATE = /(?<![\d.])(\d{4})\s?[./]\s?(0?[1-9]|1[0-2])\s?[./]\s?(0?[1-9]|[12]\d|3[01])(?!\d)/;

const DAY_FIRST = new RegExp(`(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH_NAME}\\.?,?\\s+(\\d{4})`, "i");
const MONTH_FIRST = new RegExp(`${MONTH_NAME}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})`, "i");

/** A date and, when written, a time of day read from text (see {@link parseDateTime}). */
export interface DateTimeParts extends CalendarDate {
  /** 0-23; absent when no time of day is written. */
  hour?: number;
  /** 0-59; with `hour`. */
  minute?: number;
  /** 0-59; with `hour`. */
  second?: number;
}

/** ISO 8601 (`2024-09-01`, `2024-09-01T14:00`, `2024-09-01 14:00:05.123+09:00`). */
const ISO_DATE_TIME =
  /(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?(?:\s*(?:Z|[+-]\d{2}(?::?\d{2})?)(?![\w]))?)?/i;
/** A time with a zone, the ISO form `Date.parse` reads to the millisecond. */
const ISO_ZONED = /\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?\s*(?:Z|[+-]\d{2}(?::?\d{2})?)(?![\w])/i;
/**
 * A zone written after a clock outside ISO 8601: `GMT+0900` as `Date.prototype.toString` writes it,
 * `UTC+09:00`, or RFC 2822's bare `+0900` after a clock with seconds. Signed offset in its groups
 * (sign, hours, minutes); a range such as `10:30-11:00` is none.
 */
/** A zone as `Date.parse` reads one in a text none of {@link parseDateTime}'s own formats read: a name or a signed offset. */
const WRITTEN_ZONE = /\b(?:GMT|UTC|UT|Z|[ECMP][SD]T)\b|[+-]\d{2}:?\d{2}(?![\d/.-])/i;
const CLOCK_ZONE = /(?:\b(?:GMT|UTC)\s*([+-])(\d{2}):?(\d{2})|\d:\d{2}:\d{2}\s+([+-])(\d{2})(\d{2}))(?![\w:])/i;
/** Digits with the year last: `19/11/2027` (day first, its first number is over 12), `6/12/2027` (month first, as `Date.parse` reads it). */
const YEAR_LAST = /(?<![\d./])(\d{1,2})[./](\d{1,2})[./](\d{4})(?![\d./])/;
const KOREAN_DATE = /(\d{4})\s*년\s*(\d{1,2})\s*월(?:\s*(\d{1,2})\s*일)?/;
/** `7월 10일 (토) 오후 1시 10분, 2027`: a Korean month and day with the year elsewhere in the line. */
const KOREAN_MONTH_DAY = /(?<!\d)(\d{1,2})\s*월\s*(\d{1,2})\s*일/;
const LONE_YEAR = /(?<![\d:./-])(\d{4})(?:\s*년)?(?![\d:./-])/;
/** `1:56 pm`, `9 am`, `10:10 PM`, `7.30 p.m.` is not read (a dot is a date's separator). */
const TIME_12H = /(?<![\d:])(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])\.?\s?m\b\.?/i;
/** `오후 1:56`, `저녁 7시`, `오후 7시 10분`, `밤 9:00`, `23:05`, `14:30:05` (a 24-hour time without a word). */
const TIME_KO_24H =
  /(오전|오후|새벽|아침|낮|저녁|밤)?\s*(?<![\d:])(\d{1,2})(?:\s*:\s*(\d{2})(?::(\d{2}))?|\s*시(?:\s*(\d{1,2})\s*분)?(?:\s*(\d{1,2})\s*초)?)/;

/**
 * Reads a date, and the time of day when one is written, from a date line or a message's
 * timestamp: the one reader of dates in the project (recall's date terms, user memory's order of
 * statements, the benches' session date lines). Formats, the first that matches:
 *
 * - ISO 8601: `2024-09-01`, `2024-09-01T14:00:00+09:00` (the date and time as written; the zone is
 *   not applied here, see {@link parseTimestamp});
 * - digits year first with dots or slashes ({@link NUMERIC_DATE}): `2026.03.02`, `2026/3/2 21:10`,
 *   `2026. 2. 7. 오후 10:10:00` (the ko-KR locale's);
 * - Korean: `2023년 5월 8일 오후 1:56`, `2024년 3월 4일 (월) 저녁 7시 10분`, `2024년 3월` (no day),
 *   and the year last: `7월 10일 (토) 오후 1시 10분, 2027`;
 * - digits year last: `19/11/2027 16:20` day first when the first number is over 12, else month
 *   first (`6/12/2027` is 12 June, as `Date.parse` reads it);
 * - English day first or month first, with or without a weekday, an ordinal and a time before or
 *   after: `1:56 pm on 8 May, 2023`, `8 May, 2023`, `Sun, 14 Feb 2027 09:12`, `Monday 23rd August
 *   2027 07:30`, `Dec 30, 2027 10:10 PM`;
 * - else what `Date.parse` reads: without a zone the date and time as written (Date.parse's reading in
 *   the process's zone, its local fields), with one (`GMT`, `+0900`) its UTC date and time.
 *
 * A time is `h:mm[:ss]` with `am`/`pm`, or with a Korean word (`오전`, `새벽`, `아침`: morning; `낮`:
 * 12 and 1-5 in the afternoon; `오후`, `저녁`: afternoon and evening; `밤`: 6-11 in the evening, 12
 * midnight, 1-5 at night), or `N시 [M분]`, or a 24-hour `hh:mm`. A time that is not one (`25:10`) is
 * left out (the date alone). `undefined` when no date is read.
 *
 * @param text - a date line or timestamp, in any language
 */
export function parseDateTime(text: string): DateTimeParts | undefined {
  const found = readDate(text);
  if (found === undefined) {
    const parsed = Date.parse(text);
    if (Number.isNaN(parsed)) return undefined;
    const date = new Date(parsed);
    // Without a zone Date.parse read the text in the process's zone: its local fields are the text's
    // own (was: the UTC ones, the day before on a server in Seoul for `2023-5-8`).
    if (!WRITTEN_ZONE.test(text))
      return {
        year: date.getFullYear(),
        month: date.getMonth() + 1,
        day: date.getDate(),
        hour: date.getHours(),
        minute: date.getMinutes(),
        second: date.getSeconds(),
      };
    return {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: date.getUTCHours(),
      minute: date.getUTCMinutes(),
      second: date.getUTCSeconds(),
    };
  }
  const { date, time, rest } = found;
  return { ...date, ...(time ?? readTime(rest) ?? {}) };
}

type Time = Required<Pick<DateTimeParts, "hour" | "minute" | "second">>;

/** The date of `text` by the formats of {@link parseDateTime} but `Date.parse`, its time if the format carries one, and the text around it. */
function readDate(text: string): { date: CalendarDate; time?: Time; rest: string } | undefined {
  const around = (m: RegExpExecArray) => `${text.slice(0, m.index)} ${text.slice(m.index + m[0].length)}`;
  const iso = ISO_DATE_TIME.exec(text);
  if (iso) {
    const date = { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
    const time = iso[4] === undefined ? undefined : clock(Number(iso[4]), Number(iso[5]), Number(iso[6] ?? 0));
    return { date, ...(time ? { time } : {}), rest: around(iso) };
  }
  const numeric = NUMERIC_DATE.exec(text);
  if (numeric) return { date: { year: Number(numeric[1]), month: Number(numeric[2]), day: Number(numeric[3]) }, rest: around(numeric) };
  const korean = KOREAN_DATE.exec(text);
  if (korean)
    return {
      date: { year: Number(korean[1]), month: Number(korean[2]), ...(korean[3] ? { day: Number(korean[3]) } : {}) },
      rest: around(korean),
    };
  const monthDay = KOREAN_MONTH_DAY.exec(text);
  const year = monthDay ? LONE_YEAR.exec(around(monthDay)) : null;
  if (monthDay && year) {
    const rest = around(monthDay);
    return {
      date: { year: Number(year[1]), month: Number(monthDay[1]), day: Number(monthDay[2]) },
      rest: `${rest.slice(0, year.index)} ${rest.slice(year.index + year[0].length)}`,
    };
  }
  const yearLast = YEAR_LAST.exec(text);
  if (yearLast) {
    const [a, b] = [Number(yearLast[1]), Number(yearLast[2])];
    const [month, day] = a > 12 ? [b, a] : [a, b];
    if (month >= 1 && month <= 12) return { date: { year: Number(yearLast[3]), month, day }, rest: around(yearLast) };
  }
  const dayFirst = DAY_FIRST.exec(text);
  if (dayFirst)
    return { date: { year: Number(dayFirst[3]), month: monthOf(dayFirst[2] as string), day: Number(dayFirst[1]) }, rest: around(dayFirst) };
  const monthFirst = MONTH_FIRST.exec(text);
  if (monthFirst)
    return {
      date: { year: Number(monthFirst[3]), month: monthOf(monthFirst[1] as string), day: Number(monthFirst[2]) },
      rest: around(monthFirst),
    };
  return undefined;
}

/** The time of day written in `text` (what is left of a date line once its date is read). */
function readTime(text: string): Time | undefined {
  const english = TIME_12H.exec(text);
  if (english) {
    const hour = Number(english[1]);
    if (hour < 1 || hour > 12) return undefined;
    const pm = (english[4] as string).toLowerCase() === "p";
    return clock((hour % 12) + (pm ? 12 : 0), Number(english[2] ?? 0), Number(english[3] ?? 0));
  }
  const other = TIME_KO_24H.exec(text);
  if (!other) return undefined;
  const word = other[1];
  let hour = Number(other[2]);
  const minute = Number(other[3] ?? other[5] ?? 0);
  const second = Number(other[4] ?? other[6] ?? 0);
  if (word !== undefined) {
    if (hour > 12) return clock(hour, minute, second);
    if (word === "오후" || word === "저녁") hour = hour === 12 ? 12 : hour + 12;
    else if (word === "낮") hour = hour < 6 ? hour + 12 : hour;
    else if (word === "밤") hour = hour === 12 ? 0 : hour >= 6 ? hour + 12 : hour;
    else hour = hour === 12 ? 0 : hour;
  }
  return clock(hour, minute, second);
}

function clock(hour: number, minute: number, second: number): Time | undefined {
  return hour <= 23 && minute <= 59 && second <= 59 ? { hour, minute, second } : undefined;
}

/**
 * When `text` says something happened, in ms since the epoch, by {@link parseDateTime}: a time
 * with a zone (`2024-09-01T14:00:00+09:00`, `...Z`; a clock followed by `GMT+0900`, `UTC+09:00` or
 * RFC 2822's `+0900`, as `String(new Date())` and mail headers write it) to the millisecond; any other date and time as
 * a UTC wall clock (`2023년 5월 8일 오후 1:56` and `1:56 pm on 8 May, 2023` are both
 * `Date.UTC(2023, 4, 8, 13, 56)`; no day: the 1st; no time: midnight). `undefined` when no date is
 * read or the date is not one (`2023-02-30`), so a caller can fall back (user memory: the commit's
 * time).
 *
 * @param text - a date line or timestamp, in any language
 */
export function parseTimestamp(text: string): number | undefined {
  const zoned = ISO_ZONED.exec(text);
  if (zoned) {
    const ms = Date.parse(zoned[0].replace(" ", "T").replace(/\s+/g, ""));
    if (!Number.isNaN(ms)) return ms;
  }
  if (readDate(text) === undefined) {
    // Date.parse's forms: with a zone, its instant; without, the wall clock as written (parseDateTime).
    const parsed = Date.parse(text);
    if (Number.isNaN(parsed)) return undefined;
    if (WRITTEN_ZONE.test(text)) return parsed;
  }
  const parts = parseDateTime(text);
  if (!parts) return undefined;
  const day = parts.day ?? 1;
  const ms = Date.UTC(parts.year, parts.month - 1, day, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  const check = new Date(ms);
  if (check.getUTCFullYear() !== parts.year || check.getUTCMonth() !== parts.month - 1 || check.getUTCDate() !== day) return undefined;
  // A zone after the clock (`GMT+0900`, `+0900`): the wall clock is that zone's, as Date.parse read it.
  const zone = parts.hour === undefined ? null : CLOCK_ZONE.exec(text);
  if (!zone) return ms;
  const sign = zone[1] ?? zone[4];
  const offset = Number(zone[2] ?? zone[5]) * 60 + Number(zone[3] ?? zone[6]);
  return ms - (sign === "-" ? -offset : offset) * 60_000;
}

/**
 * Reads the date of a timestamp as recall keeps it (`timestampOf`), by {@link parseDateTime}:
 * ISO 8601 (the date as written, no time-zone shift), digits with dots or slashes, Korean,
 * English, else anything `Date.parse` reads (see {@link parseDateTime}). `undefined` when none matches.
 */
export function parseCalendarDate(text: string): CalendarDate | undefined {
  const parts = parseDateTime(text);
  return parts ? { year: parts.year, month: parts.month, ...(parts.day !== undefined ? { day: parts.day } : {}) } : undefined;
}

function monthOf(name: string): number {
  const lower = name.toLowerCase();
  return (MONTHS[lower] ?? ABBREVIATIONS[lower]) as number;
}

/** Relative month words, English and Korean, and how many months from the message's own they point. */
const RELATIVE_MONTHS: ReadonlyArray<[RegExp, number]> = [
  [/\blast month\b|지난\s?달/i, -1],
  [/\bnext month\b|다음\s?달/i, 1],
  [/\bthis month\b|이번\s?달/i, 0],
  [/\blast week\b|지난\s?주|\byesterday\b|어제|그저께|\bthe other day\b|며칠 전/i, 0],
];
const RELATIVE_YEARS: ReadonlyArray<[RegExp, number]> = [
  [/\blast year\b|작년|지난해/i, -1],
  [/\bnext year\b|내년/i, 1],
  [/\bthis year\b|올해/i, 0],
];

/**
 * The date terms of a message said at `timestamp` (see {@link parseCalendarDate}): its month
 * (`month:5`) and year (`2023`), and the months and years its relative words point to, resolved
 * against that date ("last month" said in June 2023 gives `month:5`; "작년" gives `2022`; "last
 * week" and "어제" the message's own month, as the nearest a month can say). `[]` without a
 * readable timestamp.
 */
export function timestampTerms(timestamp: string | undefined, text = ""): string[] {
  if (timestamp === undefined) return [];
  const date = parseCalendarDate(analysisText(timestamp));
  if (!date) return [];
  const said = analysisText(text);
  const terms = [monthTerm(date.month), String(date.year)];
  for (const [pattern, offset] of RELATIVE_MONTHS) {
    if (offset === 0 || !pattern.test(said)) continue;
    const index = date.year * 12 + (date.month - 1) + offset;
    terms.push(monthTerm((index % 12) + 1), String(Math.floor(index / 12)));
  }
  for (const [pattern, offset] of RELATIVE_YEARS) if (offset !== 0 && pattern.test(said)) terms.push(String(date.year + offset));
  return terms;
}
