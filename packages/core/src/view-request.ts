import type { BaseMessage, SystemMessage } from "@langchain/core/messages";
import {
  type AssembledView,
  assembleView,
  assembleWith,
  type CoverageExtender,
  DEFAULT_START_ON,
  EMPTY_DECISIONS,
  isNoReplyMessage,
  type StartOn,
  type SummaryProvenance,
  type ViewCut,
  type ViewDecisions,
  type ViewReport,
  viewKeptFrom,
  withoutTailContext,
} from "./assemble-view.js";
import { ThreadwiseConfigError } from "./errors.js";
import { isContextMessage } from "./message-kinds.js";
import { type ContextBlock, type PromptContextMode, resolvePromptContextMode, systemText } from "./placement.js";
import { refuseStrayTail } from "./stray-result-error.js";
import {
  candidateAtOrAfter,
  groupMessageCount,
  type IndexedViewOptions,
  indexThread,
  selectCandidates,
  type ThreadIndex,
} from "./thread-index.js";
import { selectView, type ViewSelection } from "./view.js";

/** What a model request looks like to the view: LangChain's `ModelRequest` fits. */
export interface PlacementRequest {
  messages: BaseMessage[];
  systemMessage: SystemMessage;
}

/**
 * One decision a middleware states about the view of a model call. Core applies and checks
 * every decision in {@link assembleView}; no middleware builds the final list itself.
 * - `cut`: the messages before `firstKept` leave the view (a window, or a hard cap).
 * - `startOn`: the stack-wide start rule; the first explicit one wins.
 * - `coverage`: the summary covers every message before `firstUncovered`.
 * - `replace`: show `original` as `replacement` (same id and role, e.g. a shortened tool result).
 */
export type ViewDecision =
  | ({ kind: "cut" } & ViewCut)
  | { kind: "startOn"; producer: string; startOn: StartOn }
  | {
      kind: "coverage";
      producer: string;
      firstUncovered: BaseMessage | null;
      provenance?: SummaryProvenance;
      /** How a cap asks the summary to cover more ({@link extendSummaryCoverage}). */
      extend?: CoverageExtender;
    }
  | { kind: "replace"; producer: string; original: BaseMessage; replacement: BaseMessage };

const VIEW = Symbol.for("threadwise.view");

interface ViewState {
  /** The thread as the stack received it (rendered context stripped). */
  thread: BaseMessage[];
  /** Groups and positions of `thread` ({@link indexThread}). */
  index: ThreadIndex;
  /** The system message as the stack received it. */
  system: SystemMessage;
  decisions: ViewDecisions;
  assembled: AssembledView;
}

/**
 * Whether two system messages read the same ({@link systemText}); the same object is, and so is a
 * copy holding the same content (LangChain's agent hands each layer `new SystemMessage({ ...m })`
 * of a changed system message, which keeps `m.content`), without joining their text blocks (a
 * system message with the summary in it is kilobytes, checked by every layer of a call).
 */
function sameSystemText(a: SystemMessage, b: SystemMessage): boolean {
  return a === b || a.content === b.content || systemText(a) === systemText(b);
}

function stateOf(request: PlacementRequest): ViewState | undefined {
  return (request as unknown as Record<symbol, ViewState | undefined>)[VIEW];
}

/**
 * Thread, system message and decisions of the request. A change made after the last render by a
 * middleware that is not threadwise's becomes the new thread or system message (with the
 * stable_tail context and the replies core put after a stopped run's results taken off again);
 * decisions are kept.
 */
function inputsOf(request: PlacementRequest): { thread: BaseMessage[]; system: SystemMessage; decisions: ViewDecisions } {
  const state = stateOf(request);
  if (!state) return { thread: request.messages, system: request.systemMessage, decisions: EMPTY_DECISIONS };
  const thread =
    request.messages === state.assembled.messages
      ? state.thread
      : request.messages.filter((m) => !isContextMessage(m) && !isNoReplyMessage(m)).map((m) => withoutTailContext(m));
  const system = sameSystemText(request.systemMessage, state.assembled.systemMessage) ? state.system : request.systemMessage;
  return { thread, system, decisions: state.decisions };
}

