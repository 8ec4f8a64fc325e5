import { AIMessage, type BaseMessage, type SystemMessage, type ToolMessage } from "@langchain/core/messages";
import { type CompactionBoundary, compactionBoundary } from "./compaction.js";
import type { ContentBlock as Block } from "./message-kinds.js";
import {
  blocksOf,
  isContextMessage,
  isEmptyContent,
  isUserMessage,
  messageType,
  toolCallsOf,
  toolResultIdsOf,
  userMessageWith,
} from "./message-kinds.js";
import {
  appendToSystemMessage,
  type ContextBlock,
  contextMessage,
  type PromptContextMode,
  placeContextBlocks,
  renderContextBlocks,
  resolvePromptContextMode,
  STABLE_TAIL_HEADER,
  systemText,
} from "./placement.js";
import { storedOriginal, withUniqueCallIds } from "./portable-call-ids.js";
import { mergedResponseMetadata } from "./responses-output.js";
import { candidateAtOrAfter, type GroupSpan, indexThread, newestIndexOf, type ThreadIndex } from "./thread-index.js";

/**
 * Where a view may start (spec R4, R33). `"human"`: on a user message, for providers that reject
 * another first role (Bedrock Converse, Gemini, Anthropic). `"any"`: on any group.
 */
export type StartOn = "human" | "any";

/** Accepted values of {@link StartOn}. */
export const START_ON_VALUES: readonly StartOn[] = ["human", "any"];

/**
 * The start rule when no middleware states one: `"human"`, so that a view cut by a window, a cap
 * or a summary starts on a user message, which Anthropic, Gemini and Bedrock Converse require.
 * `startOn: "any"` on the first view-shaping middleware opts out.
 */
export const DEFAULT_START_ON: StartOn = "human";

/**
 * A window or cap boundary: the messages before `firstKept` left the view. `firstKept` is a
 * message of the view the producer saw (`viewMessages(request)`); `null` when that view was empty
 * (the cut is then a no-op). Cuts only ever drop a prefix, so several cuts intersect: the view
 * starts at the latest of them.
 */
export interface ViewCut {
  /** Middleware that decided it (`threadwise/window-trim`). */
  producer: string;
  /**
   * `window`: what the window left out; with a summary in the stack these messages are the ones
   * summarize covers, and the view keeps whatever the summary does not cover yet.
   * `cap`: a hard limit (tokens). Before a cut that drops messages the summary does not cover, a
   * cap asks the summary to cover them (`extendSummaryCoverage`); what it still drops is counted
   * in {@link ViewReport.unsummarizedDropped}.
   */
  reason: "window" | "cap";
  firstKept: BaseMessage | null;
  /** The window's size, in messages, when `reason` is `window` (summarize's period uses it). */
  limit?: number;
}

/** Where the summary placed in a view came from (issue 23): the messages it covers and the passes that built it. */
export interface SummaryProvenance {
  /** Id of the oldest message it covers; `null` when unknown or without id. */
  firstId: string | null;
  /** Id of the newest message it covers; `null` when without id. */
  lastId: string | null;
  /** Non-system messages it covers. */
  count: number;
  /** Summarizer calls (passes) that built it. */
  passes: number;
  /** The passes of its latest update, oldest first. */
  lastPasses: readonly { fromId: string | null; throughId: string | null; messages: number; inputTokens: number }[];
}

/** What the summary covers: every message before `firstUncovered` (`null`: nothing yet). */
export interface SummaryCoverage {
  producer: string;
  /** A message of the thread (`baseMessages(request)`); `null` when the summary covers nothing. */
  firstUncovered: BaseMessage | null;
  /** Where the summary in the prompt came from; `undefined` when none is placed. */
  provenance?: SummaryProvenance;
  /**
   * How the summary covers more when a hard cap must drop messages it does not cover yet (core's
   * `extendSummaryCoverage`, which tokenCap calls); `undefined` when the producer cannot.
   */
  extend?: CoverageExtender;
}

/**
 * What a summary answers when asked to cover more ({@link CoverageExtender}): its new coverage and
 * its block (the same kind and producer as the one it placed, with the new text).
 */
