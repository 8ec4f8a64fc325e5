/**
 * The committed LoCoMo slice (`examples/data/locomo/conv-26-slice.json`: six sessions of one real
 * two-person conversation, CC BY-NC 4.0, see its SOURCE.txt) as chat exchanges, and an offline
 * model that answers each user turn with the answer recorded for it. Nothing here ships in a package.
 */
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { isContextMessage, messageText, messageType, withoutTailContext } from "@threadwise/core";
import { scriptedModel } from "@threadwise/core/testing";

/** Path of the committed slice. */
export const LOCOMO_SLICE_PATH = resolve(dirname(fileURLToPath(import.meta.url)), "../data/locomo/conv-26-slice.json");

/** One exchange: the first speaker's merged turns as the user message, the second's as the answer. */
export interface Exchange {
  user: string;
  assistant: string;
  /** Session number (1-6) and its date line. */
  session: number;
  date: string;
}

/** One question about the conversation, with the turn ids that hold the answer. */
export interface SliceQuestion {
  question: string;
  answer: string;
  evidence: string[];
  category: number;
}

/** The slice as exchanges, the speakers' names and the questions. */
export interface ConversationSlice {
  user: string;
  assistant: string;
  exchanges: Exchange[];
  questions: SliceQuestion[];
}

interface RawTurn {
  speaker: string;
  text: string;
  blip_caption?: string;
}

/** Loads the slice; consecutive turns of one speaker are joined with a newline; image turns get their caption. */
export function loadConversationSlice(path = LOCOMO_SLICE_PATH): ConversationSlice {
  const [sample] = JSON.parse(readFileSync(path, "utf8")) as Array<{
    conversation: Record<string, unknown>;
    qa: Array<{ question: string; answer?: unknown; evidence: string[]; category: number }>;
  }>;
  if (!sample) throw new Error(`${path}: empty slice`);
  const conv = sample.conversation;
  const user = String(conv.speaker_a);
  const assistant = String(conv.speaker_b);
  const exchanges: Exchange[] = [];
  const sessions = Object.keys(conv)
    .filter((k) => /^session_\d+$/.test(k))
    .map((k) => Number(k.slice(8)))
    .sort((a, b) => a - b);
  for (const session of sessions) {
    const date = String(conv[`session_${session}_date_time`] ?? "");
    let current: Exchange | undefined;
    for (const turn of conv[`session_${session}`] as RawTurn[]) {
      const text = turn.blip_caption ? `${turn.text} [shares a photo: ${turn.blip_caption}]` : turn.text;
      if (turn.speaker === user) {
        if (current?.assistant !== "") {
          current = { user: "", assistant: "", session, date };
          exchanges.push(current);
        }
        current.user = current.user ? `${current.user}\n${text}` : text;
      } else if (current) {
        current.assistant = current.assistant ? `${current.assistant}\n${text}` : text;
      }
    }
  }
  return {
    user,
    assistant,
    exchanges: exchanges.filter((e) => e.assistant !== ""),
    questions: sample.qa.map((q) => ({ question: q.question, answer: String(q.answer ?? ""), evidence: q.evidence, category: q.category })),
  };
}

/**
 * The newest message the user wrote: context messages placed by threadwise are not the user's, and
 * neither is the memory block `promptContextMode: "stable_tail"` appends to the user's message.
 */
export function newestUserText(messages: readonly BaseMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const m = messages[i] as BaseMessage;
    if (messageType(m) === "human" && !isContextMessage(m)) return messageText(withoutTailContext(m));
  }
  return "";
}

/**
 * An offline chat model that answers each recorded user turn with the recorded answer (looked up by
 * the newest user message's text), and any other question with `fallback(messages)`. Its `.calls`
 * holds what every call received.
 */
export function replayConversation(exchanges: readonly Exchange[], fallback: (messages: BaseMessage[]) => string) {
  const answers = new Map(exchanges.map((e) => [e.user, e.assistant]));
  return scriptedModel((messages) => new AIMessage(answers.get(newestUserText(messages)) ?? fallback(messages)));
}