/** The index of `thread` for this request: the one already made for it in this model call, else {@link indexThread}'s. */
function indexOf(request: PlacementRequest, thread: BaseMessage[]): ThreadIndex {
  const known = stateOf(request)?.index;
  return known?.isFor(thread) ? known : indexThread(thread);
}

/**
 * The request assembled from `thread`, `system` and `decisions`. `known`: the index of `thread`
 * built or checked with `isFor` by the caller with no code but core's run since (as for
 * {@link assembleWith}); else the request's own or {@link indexThread}'s, checked.
 */
function render<R extends PlacementRequest>(
  request: R,
  thread: BaseMessage[],
  system: SystemMessage,
  decisions: ViewDecisions,
  known?: ThreadIndex,
): R {
  const index = known ?? indexOf(request, thread);
  // A decision that leaves the system inputs as they were (a cut, a coverage, a start rule)
  // keeps the system message of the last render: the same objects, not rebuilt.
  const previous = stateOf(request);
  const sameSystem =
    previous !== undefined &&
    previous.thread === thread &&
    previous.system === system &&
    previous.decisions.systemSuffixes === decisions.systemSuffixes &&
    previous.decisions.blocks === decisions.blocks &&
    previous.decisions.mode === decisions.mode;
  const assembled = assembleWith(thread, system, decisions, index, sameSystem ? previous.assembled : undefined);
  const state: ViewState = { thread, index, system, decisions, assembled };
  // Unchanged system inputs: hand on the system message the request came with (the agent's copy
  // of the last one rendered), so the agent sees no change and does not copy it again.
  const systemMessage =
    sameSystem && sameSystemText(request.systemMessage, assembled.systemMessage) ? request.systemMessage : assembled.systemMessage;
  return { ...request, messages: assembled.messages, systemMessage, [VIEW]: state };
}

function assembledOf(request: PlacementRequest): AssembledView {
  const state = stateOf(request);
  if (state && state.assembled.messages === request.messages && sameSystemText(request.systemMessage, state.assembled.systemMessage))
    return state.assembled;
  const { thread, system, decisions } = inputsOf(request);
  return assembleWith(thread, system, decisions, indexOf(request, thread), undefined);
}

/**
 * The request as core assembles it ({@link assembleView}) from the decisions stated so far (none:
 * the stored thread without orphans, with one leading system message and alternating roles).
 * Idempotent and cheap on a request that is already assembled and unchanged since: it is
 * returned as is, so every layer of a stack may call it and only the first one that meets an
 * unassembled (or foreign-changed) request does the work. {@link threadwiseMiddleware} calls it
 * on every request a threadwise middleware hands on.
 */
export function assembledRequest<R extends PlacementRequest>(request: R): R {
  const state = stateOf(request);
  if (state && state.assembled.messages === request.messages && sameSystemText(request.systemMessage, state.assembled.systemMessage))
    return request;
  const { thread, system, decisions } = inputsOf(request);
  return render(request, thread, system, decisions);
}

/**
 * The assembled request (`assembledRequest`'s) the model is handed, unless the thread ends on
 * stray tool results the view leaves out and the request would therefore end on an AI message or
 * hold no message at all:
 * refused before the model is called (see {@link ThreadwiseStrayResultError}).
 * @throws ThreadwiseStrayResultError
 * @internal
 */
export function refuseStrayInput<R extends PlacementRequest>(request: R): R {
  const last = request.messages.at(-1);
  if (last !== undefined && last.getType() !== "ai") return request;
  const { thread } = inputsOf(request);
  refuseStrayTail(request.messages, thread, () => indexOf(request, thread));
  return request;
}

/** Whether core assembled this request and nothing changed it since (tests, probes). */
export function isAssembledRequest(request: PlacementRequest): boolean {
  return assembledRequest(request) === request;
}

/**
 * The refusal of a window stated inside a summary (`[summarize(), windowTrim()]`). LangChain
 * composes `wrapModelCall` with the first middleware of the list outermost, so the summary's
 * middleware has made its summary and stated what it covers before the window's middleware runs:
 * its own window (`windowSize`) was summarized, and core keeps every message the summary does not
 * cover, so the window would silently not apply. Refused at the first model call (no middleware
 * sees the list at construction), naming both and the order that works.
 */