export interface CoverageExtension {
  /** First message of the thread the summary does not cover now; `null` when it covers them all. */
  firstUncovered: BaseMessage | null;
  provenance?: SummaryProvenance;
  /** The summary's context block, replacing the one the producer placed (added when it placed none). */
  block: ContextBlock;
  /** The placement mode the producer gives its blocks (the request's first explicit one still wins). */
  mode?: PromptContextMode;
}

/**
 * Extends a summary's coverage so that every message before `through` (a message of the thread,
 * the first one a cap keeps) is covered, and possibly more (summarize covers at least what left
 * its window). Resolves to `undefined` when nothing was extended (the summarizer failed, or
 * already extended on this model call); never rejects for a summarizer failure (R13).
 */
export type CoverageExtender = (through: BaseMessage) => Promise<CoverageExtension | undefined>;

/** A message shown in the view in another form (a shortened tool result); same id, same role. */
export interface ViewReplacement {
  producer: string;
  original: BaseMessage;
  replacement: BaseMessage;
}

/**
 * Everything the middlewares of one model call decided about the view. Plain data: the view is a
 * pure function of (thread, system message, decisions), see {@link assembleView}.
 */
export interface ViewDecisions {
  /** The stack-wide start rule; the first middleware that sets one explicitly wins. @default {@link DEFAULT_START_ON} (`"human"`) */
  startOn?: { value: StartOn; producer: string };
  cuts: readonly ViewCut[];
  /** The summary's coverage; at most one summary per stack. */
  coverage?: SummaryCoverage;
  replacements: readonly ViewReplacement[];
  /** Context blocks (spec R8, R9), rendered in {@link sortContextBlocks} order. */
  blocks: readonly ContextBlock[];
  /** Placement mode: the first one given explicitly, else env, else `legacy_system`. */
  mode?: PromptContextMode;
  /** Text appended to the system prompt before any block (the R7 note). */
  systemSuffixes: readonly string[];
}

/** Decisions of a request nothing has decided about yet. */
export const EMPTY_DECISIONS: ViewDecisions = { cuts: [], replacements: [], blocks: [], systemSuffixes: [] };

/** Figures of one assembled view, for the multiturn line and benches. */
export interface ViewReport {
  /** Messages of the thread the view was made from. */
  threadMessages: number;
  /** Messages handed to the model (the system message not counted). */
  sentMessages: number;
  /** Index (into the thread) of the first message kept; the thread's length when none is. */
  keptFrom: number;
  /** Non-orphan, non-system groups before `keptFrom`. */
  droppedGroups: number;
  /** Orphan groups of the whole thread, never sent (spec R4). */
  orphanGroups: number;
  /** Stored `SystemMessage`s merged into the one leading system message. */
  mergedSystemMessages: number;
  /**
   * Messages neither in the view nor covered by the summary: dropped by a `cap` cut (tokenCap) or
   * by the start rule past the summary's coverage. `undefined` when no summary is in the stack.
   */
  unsummarizedDropped: number | undefined;
  /** Index (into the thread) where the window starts after the start rule; `undefined` without a window cut. */
  windowFrom: number | undefined;
  /** The smallest window limit stated, in messages. */
  windowLimit: number | undefined;
  /** The start rule applied. */
  startOn: StartOn;
  /** The stable_tail context text put on the newest user message ("" when none). */
  tailContext: string;
  /** Provenance of the summary in the prompt (the coverage decision's), `undefined` when none is placed. */
  summary: SummaryProvenance | undefined;
  /**
   * The provider compaction the view keeps (core `compactionBoundary`), `undefined` when the
   * thread holds none: `pinned` when the view starts after it and it is sent ahead of the view
   * (with the user message of its turn), `false` when the view holds it anyway. `pinnedMessages`:
   * how many messages at the front of `view` are sent that way (0 when not pinned), so a cap can
   * count them as a fixed cost.
   */
  compaction: (CompactionBoundary & { pinned: boolean; pinnedMessages: number }) | undefined;
}

/** The view of one model call: what goes to the model, and what middlewares compute on. */
export interface AssembledView {
  /** The messages handed to the model: no system message, no orphan, roles alternating. */
  messages: BaseMessage[];
  /** The one system message: system prompt, stored system messages, suffixes, legacy_system blocks. */
  systemMessage: SystemMessage;
  /** The kept messages before role merging and context rendering (replacements applied): `viewMessages`. */
  view: BaseMessage[];
  /** The system message without context blocks: `viewSystemMessage`. */
  system: SystemMessage;
  report: ViewReport;
}

