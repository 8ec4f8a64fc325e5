import {
  type ArchivedMessagesReader,
  envPositiveInt,
  envTimerMs,
  loggerOptionSchema,
  parseOptions,
  promptContextModeSchema,
  timerMsSchema,
} from "@threadwise/core";
import { z } from "zod/v4";

/** Default window, in messages (spec R10). */
export const DEFAULT_WINDOW_SIZE = 20;
/** Default thread length, in messages, at which the first summary is made (spec R10). */
export const DEFAULT_THRESHOLD = 40;
/** Default bound on one summarizer call's input, in tokens (spec R11). */
export const DEFAULT_MAX_INPUT_TOKENS = 8000;
/** Default of `maxPassesPerCall`: summarizer calls one model call (or one background job) makes at most. */
export const DEFAULT_MAX_PASSES_PER_CALL = 3;
/** Default time one summarizer call may take, in milliseconds (spec R13). */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** Env twin of `windowSize`: the same variable windowTrim reads, so both see one window. */
export const WINDOW_SIZE_ENV = "MEMORY_WINDOW_SIZE";
/** Env twin of `threshold`. */
export const THRESHOLD_ENV = "MEMORY_SUMMARIZE_THRESHOLD";
/** Env twin of `maxInputTokens`. */
export const MAX_INPUT_TOKENS_ENV = "MEMORY_SUMMARIZE_MAX_INPUT_TOKENS";
/** Env twin of `maxPassesPerCall`. */
export const MAX_PASSES_ENV = "MEMORY_SUMMARIZE_MAX_PASSES";
/** Env twin of `timeoutMs`. */
export const TIMEOUT_MS_ENV = "MEMORY_SUMMARIZE_TIMEOUT_MS";

/** What `summarize` needs from a summarizer: a chat model or any runnable taking a message list. */
export interface SummarizerModel {
  invoke(input: unknown, options?: unknown): Promise<unknown>;
  withConfig?(config: Record<string, unknown>): SummarizerModel;
}

const isModel = (value: unknown): boolean =>
  typeof value === "object" && value !== null && typeof (value as { invoke?: unknown }).invoke === "function";

