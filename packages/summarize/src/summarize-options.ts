import {
  type ArchiveClearedDigestsReader,
  type ArchivedMessagesReader,
  chatModelOptionSchema,
  envCountOrOff,
  envOptionSchema,
  envPositiveInt,
  envString,
  envTimerMs,
  envWholeNumber,
  loggerOptionSchema,
  optionsObject,
  type PromptContextMode,
  type PromptLanguage,
  parseOptions,
  promptContextModeSchema,
  promptLanguageSchema,
  resolvePromptLanguage,
  statedPromptContextMode,
  THREADWISE_ENV,
  ThreadwiseConfigError,
  timerMsSchema,
} from "@threadwise/core";
import { z } from "zod/v4";
import { type SummaryKeep, type SummaryTrigger, summaryKeepSchema, summaryTriggerOptionSchema } from "./summary-trigger.js";

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
export const WINDOW_SIZE_ENV = THREADWISE_ENV.windowSize;
/** Env twin of `threshold`. */
export const THRESHOLD_ENV = THREADWISE_ENV.summarizeThreshold;
/** Env twin of `maxInputTokens`. */
export const MAX_INPUT_TOKENS_ENV = THREADWISE_ENV.summarizeMaxInputTokens;
/** Env twin of `maxPassesPerCall`. */
export const MAX_PASSES_ENV = THREADWISE_ENV.summarizeMaxPasses;
/** Env twin of `timeoutMs`. */
export const TIMEOUT_MS_ENV = THREADWISE_ENV.summarizeTimeoutMs;
/**
 * Env twins of `trigger`: the variables set form one condition (all must be reached), as
 * `trigger: { tokens, messages, fraction }` would.
 */
export const TRIGGER_ENV = {
  tokens: THREADWISE_ENV.summarizeTriggerTokens,
  messages: THREADWISE_ENV.summarizeTriggerMessages,
  fraction: THREADWISE_ENV.summarizeTriggerFraction,
} as const;
/** Env twins of `keep`: at most one may be set. */
export const KEEP_ENV = {
  tokens: THREADWISE_ENV.summarizeKeepTokens,
  messages: THREADWISE_ENV.summarizeKeepMessages,
  fraction: THREADWISE_ENV.summarizeKeepFraction,
} as const;
/** Env twin of `modelMaxInputTokens`. */
export const MODEL_MAX_INPUT_TOKENS_ENV = THREADWISE_ENV.summarizeModelMaxInputTokens;

/** What `summarize` needs from a summarizer: a chat model or any runnable taking a message list. */
export interface SummarizerModel {
  invoke(input: unknown, options?: unknown): Promise<unknown>;
  withConfig?(config: Record<string, unknown>): SummarizerModel;
}

