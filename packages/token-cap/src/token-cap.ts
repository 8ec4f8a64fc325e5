import type { BaseMessage, SystemMessage } from "@langchain/core/messages";
import {
  assembledRequest,
  createTokenCounter,
  EVICTION_MODES,
  envOptionSchema,
  envPositiveInt,
  extendSummaryCoverage,
  type IndexedViewOptions,
  isNoReplyMessage,
  loggerOptionSchema,
  type MessageGroup,
  type PlacementRequest,
  parseOptions,
  protectedTailStart,
  requestOverheadTokens,
  requestTokenBound,
  requestTokens,
  resolveEncoding,
  resolveLogger,
  type StartOn,
  selectView,
  selectViewOf,
  sentMessages,
  systemText,
  THREADWISE_ENV,
  ThreadwiseConfigError,
  type ThreadwiseLogger,
  type TokenCounter,
  threadwiseMiddleware,
  type ViewSelection,
  viewMessages,
  viewReport,
  viewStartOn,
  withMultiturnLog,
  withViewDecisions,
} from "@threadwise/core";
import { z } from "zod/v4";
import { shortenToolResults } from "./shorten-tool-results.js";
import { ThreadwiseTokenBudgetError } from "./token-budget-error.js";

/** Name of the middleware, also the producer of its view decisions. */
export const TOKEN_CAP_NAME = "threadwise/token-cap";

/** Env variable read for `maxTokens` when the option is not given (spec R3). */
export const MAX_TOKENS_ENV = THREADWISE_ENV.maxHistoryTokens;

const ENCODINGS = ["gpt2", "r50k_base", "p50k_base", "p50k_edit", "cl100k_base", "o200k_base"] as const;

/** Options of {@link tokenCap}. */
export const tokenCapOptionsSchema = z.strictObject({
  /**
   * Most tokens one model call may carry: the system prompt as rendered (context blocks
   * included), the tool schemas, and the view's messages with their tool-call arguments (spec R3).
   * Unit: tokens. Env twin: `MAX_HISTORY_TOKENS` (the option wins). Required when the env is unset.
   */
  maxTokens: z.number().int().positive().optional(),
  /**
   * Model name that picks the encoding (`gpt-4o-mini` -> `o200k_base`, `gpt-4` -> `cl100k_base`).
   * @default the name of the model of each request, else `o200k_base`
   */
  model: z.string().min(1).optional(),
  /** js-tiktoken encoding name; wins over `model`. @default from `model`, else `"o200k_base"` */
  encoding: z.enum(ENCODINGS).optional(),
  /**
   * Your own counter (e.g. core's `createTokenCounter({ countText })` for another tokenizer);
   * `model` and `encoding` are then refused (they would be ignored). Keep one instance: its per-message cache is what
   * makes a call cost O(new messages).
   * @default a js-tiktoken counter created once per middleware and encoding
   */
  tokenCounter: z
    .custom<TokenCounter>(
      (v) => typeof (v as TokenCounter)?.countMessage === "function" && typeof (v as TokenCounter)?.countText === "function",
      {
        message: "expected a TokenCounter (countText, countMessage, countMessages, countTools)",
      },
    )
    .optional(),
  /**
   * How old groups leave the view.
   * - `"sliding"`: drop just enough old groups to fit under `maxTokens`; the view's first message
   *   moves nearly every turn, so no prompt prefix is reused.
   * - `"chunked"`: when over `maxTokens`, cut back to `lowWatermark` tokens at once; the cut points
   *   are a step function of the thread, so the first message stays put for about
   *   `maxTokens - lowWatermark` tokens of conversation and the provider's prompt cache hits in
   *   between, at the price of sending between `lowWatermark` and `maxTokens` tokens.
   * @default "sliding"
   */
  eviction: z.enum(EVICTION_MODES as ["sliding", "chunked"]).default("sliding"),
  /**
   * With `eviction: "chunked"`: the total to cut back to when over `maxTokens`, fixed parts
   * (system prompt, tools) included. Must be below `maxTokens`; refused with `eviction: "sliding"`. Unit: tokens.
   * @default half of `maxTokens`, rounded down
   */
  lowWatermark: z.number().int().nonnegative().optional(),
  /**
   * What happens when the groups that must stay (the newest user turn and the tool loop of the run
   * in progress), with the system prompt and tools, are alone over `maxTokens`:
   * - `"truncate"`: shorten tool results inside that tail, oldest first, each ending with
   *   `[threadwise: truncated N tokens]`; if still over, send anyway and log a warning.
   * - `"throw"`: change nothing and throw `ThreadwiseTokenBudgetError` before the model call.
   * @default "truncate"
   */
  overflow: z.enum(["truncate", "throw"]).default("truncate"),
  /**
   * `"human"`: every view starts on a user message (spec R4, R33). Stack-wide: the first
   * view-shaping middleware that sets it sets it for all; tokenCap honours the stack's rule
   * whether or not it is set here, so a cut never leaves a view that starts on another role.
   * @default the stack's rule, else "human"
   */
  startOn: z.enum(["human", "any"]).optional(),
  /**
   * Where the multiturn line (R6), the over-cap warning and the warning about messages dropped
   * that no summary covers go; `false` for nowhere.
   * @default info silent unless env `THREADWISE_LOG=info`; warnings to the console
   */
  logger: loggerOptionSchema,
  /**
   * Where the env twins (`MAX_HISTORY_TOKENS`) and `THREADWISE_LOG` are read instead of `process.env`;
   * `memoryStack({ env })` passes its own. @default process.env
   */
  env: envOptionSchema,
});