/**
 * Turns what the middlewares decided into the request handed to the model (spec R2-R4, R8, R33).
 * The one place in threadwise that builds a final message list. Pure: the same inputs give the
 * same output; nothing is mutated; changed messages are new objects with the same id.
 *
 * Steps:
 * 1. Group the thread (core `groupMessages`). Orphans never go in: stored ones, calls a cut or a
 *    rejection left without results, duplicated results.
 * 2. Start: with a summary coverage, the first uncovered group (the view is what the summary
 *    does not cover; window cuts only told summarize what to cover); without, the latest window
 *    cut. Then the latest `cap` cut, never past the protected tail (the newest user message and
 *    the run in progress), then forward to a user group when `startOn` is `"human"`.
 * 3. Replacements (shortened tool results) are applied.
 * 4. Roles: runs of user messages (left by an unanswered turn or a dropped orphan) become one user
 *    message with all their content blocks; a plain AI message followed by another AI message
 *    becomes one AI message; an AI message with no content and no tool calls is left out; tool
 *    results followed directly by a user message (a run that stopped before its reply) get the AI
 *    message {@link NO_REPLY_TEXT} between them. Every provider then sees alternating turns
 *    (Bedrock Converse and Gemini require it).
 * 5. One system message leads: the system prompt, then the stored `SystemMessage`s in thread
 *    order, then the suffixes (R7), then the head context blocks (R8: all of them in
 *    `legacy_system`, the summary in `cache_aware`).
 * 6. The tail context blocks (all in `stable_tail`, the per-message kinds in `cache_aware`) become
 *    one extra text block at the end of the newest user message, in the request only (a separate
 *    message would make two user turns in a row). With no user message in the view they are a
 *    user message of their own: at the end, or, when the view ends on tool results, at the start.
 */
export function assembleView(
  thread: readonly BaseMessage[],
  systemMessage: SystemMessage,
  decisions: ViewDecisions,
  index?: ThreadIndex,
): AssembledView {
  return assembleWith(thread, systemMessage, decisions, index?.isFor(thread) ? index : indexThread(thread), undefined);
}

/**
 * {@link assembleView}, reusing the system part (steps 5 and 6's text) of `reuseSystemOf`: an
 * assembly of the same thread array, system message object, system suffixes, blocks and mode
 * (the caller checks; core's `render` does, when a decision changed only the messages). The
 * system messages are then the same objects, so a layer that changed only the cut hands on the
 * system message it received. `ix` is the index of `thread` as it is now: built for it, or checked
 * with `isFor` with no code but core's run since (a message edited in place after that check would
 * be assembled as it read then), so each render walks the thread's messages once.
 * @internal
 */
export function assembleWith(
  thread: readonly BaseMessage[],
  systemMessage: SystemMessage,
  decisions: ViewDecisions,
  ix: ThreadIndex,
  reuseSystemOf: AssembledView | undefined,
): AssembledView {
  const spans = ix.groups;
  const n = ix.candidates.length;
  const { start, pinned, compaction, unsummarizedDropped, windowStart, windowLimit, startOn, toUser, protectedFrom } = viewStart(
    thread,
    ix,
    decisions,
  );
  const replacementOf = new Map<BaseMessage, BaseMessage>();
  for (const r of decisions.replacements) replacementOf.set(r.original, r.replacement);

  const from = startIndex(ix, start, thread);
  let view = viewFrom(thread, ix, from);
  if (pinned.length > 0) {
    const ahead = pinned.flatMap((c) => candidateMessages(thread, ix, c));
    view = [...ahead, ...view];
    if (compaction) compaction.pinnedMessages = ahead.length;
  }
  let messages: BaseMessage[];
  if (replacementOf.size > 0 || pinned.length > 0) {
    view = view.map((message) => replacementOf.get(message) ?? message);
    messages = sentMessages(view);
  } else messages = withUniqueCallIds(alternateFrom(view, ix, from));

  const { system, rendered, tailText } = reuseSystemOf ? systemPartOf(reuseSystemOf) : assembleSystem(thread, ix, systemMessage, decisions);
  // Never the stored thread's own array: it is the state's `messages` (LangChain hands the model
  // node's state on as the request's list), and a middleware inside the stack may edit the list it
  // is handed in place (LangChain's contextEditingMiddleware splices it), which then reached the
  // checkpoint with the next step (langchain#37815).
  if (messages === thread) messages = messages.slice();
  let tailContext = "";
  if (tailText !== "") {
    // The tail block goes on a copy: `messages` may be the view itself.
    if (messages === view) messages = messages.slice();
    tailContext = attachTailContext(messages, `${STABLE_TAIL_HEADER}\n\n${tailText}`);
  }
  const windowFrom = windowStart === undefined ? undefined : startIndex(ix, toUser(Math.min(windowStart, protectedFrom)), thread);
  const assembled: AssembledView = {
    messages,
    systemMessage: rendered,
    view,
    system,
    report: {
      threadMessages: thread.length,
      sentMessages: messages.length,
      keptFrom: from,
      droppedGroups: start - pinned.length,
      orphanGroups: spans.length - n - ix.systemPositions.length,
      mergedSystemMessages: ix.systemPositions.length,
      unsummarizedDropped,
      windowFrom,
      windowLimit,
      startOn,
      tailContext,
      compaction,
      summary: decisions.coverage?.provenance,
    },
  };
  systemParts.set(assembled, { system, rendered, tailText });
  return assembled;
}