/** Options of {@link summarize}. Validated at construction; errors name the option (`summarize.threshold`). */
export const summarizeOptionsSchema = z.strictObject({
  /**
   * The model that writes the summary: a chat model, or any runnable whose `invoke` takes a message
   * list and returns a message or a string, or a model named as `createAgent` takes one
   * (`"openai:gpt-4o-mini"`: LangChain's `initChatModel`, at the first model call; the provider's
   * package must be installed, else that call throws `ThreadwiseConfigError` naming
   * `summarize.model`). Unset: the agent's own model (`request.model`).
   * @default the agent's model
   */
  model: chatModelOptionSchema<SummarizerModel>('expected a chat model or runnable with invoke(), or a "provider:model" string').optional(),
  /**
   * The window, in messages: the newest groups holding at most this many messages (the newest user
   * turn always stays). What leaves it is what gets summarized. Used when no window middleware
   * sits before summarize; with `[windowTrim(), summarize()]` windowTrim's window (and its
   * `maxMessages` as the size) is the one summarized. Env `MEMORY_WINDOW_SIZE` (`0`, memoryStack's "no window", reads as unset).
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
   * When a summary is made, in the shape of LangChain's `summarizationMiddleware` `trigger`: one
   * condition `{ tokens?, messages?, fraction? }` whose given fields must all be reached, or an
   * array of conditions of which any one suffices. Measured over what the summary does not cover
   * yet (its window included, the summary itself not): `messages` non-system messages, `tokens`
   * their tokens (core's counter, `o200k_base`), `fraction` a share of the agent
   * model's context window in tokens (`floor(maxInputTokens * fraction)`, see
   * `modelMaxInputTokens`). After the first summary the same rule holds for what left the window
   * since: a new summary once `condition - window` more has left it (the window's size in the same
   * unit; when the condition is not above the window, once a whole window's worth has).
   * `threshold: 40` is `trigger: { messages: 40 }`; give one of them, not both. Env twins
   * `MEMORY_SUMMARIZE_TRIGGER_TOKENS`, `_MESSAGES`, `_FRACTION` (one condition of the variables
   * set); `trigger` and its env twins take the place of `threshold` and its env twin.
   * @default { messages: 40 } (from `threshold`)
   */
  trigger: summaryTriggerOptionSchema.optional(),
  /**
   * What stays out of the summary (the window summarize keeps when no window middleware sits
   * before it), in the shape of LangChain's `summarizationMiddleware` `keep`: exactly one of
   * `{ messages }`, `{ tokens }` or `{ fraction }` (of the agent model's context window, in
   * tokens), as the newest whole groups within that size; the newest user turn always stays.
   * `windowSize: 20` is `keep: { messages: 20 }`; give one of them, not both. With
   * `[windowTrim(), summarize()]` windowTrim's window is kept and `keep` is not used. Env twins
   * `MEMORY_SUMMARIZE_KEEP_TOKENS`, `_MESSAGES`, `_FRACTION` (at most one), which take the place of
   * `windowSize` and `MEMORY_WINDOW_SIZE`.
   * @default { messages: 20 } (from `windowSize`)
   */
  keep: summaryKeepSchema.optional(),
  /**
   * The agent model's context window, in tokens, for `fraction` in `trigger` or `keep`. Unset: the
   * model's LangChain profile (`request.model.profile.maxInputTokens`, what `summarizationMiddleware`
   * reads); when set, it is used instead of the profile. With neither, a model call with a
   * `fraction` throws `ThreadwiseConfigError` naming `summarize.trigger` (or `summarize.keep`): there
   * is no silent default. Read for `fraction` only: given here while neither `trigger` nor `keep`
   * has a fraction (and neither comes from env), it is refused with `ThreadwiseConfigError` naming
   * `summarize.modelMaxInputTokens` at construction. Env `MEMORY_SUMMARIZE_MODEL_MAX_INPUT_TOKENS`
   * (read, or not, without a word: one environment serves several stacks).
   * @default the model's profile
   */
  modelMaxInputTokens: z.number().int().positive().optional(),
  /**
   * Instructions sent as the summarizer's system message. The previous summary and the newly
   * evicted messages follow in one user message.
   * @default {@link DEFAULT_SUMMARY_PROMPT}
   */
  prompt: z.string().trim().min(1).optional(),
  /**
   * Most tokens one summarizer call may receive (instructions, previous summary and new messages,
   * counted with core's counter, `o200k_base`). More messages than fit are summarized in several calls
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
   * sent (`unsummarized_dropped`), and `logger` gets a warning with that count on each such call. Env `MEMORY_SUMMARIZE_MAX_PASSES`.
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
   * Language of the summary block's label (`[Previous conversation summary]`, `[이전 대화 요약]`):
   * `en`, `ko`, or `auto` (per model call, the language of the newest user messages, core's
   * `conversationLanguage`). The summary itself is written by the summarizer in the
   * conversation's language. @default env `THREADWISE_PROMPT_LANGUAGE`, else `"en"`
   */
  promptLanguage: promptLanguageSchema.optional(),
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
   * Whether summarize declares the thread's summary slot (`_threadwise_summary`) as its own state
   * schema. LangChain parses the declared schema of a middleware with `wrapModelCall` at every
   * model call (a new zod object each time, about 0.2 ms of CPU); `false` leaves the declaration
   * to core's `summarySlotMiddleware()`, which has no hook, placed anywhere in the same
   * `middleware` list, and summarize reads the slot from the model node's input (`memoryStack`
   * does this). With `false` and no middleware declaring the slot, a model call throws
   * `ThreadwiseConfigError` naming `summarize.declareState` (a summary could not be stored).
   * @default true
   */
  declareState: z.boolean().default(true),
  /**
   * Reads a thread's archived messages, oldest first (issue 27), e.g.
   * `(threadId, options) => checkpointer.archivedMessages(threadId, options)` with
   * `@threadwise/memory`'s archive. The newest archived message (`options.last: 1`) is read at each
   * due call, for the coverage check (archived messages never change, so it stands for all of
   * them); all of them only when a summary must reach before the stored thread: made again from
   * the start after a covered message was edited (R37), or caught up from a boundary that is not
   * stored (archived, or removed: then the whole thread is uncovered, as without the archive);
   * then summarize works on the archived messages followed by the stored ones, as on a thread that
   * never archived. @default undefined (the stored thread only)
   */
  archived: z
    .custom<ArchivedMessagesReader>((value) => typeof value === "function", {
      message: "expected a function (threadId) => Promise<BaseMessage[]>",
    })
    .optional(),
  /**
   * Reads the digests of the messages a thread's archive held when its latest rewrite emptied it
   * (issue 27, R37), oldest first, 8 characters each (`coveredDigestOf`), or
   * `undefined` when no rewrite emptied it; e.g. `(threadId) =>
   * checkpointer.archiveClearedDigests(threadId)` with `@threadwise/memory`'s archive. Read only on
   * a due call whose covered stored messages reach before the summary's digests (a rewrite brought
   * archived covered messages back into the checkpoint): with it the summary is kept when they are
   * unchanged, as on a thread that never archived; without it the summary is made again.
   * Refused without `archived`.
   * @default undefined
   */
  archiveCleared: z
    .custom<ArchiveClearedDigestsReader>((value) => typeof value === "function", {
      message: "expected a function (threadId) => Promise<string | undefined>",
    })
    .optional(),
  /**
   * Where the R6 line and the failure warnings go; `false` for silence.
   * @default core's default logger (warnings to the console)
   */
  logger: loggerOptionSchema,
  /**
   * Where the env twins (`MEMORY_SUMMARIZE_*`, `MEMORY_WINDOW_SIZE`), `THREADWISE_PROMPT_CONTEXT_MODE`
   * and `THREADWISE_LOG` are read instead of `process.env`; `memoryStack({ env })` passes its own.
   * @default process.env
   */
  env: envOptionSchema,
});