function windowInsideSummary(window: string, summary: string): ThreadwiseConfigError {
  return new ThreadwiseConfigError(
    "middleware",
    `${window} is inside ${summary}: the summary was made over summarize's own window, so this window would not apply. ` +
      'Put the window first: middleware: [windowTrim(), summarize()] (see core\'s ARCHITECTURE.md, "Middleware order")',
  );
}

/**
 * threadwise's middlewares that add text to the request (context blocks, a system suffix), by
 * middleware name, with the factory a user writes: tokenCap must be inside them (after them in
 * the list), where it counts what they added (core's ARCHITECTURE.md, "Middleware order").
 */
export const CONTEXT_PRODUCERS: ReadonlyMap<string, string> = new Map([
  ["threadwise/summarize", "summarize"],
  ["threadwise/fact-recall", "factRecall"],
  ["threadwise/work-memory", "workMemory"],
  ["threadwise/recall", "recall"],
  ["threadwise/history-aware", "historyAware"],
  ["threadwise/user-memory", "userMemory"],
]);

/** The factory a user writes for a middleware name (`threadwise/recall` -> `recall`), the name itself for another. */
function factoryOf(name: string): string {
  return CONTEXT_PRODUCERS.get(name) ?? (name === TOKEN_CAP ? "tokenCap" : name);
}

/**
 * The refusal of context added inside a token cap (`[tokenCap(), recall()]`). The first middleware
 * of the list is outermost, so the cap counted the system prompt, the blocks and the messages and
 * made its cut before the inner middleware added its text: that text is not counted and the
 * request can exceed `maxTokens`. Refused at the first model call, before the model is called,
 * naming both and the order that works.
 */
function contextInsideCap(producer: string, cap: string): ThreadwiseConfigError {
  const inner = factoryOf(producer);
  const outer = factoryOf(cap);
  const call = (name: string) => (name.includes("/") ? `"${name}"` : `${name}()`);
  return new ThreadwiseConfigError(
    "middleware",
    `${producer} is inside ${cap}: the cap was counted before ${producer} added its context, so the request could exceed maxTokens. ` +
      `Put the cap last: middleware: [${call(inner)}, ${call(outer)}] (see core's ARCHITECTURE.md, "Middleware order")`,
  );
}

/** The middleware that counts the request's tokens and cuts it: tokenCap (summarize's backlog cut is a `cap` cut too, but counts no context). */
const TOKEN_CAP = "threadwise/token-cap";

/** The token cap that stated its cut for this request so far, `undefined` when none did. */
function capProducer(decisions: ViewDecisions): string | undefined {
  for (const cut of decisions.cuts) if (cut.reason === "cap" && cut.producer === TOKEN_CAP) return cut.producer;
  return undefined;
}

/**
 * Refuses `producer` adding context to `request` after a token cap was stated (by another
 * middleware) for it: a `ThreadwiseConfigError` (`option: "middleware"`) naming both and the
 * order that works. `threadwiseMiddleware` calls it when a middleware of
 * {@link CONTEXT_PRODUCERS} is entered, so the order is refused at the first model call whether or
 * not the producer has anything to add yet; core calls it for every block added.
 * @throws ThreadwiseConfigError when a cap of another middleware was stated for the request.
 */
export function refuseContextInsideCap(request: PlacementRequest, producer: string): void {
  const decisions = stateOf(request)?.decisions;
  const cap = decisions ? capProducer(decisions) : undefined;
  if (cap !== undefined && cap !== producer) throw contextInsideCap(producer, cap);
}

function addDecision(decisions: ViewDecisions, decision: ViewDecision): ViewDecisions {
  switch (decision.kind) {
    case "cut": {
      const { kind: _kind, ...cut } = decision;
      if (cut.reason === "window" && decisions.coverage) throw windowInsideSummary(cut.producer, decisions.coverage.producer);
      return { ...decisions, cuts: [...decisions.cuts, cut] };
    }
    case "startOn":
      if (decisions.startOn) return decisions;
      return { ...decisions, startOn: { value: decision.startOn, producer: decision.producer } };
    case "coverage":
      return {
        ...decisions,
        coverage: {
          producer: decision.producer,
          firstUncovered: decision.firstUncovered,
          ...(decision.provenance ? { provenance: decision.provenance } : {}),
          ...(decision.extend ? { extend: decision.extend } : {}),
        },
      };
    case "replace":
      return {
        ...decisions,
        replacements: [
          ...decisions.replacements,
          { producer: decision.producer, original: decision.original, replacement: decision.replacement },
        ],
      };
  }
}