/** Where the view of {@link assembleWith} starts (steps 1-2), and what the report says about it. */
interface ViewStart {
  /** Candidate index of the view's first group (pinned groups not counted). */
  start: number;
  /** Candidates sent ahead of the view (a provider compaction's turn), in order. */
  pinned: number[];
  compaction: ViewReport["compaction"];
  unsummarizedDropped: number | undefined;
  /** Candidate index of the latest window cut, before the start rule. */
  windowStart: number | undefined;
  windowLimit: number | undefined;
  startOn: StartOn;
  /** Moves a candidate index forward to a user group under `startOn: "human"` (never into the protected tail). */
  toUser: (g: number) => number;
  protectedFrom: number;
}

/**
 * Steps 1 and 2 of {@link assembleView}: the candidate the view starts at, from the cuts, the
 * coverage, the start rule and a provider compaction. O(log n + decisions) on the thread's index;
 * no message is built. {@link viewKeptFrom} and {@link assembleWith} share it, so a selection made
 * before assembling sees the start the assembly will use.
 */
function viewStart(thread: readonly BaseMessage[], ix: ThreadIndex, decisions: ViewDecisions): ViewStart {
  const spans = ix.groups;
  const candidates = ix.candidates;
  const n = candidates.length;
  const kindOf = (c: number): GroupSpan["kind"] => (spans[candidates[c] as number] as GroupSpan).kind;
  const protectedFrom = n === 0 ? 0 : ix.protectedFrom;
  const originals = new Map<BaseMessage, BaseMessage>();
  for (const r of decisions.replacements) originals.set(r.replacement, r.original);
  const locate = (message: BaseMessage | null): number | undefined => {
    if (message === null) return undefined;
    const at = indexInThread(thread, ix, originals.get(message) ?? message);
    return at === undefined ? undefined : candidateAtOrAfter(ix, at);
  };
  const startOn: StartOn = decisions.startOn?.value ?? DEFAULT_START_ON;
  const toUser = (g: number): number => {
    let at = g;
    if (startOn === "human") while (at < protectedFrom && kindOf(at) !== "user") at += 1;
    return at;
  };

  let windowStart: number | undefined;
  let windowLimit: number | undefined;
  let capStart = 0;
  for (const cut of decisions.cuts) {
    const g = locate(cut.firstKept);
    if (g === undefined) continue;
    if (cut.reason === "cap") capStart = Math.max(capStart, g);
    else {
      windowStart = Math.max(windowStart ?? 0, g);
      if (cut.limit !== undefined) windowLimit = Math.min(windowLimit ?? cut.limit, cut.limit);
    }
  }
  let coverStart = decisions.coverage ? (locate(decisions.coverage.firstUncovered) ?? 0) : undefined;
  let start = coverStart ?? windowStart ?? 0;
  start = toUser(Math.min(Math.max(start, capStart), protectedFrom));

  // A provider compaction (an Anthropic `compaction` block) is the provider's summary of what
  // precedes it: nothing before its turn is sent, and it is never left out of a view. When the
  // view starts after it, it goes ahead of the view with the user message of its turn (the first
  // message must be a user one), and what lies between is the summary's to cover.
  const boundary = compactionBoundary(thread);
  let pinned: number[] = [];
  let compaction: ViewReport["compaction"];
  if (boundary) {
    const g = candidateAtOrAfter(ix, boundary.at);
    if (g < n && startIndex(ix, g, thread) === boundary.at) {
      let turn = g;
      if (startOn === "human") while (turn > 0 && kindOf(turn) !== "user") turn -= 1;
      if (startOn === "human" && kindOf(turn) !== "user") turn = g;
      if (start <= g) start = Math.max(start, turn);
      else pinned = turn === g ? [g] : [turn, g];
      if (coverStart !== undefined) coverStart = Math.max(coverStart, g + 1);
      compaction = { ...boundary, pinned: pinned.length > 0, pinnedMessages: 0 };
    }
  }
  let unsummarizedDropped: number | undefined;
  if (coverStart !== undefined)
    unsummarizedDropped = start > coverStart ? (ix.countPrefix[start] as number) - (ix.countPrefix[coverStart] as number) : 0;

  return { start, pinned, compaction, unsummarizedDropped, windowStart, windowLimit, startOn, toUser, protectedFrom };
}

