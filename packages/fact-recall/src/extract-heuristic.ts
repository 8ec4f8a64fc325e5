import { analysedTextLanguage, analysisText, textLanguage } from "@threadwise/core";
import type { CandidateFact } from "./fact-store.js";
import { extractEnglish } from "./rules-english.js";
import { extractKorean } from "./rules-korean.js";

/** Languages the rules know. */
export type FactLanguage = "en" | "ko";

/** Options of {@link extractFactsHeuristic}. */
export interface HeuristicExtractOptions {
  /**
   * Language of the message; detected when unset: Korean when at least 30% of its letters are
   * Hangul syllables, else English.
   */
  language?: FactLanguage;
  /**
   * Read a leading `Name: ` as the speaker and store the facts under that name instead of `user`
   * (for replaying multi-party transcripts such as LoCoMo). @default false
   */
  speakerPrefix?: boolean;
}

/**
 * Detects the language of a message: Korean when at least 30% of its letters are Hangul
 * syllables, read on core's `analysisText` (decomposed Hangul counts as the syllables it spells).
 */
export function detectLanguage(text: string): FactLanguage {
  return textLanguage(text);
}

/** {@link detectLanguage} of a text already in core's `analysisText` form (core's, one copy with the prompt language's). */
const languageOf = analysedTextLanguage;

/**
 * What ends a clause in chat besides punctuation: emoji (`😊`, `👍🏻`, `❤️`), Hangul jamo runs
 * (`ㅋㅋ`, `ㅠㅠ`, `ㅎㅎ`) and a trailing `~`. The rules read each as a line break, so
 * `서른 살이에요 ㅋㅋ` and `I live in Busan 😊` state their facts as the same text without them do.
 */
const CHAT_MARKS = /(?:[\p{Extended_Pictographic}\p{Emoji_Modifier}\u3131-\u318E]|\u{FE0F}|\u{200D}|~+(?=\s|$))+/gu;

const SPEAKER = /^\s*([A-Z][\w.'-]*(?: [A-Z][\w.'-]*)?|[\uac00-\ud7a3]{1,8}):\s+/;

/**
 * Extracts durable facts from one user message with rules and no model (spec R15 `heuristic`).
 * Returns candidates in the order stated; an empty array when the message states no fact
 * (questions, hypotheticals, talk about other people). The rules read core's `analysisText` of the
 * message, so values come out composed and in plain digits (`２８살` gives `28`). Pure and synchronous.
 *
 * @example
 * extractFactsHeuristic("I moved to Busan last month.");
 * // [{ subject: "user", attribute: "residence", value: "Busan", text: "User moved to Busan and lives there", ... }]
 */
export function extractFactsHeuristic(message: string, options: HeuristicExtractOptions = {}): CandidateFact[] {
  // The rules read one form of the text however the client encoded it (NFD Hangul, full-width
  // digits, zero-width spaces), and chat marks as line breaks.
  const text = analysisText(message).replace(CHAT_MARKS, "\n");
  let body = text;
  let speaker: string | undefined;
  if (options.speakerPrefix) {
    const m = SPEAKER.exec(text);
    if (m) {
      speaker = m[1] as string;
      body = text.slice(m[0].length);
    }
  }
  const language = options.language ?? languageOf(body);
  if (language === "ko") return extractKorean(body, { id: speaker ?? "user", label: speaker ?? "사용자" });
  return extractEnglish(body, { id: speaker ?? "user", label: speaker ?? "User" });
}