/**
 * States decisions about the view and returns the new request, assembled by core
 * ({@link assembleView}): call it from `wrapModelCall` and pass the result to the handler.
 *
 * ```ts
 * const selection = selectView(viewMessages(request), { cost: (g) => g.messages.length, limit: 10 });
 * return handler(withViewDecisions(request, [{ kind: "cut", producer: "my/window", reason: "window", firstKept: selection.firstKept, limit: 10 }]));
 * ```
 *
 * Decisions accumulate over the middlewares of one model call, in any order; the request is
 * re-assembled from the thread the stack received on every call, so the result depends only on
 * the thread, the system message and the set of decisions. Nothing is mutated.
 *
 * `context`: context blocks (and their mode) added in the same assembly, the request
 * `addContextBlocks(withViewDecisions(request, decisions), blocks, { mode })` would give, assembled
 * once instead of twice (summarize states its coverage and its summary block together).
 * @throws ThreadwiseConfigError when `context.mode` is not a known mode.
 */
export function withViewDecisions<R extends PlacementRequest>(
  request: R,
  decisions: readonly ViewDecision[],
  context?: { blocks: readonly ContextBlock[]; mode?: PromptContextMode },
): R {
  const inputs = inputsOf(request);
  let next = inputs.decisions;
  for (const decision of decisions) next = addDecision(next, decision);
  if (context) next = withBlocks(next, context.blocks, context.mode);
  return render(request, inputs.thread, inputs.system, next);
}

/**
 * Asks the summary of the stack to cover every message before `through` (spec R33, R39): the
 * request with the summary's new coverage and block, or `undefined` when the stack has no summary
 * that can extend, `through` is not past what it covers, or it did not extend (a summarizer
 * failure, or an extension already made on this model call).
 *
 * For a hard cap: a cut that would drop messages no summary covers calls it first with the first
 * message it means to keep, then cuts again on the returned request (its system prompt now holds
 * the longer summary). Before the cap states its cut, so the new block is counted by it.
 * `through`: a message of `viewMessages(request)` (a replacement is mapped back to its original).
 */
export async function extendSummaryCoverage<R extends PlacementRequest>(request: R, through: BaseMessage): Promise<R | undefined> {
  const inputs = inputsOf(request);
  const coverage = inputs.decisions.coverage;
  if (!coverage?.extend) return undefined;
  let original = through;
  for (const r of inputs.decisions.replacements) if (r.replacement === through) original = r.original;
  const extension = await coverage.extend(original);
  if (!extension) return undefined;
  const { block } = extension;
  let replaced = false;
  const blocks = inputs.decisions.blocks.flatMap((b) => {
    if (b.producer !== block.producer || b.kind !== block.kind) return [b];
    if (replaced) return [];
    replaced = true;
    return block.text.trim() === "" ? [] : [block];
  });
  if (!replaced && block.text.trim() !== "") blocks.push(block);
  const decisions: ViewDecisions = {
    ...inputs.decisions,
    coverage: {
      producer: coverage.producer,
      firstUncovered: extension.firstUncovered,
      ...(extension.provenance ? { provenance: extension.provenance } : {}),
      extend: coverage.extend,
    },
    blocks,
    mode: inputs.decisions.mode ?? (extension.mode === undefined ? undefined : resolvePromptContextMode(extension.mode)),
  };
  return render(request, inputs.thread, inputs.system, decisions);
}

/**
 * `decisions` with `blocks` added (empty ones left out) and the mode, when none was given yet (see
 * {@link addContextBlocks}). A block added after another middleware's token cap is refused
 * ({@link refuseContextInsideCap}): the cap did not count it.
 */