/**
 * `assembleView(thread, system, decisions, index).report.keptFrom` without assembling: the thread
 * index of the view's first message. Same start as the assembly ({@link viewStart}), so a
 * middleware may select on the view before any request is rendered. `ix` is the index of
 * `thread` as it is now, as for {@link assembleWith}.
 * @internal
 */
export function viewKeptFrom(thread: readonly BaseMessage[], decisions: ViewDecisions, ix: ThreadIndex): number {
  return startIndex(ix, viewStart(thread, ix, decisions).start, thread);
}

/** The system part of an assembly: the system message without and with head blocks, and the tail blocks' text. */
interface SystemPart {
  system: SystemMessage;
  rendered: SystemMessage;
  tailText: string;
}

// By the assembly it was made with: an assembly is returned once and its parts never change after.
const systemParts = new WeakMap<AssembledView, SystemPart>();

function systemPartOf(previous: AssembledView): SystemPart {
  return systemParts.get(previous) ?? { system: previous.system, rendered: previous.systemMessage, tailText: "" };
}

/** Step 5 of {@link assembleView}, and the text of the tail blocks for step 6. */
function assembleSystem(
  thread: readonly BaseMessage[],
  ix: ThreadIndex,
  systemMessage: SystemMessage,
  decisions: ViewDecisions,
): SystemPart {
  let system = systemMessage;
  for (const p of ix.systemPositions) system = appendToSystemMessage(system, systemText(thread[p] as SystemMessage));
  for (const suffix of decisions.systemSuffixes) system = appendToSystemMessage(system, suffix);
  // The mode is resolved (an env value that is no mode is refused) whether or not there are blocks to place.
  const mode = decisions.mode ?? resolvePromptContextMode();
  if (decisions.blocks.length === 0) return { system, rendered: system, tailText: "" };
  const placed = placeContextBlocks(decisions.blocks, mode);
  const headText = renderContextBlocks(placed.head);
  const tailText = renderContextBlocks(placed.tail);
  return { system, rendered: headText === "" ? system : appendToSystemMessage(system, headText), tailText };
}

/** Thread index of candidate `c`'s first message; the thread's length past the last candidate. */
function startIndex(ix: ThreadIndex, c: number, thread: readonly BaseMessage[]): number {
  const g = ix.candidates[c];
  return g === undefined ? thread.length : (ix.groups[g] as GroupSpan).start;
}

/**
 * The candidate messages from thread index `from` on (a candidate's start): the thread less
 * excluded positions, with the index's substitutes (partly answered calls) in place.
 */
function viewFrom(thread: readonly BaseMessage[], ix: ThreadIndex, from: number): BaseMessage[] {
  const excluded = ix.excluded;
  let e = firstAtOrAfter(excluded, from);
  const substitutes = ix.substitutes;
  let substituted = false;
  for (const at of substitutes.keys()) if (at >= from) substituted = true;
  if (e === excluded.length && !substituted) return from === 0 ? (thread as BaseMessage[]) : thread.slice(from);
  const out: BaseMessage[] = [];
  for (let i = from; i < thread.length; i += 1) {
    if (i === excluded[e]) {
      e += 1;
      continue;
    }
    out.push(substitutes.get(i) ?? (thread[i] as BaseMessage));
  }
  return out;
}

