import type { BaseMessage } from "@langchain/core/messages";
import {
  type ArchivedMessagesReader,
  archivedWindowCost,
  EVICTION_MODES,
  envOptionSchema,
  envPositiveInt,
  loggerOptionSchema,
  parseOptions,
  resolveLogger,
  runArchiveReader,
  type StartOn,
  selectView,
  summarySlotOf,
  THREADWISE_ENV,
  ThreadwiseConfigError,
  threadMessages,
  threadwiseMiddleware,
  type ViewSelection,
  viewStartOn,
  withMessageWindowCut,
  withMultiturnLog,
  withViewDecisions,
} from "@threadwise/core";
import { z } from "zod/v4";

/** Name of the middleware, also the producer of its view decisions. */
export const WINDOW_TRIM_NAME = "threadwise/window-trim";

/** Window size used when neither the option nor env `MEMORY_WINDOW_SIZE` is set, in messages. */
export const DEFAULT_WINDOW_SIZE = 20;

/** Env variable read for `maxMessages` when the option is not given (spec R2). */
export const WINDOW_SIZE_ENV = THREADWISE_ENV.windowSize;

/** Options of {@link windowTrim}. */
export const windowTrimOptionsSchema = z.strictObject({
  /**
   * Most messages in the view, counted over whole groups (spec R2). Stored system messages do not
   * count (core merges them into the one system message), nor does the agent's system prompt. The newest user turn and the tool loop of the run in
   * progress are always sent, even when they alone are longer; the count sent can therefore
   * differ from this number in both directions.
   * Unit: messages. Env twin: `MEMORY_WINDOW_SIZE` (the option wins).
   * @default 20
   */
  maxMessages: z.number().int().positive().optional(),
  /**
   * `"human"`: the view starts on a user message, for providers that reject a first message of
   * another role (spec R4; Bedrock Converse, Gemini). `"any"`: the view may start on any group.
   * Stack-wide (spec R33): the first view-shaping middleware that sets it (or `memoryStack`) sets
   * it for every later cut too, tokenCap's and summarize's included. Unset: the stack's rule, else
   * `"human"` (core's `DEFAULT_START_ON`).
   * @default the stack's rule, else "human"
   */
  startOn: z.enum(["human", "any"]).optional(),
  /**
   * How old groups leave the view (spec issue 3, cache-stable eviction).
   * - `"sliding"`: drop just enough old groups to fit; the view's first message moves nearly
   *   every turn, so the provider's prompt cache never sees the same prefix twice.
   * - `"chunked"`: when over `maxMessages`, drop down to `lowWatermark` at once; the cut points
   *   are a step function of the thread, so the first message moves once per
   *   `maxMessages - lowWatermark` messages and the prefix stays cacheable in between, at the
   *   price of sending between `lowWatermark` and `maxMessages` messages.
   * The default comes from the placement benchmark (`bench/results/placement.md`): on LoCoMo
   * conv-26 with 20 messages, 80.5% prefix reuse and 705 tokens per call for `chunked` against
   * 4.4% and 921 for `sliding`.
   * @default "chunked"
   */
  eviction: z.enum(EVICTION_MODES as ["sliding", "chunked"]).default("chunked"),
  /**
   * With `eviction: "chunked"`: the view size to cut back to when over `maxMessages`. Must be
   * below `maxMessages`; refused with `eviction: "sliding"`. Unit: messages.
   * @default half of `maxMessages`, rounded down
   */
  lowWatermark: z.number().int().nonnegative().optional(),
  /**
   * With `eviction: "chunked"`: reads a thread's archived messages (issue 27, core's
   * `ArchivedMessagesReader`), e.g. `(threadId, options) => checkpointer.archivedMessages(threadId, options)`
   * with `@threadwise/memory`'s archive; `memoryStack` passes it. When the summary slot holds the
   * message archive's window count (core's `ArchivedWindow`), the newest archived message is read
   * (one read per model call) to check that the archive still ends where the count was made; the
   * window then counts the stored part on from it, so its cut is the one over the whole thread
   * (archived and stored), whatever is later edited or removed in the stored part (R35).
   * Refused with `eviction: "sliding"`, which reads no archive.
   * @default the archive of the run's checkpointer (core's `runArchiveReader`), else none
   */
  archived: z
    .custom<ArchivedMessagesReader>((value) => typeof value === "function", {
      message: "expected a function (threadId, options) => Promise<BaseMessage[]>",
    })
    .optional(),
  /**
   * Where the multiturn line (spec R6) goes: any object with `info` and `warn`, or `false` for
   * none. @default silent for info unless env `THREADWISE_LOG=info`
   */
  logger: loggerOptionSchema,
  /**
   * Where the env twins (`MEMORY_WINDOW_SIZE`) and `THREADWISE_LOG` are read instead of `process.env`;
   * `memoryStack({ env })` passes its own. @default process.env
   */
  env: envOptionSchema,
});

/** Options of {@link windowTrim}, as accepted (before defaults). */
export type WindowTrimOptions = z.input<typeof windowTrimOptionsSchema>;

/** Resolved settings of a {@link windowTrim} instance. */
export interface WindowTrimSettings {
  maxMessages: number;
  /** `undefined`: not set here; the stack's rule applies. */
  startOn: StartOn | undefined;
  eviction: "sliding" | "chunked";
  lowWatermark: number;
}

/**
 * Resolves and validates the options of {@link windowTrim}, env twin included.
 * @throws ThreadwiseConfigError naming the option (`windowTrim.maxMessages`) or the variable
 *   (`MEMORY_WINDOW_SIZE`) when a value is not usable, when `lowWatermark >= maxMessages`, or
 *   when `lowWatermark` or `archived` is given with `eviction: "sliding"` (which has no
 *   watermark and reads no archive).
 */