/** Options of {@link tokenCap}, as accepted (before defaults). */
export type TokenCapOptions = z.input<typeof tokenCapOptionsSchema>;

/** Inputs of {@link capMessages}. */
export interface CapSettings {
  /** The cap, in tokens. */
  maxTokens: number;
  /** Tokens always paid besides the view's messages (system prompt, tools, placed context). @default 0 */
  fixedTokens?: number;
  /**
   * An upper bound on `fixedTokens` read without the tokenizer (the counter's `boundText`): when
   * it plus the view's messages bounded by the counter's `boundMessage` is within `maxTokens`, no
   * cut is needed and nothing is tokenized (`fixedTokens` and `tokens` are read only when asked;
   * issue 21). Unit: tokens. @default undefined (every count exact)
   */
  fixedBound?: number;
  counter: TokenCounter;
  eviction?: "sliding" | "chunked";
  /** In tokens. @default half of `maxTokens` */
  lowWatermark?: number;
  /** @default "truncate" */
  overflow?: "truncate" | "throw";
  /** Where a cut view may start (tokenCap passes the stack's rule, `viewStartOn`). @default "any" (core `selectView`'s) */
  startOn?: StartOn;
}

/** What {@link capMessages} decided. */
export interface CapResult {
  /** The view: whole groups, no orphans, shortened tool results where the over-cap rule applied. */
  messages: BaseMessage[];
  /** First message kept (of the input); `null` when nothing is. The cut core applies. */
  firstKept: BaseMessage | null;
  /** Tool results shown shortened: the input's message and its replacement (same id). */
  replacements: Array<{ original: BaseMessage; replacement: BaseMessage }>;
  /**
   * Tokens of the view as sent (core's `sentMessages`: renamed call ids, merged roles, no-reply
   * messages) including `fixedTokens`; over the cap, the selection's count with what it did not
   * see added, less what shortening saved.
   */
  tokens: number;
  /** Non-orphan groups left out (computed on first read: it needs the whole thread grouped). */
  readonly droppedGroups: number;
  /** Tool results shortened by the over-cap rule. */
  shortenedToolResults: number;
  /** `true` when the view is still over `maxTokens` (sent anyway, with a warning). */
  overLimit: boolean;
}

