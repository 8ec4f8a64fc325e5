import { SimpleChatModel } from "@langchain/core/language_models/chat_models";
import type { BaseMessage } from "@langchain/core/messages";
import {
  analysisText,
  countCharacters,
  messageText,
  messageType,
  parseOptions,
  sentenceSegments,
  tokenize,
  truncateCharacters,
} from "@threadwise/core";
import { z } from "zod/v4";
import { isContentNote } from "./summarizer-input.js";

/** First line of every summary the extractive summarizer writes, so nobody takes it for a model's. */
export const EXTRACTIVE_SUMMARY_LABEL = "(offline extractive summary: sentences picked from the conversation, not written by a model)";

/** {@link ExtractiveSummarizerOptions} as a strict schema: unknown keys are refused by name. */
export const extractiveSummarizerOptionsSchema = z.strictObject({
  maxSentences: z.number().int().positive().optional(),
  maxCharacters: z.number().int().positive().optional(),
});

/** Options of {@link extractiveSummarizer}. */
export interface ExtractiveSummarizerOptions {
  /** Most sentences in a summary. @default 8 */
  maxSentences?: number;
  /** Most characters in a summary, label and `- ` bullets excluded (core's `countCharacters`: graphemes). @default 1200 */
  maxCharacters?: number;
}

/** Longest sentence quoted whole; a longer one is cut to this many characters, ending in `…`. */
const MAX_SENTENCE_CHARACTERS = 300;

interface Candidate {
  text: string;
  order: number;
  terms: string[];
}