function withBlocks(decisions: ViewDecisions, blocks: readonly ContextBlock[], mode: PromptContextMode | undefined): ViewDecisions {
  const resolved = mode === undefined ? undefined : resolvePromptContextMode(mode);
  const added = blocks.filter((block) => block.text.trim() !== "");
  const cap = added.length > 0 ? capProducer(decisions) : undefined;
  if (cap !== undefined) for (const block of added) if (block.producer !== cap) throw contextInsideCap(block.producer, cap);
  return {
    ...decisions,
    blocks: [...decisions.blocks, ...added],
    mode: decisions.mode ?? resolved,
  };
}

/**
 * The view as decided so far: the kept messages in thread order, without orphans, stored system
 * messages (merged into the system message) or rendered context, replacements applied. What a
 * view-shaping middleware measures and cuts. Equal to the thread when nothing was decided and the
 * thread holds no orphan or system message.
 */
export function viewMessages(request: PlacementRequest): BaseMessage[] {
  return assembledOf(request).view;
}

/**
 * The thread the stack received (`request.messages` before any threadwise decision, rendered
 * context taken off): what a summary covers.
 */
export function threadMessages(request: PlacementRequest): BaseMessage[] {
  return inputsOf(request).thread;
}

/**
 * What `selectView(viewMessages(request), options)` selects (same messages, groups, cost), computed
 * on the thread's index: O(log n) for the cut plus O(view) to build it, and `options.cost` is
 * called only for groups not costed before under `options.costKey` on this thread (spec R2, R3;
 * issue 16). windowTrim and tokenCap cut with it. Falls back to `selectView` over the view when a
 * decision replaced messages (their cost differs from the stored ones'). With `costBefore` (an
 * archived thread's count, see `ArchivedWindow`) and a view decided so far that starts at the
 * thread's first group or at the start rule's first user group, the chunked count starts at
 * `costBefore` on the thread's first group (the groups before that user group are counted, as the
 * whole thread counts them); otherwise `costBefore` is not used.
 */
export function selectViewOf(request: PlacementRequest, options: IndexedViewOptions): ViewSelection {
  const { thread, decisions } = inputsOf(request);
  if (decisions.replacements.length > 0) return selectView(assembledOf(request).view, { ...options, costBefore: undefined });
  return selectOn(request, thread, decisions, indexOf(request, thread), options);
}

/** {@link selectViewOf} on `index`, the index of `thread` as it is now, when no decision replaced messages. */
function selectOn(
  request: PlacementRequest,
  thread: BaseMessage[],
  decisions: ViewDecisions,
  index: ThreadIndex,
  options: IndexedViewOptions,
): ViewSelection {
  // Where the view decided so far starts: the last render's when the request is that render (the
  // system message does not move it), else computed from the decisions without assembling, so a
  // middleware that selects and then states its cut renders the request once, not twice.
  const state = stateOf(request);
  const keptFrom =
    state !== undefined && state.assembled.messages === request.messages && state.thread === thread
      ? state.assembled.report.keptFrom
      : viewKeptFrom(thread, decisions, index);
  const from = candidateAtOrAfter(index, keptFrom);
  if (options.costBefore === undefined) return selectCandidates(index, options, from, false);
  // `costBefore` is counted at the thread's first group, where the whole thread's count goes on:
  // used when the view decided so far starts there or at the first user group after it (the start
  // rule), and left out when a decision moved the view further (it then counts from its start).
  for (let c = 0; c < from; c += 1)
    if ((index.groups[index.candidates[c] as number] as { kind: string }).kind === "user")
      return selectCandidates(index, { ...options, costBefore: undefined }, from, false);
  return selectCandidates(index, options, 0, false);
}

/**
 * A window cut counted in messages, selected and stated in one call: what
 * `withViewDecisions(request, [{ kind: "cut", ...cut, firstKept: selectViewOf(request, options).firstKept }])`
 * gives (the same request, messages, system message and report), with `options.cost` core's
 * {@link groupMessageCount} (the index's message counts: no caller code runs between the selection
 * and the render, so the render uses the index the selection built or checked instead of checking
 * it again). windowTrim cuts with it. `selection`: what `selectViewOf(request, options)` selects.
 * @internal
 */