/**
 * Chooses the view of a message list under a token cap (spec R3, R4): whole groups, oldest
 * dropped first, then the over-cap rule. The view is counted as core sends it
 * (`sentMessages(result.messages)`: a call id an earlier AI message used is sent renamed, roles
 * merge), so that request is within `maxTokens` unless the must-keep groups alone are over. Pure
 * and synchronous; the input is not mutated.
 *
 * @throws ThreadwiseTokenBudgetError with `overflow: "throw"` when the must-keep groups alone are over.
 */
export function capMessages(messages: readonly BaseMessage[], settings: CapSettings): CapResult {
  const fixed = () => settings.fixedTokens ?? 0;
  return fitAsSent(settings.maxTokens, (extra) => {
    const withExtra = extraSettings(settings, extra);
    const result = capSelection(selectView(messages, capViewOptions(withExtra)), withExtra);
    return {
      result,
      // The view as core would send it (roles alternated, call ids unique across the request).
      sentBound: () => {
        const bound = settings.counter.boundMessage;
        if (!bound || settings.fixedBound === undefined) return undefined;
        let total = settings.fixedBound;
        for (const message of sentMessages(result.messages)) total += bound(message);
        return total;
      },
      sentTokens: () => fixed() + settings.counter.countMessages(sentMessages(result.messages)),
    };
  }).result;
}

/** `settings` with `extra` tokens (and as many in the bound) added to the fixed cost. */
function extraSettings(settings: CapSettings, extra: number): CapSettings {
  if (extra === 0) return settings;
  return {
    ...settings,
    get fixedTokens() {
      return (settings.fixedTokens ?? 0) + extra;
    },
    ...(settings.fixedBound === undefined ? {} : { fixedBound: settings.fixedBound + extra }),
  };
}

/** One cut of {@link fitAsSent}: what the selection decided, and the request it gives as sent. */
interface SentAttempt {
  result: CapResult;
  /** An upper bound on `sentTokens()` read without the tokenizer; `undefined` when there is none. */
  sentBound: () => number | undefined;
  /** Tokens of the request as sent (fixed parts included). */
  sentTokens: () => number;
}

/**
 * The cut whose request, as sent, is within `maxTokens` (spec R3). Groups are costed as core's
 * groups hold them (portable ids, blank text left out), but the request renames a call id an
 * earlier AI message of it used (`withUniqueCallIds`), which depends on where the view starts, and
 * merges roles: the cut is made (`first`, else `attempt(0)`), the request it gives is counted as
 * sent, and while that is over the cap the tokens the selection did not see are added to the fixed
 * cost (`attempt(extra)`) and the cut made again. Each retry starts the view later (the unseen
 * tokens grow; a request that fits ends it) or reaches the must-keep groups (`overLimit`: the
 * over-cap rule then applies with those tokens counted). Usually one attempt, checked by the
 * bound alone: nothing is renamed, or the request fits anyway. The result's `tokens` are the
 * request's as sent when it fits.
 */
function fitAsSent<A extends SentAttempt>(maxTokens: number, attempt: (extra: number) => A, first: A = attempt(0)): A {
  let extra = 0;
  let current = first;
  while (!current.result.overLimit) {
    const bound = current.sentBound();
    if (bound !== undefined && bound <= maxTokens) return withSentTokens(current);
    const sent = current.sentTokens();
    if (sent <= maxTokens) return withSentTokens(current);
    // Over as sent but not as selected: what the selection did not see at this start. More than
    // `extra` (the selection's count with `extra` was within the cap), so the next cut starts later;
    // at least one more token either way, so the loop ends at the must-keep groups at the latest.
    extra = Math.max(extra + 1, sent - (current.result.tokens - extra));
    current = attempt(extra);
  }
  return current;
}

/** `attempt` with its result's `tokens` read as the request's tokens as sent (on read: a request that fits by its bound is not tokenized unless asked). */
function withSentTokens<A extends SentAttempt>(attempt: A): A {
  const result = attempt.result;
  const sent: CapResult = {
    get messages() {
      return result.messages;
    },
    firstKept: result.firstKept,
    replacements: result.replacements,
    get tokens() {
      return attempt.sentTokens();
    },
    get droppedGroups() {
      return result.droppedGroups;
    },
    shortenedToolResults: result.shortenedToolResults,
    overLimit: result.overLimit,
  };
  return { ...attempt, result: sent };
}

