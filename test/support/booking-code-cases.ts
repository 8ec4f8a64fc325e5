import { scriptedModel } from "@threadwise/core/testing";
import type { MemoryStackOptions } from "@threadwise/memory";

/**
 * A booking code said once, small talk after it, then a question for it, in English and Korean: the
 * turns the archive-off tests (newuser65, archiveoff65) replay to see whether recall still finds
 * what was archived.
 */
export const BOOKING_CODE_CASES = [
  {
    lang: "en",
    said: "My booking code is QX-4417.",
    filler: (i: number) => `Small talk ${i}: the weather is nice today.`,
    ask: "What was my booking code?",
  },
  {
    lang: "ko",
    said: "제 예약 번호는 QX-4417이에요.",
    filler: (i: number) => `${i}번째 잡담: 오늘 날씨가 좋네요.`,
    ask: "제 예약 번호가 뭐였죠?",
  },
] as const;

/** The window both archive-off tests run with (messages). */
const BOOKING_WINDOW = 4;

/**
 * The memoryStack options both archive-off tests open a SQLite file with: window
 * {@link BOOKING_WINDOW}, a summary due at twice that, a scripted summarizer, no logs, no env.
 */
export function bookingStackOptions(path: string, archive: boolean): MemoryStackOptions {
  return {
    backend: "sqlite",
    sqlitePath: path,
    archive,
    windowSize: BOOKING_WINDOW,
    summarizeThreshold: 2 * BOOKING_WINDOW,
    models: { summarize: scriptedModel(() => "s", { strict: false }) },
    logger: false,
    env: {},
  };
}