function section(text: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`).exec(text);
  return m ? m[1] : undefined;
}

/**
 * Splits the input into candidate sentences, each keeping its speaker prefix (`User:`). Reads
 * core's `analysisText` of the input, so a thread sent as decomposed Hangul, full-width digits or
 * with zero-width spaces gets the summary of the same thread in plain composed text.
 */
function candidatesOf(raw: string): Candidate[] {
  const input = analysisText(raw);
  const previous = section(input, "previous_summary");
  const fresh = section(input, "new_messages") ?? (previous === undefined ? input : "");
  const lines: string[] = [];
  for (const line of (previous ?? "").split("\n")) {
    const t = line.replace(/^- /, "").trim();
    if (t !== "" && t !== EXTRACTIVE_SUMMARY_LABEL) lines.push(t);
  }
  for (const line of fresh.split("\n")) {
    const m = /^(User|Assistant|Tool [^:]*|System):\s*(.*)$/.exec(line.trim());
    const speaker = m ? `${m[1]}: ` : "";
    const body = m ? (m[2] as string) : line.trim();
    // A note for a message without text (`User: (image)`) says nothing worth quoting.
    if (m && isContentNote(body.trim())) continue;
    for (const s of sentenceSegments(body)) {
      const t = s.trim();
      if (t !== "") lines.push(`${speaker}${t}`);
    }
  }
  // A sentence said again word for word (an assistant's "네, 알겠어요." / "Okay, noted." after
  // every user message) is one candidate, counted once: counted each time, its few terms outweighed
  // every sentence that says something, and the acknowledgement became the summary's first pick.
  const unique = [...new Set(lines)];
  // Core's age term (`concept:age`, added for recall: `세 살` meets `나이`) repeats what a sentence's
  // `살`/`나이` already count: left out, so an age does not weigh its sentence twice here.
  return unique.map((text, order) => ({ text, order, terms: tokenize(text).filter((term) => term !== "concept:age") }));
}

/**
 * Terms come from core's `tokenize` (stop words of both languages dropped, English stemmed, Korean
 * particles stripped, long Korean stems also as syllable bigrams).
 *
 * Picks sentences in the manner of SumBasic (Nenkova and Vanderwende, 2005): a term's weight is its
 * share of all terms in the input, each distinct sentence counted once (a repeated acknowledgement
 * is not what the conversation is about); a sentence scores the summed weight of its distinct terms divided
 * by the square root of their number (SumBasic's plain mean favours two-word sentences); the best
 * sentence is taken, then the weights of its terms are squared, so the next pick favours what is
 * not said yet (a conversation full of "[shares a photo ...]" does not become a list of photos). Picks stop
 * at `maxSentences` or `maxCharacters`; the picked sentences are output in their original order.
 * Deterministic; ties go to the earlier sentence.
 */
export function extractiveSummary(input: string, options: ExtractiveSummarizerOptions = {}): string {
  const maxSentences = options.maxSentences ?? 8;
  const maxCharacters = options.maxCharacters ?? 1200;
  const candidates = candidatesOf(input).filter((c) => c.terms.length > 0);
  if (candidates.length === 0) return "";
  const weight = new Map<string, number>();
  let total = 0;
  for (const c of candidates)
    for (const term of c.terms) {
      weight.set(term, (weight.get(term) ?? 0) + 1);
      total += 1;
    }
  for (const [term, count] of weight) weight.set(term, count / total);
  const distinct = candidates.map((c) => [...new Set(c.terms)]);
  const score = (i: number) => {
    const terms = distinct[i] as string[];
    return terms.reduce((sum, term) => sum + (weight.get(term) ?? 0), 0) / Math.sqrt(terms.length);
  };
  const picked: Candidate[] = [];
  const used = new Set<number>();
  let characters = 0;
  while (picked.length < maxSentences && used.size < candidates.length) {
    let best = -1;
    for (let i = 0; i < candidates.length; i += 1) if (!used.has(i) && (best === -1 || score(i) > score(best))) best = i;
    used.add(best);
    const c = candidates[best] as Candidate;
    // One rambling sentence must not fill the summary: at most 300 characters of it.
    const text = truncateCharacters(c.text, MAX_SENTENCE_CHARACTERS);
    const length = countCharacters(text);
    if (characters + length > maxCharacters) continue;
    characters += length;
    picked.push({ ...c, text });
    for (const term of distinct[best] as string[]) weight.set(term, (weight.get(term) ?? 0) ** 2);
  }
  picked.sort((a, b) => a.order - b.order);
  return [EXTRACTIVE_SUMMARY_LABEL, ...picked.map((c) => `- ${c.text}`)].join("\n");
}

/**
 * A deterministic, offline summarizer for demos, tests and benchmarks when no LLM is reachable.
 * It is a chat model (`SimpleChatModel`), so it plugs into `summarize({ model })`; its answer is
 * labelled {@link EXTRACTIVE_SUMMARY_LABEL}. It extracts, it does not write: sentences come from the
 * previous summary and the new messages, picked by SumBasic ({@link extractiveSummary}).
 * Sentence and word boundaries come from ICU (`Intl.Segmenter`), so Korean works as well as English.
 */
export class ExtractiveSummarizer extends SimpleChatModel {
  readonly maxSentences: number;
  readonly maxCharacters: number;

  constructor(options: ExtractiveSummarizerOptions = {}) {
    super({});
    const parsed = parseOptions("extractiveSummarizer", extractiveSummarizerOptionsSchema, options);
    this.maxSentences = parsed.maxSentences ?? 8;
    this.maxCharacters = parsed.maxCharacters ?? 1200;
  }

  _llmType(): string {
    return "threadwise-extractive";
  }

  async _call(messages: BaseMessage[]): Promise<string> {
    const input = messages
      .filter((m) => messageType(m) !== "system")
      .map(messageText)
      .join("\n");
    return extractiveSummary(input, { maxSentences: this.maxSentences, maxCharacters: this.maxCharacters });
  }
}

/**
 * Creates an {@link ExtractiveSummarizer}.
 *
 * @example
 * const agent = createAgent({ model, middleware: [summarize({ model: extractiveSummarizer() })] });
 */
export function extractiveSummarizer(options: ExtractiveSummarizerOptions = {}): ExtractiveSummarizer {
  return new ExtractiveSummarizer(options);
}