/** One cost key per counter: the index caches group costs per key. */
// By counter object: a key names one counter's costs; the index they are cached in checks its messages (`isFor`).
const counterKeys = new WeakMap<TokenCounter, string>();
let nextCounterKey = 0;

/** The view selection options of a cap: each group costs its tokens, cached per counter. */
function capViewOptions(settings: CapSettings): IndexedViewOptions {
  const { counter } = settings;
  let costKey = counterKeys.get(counter);
  if (costKey === undefined) {
    costKey = `${TOKEN_CAP_NAME}:tokens:${nextCounterKey++}`;
    counterKeys.set(counter, costKey);
  }
  const { boundMessage } = counter;
  return {
    cost: (group: MessageGroup) => counter.countMessages(group.messages),
    costKey,
    limit: settings.maxTokens,
    // Read only when the exact cost is needed (`settings.fixedTokens` may be computed on read).
    get fixedCost() {
      return settings.fixedTokens ?? 0;
    },
    ...(boundMessage && settings.fixedBound !== undefined
      ? {
          bounds: {
            fixed: settings.fixedBound,
            group: (group: MessageGroup) => {
              let total = 0;
              for (const message of group.messages) total += boundMessage(message);
              return total;
            },
          },
        }
      : {}),
    eviction: settings.eviction,
    lowWatermark: settings.lowWatermark,
    startOn: settings.startOn,
  };
}

/** {@link capMessages} on a selection already made with {@link capViewOptions} (the over-cap rule applied). */
function capSelection(selection: ViewSelection, settings: CapSettings): CapResult {
  const { counter, maxTokens } = settings;
  // `droppedGroups` is read from the selection only when asked: it needs the whole thread grouped.
  const result = (messages: BaseMessage[] | undefined, tokens: () => number, shortenedToolResults: number): CapResult => ({
    // Without shortened results the view is the selection's, built only when read.
    get messages() {
      return messages ?? selection.messages;
    },
    firstKept: selection.firstKept,
    replacements:
      messages === undefined
        ? []
        : messages.flatMap((m, i) => {
            const original = selection.messages[i] as BaseMessage;
            return m === original ? [] : [{ original, replacement: m }];
          }),
    // Counted on read: a view that fits by its upper bounds is not tokenized unless asked.
    get tokens() {
      return tokens();
    },
    get droppedGroups() {
      return selection.droppedGroups;
    },
    shortenedToolResults,
    overLimit: messages === undefined ? selection.overLimit : tokens() > maxTokens,
  });
  if (!selection.overLimit) return result(undefined, () => selection.cost, 0);
  if (settings.overflow === "throw") throw new ThreadwiseTokenBudgetError(maxTokens, selection.cost);
  // Over the cap with only the must-keep groups left: shorten tool results of that tail.
  const tailStart = protectedTailStart(selection.kept);
  const tailFirstMessage = (selection.kept[tailStart] as MessageGroup | undefined)?.messages[0];
  const from = tailFirstMessage ? selection.messages.indexOf(tailFirstMessage) : selection.messages.length;
  const shortened = shortenToolResults(selection.messages, from, selection.cost - maxTokens, counter);
  return result(shortened.messages, () => selection.cost - shortened.savedTokens, shortened.shortened);
}

/** The name of a chat model object, where it exposes one (`model` or `modelName`). */
function modelNameOf(model: unknown): string | undefined {
  if (typeof model === "string") return model;
  const m = model as { model?: unknown; modelName?: unknown } | null;
  if (typeof m?.model === "string") return m.model;
  if (typeof m?.modelName === "string") return m.modelName;
  return undefined;
}