/** The messages of candidate `c` as a view holds them (excluded positions left out, substitutes in place). */
function candidateMessages(thread: readonly BaseMessage[], ix: ThreadIndex, c: number): BaseMessage[] {
  const span = ix.groups[ix.candidates[c] as number] as GroupSpan;
  const excluded = ix.excluded;
  let e = firstAtOrAfter(excluded, span.start);
  const out: BaseMessage[] = [];
  for (let i = span.start; i < span.end; i += 1) {
    if (i === excluded[e]) {
      e += 1;
      continue;
    }
    out.push(ix.substitutes.get(i) ?? (thread[i] as BaseMessage));
  }
  return out;
}

/**
 * {@link alternateRoles} of the view that starts at thread index `from`, doing the role checks
 * only where the index says alternation may change something ({@link ThreadIndex.mergePoints})
 * and at the first message; every other message is handed on as it is. Returns `view` itself
 * when nothing changes.
 */
function alternateFrom(view: BaseMessage[], ix: ThreadIndex, from: number): BaseMessage[] {
  const points = ix.mergePoints;
  let m = firstAtOrAfter(points, from + 1);
  const first = view[0];
  const firstDropped =
    first !== undefined && messageType(first) === "ai" && toolCallsOf(first).length === 0 && isEmptyContent(first.content);
  if (m === points.length && !firstDropped) return view;
  // View position of a thread index: its distance from `from` less the excluded positions between.
  const excluded = ix.excluded;
  const e0 = firstAtOrAfter(excluded, from);
  const viewPosition = (p: number) => p - from - (firstAtOrAfter(excluded, p) - e0);
  const out: BaseMessage[] = [];
  let k = 0;
  if (first !== undefined) {
    alternateStep(out, first);
    k = 1;
  }
  for (; m < points.length; m += 1) {
    const v = viewPosition(points[m] as number);
    for (; k < v; k += 1) out.push(view[k] as BaseMessage);
    alternateStep(out, view[v] as BaseMessage);
    k = v + 1;
  }
  for (; k < view.length; k += 1) out.push(view[k] as BaseMessage);
  return out;
}

