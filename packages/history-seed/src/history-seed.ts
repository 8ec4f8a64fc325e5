import type { BaseMessage } from "@langchain/core/messages";
import { REMOVE_ALL_MESSAGES } from "@langchain/langgraph";
import {
  envOptionSchema,
  envPositiveInt,
  loggerOptionSchema,
  messageType,
  parseOptions,
  resolveLogger,
  THREADWISE_ENV,
  threadwiseMiddleware,
} from "@threadwise/core";
import { z } from "zod/v4";
import { parseSeedHistory, type SeedHistoryRules } from "./parse-seed-history.js";

/** Name of the middleware. */
export const HISTORY_SEED_MIDDLEWARE_NAME = "threadwise/history-seed";

/** Newest outside messages seeded when neither the option nor the env variable is set. */
export const DEFAULT_SEED_MAX_MESSAGES = 50;

/** Env variable read for `maxMessages` when the option is not given (spec R19). */
export const SEED_MAX_MESSAGES_ENV = THREADWISE_ENV.historySeedMaxMessages;

/** Key of the runtime context that carries the outside history: `agent.invoke(input, { context: { seedHistory } })`. */
export const SEED_HISTORY_CONTEXT_KEY = "seedHistory";

/** Prefix of the ids of seeded messages (`threadwiseMessageId("seed")`). */
export const SEED_MESSAGE_ID_PREFIX = "tw-seed-";

/** Options of {@link historySeed}. */
export const historySeedOptionsSchema = z.strictObject({
  /**
   * Newest valid outside messages seeded; older ones are left out. Unit: messages.
   * Env twin: `A2A_HISTORY_MAX_MESSAGES` (the option wins).
   * @default 50
   */
  maxMessages: z.number().int().positive().optional(),
  /**
   * Longest text part accepted, in characters as a user counts them (graphemes: an emoji sequence
   * or a Korean syllable is one, core's `countCharacters`); a longer part is dropped (or,
   * with `strict`, the history is rejected). Unit: characters.
   * @default 8000
   */
  maxPartCharacters: z.number().int().positive().default(8000),
  /**
   * Most items the history array may have; more is always rejected with a `too_many_items`
   * error, before any item is read. Raised to `maxMessages` when lower. Unit: items.
   * @default 1000
   */
  maxItems: z.number().int().positive().default(1000),
  /**
   * `true`: an unknown role, a non-text part, an oversized part or an empty item rejects the whole
   * history with a `HistorySeedError` instead of being dropped.
   * @default false
   */
  strict: z.boolean().default(false),
  /**
   * Where the `history_seed:` info lines go (seeded, ignored, dropped counts; never message text).
   * `false` for none.
   * @default the threadwise default logger (silent unless env `THREADWISE_LOG=info`)
   */
  logger: loggerOptionSchema,
  /**
   * Where the env twin (`A2A_HISTORY_MAX_MESSAGES`) and `THREADWISE_LOG` are read instead of `process.env`;
   * `memoryStack({ env })` passes its own. @default process.env
   */
  env: envOptionSchema,
});

/** Options of {@link historySeed}, as accepted (before defaults). */
export type HistorySeedOptions = z.input<typeof historySeedOptionsSchema>;

/**
 * Resolves the options of {@link historySeed}, env twin included.
 * @throws ThreadwiseConfigError naming the option (`historySeed.maxMessages`) or the variable
 *   (`A2A_HISTORY_MAX_MESSAGES`).
 */
export function resolveHistorySeedOptions(
  options: HistorySeedOptions = {},
  env: NodeJS.ProcessEnv = options?.env ?? process.env,
): SeedHistoryRules {
  const parsed = parseOptions("historySeed", historySeedOptionsSchema, options);
  const maxMessages = parsed.maxMessages ?? envPositiveInt(SEED_MAX_MESSAGES_ENV, env) ?? DEFAULT_SEED_MAX_MESSAGES;
  return {
    maxMessages,
    maxPartCharacters: parsed.maxPartCharacters,
    maxItems: Math.max(parsed.maxItems, maxMessages),
    strict: parsed.strict,
  };
}

/**
 * `true` when the thread holds nothing but the call's own input: no AI or tool message and no
 * seeded message. (A stored thread that only has user messages, from calls that failed before any
 * answer, counts as empty too: the seed then goes before all of them.)
 */
export function isUnseededEmptyThread(messages: readonly BaseMessage[]): boolean {
  return messages.every((m) => {
    const type = messageType(m);
    return (type === "human" || type === "system") && !(typeof m.id === "string" && m.id.startsWith(SEED_MESSAGE_ID_PREFIX));
  });
}