/**
 * A token cap for `createAgent` (spec R3, R4, R6).
 *
 * Before each model call, counts with js-tiktoken the system prompt as rendered, the tool
 * schemas, any placed context message and the thread's messages (text, content blocks, tool-call
 * names and arguments; images a fixed cost), and sends the newest whole groups that fit under
 * `maxTokens`. Same group rules as `windowTrim`: the newest user turn and the run's tool loop
 * always go, orphans never do, the stored thread is never changed. When those must-keep groups
 * are alone over the cap, the `overflow` rule applies (see the option).
 *
 * The counter is created once per middleware (per encoding) and caches per message by id, so a
 * call on a checkpointed thread tokenizes only the messages it has not seen.
 *
 * Inside `summarize` (`[windowTrim(), summarize(), tokenCap()]`, memoryStack's order) a cut that
 * would drop messages the summary does not cover first has the summary cover them (core's
 * `extendSummaryCoverage`: one summarizer call, ahead to where the view holds half the room the cap
 * leaves for messages (beside a pinned provider compaction, if any), at least through the cap's
 * own cut, or to the `lowWatermark` cut with chunked eviction), then cuts again with the
 * longer summary counted: every non-system message before the view is in the summary sent (spec
 * R3, R33). Only a failed summarizer call leaves such messages dropped, with a warning.
 *
 * Put it after middlewares that add context (summarize, factRecall, workMemory, recall, historyAware,
 * userMemory) so their text is counted: inside one of them it is refused at the first model call
 * (`ThreadwiseConfigError`, option `middleware`; core's ARCHITECTURE.md, "Middleware order").
 *
 * @throws ThreadwiseConfigError at construction when `maxTokens` is missing (no option, no
 *   `MAX_HISTORY_TOKENS`) or an option is invalid.
 * @throws ThreadwiseTokenBudgetError from the model call with `overflow: "throw"` when the
 *   must-keep groups alone are over the cap.
 * @example
 * import { createAgent } from "langchain";
 * import { tokenCap } from "@threadwise/token-cap";
 *
 * const agent = createAgent({
 *   model: "openai:gpt-4o-mini",
 *   tools: [],
 *   middleware: [tokenCap({ maxTokens: 8000 })],
 * });
 */
