import type { BaseLanguageModelInterface } from "@langchain/core/language_models/base";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { type InternalCallId, internalAnswerText, internalCallConfig, invokeInternal } from "@threadwise/core";

/** Who the condensation call is: its run name is `threadwise/work-memory:condense` (core's `internalCallName`). */
export const CONDENSE_CALL: InternalCallId = { middleware: "work-memory", purpose: "condense" };

/** Tags of the internal condensation call: hidden from `streamMode: "messages"`, visible in traces (R13, R18). */
export const INTERNAL_CALL_TAGS: readonly string[] = internalCallConfig(CONDENSE_CALL).tags;

/** Answer the condensation prompt asks for when nothing is worth keeping; stored as nothing. */
export const NOTHING_TO_KEEP = "NONE";

/**
 * The default instruction of the condensation call. `{maxCharacters}` is replaced by the limit.
 */
export const DEFAULT_CONDENSE_PROMPT = [
  "You keep the work memory of an assistant. Condense the assistant response below into one short note",
  "that someone continuing the task needs: results, decisions, names, numbers, dates, file and artifact references.",
  "Leave out greetings, filler and anything the user still has to answer.",
  "Write plain text in the language of the response, at most {maxCharacters} characters, with no preamble.",
  `If nothing is worth keeping, answer exactly ${NOTHING_TO_KEEP}.`,
].join(" ");

/** Options of {@link condenseResponse}. */
export interface CondenseOptions {
  /** Chat model to call (the option's, or the agent's). */
  model: BaseLanguageModelInterface;
  /** The instruction; `{maxCharacters}` is filled in. */
  prompt: string;
  /** Limit given to the model in the prompt. Unit: characters. */
  maxCharacters: number;
  /** Time allowed for the call, in milliseconds. */
  timeoutMs: number;
  /** The run's abort signal, so a cancelled run also cancels the call. */
  signal?: AbortSignal;
}

/**
 * Condenses a projected response with one internal model call (spec R18). Returns the trimmed
 * note, well-formed (a lone UTF-16 surrogate as U+FFFD: core's `wellFormed`), or `""` when the
 * model answers with nothing or {@link NOTHING_TO_KEEP}.
 *
 * @throws whatever the model throws; core's `ThreadwiseTimeoutError` when `timeoutMs` passes first.
 */
export async function condenseResponse(projection: string, options: CondenseOptions): Promise<string> {
  const instruction = options.prompt.replaceAll("{maxCharacters}", String(options.maxCharacters));
  const answer = await invokeInternal(options.model, [new SystemMessage(instruction), new HumanMessage(projection)], {
    ...CONDENSE_CALL,
    timeoutMs: options.timeoutMs,
    signal: options.signal,
  });
  // Without `<think>` reasoning, well-formed (a lone surrogate is refused by Anthropic and Gemini in every later request).
  const text = internalAnswerText(answer);
  return text.replace(/[.\s]+$/, "").toUpperCase() === NOTHING_TO_KEEP ? "" : text;
}