/** Options of {@link summarize}, as given. */
export type SummarizeOptions = z.input<typeof summarizeOptionsSchema>;
/**
 * Options of {@link summarize}, with defaults applied: `trigger` as a list of conditions (any one
 * suffices) and `keep` always set (from `threshold` and `windowSize` when not given).
 */
export type ResolvedSummarizeOptions = Omit<
  z.output<typeof summarizeOptionsSchema>,
  "trigger" | "keep" | "promptContextMode" | "promptLanguage"
> & {
  /** The label's language: the option, else env `THREADWISE_PROMPT_LANGUAGE`, else `en`. */
  promptLanguage: PromptLanguage;
  /** The option; with an `env` given, else its `THREADWISE_PROMPT_CONTEXT_MODE`; else decided per call. */
  promptContextMode: PromptContextMode | undefined;
  trigger: SummaryTrigger[];
  keep: SummaryKeep;
};

/** A number in `(min, 1]` (or `[min, 1]` with `inclusive`) from env `name`; `undefined` when unset or empty. */
function envFraction(name: string, env: NodeJS.ProcessEnv, inclusive: boolean): number | undefined {
  const value = envString(name, env);
  if (value === undefined) return undefined;
  const raw = env[name];
  const number = Number(value);
  if (!/^(0|1|0?\.[0-9]+|1\.0*)$/.test(value) || !(inclusive ? number >= 0 : number > 0) || number > 1)
    throw new ThreadwiseConfigError(
      name,
      `expected a decimal number ${inclusive ? "from 0" : "above 0"} to 1 (e.g. 0.8), got ${JSON.stringify(raw)}`,
    );
  return number;
}

function defined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * The `trigger` the `MEMORY_SUMMARIZE_TRIGGER_*` variables set describe (one condition: every
 * variable set must be reached), or `undefined` when none is set. `memoryStack` reads them here too.
 * @throws ThreadwiseConfigError naming the variable when a value is malformed.
 */
export function summarizeTriggerFromEnv(env: NodeJS.ProcessEnv = process.env): SummaryTrigger | undefined {
  const trigger = defined({
    tokens: envPositiveInt(TRIGGER_ENV.tokens, env),
    messages: envPositiveInt(TRIGGER_ENV.messages, env),
    fraction: envFraction(TRIGGER_ENV.fraction, env, false),
  });
  return Object.keys(trigger).length > 0 ? (trigger as SummaryTrigger) : undefined;
}

/**
 * The `keep` the `MEMORY_SUMMARIZE_KEEP_*` variable set describes, or `undefined` when none is set.
 * @throws ThreadwiseConfigError naming the variables when more than one is set, or the variable
 *   when its value is malformed.
 */
export function summarizeKeepFromEnv(env: NodeJS.ProcessEnv = process.env): SummaryKeep | undefined {
  const keep = defined({
    tokens: envWholeNumber(KEEP_ENV.tokens, env),
    messages: envWholeNumber(KEEP_ENV.messages, env),
    fraction: envFraction(KEEP_ENV.fraction, env, true),
  });
  if (Object.keys(keep).length > 1)
    throw new ThreadwiseConfigError(Object.values(KEEP_ENV).join(", "), `set at most one, got ${Object.keys(keep).join(" and ")}`);
  return Object.keys(keep).length > 0 ? (keep as SummaryKeep) : undefined;
}

/**
 * Validates options, filling unset ones from env twins, then defaults.
 * @throws ThreadwiseConfigError naming the option (`summarize.windowSize`) or the env variable.
 */