export function tokenCap(options: TokenCapOptions = {}) {
  const parsed = parseOptions("tokenCap", tokenCapOptionsSchema, options);
  const maxTokens = parsed.maxTokens ?? envPositiveInt(MAX_TOKENS_ENV, parsed.env);
  if (maxTokens === undefined) {
    throw new ThreadwiseConfigError("tokenCap.maxTokens", `required: pass maxTokens or set ${MAX_TOKENS_ENV} (tokens)`);
  }
  if (parsed.eviction === "sliding" && parsed.lowWatermark !== undefined) {
    throw new ThreadwiseConfigError(
      "tokenCap.lowWatermark",
      `applies only with eviction "chunked" (got eviction "sliding", the default, which ignores it): remove it or set eviction: "chunked"`,
    );
  }
  for (const key of ["model", "encoding"] as const) {
    if (parsed.tokenCounter !== undefined && parsed[key] !== undefined)
      throw new ThreadwiseConfigError(
        `tokenCap.${key}`,
        "applies only without tokenCounter (got a tokenCounter, which counts on its own and ignores it): remove one of them",
      );
  }
  const lowWatermark = parsed.lowWatermark ?? Math.floor(maxTokens / 2);
  if (parsed.eviction === "chunked" && lowWatermark >= maxTokens) {
    throw new ThreadwiseConfigError("tokenCap.lowWatermark", `must be below maxTokens (${maxTokens}), got ${lowWatermark}`);
  }
  const logger = resolveLogger(parsed.logger, parsed.env);
  const fixedCounter =
    parsed.tokenCounter ??
    (parsed.model || parsed.encoding ? createTokenCounter({ model: parsed.model, encoding: parsed.encoding }) : undefined);
  const byEncoding = new Map<string, TokenCounter>();
  const counterFor = (model: unknown): TokenCounter => {
    if (fixedCounter) return fixedCounter;
    const encoding = resolveEncoding(modelNameOf(model));
    let counter = byEncoding.get(encoding);
    if (!counter) {
      counter = createTokenCounter({ encoding });
      byEncoding.set(encoding, counter);
    }
    return counter;
  };
  // The system prompt is a new object on most calls; its count is kept by text.
  let lastSystem: { counter: TokenCounter; text: string; tokens: number } | undefined;
  const systemTokens = (counter: TokenCounter, system: SystemMessage | undefined): number => {
    const text = systemText(system);
    if (text === "") return 0;
    if (lastSystem?.text !== text || lastSystem.counter !== counter) {
      lastSystem = { counter, text, tokens: counter.countMessage(system as SystemMessage) };
    }
    return lastSystem.tokens;
  };

  /**
   * The cap's settings for a cut of `ruled` with `addedTokens` (and `addedBound` in the upper
   * bound) added to its fixed part: the system message sent, the tools, the tail context and the
   * request overhead.
   */
  const capSettingsOf = (ruled: PlacementRequest & { tools?: unknown[] }, counter: TokenCounter) => {
    const tailContext = viewReport(ruled).tailContext;
    const tools = (ruled.tools ?? []) as Parameters<TokenCounter["countTools"]>[0];
    const toolTokens = counter.countTools(tools);
    const systemSent = systemText(ruled.systemMessage) !== "";
    // Reply priming and the system-with-tools correction: what the provider counts once per request.
    const overhead = requestOverheadTokens({ system: systemSent, tools: tools.length > 0 });
    // Exact, on read: a view that fits by its upper bounds never tokenizes the system prompt,
    // whose text (summary, facts) is the thread's own and new to a process that never saw it.
    let fixedTokens: number | undefined;
    const exactFixed = () => {
      fixedTokens ??=
        systemTokens(counter, ruled.systemMessage) + toolTokens + (tailContext === "" ? 0 : counter.countText(tailContext)) + overhead;
      return fixedTokens;
    };
    const bound = counter.boundText;
    return (addedTokens: number, addedBound: number): CapSettings => ({
      maxTokens,
      get fixedTokens() {
        return exactFixed() + addedTokens;
      },
      ...(bound && counter.boundMessage
        ? {
            fixedBound:
              (systemSent ? (counter.boundMessage(ruled.systemMessage as SystemMessage) ?? 0) : 0) +
              toolTokens +
              (tailContext === "" ? 0 : bound(tailContext)) +
              overhead +
              addedBound,
          }
        : {}),
      counter,
      eviction: parsed.eviction,
      lowWatermark,
      overflow: parsed.overflow,
      startOn: viewStartOn(ruled),
    });
  };

  /**
   * The cut of `ruled` under the cap: the selection and the request with the cut and replacements
   * stated, that request counted as sent ({@link fitAsSent}).
   */
  const capRequest = <R extends PlacementRequest & { tools?: unknown[] }>(ruled: R, counter: TokenCounter) => {
    const settingsWith = capSettingsOf(ruled, counter);
    const decide = (settings: CapSettings) => {
      // The cut over the view decided so far, on the thread's index: each group is counted once
      // per thread (O(new messages) per call), the cut is a binary search over prefix sums.
      const result = capSelection(selectViewOf(ruled, capViewOptions(settings)), settings);
      const next = withViewDecisions(ruled, [
        { kind: "cut", producer: TOKEN_CAP_NAME, reason: "cap", firstKept: result.firstKept },
        ...result.replacements.map((r) => ({ kind: "replace" as const, producer: TOKEN_CAP_NAME, ...r })),
      ]);
      return { result, next };
    };
    // A cut and the request it gives, counted as sent ({@link fitAsSent}), with what it added to
    // the fixed part (for the ahead cut: the room the cap leaves for messages is what is left).
    const attemptWith = (addedTokens: number, addedBound: number) => (extra: number) => {
      const decided = decide(settingsWith(addedTokens + extra, addedBound + extra));
      return {
        ...decided,
        added: { tokens: addedTokens + extra, bound: addedBound + extra },
        sentBound: () => requestTokenBound(counter, decided.next),
        sentTokens: () => requestTokens(counter, decided.next),
      };
    };
    let attempt = attemptWith(0, 0);
    let first = attempt(0);
    // Messages core sends that no kept group holds: a provider compaction the cut left behind,
    // sent ahead of the view with its turn's user message, and the AI message core puts after
    // the results of a run that stopped before its reply (core's assembleView). They are a
    // fixed cost of this view. Cut again with them counted; the second cut starts at or after
    // the first, so the compaction is still pinned and no more replies are sent than counted.
    const pinned = viewReport(first.next).compaction?.pinnedMessages ?? 0;
    const added = [...viewMessages(first.next).slice(0, pinned), ...first.next.messages.filter(isNoReplyMessage)];
    if (added.length > 0) {
      const addedTokens = counter.countMessages(added);
      const boundOf = counter.boundMessage;
      const addedBound = boundOf ? added.reduce((sum, m) => sum + boundOf(m), 0) : 0;
      attempt = attemptWith(addedTokens, addedBound);
      first = attempt(0);
    }
    // Renamed call ids and merged roles (a view shortened to fit exactly included) are counted on
    // the request core assembles, and the cut made again while that is over the cap.
    return fitAsSent(maxTokens, attempt, first);
  };

  /**
   * The first message kept by the cut that leaves the view's messages half the room the fixed part
   * leaves under the cap (sliding, counted on the groups as stored): used only to tell a summary
   * how far to cover; nothing is stated from it. `added`: what the cap's own cut counted beside
   * the request's fixed part (a pinned provider compaction, no-reply messages, what the request
   * as sent costs beyond its groups: `capRequest`'s `added`), so the half is of the room the cap
   * really leaves; without it, a large pinned compaction left the ahead cut before the cap's cut.
   */
  const aheadCut = (
    ruled: PlacementRequest & { tools?: unknown[] },
    counter: TokenCounter,
    added: { tokens: number; bound: number },
  ): BaseMessage | null => {
    const settings = capSettingsOf(ruled, counter)(added.tokens, added.bound);
    const fixed = settings.fixedTokens ?? 0;
    const half: CapSettings = {
      ...settings,
      maxTokens: fixed + Math.floor((maxTokens - fixed) / 2),
      eviction: "sliding",
      // Only the cap's own cut shortens tool results or throws; the ahead cut is a position.
      overflow: "truncate",
    };
    return selectViewOf(ruled, capViewOptions(half)).firstKept;
  };

  return threadwiseMiddleware({
    name: TOKEN_CAP_NAME,
    wrapModelCall: async (request, handler) => {
      const counter = counterFor(request.model);
      // Assembled once before counting, so the system message counted is the one sent (stored
      // system messages merged in, legacy_system blocks rendered).
      const ruled = parsed.startOn
        ? withViewDecisions(request, [{ kind: "startOn", producer: TOKEN_CAP_NAME, startOn: parsed.startOn }])
        : assembledRequest(request);
      let capped = capRequest(ruled, counter);
      let before: PlacementRequest = ruled;
      // The cut drops messages the summary does not cover (R33): the summary covers them first,
      // through where the view holds half the room the cap leaves for messages (`lowWatermark`
      // with chunked eviction), so that this happens once per about half a cap of conversation,
      // not on every call; then the cut is made again with the longer summary counted.
      if (unsummarizedByCap(ruled, capped.next) > 0) {
        const through =
          parsed.eviction === "chunked"
            ? capped.result.firstKept
            : laterCut(viewMessages(ruled), aheadCut(ruled, counter, capped.added), capped.result.firstKept);
        const extended = through ? await extendSummaryCoverage(ruled, through) : undefined;
        if (extended) {
          before = extended;
          capped = capRequest(extended, counter);
        }
      }
      const { result, next } = capped;
      warnUnsummarizedCut(before, next, maxTokens, logger);
      if (result.overLimit) {
        // Said with the system prompt's share: with memory blocks in it (summary, facts, recall) it
        // is often most of a small cap, and "the newest user turn is over the cap" sent the user
        // looking at a 20-token message.
        // Under stable_tail (cache_aware: all but the summary) the blocks are at the end of the
        // newest user message, not in the system prompt: said apart, or the reader looks for them
        // in a system prompt of a few tokens.
        const system = systemTokens(counter, next.systemMessage);
        const tailContext = viewReport(next).tailContext;
        const tail = tailContext === "" ? 0 : counter.countText(tailContext);
        const shares =
          tail === 0
            ? `the system prompt (memory blocks included: summary, facts, recall) takes ${system} of them`
            : `the system prompt takes ${system} of them and the memory context at the end of the newest user message (stable_tail) takes ${tail}`;
        logger.warn(
          `tokenCap: ${result.tokens} tokens sent, over the cap of ${maxTokens}: only the newest user turn and the current tool loop are left, and they are always sent; ${shares}; sent anyway`,
          {
            max_tokens: maxTokens,
            tokens: result.tokens,
            system_tokens: system,
            ...(tail === 0 ? {} : { tail_context_tokens: tail }),
            shortened_tool_results: result.shortenedToolResults,
          },
        );
      }
      return withMultiturnLog(next, { window: `${maxTokens}tok`, sentToLlm: next.messages.length }, logger, async (r) => handler(r));
    },
  });
}

