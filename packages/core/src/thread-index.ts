import type { BaseMessage } from "@langchain/core/messages";
import { type GroupKind, groupMessages, type MessageGroup } from "./groups.js";
import { isEmptyContent, messageType, toolCallsOf } from "./message-kinds.js";
import { matchMessageShape, recordMessageShape } from "./message-shape.js";
import { storedOriginal } from "./portable-call-ids.js";
import type { SelectViewOptions, ViewSelection } from "./view.js";

/** Where one group of a thread lies; its messages are read from the indexed array. */
export interface GroupSpan {
  kind: GroupKind;
  /** Index of the group's first message. */
  start: number;
  /** Index after the group's last message (exclusive). */
  end: number;
}

/**
 * Positions of one message array's groups, built by {@link indexThread} from that array alone
 * (spec R37): nothing in it comes from another call, another array or another thread, so it is
 * what a fresh process computes. Valid for the array it was built for while that array holds the
 * same message objects holding the same values ({@link ThreadIndex.isFor}; LangGraph's reducers
 * and threadwise's middlewares make new arrays, a caller may still replace a message in place or
 * edit one: its content, a text block's text, a tool call's arguments).
 */
export interface ThreadIndex {
  /** Number of messages indexed. */
  readonly length: number;
  /** Index of the newest message with this id, `-1` when none (a scan from the end: O(distance)). */
  indexOf(id: string): number;
  /** Indexes of the stored `SystemMessage`s, ascending. */
  readonly systemPositions: readonly number[];
  /** Every group of the thread (spec R2, R4), as spans; the same as `groupMessages` gives. */
  readonly groups: readonly GroupSpan[];
  /** Indexes into `groups` of the groups a view may hold (neither `system` nor `orphan`). */
  readonly candidates: readonly number[];
  /** Index into `candidates` of the first protected group (the newest user turn on, see `protectedTailStart`). */
  readonly protectedFrom: number;
  /** Prefix sums of the candidates' message counts: entry `g` is the messages of candidates `0..g-1`. */
  readonly countPrefix: readonly number[];
  /**
   * Prefix sums of `cost` over the candidates (entry `g` = candidates `0..g-1`), cached in this
   * index under `key`: O(n) calls of `cost` the first time, none after. Use one key per cost
   * function (e.g. `tokens:o200k_base`); a different function under the same key gives wrong sums.
   */
  costPrefix(key: string, cost: (group: MessageGroup) => number): readonly number[];
  /** `cost` of candidate `c`, cached in this index under `key` (see {@link ThreadIndex.costPrefix}). */
  costOf(key: string, cost: (group: MessageGroup) => number, c: number): number;
  /** The group at `groups[g]` with its messages taken from the current array. */
  group(g: number): MessageGroup;
  /**
   * Candidate index where chunked eviction starts the view (see `EvictionMode`): the smallest
   * prefix, a multiple of `limit - lowWatermark` in cost, whose removal brings the rest within
   * `budget`. A binary search over {@link ThreadIndex.costPrefix}. With `from`, the same over the
   * candidates from `from` on (costs measured from there, starting at `before`: the cost counted
   * before candidate `from`, see `SelectViewOptions.costBefore`). @default from 0, before 0
   */
  chunkedStart(prefix: readonly number[], budget: number, lowWatermark: number, limit: number, from?: number, before?: number): number;
  /**
   * Message positions outside every candidate group, ascending: stored `SystemMessage`s, orphans,
   * stray results inside a tool_call span. A view from a candidate on is the thread from there
   * with these positions left out.
   */
  readonly excluded: readonly number[];
  /**
   * Positions, ascending, of candidate messages where core's role alternation (step 4 of
   * `assembleView`) may do more than keep the message as it is: an AI message with neither content
   * nor tool calls, a message right after one, a user message right after a user message or a tool
   * result, an AI message right after an AI message without tool calls (neighbours taken in the
   * view of all candidates). Everywhere else a message is handed on unchanged.
   */
  readonly mergePoints: readonly number[];
  /**
   * Positions whose message a view sends as another object: a partly answered parallel call's AI
   * message, sent without its unanswered calls (`MessageGroup.unanswered`, `withoutCalls`), and an
   * AI message whose OpenAI Responses output items call other tools than its `tool_calls`
   * (`responses-output.ts`), a user message holding a blank text block beside other content, sent
   * without it (`sent-copies.ts`).
   */
  readonly substitutes: ReadonlyMap<number, BaseMessage>;
  /**
   * Whether this index describes exactly `messages`: the array it was built for, at the same length,
   * holding the same message objects at every position, each holding the values it held when
   * indexed (type, id, name, content and its blocks, tool calls and their arguments, tool_call_id,
   * additional_kwargs, response_metadata: compared by value, strings by reference first; O(size of
   * those fields), no allocation). An array changed in place (a message replaced by id, one
   * appended or removed) or a message edited in place is not described: its costs, merge points
   * and sent copies may differ, so a new index is built, as a fresh process builds it.
   */
  isFor(messages: readonly BaseMessage[]): boolean;
}

