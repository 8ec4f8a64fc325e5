import type { BaseMessage } from "@langchain/core/messages";
import {
  type ArchivedMessagesReader,
  envOptionSchema,
  isUserMessage,
  loggerOptionSchema,
  messageType,
  parseOptions,
  promptLanguageFor,
  promptLanguageSchema,
  resolveLogger,
  resolvePromptLanguage,
  systemText,
  type TextLanguage,
  threadwiseMiddleware,
  viewSystemMessage,
  withArchived,
  withSystemSuffix,
} from "@threadwise/core";
import { z } from "zod/v4";

/** The note appended by default in English (spec R7): one short sentence. */
export const DEFAULT_HISTORY_NOTE =
  "This conversation continues from earlier turns: take the previous messages into account when you answer.";

/** The default note in each prompt language; `promptLanguage` (`en` by default, env `THREADWISE_PROMPT_LANGUAGE`) picks one. */
export const DEFAULT_HISTORY_NOTES: Readonly<Record<TextLanguage, string>> = {
  en: DEFAULT_HISTORY_NOTE,
  ko: "이 대화는 이전 턴에서 이어집니다. 답할 때 앞의 메시지를 고려하세요.",
};

/** Options of {@link historyAware}. */
export const historyAwareOptionsSchema = z.strictObject({
  /**
   * Text appended to the end of the system prompt from the second turn on, after a blank line.
   * Keep it short and constant: it becomes part of the cached system prefix.
   * Given, it is used whatever the conversation's language.
   * @default {@link DEFAULT_HISTORY_NOTES} in the prompt language
   */
  note: z.string().trim().min(1, "must be a non-empty string").optional(),
  /**
   * Language of the default note: `en`, `ko`, or `auto` (per model call, the language of the
   * newest user messages, core's `conversationLanguage`). Not read when `note` is given.
   * @default env `THREADWISE_PROMPT_LANGUAGE`, else `"en"`
   */
  promptLanguage: promptLanguageSchema.optional(),
  /**
   * Reads a thread's archived messages, oldest first (issue 27), e.g.
   * `(threadId) => checkpointer.archivedMessages(threadId)` with `@threadwise/memory`'s archive.
   * Read only when the stored thread alone holds no earlier answer (its earlier turns may all have
   * left it): the note is then decided on the archived messages followed by the stored ones, as on
   * a thread that never archived. @default undefined (the stored thread only)
   */
  archived: z
    .custom<ArchivedMessagesReader>((value) => typeof value === "function", {
      message: "expected a function (threadId) => Promise<BaseMessage[]>",
    })
    .optional(),
  /**
   * Where the `history_aware:` info line goes (one per model call that gets the note). `false`
   * for none.
   * @default the threadwise default logger (silent unless env `THREADWISE_LOG=info`)
   */
  logger: loggerOptionSchema,
  /** Where `THREADWISE_LOG` is read instead of `process.env`; `memoryStack({ env })` passes its own. @default process.env */
  env: envOptionSchema,
});

/** Options of {@link historyAware}, as accepted by the factory. */
export type HistoryAwareOptions = z.input<typeof historyAwareOptionsSchema>;

/**
 * `true` when the thread holds an AI message before its newest real user message, that is, an
 * answer from an earlier turn. AI messages of the run in progress (a tool loop after the newest
 * user message, its results ToolMessages or, in Anthropic's native format, user messages of only
 * `tool_result` blocks: core's `isUserMessage`) do not count, so the system prompt does not change
 * in the middle of turn 1.
 * The input is not mutated.
 */
export function hasEarlierTurn(messages: readonly BaseMessage[]): boolean {
  let newestUser = -1;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as BaseMessage;
    if (isUserMessage(message)) {
      newestUser = i;
      break;
    }
  }
  for (let i = 0; i < newestUser; i += 1) if (messageType(messages[i] as BaseMessage) === "ai") return true;
  return false;
}

/**
 * Tells the model that the conversation has history (spec R7): from the second turn, when the
 * agent has a non-empty system prompt and the stored thread holds an AI answer from an earlier
 * turn, `note` is appended to the end of the system prompt (after a blank line, before any
 * context block placed in `legacy_system` mode) through core's `withSystemSuffix`.
 *
 * - The note is constant, so in `stable_tail` mode the system prefix changes exactly once (turn 1
 *   to turn 2) and is byte-identical afterwards: provider prompt caches keep hitting (R8).
 * - A system prompt given as content blocks keeps every block as it was (`cache_control`
 *   markers included); the note is one text block more.
 * - No system prompt: nothing is added (the agent sends none, and the note alone is no prompt).
 * - Nothing is written into the stored thread; the request is a new object.
 *
 * Use it for conversational agents. Leave it out of classifiers, JSON-only and one-shot agents,
 * where an extra instruction only costs tokens.
 *
 * - The default note is in `promptLanguage` (`en` by default; `auto` takes the newest user
 *   messages' language, `ko` Korean); a `note` you give is used as it is.
 *
 * @param options `note` (text, non-empty), `promptLanguage`, `archived` (reader of archived messages), `logger`.
 * @returns A LangChain middleware named `threadwise/history-aware`.
 * @throws ThreadwiseConfigError when `note` is empty, `promptLanguage` (or env `THREADWISE_PROMPT_LANGUAGE`) is not `auto`, `en` or `ko`, or `logger` is not a logger.
 *
 * @example
 * ```ts
 * import { createAgent } from "langchain";
 * import { MemorySaver } from "@langchain/langgraph";
 * import { historyAware } from "@threadwise/history-aware";
 *
 * const agent = createAgent({
 *   model: "openai:gpt-4o-mini",
 *   systemPrompt: "You are a travel assistant.",
 *   checkpointer: new MemorySaver(),
 *   middleware: [historyAware()],
 * });
 * ```
 */
export function historyAware(options: HistoryAwareOptions = {}) {
  const parsed = parseOptions("historyAware", historyAwareOptionsSchema, options);
  const language = resolvePromptLanguage(parsed.promptLanguage, parsed.env);
  const logger = resolveLogger(parsed.logger, parsed.env);
  const archived = parsed.archived;
  /**
   * {@link hasEarlierTurn} of the whole thread: the stored messages, and when they hold no earlier
   * answer, the archived messages before them (a thread whose earlier turns were all archived, e.g.
   * during a long tool loop, was told it had none; the slow archive fuzz, seed 108 case 22).
   */
  const hasEarlierTurnIn = async (stored: readonly BaseMessage[], runtime: unknown): Promise<boolean> => {
    if (hasEarlierTurn(stored)) return true;
    const threadId = (runtime as { configurable?: { thread_id?: unknown } } | undefined)?.configurable?.thread_id;
    if (!archived || typeof threadId !== "string" || threadId === "") return false;
    return hasEarlierTurn(withArchived(await archived(threadId), stored));
  };
  return threadwiseMiddleware({
    name: "threadwise/history-aware",
    wrapModelCall: async (request, handler) => {
      const stored = (request.state?.messages as BaseMessage[] | undefined) ?? request.messages;
      if (systemText(viewSystemMessage(request)).trim() === "" || !(await hasEarlierTurnIn(stored, request.runtime)))
        return handler(request);
      const note = parsed.note ?? DEFAULT_HISTORY_NOTES[promptLanguageFor(language, stored)];
      logger.info(`history_aware: note_chars=${note.length}`, { note_chars: note.length });
      return handler(withSystemSuffix(request, note));
    },
  });
}