/**
 * Of two cuts of `view` (their first kept messages, `null` for none), the one that starts later:
 * what a summary extension must cover through. The ahead cut is counted on the groups as stored;
 * the cap's own cut is counted as sent, so it can start after the ahead cut, and a summary through
 * the ahead cut alone left the messages between dropped and in no summary (R33). A cut not found
 * in `view` counts as starting before the other.
 */
function laterCut(view: readonly BaseMessage[], ahead: BaseMessage | null, cap: BaseMessage | null): BaseMessage | null {
  if (ahead === null) return cap;
  if (cap === null) return ahead;
  return view.indexOf(cap) > view.indexOf(ahead) ? cap : ahead;
}

/**
 * Messages the cap's cut (`after`, the request with it stated) drops that no summary covers, less
 * those already dropped before it (`before`: summarize's own backlog cut, R39, or the start rule);
 * 0 without a summary in the stack.
 */
function unsummarizedByCap(before: PlacementRequest, after: PlacementRequest): number {
  const dropped = viewReport(after).unsummarizedDropped ?? 0;
  if (dropped === 0) return 0;
  return dropped - (viewReport(before).unsummarizedDropped ?? 0);
}

/**
 * Warns (through tokenCap's `logger`, on each call where it happens: like every line threadwise
 * logs, it follows from the stored thread alone, so a fresh process logs the same, R37) when this
 * cap dropped messages that no summary covers yet, which happens only when the summary could not
 * be extended over them (its summarizer call failed, or a summary without `extend`): with `summarize` outside it, they then reach the model neither in the view nor in
 * the summary, which a stack with a summary otherwise never does (R10, R33). Counted as core's
 * `viewReport(...).unsummarizedDropped` after the cap less before it (summarize's own backlog cut,
 * R39, is not the cap's). Without a summary in the stack there is no coverage and no warning.
 *
 */
function warnUnsummarizedCut(before: PlacementRequest, after: PlacementRequest, maxTokens: number, logger: ThreadwiseLogger): void {
  const byCap = unsummarizedByCap(before, after);
  if (byCap <= 0) return;
  logger.warn(
    `tokenCap: the cap of ${maxTokens} tokens dropped ${byCap} message(s) that no summary covers yet, so the model receives them neither in the view nor in the summary; ` +
      "let the summary keep up (a smaller window: windowSize / maxMessages, or a lower summary threshold) or raise the cap",
    { max_tokens: maxTokens, unsummarized_dropped: byCap },
  );
}