export function resolveSummarizeOptions(
  options: SummarizeOptions = {},
  env: NodeJS.ProcessEnv = options?.env ?? process.env,
): ResolvedSummarizeOptions {
  const fromEnv = {
    modelMaxInputTokens: envPositiveInt(MODEL_MAX_INPUT_TOKENS_ENV, env),
    // `0` is memoryStack's "no window" (no windowTrim): summarize then keeps its own default window.
    windowSize: envCountOrOff(WINDOW_SIZE_ENV, env, { unit: "messages", off: "no window" }) || undefined,
    threshold: envPositiveInt(THRESHOLD_ENV, env),
    maxInputTokens: envPositiveInt(MAX_INPUT_TOKENS_ENV, env),
    maxPassesPerCall: envPositiveInt(MAX_PASSES_ENV, env),
    timeoutMs: envTimerMs(TIMEOUT_MS_ENV, env),
  };
  const given = defined(optionsObject<SummarizeOptions>("summarize", options));
  if (given.trigger !== undefined && given.threshold !== undefined)
    throw new ThreadwiseConfigError(
      "summarize.trigger",
      `give \`trigger\` or \`threshold\`, not both (threshold: ${given.threshold} is trigger: { messages: ${given.threshold} })`,
    );
  if (given.keep !== undefined && given.windowSize !== undefined)
    throw new ThreadwiseConfigError(
      "summarize.keep",
      `give \`keep\` or \`windowSize\`, not both (windowSize: ${given.windowSize} is keep: { messages: ${given.windowSize} })`,
    );
  const triggerEnv = summarizeTriggerFromEnv(env);
  const keepEnv = summarizeKeepFromEnv(env);
  const merged: Record<string, unknown> = { ...defined(fromEnv), ...given };
  // `trigger` (option, else env) takes the place of `threshold`; `keep` that of `windowSize`.
  if (given.trigger === undefined && given.threshold === undefined && triggerEnv !== undefined) merged.trigger = triggerEnv;
  if (merged.trigger !== undefined) delete merged.threshold;
  if (given.keep === undefined && given.windowSize === undefined && keepEnv !== undefined) merged.keep = keepEnv;
  if (merged.keep !== undefined) delete merged.windowSize;
  // A value read from env that the schema refuses (MEMORY_SUMMARIZE_MAX_INPUT_TOKENS=100) names the variable.
  const variables: Record<string, string> = {
    modelMaxInputTokens: MODEL_MAX_INPUT_TOKENS_ENV,
    windowSize: WINDOW_SIZE_ENV,
    threshold: THRESHOLD_ENV,
    maxInputTokens: MAX_INPUT_TOKENS_ENV,
    maxPassesPerCall: MAX_PASSES_ENV,
    timeoutMs: TIMEOUT_MS_ENV,
    trigger: Object.values(TRIGGER_ENV).join(", "),
    keep: Object.values(KEEP_ENV).join(", "),
  };
  const fromEnvNames = Object.fromEntries(
    Object.entries(variables).filter(([field]) => merged[field] !== undefined && (given as Record<string, unknown>)[field] === undefined),
  );
  const parsed = parseOptions("summarize", summarizeOptionsSchema, merged, fromEnvNames);
  if (parsed.archiveCleared !== undefined && parsed.archived === undefined)
    throw new ThreadwiseConfigError(
      "summarize.archiveCleared",
      "applies only with archived (got none: summarize reads no archive, so what a rewrite cleared from it is never asked): remove it or give archived",
    );
  const trigger =
    parsed.trigger === undefined ? [{ messages: parsed.threshold }] : Array.isArray(parsed.trigger) ? parsed.trigger : [parsed.trigger];
  const keep = parsed.keep ?? { messages: parsed.windowSize };
  // The context window is read for a `fraction` only. One given in code with no fraction is
  // ignored: refused, unless env set the trigger or keep (the deployment's choice, as memoryStack
  // leaves a switch set in env alone); env's own MEMORY_SUMMARIZE_MODEL_MAX_INPUT_TOKENS too.
  const fractions = trigger.some((condition) => condition.fraction !== undefined) || (keep as { fraction?: number }).fraction !== undefined;
  const envShaped = (given.trigger === undefined && triggerEnv !== undefined) || (given.keep === undefined && keepEnv !== undefined);
  if (given.modelMaxInputTokens !== undefined && !fractions && !envShaped)
    throw new ThreadwiseConfigError(
      "summarize.modelMaxInputTokens",
      `applies only with a fraction in trigger or keep (got trigger ${JSON.stringify(parsed.trigger ?? { messages: parsed.threshold })} and keep ${JSON.stringify(keep)}, which count tokens or messages and ignore it): remove it or give a fraction, e.g. trigger: { fraction: 0.8 }`,
    );
  const promptContextMode = statedPromptContextMode(parsed.promptContextMode, parsed.env);
  const promptLanguage = resolvePromptLanguage(parsed.promptLanguage, parsed.env);
  return { ...parsed, trigger, keep, promptContextMode, promptLanguage };
}
