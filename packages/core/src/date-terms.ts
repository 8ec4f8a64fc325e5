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

const DAY_FIRST = new RegExp(`(\\d{1,2})\\s+${MONTH_NAME}\\.?,?\\s+(\\d{4})`, "i");
const MONTH_FIRST = new RegExp(`${MONTH_NAME}\\.?\\s+(\\d{1,2}),?\\s+(\\d{4})`, "i");

/**
 * Reads the date of a timestamp as recall keeps it (`timestampOf`): ISO 8601 (`2024-09-01T14:00:00+09:00`,
 * the date as written, no time-zone shift), digits with dots or slashes ({@link NUMERIC_DATE}:
 * `2026. 2. 7. 오후 10:10:00`, the ko-KR locale's), Korean (`2024년 3월 4일 오후 7시 10분`), English
 * (`1:56 pm on 8 May, 2023`, `May 8, 2023`), else anything `Date.parse` reads (UTC date).
 * `undefined` when none matches.
 */
export function parseCalendarDate(text: string): CalendarDate | undefined {
  const iso = /(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (iso) return { year: Number(iso[1]), month: Number(iso[2]), day: Number(iso[3]) };
  const numeric = NUMERIC_DATE.exec(text);
  if (numeric) return { year: Number(numeric[1]), month: Number(numeric[2]), day: Number(numeric[3]) };
  const korean = /(\d{4})\s*년\s*(\d{1,2})\s*월(?:\s*(\d{1,2})\s*일)?/.exec(text);
  if (korean) return { year: Number(korean[1]), month: Number(korean[2]), ...(korean[3] ? { day: Number(korean[3]) } : {}) };
  const dayFirst = DAY_FIRST.exec(text);
  if (dayFirst) return { year: Number(dayFirst[3]), month: monthOf(dayFirst[2] as string), day: Number(dayFirst[1]) };
  const monthFirst = MONTH_FIRST.exec(text);
  if (monthFirst) return { year: Number(monthFirst[3]), month: monthOf(monthFirst[1] as string), day: Number(monthFirst[2]) };
  const parsed = Date.parse(text);
  if (Number.isNaN(parsed)) return undefined;
  const date = new Date(parsed);
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
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