export function resolveWindowTrimOptions(
  options: WindowTrimOptions = {},
  env: NodeJS.ProcessEnv = options?.env ?? process.env,
): WindowTrimSettings {
  const parsed = parseOptions("windowTrim", windowTrimOptionsSchema, options);
  const maxMessages = parsed.maxMessages ?? envPositiveInt(WINDOW_SIZE_ENV, env) ?? DEFAULT_WINDOW_SIZE;
  if (parsed.eviction === "sliding" && parsed.lowWatermark !== undefined) {
    throw new ThreadwiseConfigError(
      "windowTrim.lowWatermark",
      `applies only with eviction "chunked" (got eviction "sliding", which ignores it): remove it or set eviction: "chunked"`,
    );
  }
  if (parsed.eviction === "sliding" && parsed.archived !== undefined) {
    throw new ThreadwiseConfigError(
      "windowTrim.archived",
      `applies only with eviction "chunked" (got eviction "sliding", which reads no archive: its window is the newest messages that fit, whatever was archived): remove it or set eviction: "chunked"`,
    );
  }
  const lowWatermark = parsed.lowWatermark ?? Math.floor(maxMessages / 2);
  if (parsed.eviction === "chunked" && lowWatermark >= maxMessages) {
    throw new ThreadwiseConfigError("windowTrim.lowWatermark", `must be below maxMessages (${maxMessages}), got ${lowWatermark}`);
  }
  return { maxMessages, startOn: parsed.startOn, eviction: parsed.eviction, lowWatermark };
}

/**
 * Chooses the view of a message list for a message window: whole groups, oldest dropped first.
 * Pure; exported so tests and other middlewares can see the decision without an agent.
 */
export function selectWindow(messages: readonly BaseMessage[], settings: WindowTrimSettings): ViewSelection {
  return selectView(messages, {
    cost: (group) => group.messages.length,
    limit: settings.maxMessages,
    eviction: settings.eviction,
    lowWatermark: settings.lowWatermark,
    startOn: settings.startOn,
  });
}

/**
 * A message window for `createAgent` (spec R2, R4, R6).
 *
 * Before each model call, the thread's messages are split into groups (a user message; an AI
 * message; an AI message with `tool_calls` plus the ToolMessages answering it) and the newest
 * groups that fit in `maxMessages` are sent. The newest user turn and the tool loop of the run in
 * progress always go, even over the limit; orphans (results without their call, calls without all
 * results), stored ones included, never go; a stored `SystemMessage` is merged into the leading
 * system message. windowTrim states its window as a decision (core `withViewDecisions`); core
 * assembles the request. With `summarize` in the stack the window is what summarize summarizes:
 * put windowTrim first (`[windowTrim(), summarize()]`) and the view is the window plus what left
 * it since the last summary, the summary covering everything before. The other order is refused
 * at the first model call (`ThreadwiseConfigError`, option `middleware`): summarize would have
 * summarized over its own window before this one is stated. The stored thread and message objects are
 * never changed. Writes one multiturn line per model call through `logger`.
 *
 * @throws ThreadwiseConfigError at construction when an option or `MEMORY_WINDOW_SIZE` is invalid;
 *   from the model call when it is inside `summarize` (`[summarize(), windowTrim()]`).
 * @example
 * import { createAgent } from "langchain";
 * import { MemorySaver } from "@langchain/langgraph";
 * import { windowTrim } from "@threadwise/window-trim";
 *
 * const agent = createAgent({
 *   model: "openai:gpt-4o-mini",
 *   checkpointer: new MemorySaver(),
 *   middleware: [windowTrim({ maxMessages: 20, startOn: "human" })],
 * });
 */
export function windowTrim(options: WindowTrimOptions = {}) {
  const settings = resolveWindowTrimOptions(options);
  const logger = resolveLogger(options?.logger, options?.env);
  return threadwiseMiddleware({
    name: WINDOW_TRIM_NAME,
    wrapModelCall: async (request, handler) => {
      const ruled = settings.startOn
        ? withViewDecisions(request, [{ kind: "startOn", producer: WINDOW_TRIM_NAME, startOn: settings.startOn }])
        : request;
      const startOn = viewStartOn(ruled);
      // A chunked window over an archived thread's hot part counts on from the archived part's
      // cost (the message archive's mark in the slot), so its cut is the whole thread's (R35).
      // Inputs: the slot's mark and the archive's newest message, both stored state, read through
      // `archived` or the run's checkpointer (another agent's stack on the thread reads the archive
      // that way); nothing kept between calls, so a fresh process over the same saver cuts here too.
      let costBefore: number | undefined;
      const mark = settings.eviction === "chunked" ? summarySlotOf(request)?.archivedWindow : undefined;
      const read = mark ? (options.archived ?? runArchiveReader(request.runtime)) : undefined;
      if (mark && read) {
        const threadId = (request.runtime?.configurable as { thread_id?: unknown } | undefined)?.thread_id;
        if (typeof threadId === "string") costBefore = await archivedWindowCost(read, threadId, threadMessages(ruled), mark, startOn);
      }
      // The window over the view decided so far, on the thread's index (O(log n), not O(thread)),
      // stated as a cut in the same call: the render reuses the index the selection built.
      const { request: next } = withMessageWindowCut(
        ruled,
        {
          costKey: "messages",
          limit: settings.maxMessages,
          eviction: settings.eviction,
          lowWatermark: settings.lowWatermark,
          startOn,
          ...(costBefore === undefined ? {} : { costBefore }),
        },
        { producer: WINDOW_TRIM_NAME, limit: settings.maxMessages },
      );
      return withMultiturnLog(next, { window: settings.maxMessages, sentToLlm: next.messages.length }, logger, handler);
    },
  });
}