/** Index of the first entry of an ascending list that is at least `value`. */
function firstAtOrAfter(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Index of `message` in the thread: by id through the index, else by object from the end (views
 * are near the end). A copy a view sends in place of a stored message (a group's substitute, read
 * by a middleware from the view) is found as the message it was made from, with or without an id.
 */
function indexInThread(thread: readonly BaseMessage[], ix: ThreadIndex, sent: BaseMessage): number | undefined {
  const message = storedOriginal(sent);
  if (typeof message.id === "string" && message.id !== "") {
    const at = ix.indexOf(message.id);
    if (at !== -1 && thread[at] === message) return at;
  }
  const at = thread.lastIndexOf(message);
  if (at !== -1) return at;
  if (typeof message.id !== "string" || message.id === "") return undefined;
  const newest = newestIndexOf(thread, message.id);
  return newest === -1 ? undefined : newest;
}

/**
 * The messages a request sends for `view` (a view's messages in thread order, as `viewMessages` or
 * a selection of core's groups gives them, replacements applied): roles alternated
 * ({@link alternateRoles}, step 4) and every tool call id unique across the request (a call id an
 * earlier AI message of the request used is sent renamed, `withUniqueCallIds`; Anthropic: `tool_use
 * ids must be unique`). No context is placed. The one copy of what {@link assembleView} does to a
 * view after choosing it (its indexed path, `alternateFrom`, alternates the same way), so a token
 * budget that selects without assembling (tokenCap's `capMessages`) counts what would be sent
 * (`request-tokens.ts`). The view itself when nothing changes.
 */
export function sentMessages(view: readonly BaseMessage[]): BaseMessage[] {
  return withUniqueCallIds(alternateRoles(view));
}

/**
 * Merges what providers would see as two turns of one role in a row (step 4 of
 * {@link assembleView}). The input holds whole groups, so an AI message with tool calls is always
 * followed by its results.
 */
export function alternateRoles(view: readonly BaseMessage[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (const message of view) alternateStep(out, message);
  return out;
}

/** One message of {@link alternateRoles}: dropped, merged into `out`'s last message, or appended. */
function alternateStep(out: BaseMessage[], message: BaseMessage): void {
  const type = messageType(message);
  if (type === "ai" && toolCallsOf(message).length === 0 && isEmptyContent(message.content)) return;
  const previous = out[out.length - 1];
  const previousType = previous ? messageType(previous) : "";
  if (previous && type === "human" && previousType === "human") {
    const merged = userMessageWith(message, joinContent(previous.content, message.content));
    // Two speakers' words (a group chat's users): under one's name the other's would be attributed to it.
    if (previous.name !== message.name) merged.name = undefined;
    out[out.length - 1] = merged;
  } else if (previous && type === "ai" && previousType === "ai" && toolCallsOf(previous).length === 0) {
    out[out.length - 1] = mergeAi(previous as AIMessage, message as AIMessage);
  } else {
    // Tool results no reply followed, then a user message: a run that stopped after its tools
    // (recursionLimit, a failed model call, an abort, a fork from after the tools node), a partly
    // answered parallel call, a call and result a middleware put before the user message. Not
    // before a user message of `tool_result` blocks: more results of the same call (Anthropic's
    // native format), which Anthropic takes in the same user turn.
    if (previous && type === "human" && previousType === "tool" && toolResultIdsOf(message).length === 0)
      out.push(noReplyMessage(previous as ToolMessage));
    out.push(message);
  }
}

/**
 * The text of the AI message core puts between tool results and a user message that follows them
 * directly (step 4 of {@link assembleView}). Bedrock Converse refuses a user message right after
 * tool results: `@langchain/aws` sends both as `user` turns and merges only runs of results, and
 * Converse requires alternating roles. Says only that no reply came, true whatever stopped it.
 */
export const NO_REPLY_TEXT = "(No reply was given to these tool results.)";

/** Id prefix of the messages made by {@link noReplyMessage}: `threadwise-no-reply-<tool message id, else its tool_call_id>`. */
export const NO_REPLY_ID_PREFIX = "threadwise-no-reply-";

/**
 * The AI message sent after `lastResult`, the last of tool results no reply followed: text
 * {@link NO_REPLY_TEXT}, id from the result's id (its `tool_call_id` when it has none), so a
 * fresh process sends the same. In the request only, never stored.
 */
function noReplyMessage(lastResult: ToolMessage): AIMessage {
  const key = typeof lastResult.id === "string" && lastResult.id !== "" ? lastResult.id : lastResult.tool_call_id;
  return new AIMessage({ id: `${NO_REPLY_ID_PREFIX}${key}`, content: NO_REPLY_TEXT });
}

/** Whether `message` is an AI message core put after tool results no reply followed ({@link NO_REPLY_TEXT}). */
export function isNoReplyMessage(message: BaseMessage): boolean {
  return typeof message.id === "string" && message.id.startsWith(NO_REPLY_ID_PREFIX) && messageType(message) === "ai";
}

function fieldsOf(message: BaseMessage) {
  return { id: message.id, name: message.name, additional_kwargs: message.additional_kwargs, response_metadata: message.response_metadata };
}

/**
 * Content of two messages as one: strings joined with a blank line; otherwise the blocks of both,
 * the second's first text block starting with a blank line, so that a provider that concatenates
 * text blocks does not glue two turns into one sentence.
 */
function joinContent(a: unknown, b: unknown): string | Block[] {
  if (typeof a === "string" && typeof b === "string") return [a, b].filter((text) => text !== "").join("\n\n");
  const first = blocksOf(a);
  const second = blocksOf(b);
  const head = second[0];
  if (first.length > 0 && head?.type === "text") second[0] = { ...head, text: `\n\n${String(head.text ?? "")}` };
  return [...first, ...second];
}

/**
 * Two AI messages sent as one: the second's id and fields, both contents, the second's calls. The
 * `name` only when both had it: one agent's words under another's name (a supervisor's agents)
 * would be attributed to it, and OpenAI sends the name. When the second opens with Anthropic
 * thinking blocks and the first does not, those blocks open the merged message: with thinking on,
 * Anthropic refuses a final assistant message that does not start with one ("Expected `thinking`
 * or `redacted_thinking`, but found `text`"), and the merged message is the final one when its
 * calls' results end the request (another agent's answer right before a thinking model's calls:
 * agents run in sequence on one thread).
 */
function mergeAi(first: AIMessage, second: AIMessage): AIMessage {
  const lead = leadingThinking(second.content);
  const content =
    lead > 0 && leadingThinking(first.content) === 0
      ? [...blocksOf(second.content).slice(0, lead), ...blocksOf(joinContent(first.content, blocksOf(second.content).slice(lead)))]
      : joinContent(first.content, second.content);
  return new AIMessage({
    ...fieldsOf(second),
    name: first.name === second.name ? second.name : undefined,
    // OpenAI Responses sends stored output items in place of content: keep both messages' items.
    response_metadata: mergedResponseMetadata(first, second) as never,
    content: content as never,
    tool_calls: second.tool_calls,
    invalid_tool_calls: second.invalid_tool_calls,
    usage_metadata: second.usage_metadata,
  });
}

/** How many Anthropic thinking blocks (`thinking`, `redacted_thinking`) open `content`. */
function leadingThinking(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const block of content as Array<Block | string>) {
    if (typeof block === "string" || (block?.type !== "thinking" && block?.type !== "redacted_thinking")) break;
    n += 1;
  }
  return n;
}

/**
 * Puts the stable_tail context on the newest real user message (core's {@link isUserMessage}) as
 * one more text block (in place on `messages`); returns the text as placed. Not on a user message
 * of only `tool_result` blocks (Anthropic's native tool loop): as with ToolMessages, the context
 * stays on the user's words through the loop, so the prefix up to them is the same on each of its
 * calls (on the newest carrier, it moved at every step and the prompt cache missed from the
 * user's message on).
 */
function attachTailContext(messages: BaseMessage[], text: string): string {
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message = messages[i] as BaseMessage;
    if (!isUserMessage(message)) continue;
    const content = joinContent(blocksOf(message.content), [{ type: "text", text }]) as Block[];
    messages[i] = userMessageWith(message, content);
    return String(content[content.length - 1]?.text ?? text);
  }
  // No user message: the context is a user message of its own. After tool results (a ToolMessage,
  // or a user message of only `tool_result` blocks) it would be a second user turn in a row, which
  // Bedrock Converse refuses (its tool results are a user turn), on a view that opens on an AI
  // message, which Anthropic, Gemini and Bedrock refuse: it opens the view instead (stack.edits.slow
  // seed 528 case 17, a tool loop re-imported with no user turn).
  const last = messages.at(-1);
  if (last !== undefined && (messageType(last) === "tool" || messageType(last) === "human")) messages.unshift(contextMessage(text));
  else messages.push(contextMessage(text));
  return text;
}