/**
 * A seeded message as a plain message-like object (`{ type, content, id }`). The `messages`
 * reducer turns it into the same `HumanMessage` / `AIMessage` (same id) in the stored thread, but
 * LangGraph's `streamMode: "messages"` emits only `BaseMessage` instances that a node returns, so
 * the seed (old history) and the remove-all marker are not streamed as if they were the agent's
 * new output. The thread's existing messages are returned as they are: they were the node's
 * input, which that stream mode never re-emits.
 */
function asMessageLike(message: BaseMessage): { type: string; content: BaseMessage["content"]; id: string | undefined } {
  return { type: messageType(message), content: message.content, id: message.id };
}

/**
 * Seeds an empty thread from outside history (spec R19), e.g. the A2A `metadata.history` a
 * workflow host sends with the first message of a new `contextId`.
 *
 * The history reaches the agent through the runtime context, never through state, so the raw
 * untrusted value is not checkpointed:
 * `agent.invoke({ messages: [userMessage] }, { configurable: { thread_id }, context: { seedHistory } })`.
 * In `beforeAgent`, when the thread is empty ({@link isUnseededEmptyThread}), the history is
 * validated by {@link parseSeedHistory} and its newest `maxMessages` text messages are written
 * into the thread before the new user message (`user` → `HumanMessage`, `agent` → `AIMessage`,
 * ids `tw-seed-…`, text only). On every later call the stored thread wins and `seedHistory` is
 * ignored without being read. Nothing from outside can become a system message, a tool call or a
 * tool result. The seeding turn streams only the agent's answer in `streamMode: "messages"`: the
 * seeded history is written to state without being emitted as new output.
 *
 * @throws ThreadwiseConfigError at construction when an option or `A2A_HISTORY_MAX_MESSAGES` is invalid.
 * @throws HistorySeedError from `invoke` when the history breaks a rejecting rule (see
 *   {@link parseSeedHistory}). No seed is written then; the call's own user message is already
 *   checkpointed by LangGraph before any hook runs, so the thread still counts as empty and a
 *   retry with valid history seeds before it.
 * @example
 * import { createAgent } from "langchain";
 * import { MemorySaver } from "@langchain/langgraph";
 * import { historySeed } from "@threadwise/history-seed";
 *
 * const agent = createAgent({ model: "openai:gpt-4o-mini", checkpointer: new MemorySaver(), middleware: [historySeed({ maxMessages: 50 })] });
 * await agent.invoke(
 *   { messages: [{ role: "user", content: "And the return flight?" }] },
 *   {
 *     configurable: { thread_id: "ctx-42" },
 *     context: { seedHistory: [{ role: "user", parts: [{ kind: "text", text: "Book Seoul to Busan on Friday" }] }] },
 *   },
 * );
 */
export function historySeed(options: HistorySeedOptions = {}) {
  const rules = resolveHistorySeedOptions(options);
  const logger = resolveLogger(options?.logger, options?.env);
  // A bulk import losing messages only at info level read as "everything imported" (newuser33).
  let warnedDrops = false;
  return threadwiseMiddleware({
    name: HISTORY_SEED_MIDDLEWARE_NAME,
    contextSchema: z.object({ [SEED_HISTORY_CONTEXT_KEY]: z.unknown().optional() }),
    beforeAgent: (state, runtime) => {
      const raw = (runtime.context as Record<string, unknown> | undefined)?.[SEED_HISTORY_CONTEXT_KEY];
      if (raw === undefined || raw === null) return undefined;
      const messages = state.messages as BaseMessage[];
      if (!isUnseededEmptyThread(messages)) {
        logger.info("history_seed: ignored reason=thread_not_empty");
        return undefined;
      }
      const { messages: seed, dropped } = parseSeedHistory(raw, rules);
      const line = `history_seed: seeded=${seed.length} dropped_role=${dropped.unknownRole} dropped_part=${dropped.nonTextPart} oversized=${dropped.oversizedPart} empty=${dropped.emptyMessage} truncated=${dropped.truncated}`;
      const lost = dropped.unknownRole + dropped.nonTextPart + dropped.oversizedPart + dropped.emptyMessage + dropped.truncated;
      if (lost > 0 && !warnedDrops) {
        warnedDrops = true;
        logger.warn(
          `${line}: ${lost} item(s) of the outside history were not seeded (raise historySeed.maxMessages, now ${rules.maxMessages}, for a longer import; historySeed.strict rejects instead of dropping) (warned once; later seeds log at info)`,
          { ...dropped, seeded: seed.length },
        );
      } else logger.info(line);
      if (seed.length === 0) return undefined;
      // Leading system messages of the input stay first; the seed goes before the user's messages.
      let head = 0;
      while (head < messages.length && messageType(messages[head] as BaseMessage) === "system") head += 1;
      return {
        messages: [
          { type: "remove", id: REMOVE_ALL_MESSAGES },
          ...messages.slice(0, head),
          ...seed.map(asMessageLike),
          ...messages.slice(head),
        ],
      } as never;
    },
  });
}
