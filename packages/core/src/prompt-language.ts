import type { BaseMessage } from "@langchain/core/messages";
import { z } from "zod/v4";
import { envChoice } from "./env.js";
import { THREADWISE_ENV } from "./env-names.js";
import { messageType } from "./message-kinds.js";
import { contentText } from "./token-counter.js";
import { analysisText } from "./unicode.js";

/**
 * Languages of the text threadwise's middlewares write into a prompt (the block labels of
 * summarize, recall, factRecall, userMemory and workMemory, such as `[Previous conversation
 * summary]`, recall's and userMemory's line words, `user`/`assistant`/`fact`, and historyAware's
 * note): `en`, `ko`, or `auto`, decided per model call from the stored thread
 * ({@link conversationLanguage}), the same in every middleware.
 *
 * Two texts stay English on purpose. tokenCap's `[threadwise: truncated N tokens]` ends a
 * shortened tool result in the history, the part of the prompt a provider caches: under `auto` a
 * user who switches language would rewrite it in an older message and miss the cache, so it is one
 * text in every language (and tokenCap takes no `promptLanguage`). The stable_tail header
 * (`STABLE_TAIL_HEADER`, "[Context from memory, added by the application; ...]") is one line over
 * blocks of several middlewares, each with its own `promptLanguage`: no one language is the
 * header's, and it is recognised by its text when a request is read back (`tailContextOf`).
 */
export const PROMPT_LANGUAGES = ["auto", "en", "ko"] as const;

/** One of {@link PROMPT_LANGUAGES}. */
export type PromptLanguage = (typeof PROMPT_LANGUAGES)[number];

/** A language text is written in: what `auto` resolves to. */
export type TextLanguage = Exclude<PromptLanguage, "auto">;

/** The zod schema of every middleware's `promptLanguage` option (optional; env twin {@link PROMPT_LANGUAGE_ENV}). */
export const promptLanguageSchema = z.enum(PROMPT_LANGUAGES);

/**
 * The language when neither the option nor env sets one: `en`, the text every release so far has
 * sent, so prompts (and provider prompt caches) stay byte-identical until an application opts in
 * to `auto` or `ko`.
 */
export const DEFAULT_PROMPT_LANGUAGE: PromptLanguage = "en";

/** Env twin of the `promptLanguage` option: `THREADWISE_PROMPT_LANGUAGE` (`auto`, `en`, `ko`). */
export const PROMPT_LANGUAGE_ENV = THREADWISE_ENV.promptLanguage;

/**
 * Letters read, newest user message first, before {@link conversationLanguage} decides: enough
 * that a short `ok` or `thanks` in a Korean conversation does not switch it (and with it the
 * cached system prefix) to English.
 */
export const CONVERSATION_LANGUAGE_LETTERS = 40;

/** Share of Hangul syllables among the letters from which a text is Korean (as fact extraction reads a message). */
const HANGUL_SHARE = 0.3;

/**
 * The language of a text: `ko` when at least 30% of its letters are Hangul syllables, read on
 * core's `analysisText` (decomposed Hangul counts as the syllables it spells); else `en`.
 */
export function textLanguage(text: string): TextLanguage {
  return letterCounts(analysisText(text)).language;
}

/** {@link textLanguage} of a text already in core's `analysisText` form. */
export function analysedTextLanguage(analysed: string): TextLanguage {
  return letterCounts(analysed).language;
}

function letterCounts(analysed: string): { hangul: number; letters: number; language: TextLanguage } {
  const hangul = analysed.match(/[\uac00-\ud7a3]/g)?.length ?? 0;
  const letters = analysed.match(/\p{L}/gu)?.length ?? 0;
  return { hangul, letters, language: letters > 0 && hangul / letters >= HANGUL_SHARE ? "ko" : "en" };
}

/**
 * The language of a conversation: the user messages read newest first until
 * {@link CONVERSATION_LANGUAGE_LETTERS} letters are seen, `ko` when 30% of those letters are
 * Hangul syllables; `en` for a thread with no user text. Computed from the messages each call
 * (a few dozen letters: no memo that an array changed in place could leave stale).
 */
export function conversationLanguage(messages: readonly BaseMessage[]): TextLanguage {
  let hangul = 0;
  let letters = 0;
  for (let i = messages.length - 1; i >= 0 && letters < CONVERSATION_LANGUAGE_LETTERS; i--) {
    const message = messages[i];
    if (!message || messageType(message) !== "human") continue;
    const counts = letterCounts(analysisText(contentText(message.content)));
    hangul += counts.hangul;
    letters += counts.letters;
  }
  return letters > 0 && hangul / letters >= HANGUL_SHARE ? "ko" : "en";
}

/**
 * The `promptLanguage` a middleware uses: the option, else its env's `THREADWISE_PROMPT_LANGUAGE`,
 * else {@link DEFAULT_PROMPT_LANGUAGE} (`en`).
 * @throws ThreadwiseConfigError naming `THREADWISE_PROMPT_LANGUAGE` for a value not in {@link PROMPT_LANGUAGES}.
 */
export function resolvePromptLanguage(option: PromptLanguage | undefined, env: NodeJS.ProcessEnv = process.env): PromptLanguage {
  return option ?? envChoice(PROMPT_LANGUAGE_ENV, PROMPT_LANGUAGES, env) ?? DEFAULT_PROMPT_LANGUAGE;
}

/**
 * The language of one model call's added text: `language` itself, or for `auto` the conversation's.
 * `messages` is the stored thread (the request's `state.messages`) in every middleware, never the
 * view a middleware outside it sends, so all labels and notes of one call agree.
 */
export function promptLanguageFor(language: PromptLanguage, messages: readonly BaseMessage[]): TextLanguage {
  return language === "auto" ? conversationLanguage(messages) : language;
}

/**
 * The text a middleware writes into prompts in each language: `given` (an option such as `label`
 * or `note`, used whatever the language) in both, else `defaults`.
 */
export function promptTexts(
  given: string | undefined,
  defaults: Readonly<Record<TextLanguage, string>>,
): Readonly<Record<TextLanguage, string>> {
  return given === undefined ? defaults : { en: given, ko: given };
}