/**
 * A user message without the stable_tail context block threadwise put on it (the same object when
 * there is none). Used when a middleware that is not threadwise's changed a rendered request.
 */
export function withoutTailContext(message: BaseMessage): BaseMessage {
  if (messageType(message) !== "human" || !Array.isArray(message.content)) return message;
  const blocks = message.content as Block[];
  const last = blocks[blocks.length - 1];
  const text = last?.type === "text" ? String(last.text ?? "").trimStart() : "";
  if (!text.startsWith(STABLE_TAIL_HEADER)) return message;
  const rest = blocks.slice(0, -1);
  // One plain text block left: the string it was made from (what the stored message holds).
  const only = rest.length === 1 ? rest[0] : undefined;
  const plain = only?.type === "text" && Object.keys(only).length === 2 ? String(only.text ?? "") : undefined;
  return userMessageWith(message, plain ?? rest);
}

/**
 * The stable_tail context text threadwise put on a message of a request (the block that starts
 * with {@link STABLE_TAIL_HEADER}, or a whole context message), `undefined` when it carries none.
 * For tests and tools that inspect what the model received.
 */
export function tailContextOf(message: BaseMessage): string | undefined {
  if (isContextMessage(message)) return typeof message.content === "string" ? message.content : undefined;
  if (messageType(message) !== "human" || !Array.isArray(message.content)) return undefined;
  const last = (message.content as Block[])[message.content.length - 1];
  const text = last && last.type === "text" ? String(last.text ?? "").trimStart() : "";
  return text.startsWith(STABLE_TAIL_HEADER) ? text : undefined;
}