export function withMessageWindowCut<R extends PlacementRequest>(
  request: R,
  options: Omit<IndexedViewOptions, "cost" | "bounds">,
  cut: { producer: string; limit: number },
): { request: R; selection: ViewSelection } {
  const inputs = inputsOf(request);
  const counted: IndexedViewOptions = { ...options, cost: groupMessageCount, bounds: undefined };
  if (inputs.decisions.replacements.length > 0) {
    const selection = selectViewOf(request, counted);
    return { request: withViewDecisions(request, [windowCut(cut, selection)]), selection };
  }
  const index = indexOf(request, inputs.thread);
  const selection = selectOn(request, inputs.thread, inputs.decisions, index, counted);
  const decisions = addDecision(inputs.decisions, windowCut(cut, selection));
  return { request: render(request, inputs.thread, inputs.system, decisions, index), selection };
}

function windowCut(cut: { producer: string; limit: number }, selection: ViewSelection): ViewDecision {
  return { kind: "cut", producer: cut.producer, reason: "window", firstKept: selection.firstKept, limit: cut.limit };
}

/** The system message without context blocks: system prompt, stored system messages and suffixes. */
export function viewSystemMessage(request: PlacementRequest): SystemMessage {
  return assembledOf(request).system;
}

/** Figures of the view as decided so far (drops, orphans, unsummarized drops, window start). */
export function viewReport(request: PlacementRequest): ViewReport {
  return assembledOf(request).report;
}

/** The stack-wide start rule decided so far ({@link DEFAULT_START_ON}, `"human"`, when none was set). */
export function viewStartOn(request: PlacementRequest): StartOn {
  return inputsOf(request).decisions.startOn?.value ?? DEFAULT_START_ON;
}

/** Decisions stated so far for this request. */
export function viewDecisionsOf(request: PlacementRequest): ViewDecisions {
  return inputsOf(request).decisions;
}

/**
 * Adds context blocks to a model request and returns the new request, rendered by mode (spec R8,
 * R9). Call it from `wrapModelCall` and pass the result to the handler:
 *
 * ```ts
 * wrapModelCall: (request, handler) =>
 *   handler(addContextBlocks(request, [{ kind: "knowledge", producer: "my-rag", label: "Retrieved documents", text }]))
 * ```
 *
 * Every block added in one model call, by any middleware, is rendered together in one
 * deterministic order ({@link sortContextBlocks}), so adding order and middleware order do not
 * change the bytes. Nothing is written into the stored thread: the request is a new object and no
 * message object is mutated. The mode is the first one given explicitly for the request, else
 * env `THREADWISE_PROMPT_CONTEXT_MODE`, else `legacy_system`.
 *
 * @throws ThreadwiseConfigError when `options.mode` is not a known mode.
 */
export function addContextBlocks<R extends PlacementRequest>(
  request: R,
  blocks: readonly ContextBlock[],
  options: { mode?: PromptContextMode } = {},
): R {
  const inputs = inputsOf(request);
  return render(request, inputs.thread, inputs.system, withBlocks(inputs.decisions, blocks, options.mode));
}

/** Blocks added to this request so far. */
export function contextBlocksOf(request: PlacementRequest): readonly ContextBlock[] {
  return stateOf(request)?.decisions.blocks ?? [];
}

/**
 * Replaces the thread the view is made from (decisions are kept and re-applied). For code that
 * computes a list itself; threadwise's middlewares state decisions with {@link withViewDecisions}.
 */
export function withViewMessages<R extends PlacementRequest>(request: R, messages: BaseMessage[]): R {
  const inputs = inputsOf(request);
  return render(request, messages, inputs.system, inputs.decisions);
}

/**
 * Appends `text` to the end of the system prompt (before any rendered context block), e.g. the
 * history note of R7. Keeps content blocks and cache markers as they are.
 */
export function withSystemSuffix<R extends PlacementRequest>(request: R, text: string): R {
  const inputs = inputsOf(request);
  return render(request, inputs.thread, inputs.system, { ...inputs.decisions, systemSuffixes: [...inputs.decisions.systemSuffixes, text] });
}