/**
 * The cost of a group in messages (`group.messages.length`), for windows counted in messages
 * (windowTrim, summarize's own window). An index serves it from its message-count prefix sums
 * ({@link ThreadIndex.countPrefix}) whatever the cost key, without building any group.
 */
export function groupMessageCount(group: { messages: readonly unknown[] }): number {
  return group.messages.length;
}

/** The substitutes of an index whose groups hold no copy: shared, and never written. */
const NO_SUBSTITUTES: ReadonlyMap<number, BaseMessage> = new Map();

class Index implements ThreadIndex {
  readonly length: number;
  systemPositions: number[] = [];
  groups: GroupSpan[] = [];
  candidates: number[] = [];
  countPrefix: number[] = [0];
  /** Per cost key: the cost of each candidate, filled on demand (a sparse array); made at the first cost asked. */
  costs: Map<string, number[]> | undefined;
  prefixes: Map<string, number[]> | undefined;
  excluded: number[] = [];
  mergePoints: number[] = [];
  /** {@link NO_SUBSTITUTES} (never written) until a group holds a copy: most threads have none. */
  substitutes: ReadonlyMap<number, BaseMessage> = NO_SUBSTITUTES;
  protectedFrom = 0;
  readonly #messages: readonly BaseMessage[];
  /** The messages of `#messages` when indexed, position by position (see {@link Index.isFor}). */
  readonly #members: readonly BaseMessage[];
  /** What those messages held when indexed, one shape after another (`recordMessageShape`). */
  readonly #shapes: unknown[] = [];