/** Options of {@link summarize}. Validated at construction; errors name the option (`summarize.threshold`). */
export const summarizeOptionsSchema = z.strictObject({
  /**
   * The model that writes the summary: a chat model, or any runnable whose `invoke` takes a message
   * list and returns a message or a string. Unset: the agent's own model (`request.model`).
   * @default the agent's model
   */
  model: z.custom<SummarizerModel>(isModel, { message: "expected a chat model or runnable with invoke()" }).optional(),
  /**
   * The window, in messages: the newest groups holding at most this many messages (the newest user
   * turn always stays). What leaves it is what gets summarized. Used when no window middleware
   * sits before summarize; with `[windowTrim(), summarize()]` windowTrim's window (and its
   * `maxMessages` as the size) is the one summarized. Env `MEMORY_WINDOW_SIZE`.
   * @default 20
   */
  windowSize: z.number().int().positive().default(DEFAULT_WINDOW_SIZE),
  /**
   * Thread length, in messages, at which the first summary is made. Afterwards a new summary is made
   * each time `threshold - windowSize` more messages have left the window; when
   * `threshold <= windowSize` that period is `windowSize`. Env `MEMORY_SUMMARIZE_THRESHOLD`.
   * @default 40
   */
  threshold: z.number().int().positive().default(DEFAULT_THRESHOLD),
  /**
   * Instructions sent as the summarizer's system message. The previous summary and the newly
   * evicted messages follow in one user message.
   * @default {@link DEFAULT_SUMMARY_PROMPT}
   */
  prompt: z.string().trim().min(1).optional(),
  /**
   * Most tokens one summarizer call may receive (instructions, previous summary and new messages,
   * counted with js-tiktoken `o200k_base`). More messages than fit are summarized in several calls
   * (passes), each folding its messages into the summary the previous one made (spec R39); only a
   * single message longer than a pass holds is shortened, with a marker. Env
   * `MEMORY_SUMMARIZE_MAX_INPUT_TOKENS`.
   * @default 8000
   */
  maxInputTokens: z.number().int().min(256).default(DEFAULT_MAX_INPUT_TOKENS),
  /**
   * Most summarizer calls (passes, see `maxInputTokens`) one model call makes, or one background
   * job, 1..100. A larger backlog (a thread imported with thousands of messages, a summarizer that
   * failed for a while) is caught up over the next model calls, this many passes each; until then
   * the view holds the window and the multiturn line counts the messages neither summarized yet nor
   * sent (`unsummarized_dropped`). Env `MEMORY_SUMMARIZE_MAX_PASSES`.
   * @default 3
   */
  maxPassesPerCall: z.number().int().min(1).max(100).default(DEFAULT_MAX_PASSES_PER_CALL),
  /**
   * Most time one summarizer call may take, in milliseconds, 1..2,147,483,647 (Node's timer limit;
   * a larger value would overflow and fire after 1 ms, so it is refused); after it the call is
   * aborted and the previous summary kept. Env `MEMORY_SUMMARIZE_TIMEOUT_MS`.
   * @default 60000
   */
  timeoutMs: timerMsSchema.default(DEFAULT_TIMEOUT_MS),
  /**
   * Where the summary goes (spec R8, R14). Unset: env `THREADWISE_PROMPT_CONTEXT_MODE`, else
   * `legacy_system`.
   */
  promptContextMode: promptContextModeSchema.optional(),
  /**
   * `"human"`: every view starts on a user message (spec R4, R33). Stack-wide: the first
   * view-shaping middleware that sets it sets it for all, and summarize's own window honours the
   * stack's rule either way. @default the stack's rule, else "human"
   */
  startOn: z.enum(["human", "any"]).optional(),
  /**
   * Set `true` when the agent has a `responseFormat`. A new summary normally rides on the model
   * call's `Command`, which a structured response cannot carry; with this set it is written from an
   * `afterModel` hook instead (one more graph node and checkpoint write per model call). Unset with
   * a structured response, the summary is not stored that turn (a warning is logged) and is made
   * again on a later model call that returns a plain message.
   * @default false
   */
  structuredResponse: z.boolean().default(false),
  /**
   * Prepare summaries off the user's path (spec R36): on a due call the model answers at once with
   * the current summary and a view of everything it does not cover, and the summarizer runs after
   * the answer; the next model call of the thread adopts the new summary and moves the window's
   * cut with it, in one step. A summary is due 2 messages earlier than without it (one exchange
   * ahead) and covers the same period, so no view holds more than `threshold` messages plus the
   * run in progress. Nothing is stored until it is adopted, so a crash or
   * another process only means the summary is prepared again. Without it, the summarizer runs
   * before the model call of a due turn and the user waits for it.
   * @default false
   */
  background: z.boolean().default(false),
  /**
   * Reads a thread's archived messages, oldest first (issue 27), e.g.
   * `(threadId) => checkpointer.archivedMessages(threadId)` with `@threadwise/memory`'s archive.
   * Read only when a summary must reach before the stored thread: made again from the start after
   * a covered message was edited (R37), or caught up from a boundary that is archived; then
   * summarize works on the archived messages followed by the stored ones, as on a thread that
   * never archived. @default undefined (the stored thread only)
   */
  archived: z
    .custom<ArchivedMessagesReader>((value) => typeof value === "function", {
      message: "expected a function (threadId) => Promise<BaseMessage[]>",
    })
    .optional(),
  /**
   * Where the R6 line and the failure warnings go; `false` for silence.
   * @default core's default logger (warnings to the console)
   */
  logger: loggerOptionSchema,
});

/** Options of {@link summarize}, as given. */
export type SummarizeOptions = z.input<typeof summarizeOptionsSchema>;
/** Options of {@link summarize}, with defaults applied. */
export type ResolvedSummarizeOptions = z.output<typeof summarizeOptionsSchema>;

/**
 * Validates options, filling unset ones from env twins, then defaults.
 * @throws ThreadwiseConfigError naming the option (`summarize.windowSize`) or the env variable.
 */
export function resolveSummarizeOptions(options: SummarizeOptions = {}, env: NodeJS.ProcessEnv = process.env): ResolvedSummarizeOptions {
  const fromEnv = {
    windowSize: envPositiveInt(WINDOW_SIZE_ENV, env),
    threshold: envPositiveInt(THRESHOLD_ENV, env),
    maxInputTokens: envPositiveInt(MAX_INPUT_TOKENS_ENV, env),
    maxPassesPerCall: envPositiveInt(MAX_PASSES_ENV, env),
    timeoutMs: envTimerMs(TIMEOUT_MS_ENV, env),
  };
  const given = Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined));
  const merged = { ...Object.fromEntries(Object.entries(fromEnv).filter(([, value]) => value !== undefined)), ...given };
  return parseOptions("summarize", summarizeOptionsSchema, merged);
}