  constructor(messages: readonly BaseMessage[]) {
    this.#messages = messages;
    this.#members = messages.slice();
    this.length = messages.length;
    for (const message of messages) recordMessageShape(message, this.#shapes);
    let previous: RoleKind | undefined;
    let count = 0;
    for (const g of groupMessages(messages)) {
      this.groups.push({ kind: g.kind, start: g.start, end: g.end });
      const at = memberPositions(g, messages);
      this.noteSubstitutes(g, messages, at);
      if (g.kind !== "system" && g.kind !== "orphan") {
        this.candidates.push(this.groups.length - 1);
        count += g.messages.length;
        this.countPrefix.push(count);
        for (let k = 0; k < g.messages.length; k += 1) {
          // After a tool_call group's AI message come its results, then what a tool's Command put between them.
          const member = g.messages[k] as BaseMessage;
          const kind = k === 0 || messageType(member) !== "tool" ? roleKind(member) : "tool";
          if (previous === undefined ? kind === "empty-ai" : mayMerge(previous, kind)) this.mergePoints.push(at(k));
          previous = kind;
        }
      } else {
        // A system group is one stored SystemMessage (groupMessages never puts one in another group).
        if (g.kind === "system") this.systemPositions.push(g.start);
        for (let p = g.start; p < g.end; p += 1) this.excluded.push(p);
      }
    }
    this.protectedFrom = protectedCandidate(this.groups, this.candidates);
  }

  /**
   * Records the positions of `g` whose message the group holds as a copy (a partly answered call,
   * portable call ids). A group's messages are its span's in order, less the strays of a
   * tool_call group (orphans of their own); a copy is told from a stray by what it was copied from.
   */
  private noteSubstitutes(g: MessageGroup, messages: readonly BaseMessage[], at: (k: number) => number): void {
    const members = g.messages;
    if (members[0] === messages[g.start] && (g.kind !== "tool_call" || members.every((m, k) => m === messages[g.start + k]))) return;
    if (g.deferred !== undefined) {
      // Results taken across messages a tool's Command added: sent in the group's order, position by
      // position (the positions of its span less those of duplicate results, orphans of their own).
      for (let k = 0; k < members.length; k += 1) if (members[k] !== messages[at(k)]) this.substitute(at(k), members[k] as BaseMessage);
      return;
    }
    let k = 0;
    for (let p = g.start; p < g.end && k < members.length; p += 1) {
      const m = members[k] as BaseMessage;
      const stored = messages[p] as BaseMessage;
      if (m === stored) k += 1;
      else if (storedOriginal(m) === stored) {
        this.substitute(p, m);
        k += 1;
      }
    }
  }

  /** Records that position `p` is sent as `copy` ({@link ThreadIndex.substitutes}). */
  private substitute(p: number, copy: BaseMessage): void {
    if (this.substitutes === NO_SUBSTITUTES) this.substitutes = new Map();
    (this.substitutes as Map<number, BaseMessage>).set(p, copy);
  }

  isFor(messages: readonly BaseMessage[]): boolean {
    if (this.#messages !== messages || messages.length !== this.length) return false;
    const members = this.#members;
    for (let i = 0; i < members.length; i += 1) if (messages[i] !== members[i]) return false;
    // Every cost, merge point and sent copy was derived from these values: one edited in place
    // (content reassigned, a block's text, a call's arguments) makes the index stale.
    let at = 0;
    for (let i = 0; i < members.length && at >= 0; i += 1) at = matchMessageShape(members[i] as BaseMessage, this.#shapes, at);
    return at === this.#shapes.length;
  }

  indexOf(id: string): number {
    return newestIndexOf(this.#messages, id);
  }

  costOf(key: string, cost: (group: MessageGroup) => number, c: number): number {
    if (cost === groupMessageCount) return (this.countPrefix[c + 1] as number) - (this.countPrefix[c] as number);
    this.costs ??= new Map();
    let costs = this.costs.get(key);
    if (!costs) {
      costs = new Array<number>(this.candidates.length);
      this.costs.set(key, costs);
    }
    let value = costs[c];
    if (value === undefined) {
      value = cost(this.group(this.candidates[c] as number));
      costs[c] = value;
    }
    return value;
  }

  costPrefix(key: string, cost: (group: MessageGroup) => number): readonly number[] {
    if (cost === groupMessageCount) return this.countPrefix;
    this.prefixes ??= new Map();
    let prefix = this.prefixes.get(key);
    if (!prefix) {
      prefix = [0];
      for (let c = 0; c < this.candidates.length; c += 1) prefix.push((prefix[c] as number) + this.costOf(key, cost, c));
      this.prefixes.set(key, prefix);
    }
    return prefix;
  }

  group(g: number): MessageGroup {
    const span = this.groups[g] as GroupSpan;
    const messages = this.#messages;
    if (span.kind === "tool_call" || span.kind === "orphan") {
      // A tool_call group may leave out stray results that sit inside its span: regroup the span.
      const regrouped = groupMessages(messages.slice(span.start, span.end)).find((x) => x.start === 0 && x.kind === span.kind);
      if (regrouped) return { ...regrouped, start: span.start, end: span.end };
    }
    const substitute = this.substitutes.get(span.start);
    const members = messages.slice(span.start, span.end);
    if (substitute) members[0] = substitute;
    return { kind: span.kind, messages: members, start: span.start, end: span.end };
  }

  chunkedStart(prefix: readonly number[], budget: number, lowWatermark: number, limit: number, from = 0, before = 0): number {
    const n = prefix.length - 1;
    // Where the count would start if the cost before `from` were candidates of this thread.
    const base = (prefix[from] as number) - before;
    const total = (prefix[n] as number) - base;
    if (total <= budget) return from;
    const step = Math.max(1, limit - Math.min(lowWatermark, limit - 1));
    const evict = base + Math.ceil((total - budget) / step) * step;
    // Smallest g with prefix[g] >= evict (prefix sums are non-decreasing): the linear scan of
    // view.ts's chunkedStart, as a binary search.
    let lo = from;
    let hi = n;
    if ((prefix[n] as number) < evict) return n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((prefix[mid] as number) >= evict) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}

/** What role alternation needs to know of a candidate message. */
type RoleKind = "human" | "plain-ai" | "empty-ai" | "calls-ai" | "tool" | "other";

function roleKind(message: BaseMessage): RoleKind {
  const type = messageType(message);
  if (type === "human") return "human";
  if (type !== "ai") return "other";
  if (toolCallsOf(message).length > 0) return "calls-ai";
  return isEmptyContent(message.content) ? "empty-ai" : "plain-ai";
}

/** Whether alternation may merge or drop `next` after `previous` (see {@link ThreadIndex.mergePoints}). */
function mayMerge(previous: RoleKind, next: RoleKind): boolean {
  if (next === "empty-ai" || previous === "empty-ai") return true;
  if (next === "human") return previous === "human" || previous === "tool";
  if (next === "plain-ai" || next === "calls-ai") return previous === "plain-ai";
  return false;
}

function protectedCandidate(groups: readonly GroupSpan[], candidates: readonly number[]): number {
  for (let c = candidates.length - 1; c >= 0; c -= 1) if ((groups[candidates[c] as number] as GroupSpan).kind === "user") return c;
  return candidates.length === 0 ? 0 : candidates.length - 1;
}

/**
 * Index in `messages` of the newest message with id `id`, `-1` when none: a scan from the end,
 * O(distance). What `indexThread(messages).indexOf(id)` answers, without checking the array's
 * index against its messages (O(size of every message)) or building one.
 */
export function newestIndexOf(messages: readonly BaseMessage[], id: string): number {
  for (let i = messages.length - 1; i >= 0; i -= 1) if ((messages[i] as BaseMessage).id === id) return i;
  return -1;
}

/** The index of each message array built so far; weak, so it never keeps a thread alive. */
const indexes = new WeakMap<readonly BaseMessage[], Index>();

/**
 * The index of `messages` (spec R2, R4, R37): its groups, candidates, protected tail and the
 * positions a view leaves out, computed from this array alone in O(n) (types and tool call ids; no
 * text is read, nothing is tokenized). Every hook of one model call that asks for the same array
 * gets the same index; costs are computed on demand and kept in it ({@link ThreadIndex.costOf}).
 * Nothing is kept per thread: a process that has never seen the thread, another replica, or the
 * same process after an edit by id, a fork or a re-import computes the same index.
 *
 * @example
 * const index = indexThread(request.state.messages);
 * const view = selectIndexedView(index, { limit: 20, cost: (g) => g.messages.length, costKey: "messages" });
 */
export function indexThread(messages: readonly BaseMessage[]): ThreadIndex {
  let index = indexes.get(messages);
  if (!index?.isFor(messages)) {
    index = new Index(messages);
    indexes.set(messages, index);
  }
  return index;
}

/** Options of {@link selectIndexedView}: those of `selectView`, plus the key its costs are cached under. */
export interface IndexedViewOptions extends SelectViewOptions {
  /** Cache key of `cost` in the index (one per cost function, e.g. `messages` or `tokens:o200k_base`). */
  costKey: string;
  /**
   * Upper bounds of the costs, for the common case where no cut is needed (issue 21, `sliding`
   * eviction only): when `fixed` plus `group` of every candidate (and of the stored system
   * messages in the view) is within `limit`, every candidate is kept without calling `cost`, and
   * the selection's `cost` (with `fixedCost`, read then) is computed only when read. The view is
   * the same as without bounds. `fixed` must be at least `fixedCost` and `group(g)` at least
   * `cost(g)`, e.g. a token counter's `boundMessage` (UTF-8 bytes): O(characters), no tokenizer,
   * nothing cached, so a process that never saw the thread pays what one that did pays.
   * @default undefined (every kept group's cost is computed)
   */
  bounds?: { fixed: number; group: (group: MessageGroup) => number };
}

/**
 * `selectView` over an indexed thread: the same selection (same view, cost, kept groups). With
 * `sliding` eviction the cut walks back from the newest group, so `cost` is called only for the
 * groups of the view and the first one left out (and the stored system messages): O(view),
 * whatever the thread's length; with `chunked`, once per group of the thread. Costs are kept in
 * the index under `costKey` for the other hooks of the same call. `groups` is built on first read
 * (O(n)).
 */
export function selectIndexedView(index: ThreadIndex, options: IndexedViewOptions): ViewSelection {
  return selectCandidates(index, options, 0, true);
}

/**
 * `selectView` over the candidates of `index` from candidate `from` on, with the thread's stored
 * system messages in the view (`withSystems`, as `selectView` over the stored thread keeps them)
 * or not (as over core's view, where they are merged into the system message). Equal to
 * `selectView` of those messages: they regroup into exactly those candidates.
 */
export function selectCandidates(index: ThreadIndex, options: IndexedViewOptions, from: number, withSystems: boolean): ViewSelection {
  const candidates = index.candidates;
  const n = candidates.length;
  const systems = withSystems ? index.systemPositions.map((p) => index.group(groupOfSystem(index, p))) : [];
  // The newest user candidate, when it is in the view; else the view's newest candidate.
  const protectedFrom = index.protectedFrom >= from ? index.protectedFrom : Math.max(from, n - 1);
  const costOf = (c: number) => index.costOf(options.costKey, options.cost, c);
  const sliding = (options.eviction ?? "sliding") !== "chunked";
  // Everything fits by the upper bounds: no cut, and no cost is computed unless read.
  let fitsByBounds = false;
  if (sliding && options.bounds) {
    const { fixed, group } = options.bounds;
    let total = fixed;
    for (const system of systems) total += group(system);
    for (let c = n - 1; c >= from && total <= options.limit; c -= 1) total += group(index.group(candidates[c] as number));
    fitsByBounds = total <= options.limit;
  }
  let fixed = 0;
  let systemCost = 0;
  let first: number;
  if (fitsByBounds) first = from;
  else {
    fixed = options.fixedCost ?? 0;
    for (const group of systems) systemCost += options.cost(group);
    first = walkBack(index, options, from, options.limit - fixed - systemCost, costOf);
  }
  first = Math.min(first, protectedFrom);
  if (options.startOn === "human") {
    while (first < protectedFrom && (index.groups[candidates[first] as number] as GroupSpan).kind !== "user") first += 1;
  }
  let cost: number | undefined;
  const costNow = (): number => {
    if (cost === undefined) {
      if (fitsByBounds) {
        fixed = options.fixedCost ?? 0;
        for (const group of systems) systemCost += options.cost(group);
      }
      let kept = 0;
      for (let c = first; c < n; c += 1) kept += costOf(c);
      cost = fixed + systemCost + kept;
    }
    return cost;
  };
  const overLimit = fitsByBounds ? false : costNow() > options.limit;
  // The kept groups and messages are built on first read (O(view)).
  let keptList: MessageGroup[] | undefined;
  let messages: BaseMessage[] | undefined;
  let all: MessageGroup[] | undefined;
  const keptGroups = (): MessageGroup[] => {
    keptList ??= candidates.slice(first).map((g) => index.group(g));
    return keptList;
  };
  return {
    get messages() {
      messages ??= keptMessages(keptGroups(), systems);
      return messages;
    },
    get kept() {
      return keptGroups();
    },
    firstKept: first < n ? (index.group(candidates[first] as number).messages[0] ?? null) : null,
    get cost() {
      return costNow();
    },
    overLimit,
    droppedGroups: first - from,
    orphanGroups: withSystems ? index.groups.length - n - systems.length : 0,
    get groups() {
      all ??= withSystems ? index.groups.map((_, g) => index.group(g)) : candidates.slice(from).map((g) => index.group(g));
      return all;
    },
  };
}

/**
 * Candidate index where the view starts by `options.eviction` over the candidates from `from` on,
 * within `budget` (the limit less the fixed and stored system costs), before the protected tail
 * and `startOn` are applied.
 */
function walkBack(index: ThreadIndex, options: IndexedViewOptions, from: number, budget: number, costOf: (c: number) => number): number {
  const n = index.candidates.length;
  let first: number;
  if ((options.eviction ?? "sliding") === "chunked") {
    // Chunked cut points are multiples of a step counted from `from`: they need every cost.
    const prefix = index.costPrefix(options.costKey, options.cost);
    first = index.chunkedStart(
      prefix,
      budget,
      options.lowWatermark ?? Math.floor(options.limit / 2),
      options.limit,
      from,
      options.costBefore ?? 0,
    );
  } else {
    // The smallest g whose suffix fits, walked back from the newest candidate: only the groups of
    // the view and the first one left out are costed (O(view), whatever the thread's length).
    let suffix = 0;
    first = n;
    while (first > from) {
      const next = suffix + costOf(first - 1);
      if (next > budget) break;
      suffix = next;
      first -= 1;
    }
  }
  return first;
}

/** The kept groups' messages in thread order, with the stored system messages among them where they lie. */
function keptMessages(kept: readonly MessageGroup[], systems: readonly MessageGroup[]): BaseMessage[] {
  const messages: BaseMessage[] = [];
  let s = 0;
  for (const group of kept) {
    while (s < systems.length && (systems[s] as MessageGroup).start < group.start)
      messages.push(...(systems[s++] as MessageGroup).messages);
    for (const message of group.messages) messages.push(message);
  }
  while (s < systems.length) messages.push(...(systems[s++] as MessageGroup).messages);
  return messages;
}

/** Index into `index.candidates` of the candidate holding thread index `at`, else of the first one after it. */
export function candidateAtOrAfter(index: ThreadIndex, at: number): number {
  const { candidates, groups } = index;
  let lo = 0;
  let hi = candidates.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((groups[candidates[mid] as number] as GroupSpan).end <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Index into `groups` of the system group at message position `p` (binary search on starts). */
function groupOfSystem(index: ThreadIndex, p: number): number {
  const groups = index.groups;
  let lo = 0;
  let hi = groups.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((groups[mid] as GroupSpan).start <= p) lo = mid;
    else hi = mid - 1;
  }
  // Stray orphans inside a tool_call span break the order of starts only inside that span; a
  // system message is never inside one, so the nearest start at or before `p` is its group.
  while (lo > 0 && (groups[lo] as GroupSpan).start !== p) lo -= 1;
  return lo;
}

/**
 * The thread position the k-th message of group `g` is sent at: `g.start + k`, except in a
 * tool_call group whose span also holds results it does not send (duplicates, strays: each an
 * orphan of its own, left out), right after the call or among results taken across other messages
 * (`deferred`): there the span's positions less those of the messages the group does not send.
 */
function memberPositions(g: MessageGroup, messages: readonly BaseMessage[]): (k: number) => number {
  if (g.messages.length === g.end - g.start) return (k) => g.start + k;
  const sent = new Set(g.messages.map((m) => storedOriginal(m)));
  const positions: number[] = [];
  for (let p = g.start; p < g.end; p += 1) if (sent.has(messages[p] as BaseMessage)) positions.push(p);
  return (k) => positions[k] ?? g.start + k;
}
