import type { BaseMessage } from "@langchain/core/messages";
import { type GroupKind, groupMessages, isEmptyContent, type MessageGroup, messageType, toolCallsOf } from "./groups.js";
import type { SelectViewOptions, ViewSelection } from "./view.js";

/** Default bound on the threads a {@link ViewMemo} keeps, least recently used out first. */
export const VIEW_MEMO_THREADS = 1_000;

/** Where one group of a stored thread lies; its messages are read from the current array. */
export interface GroupSpan {
  kind: GroupKind;
  /** Index of the group's first message. */
  start: number;
  /** Index after the group's last message (exclusive). */
  end: number;
}

/** How a {@link ThreadIndex} came from the previous call on the same thread. */
export type IndexReuse =
  /** First call on the thread (or no thread id): indexed from scratch. */
  | "new"
  /** Same thread, same or more messages, the indexed part unchanged: only the new tail indexed. */
  | "extended"
  /** Same thread, fewer messages, the rest unchanged (time travel to an older checkpoint): cut back. */
  | "truncated"
  /** The indexed part changed (a deletion, persistTrim, `RemoveMessage`, a rewrite): indexed again. */
  | "rebuilt";

/**
 * Positions and prefix sums of one stored thread, kept between model calls so a hook does O(new
 * messages) work instead of O(thread). Built by {@link ViewMemo.index}; valid for the message array
 * it was returned for, until the next call on that thread.
 */
export interface ThreadIndex {
  /** Number of stored messages indexed. */
  readonly length: number;
  /** How this index came from the previous one. */
  readonly reuse: IndexReuse;
  /** Index of the first message not indexed by the previous call (`0` unless `reuse` is `extended`). */
  readonly newFrom: number;
  /** Index of the message with this id, `-1` when none. */
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
   * Prefix sums of `cost` over the candidates (entry `g` = candidates `0..g-1`), cached under `key`:
   * only candidates not costed by an earlier call on this thread are passed to `cost`. Use one key
   * per cost function (e.g. `tokens:o200k_base`); a different function under the same key gives
   * wrong sums.
   */
  costPrefix(key: string, cost: (group: MessageGroup) => number): readonly number[];
  /** The group at `groups[g]` with its messages taken from the current array. */
  group(g: number): MessageGroup;
  /**
   * Candidate index where chunked eviction starts the view (see `EvictionMode`): the smallest
   * prefix, a multiple of `limit - lowWatermark` in cost, whose removal brings the rest within
   * `budget`. A binary search over {@link ThreadIndex.costPrefix}. With `from`, the same over the
   * candidates from `from` on (costs measured from there). @default from 0
   */
  chunkedStart(prefix: readonly number[], budget: number, lowWatermark: number, limit: number, from?: number): number;
  /**
   * Message positions outside every candidate group, ascending: stored `SystemMessage`s, orphans,
   * stray results inside a tool_call span. A view from a candidate on is the thread from there
   * with these positions left out.
   */
  readonly excluded: readonly number[];
  /**
   * Positions, ascending, of candidate messages where core's role alternation (step 4 of
   * `assembleView`) may do more than keep the message as it is: an AI message with neither content
   * nor tool calls, a message right after one, a user message right after a user message, an AI
   * message right after an AI message without tool calls (neighbours taken in the view of all
   * candidates). Everywhere else a message is handed on unchanged.
   */
  readonly mergePoints: readonly number[];
  /** Whether this index describes exactly `messages` (the array it was last built or validated for). */
  isFor(messages: readonly BaseMessage[]): boolean;
  /** Estimated bytes this index holds (ids, positions, groups, prefix sums). */
  readonly estimatedBytes: number;
}

/** Options of {@link ViewMemo}. */
export interface ViewMemoOptions {
  /** Most threads kept; the least recently used is dropped beyond it. @default 1000 */
  maxThreads?: number;
}

/** Stable identity of a stored message for validation: its id, or its type and text length. */
function fingerprint(message: BaseMessage): string {
  if (typeof message.id === "string" && message.id !== "") return message.id;
  const content = message.content;
  return `~${messageType(message)}:${typeof content === "string" ? content.length : JSON.stringify(content ?? "").length}`;
}

/**
 * A 32-bit sketch of what grouping and costs read from a message, checked with its id: the type,
 * the ids of its tool calls (or the call a result answers), and its content's length and first,
 * middle and last characters. A thread begun again under the same `thread_id` and message ids, or
 * a message sent again under its own id with other text, then fails validation at a checked
 * position and the index is rebuilt.
 */
function shapeOf(message: BaseMessage): number {
  let hash = 0x811c9dc5;
  const mix = (value: number) => {
    hash = Math.imul(hash ^ value, 0x01000193);
  };
  const text = (value: string) => {
    mix(value.length);
    for (let i = 0; i < value.length; i += 1) mix(value.charCodeAt(i));
  };
  text(messageType(message));
  for (const call of toolCallsOf(message)) text(call.id ?? "");
  const callId = (message as { tool_call_id?: unknown }).tool_call_id;
  if (typeof callId === "string") text(callId);
  const content = message.content as unknown;
  const sketch = (value: string) => {
    mix(value.length);
    if (value.length > 0) {
      mix(value.charCodeAt(0));
      mix(value.charCodeAt(value.length >> 1));
      mix(value.charCodeAt(value.length - 1));
    }
  };
  if (typeof content === "string") sketch(content);
  else if (Array.isArray(content)) {
    mix(content.length);
    for (const block of content) {
      const b = block as { type?: unknown; text?: unknown } | string;
      if (typeof b === "string") sketch(b);
      else if (typeof b?.text === "string") sketch(b.text);
      else mix(String(b?.type ?? "").length);
    }
  }
  return hash >>> 0;
}

/**
 * Positions checked to validate an index against a new array, besides the length: the last
 * indexed message and those 1, 2, 4, ... before it, the first and those 1, 2, 4, ... after it
 * (O(log n) checks). A deletion, a `RemoveMessage` or a persistTrim before the last indexed message
 * shifts it, so the check at `length - 1` alone catches every deletion (ids are unique in a thread);
 * the others, with each message's shape, catch a list rewritten under a `REMOVE_ALL` whose tail
 * happens to reappear, and a thread begun again under the same thread id and message ids.
 */
function samplePositions(length: number): number[] {
  const out: number[] = [];
  for (let step = 0; length - 1 - step >= 0; step = step === 0 ? 1 : step * 2) out.push(length - 1 - step);
  for (let p = 0; p < length - 1; p = p === 0 ? 1 : p * 2) out.push(p);
  return out;
}

class Index implements ThreadIndex {
  ids: string[] = [];
  /** {@link shapeOf} of each indexed message. */
  shapes: number[] = [];
  idIndex = new Map<string, number>();
  systemPositions: number[] = [];
  groups: GroupSpan[] = [];
  candidates: number[] = [];
  countPrefix: number[] = [0];
  costs = new Map<string, number[]>();
  excluded: number[] = [];
  mergePoints: number[] = [];
  protectedFrom = 0;
  reuse: IndexReuse = "new";
  newFrom = 0;
  /** Start of the last unit: groups before it are final, the last unit may still grow (tool results). */
  stableEnd = 0;
  /** The array this index was last returned for; weak, so the memo never keeps a thread's messages alive. */
  #messages: WeakRef<readonly BaseMessage[]> | undefined;

  get messages(): readonly BaseMessage[] {
    return this.#messages?.deref() ?? [];
  }

  set messages(messages: readonly BaseMessage[]) {
    this.#messages = new WeakRef(messages);
  }

  get length(): number {
    return this.ids.length;
  }

  isFor(messages: readonly BaseMessage[]): boolean {
    return this.#messages?.deref() === messages && messages.length === this.ids.length;
  }

  indexOf(id: string): number {
    return this.idIndex.get(id) ?? -1;
  }

  /**
   * Whether the indexed part is unchanged in `messages` up to `upTo`: checked at O(log n)
   * positions, or at every position with `every` (O(n) id comparisons).
   */
  matches(messages: readonly BaseMessage[], upTo: number, every = false): boolean {
    if (every) {
      for (let p = upTo - 1; p >= 0; p -= 1) if (!this.same(messages[p] as BaseMessage, p)) return false;
      return true;
    }
    for (const p of samplePositions(upTo)) if (!this.same(messages[p] as BaseMessage, p)) return false;
    return true;
  }

  /** Whether `message` is the one indexed at `p` (same id and shape). */
  same(message: BaseMessage, p: number): boolean {
    return fingerprint(message) === this.ids[p] && shapeOf(message) === this.shapes[p];
  }

  /** Forgets everything from message `at` on (at a unit boundary or 0). */
  truncate(at: number): void {
    for (let i = at; i < this.ids.length; i += 1)
      if (this.idIndex.get(this.ids[i] as string) === i) this.idIndex.delete(this.ids[i] as string);
    this.ids.length = at;
    this.shapes.length = at;
    while (this.systemPositions.length > 0 && (this.systemPositions.at(-1) as number) >= at) this.systemPositions.pop();
    while (this.groups.length > 0 && (this.groups.at(-1) as GroupSpan).start >= at) this.groups.pop();
    while (this.candidates.length > 0 && (this.candidates.at(-1) as number) >= this.groups.length) this.candidates.pop();
    this.countPrefix.length = this.candidates.length + 1;
    while (this.excluded.length > 0 && (this.excluded.at(-1) as number) >= at) this.excluded.pop();
    while (this.mergePoints.length > 0 && (this.mergePoints.at(-1) as number) >= at) this.mergePoints.pop();
    for (const prefix of this.costs.values()) if (prefix.length > this.candidates.length + 1) prefix.length = this.candidates.length + 1;
    this.stableEnd = Math.min(this.stableEnd, at);
  }

  /** Indexes `messages[from..]`, `from` being a unit boundary with everything before it indexed. */
  extend(messages: readonly BaseMessage[], from: number): void {
    for (let i = from; i < messages.length; i += 1) {
      const message = messages[i] as BaseMessage;
      const id = fingerprint(message);
      this.ids.push(id);
      this.shapes.push(shapeOf(message));
      if (!id.startsWith("~")) this.idIndex.set(id, i);
      if (messageType(message) === "system") this.systemPositions.push(i);
    }
    // Groups are made left to right, one unit at a time, so grouping the suffix from a unit
    // boundary gives exactly the groups the whole thread has there.
    const tail = groupMessages(messages.slice(from));
    // The candidate message right before `from` (the last one of the last candidate group left).
    const last = this.candidates.length === 0 ? undefined : (this.groups[this.candidates.at(-1) as number] as GroupSpan);
    let previous: RoleKind | undefined =
      last === undefined ? undefined : last.kind === "tool_call" ? "other" : roleKind(messages[last.start] as BaseMessage);
    for (const g of tail) {
      this.groups.push({ kind: g.kind, start: g.start + from, end: g.end + from });
      if (g.kind !== "system" && g.kind !== "orphan") {
        this.candidates.push(this.groups.length - 1);
        this.countPrefix.push((this.countPrefix.at(-1) as number) + g.messages.length);
        for (let k = 0; k < g.messages.length; k += 1) {
          const kind = k === 0 ? roleKind(g.messages[0] as BaseMessage) : "other";
          if (previous === undefined ? kind === "empty-ai" : mayMerge(previous, kind)) this.mergePoints.push(g.start + from + k);
          previous = kind;
        }
      } else for (let p = g.start; p < g.end; p += 1) this.excluded.push(p + from);
    }
    // The last unit can still grow (more tool results after an AI message with tool calls), so
    // the next call regroups from its start.
    // Only a unit that opens with an AI message with tool calls can change that way.
    this.stableEnd = messages.length;
    if (this.groups.length > 0) {
      const start = unitStart(this.groups, this.groups.length - 1);
      if (toolCallsOf(messages[start] as BaseMessage).length > 0) this.stableEnd = start;
    }
    this.protectedFrom = protectedCandidate(this.groups, this.candidates);
  }

  costPrefix(key: string, cost: (group: MessageGroup) => number): readonly number[] {
    let prefix = this.costs.get(key);
    if (!prefix) {
      prefix = [0];
      this.costs.set(key, prefix);
    }
    for (let c = prefix.length - 1; c < this.candidates.length; c += 1)
      prefix.push((prefix[c] as number) + cost(this.group(this.candidates[c] as number)));
    return prefix;
  }

  group(g: number): MessageGroup {
    const span = this.groups[g] as GroupSpan;
    if (span.kind === "tool_call" || span.kind === "orphan") {
      // A tool_call group may leave out stray results that sit inside its span: regroup the span.
      const regrouped = groupMessages(this.messages.slice(span.start, span.end)).find((x) => x.start === 0 && x.kind === span.kind);
      if (regrouped) return { ...regrouped, start: span.start, end: span.end };
    }
    return { kind: span.kind, messages: this.messages.slice(span.start, span.end), start: span.start, end: span.end };
  }

  chunkedStart(prefix: readonly number[], budget: number, lowWatermark: number, limit: number, from = 0): number {
    const n = prefix.length - 1;
    const base = prefix[from] as number;
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

  get estimatedBytes(): number {
    // Per message: an array slot (8) and the id string (2 bytes per character + 16 header, as V8
    // holds one-byte strings at 1 byte but ids are often flattened cons strings), a Map entry (~40);
    // per group: a span object (~40) and a candidate slot and count prefix slot (16); per cost key
    // and candidate: 8.
    let bytes = 0;
    for (const id of this.ids) bytes += 8 + 16 + 2 * id.length + 40 + 8;
    bytes += 8 * this.systemPositions.length + 56 * this.groups.length + 16 * this.candidates.length;
    bytes += 8 * (this.excluded.length + this.mergePoints.length);
    for (const prefix of this.costs.values()) bytes += 8 * prefix.length;
    return bytes;
  }
}

/** What role alternation needs to know of a candidate message. */
type RoleKind = "human" | "plain-ai" | "empty-ai" | "calls-ai" | "other";

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
  if (next === "human") return previous === "human";
  if (next === "plain-ai" || next === "calls-ai") return previous === "plain-ai";
  return false;
}

/** Start (message index) of the unit the group `g` belongs to: a tool_call span and the strays after it. */
function unitStart(groups: readonly GroupSpan[], g: number): number {
  let start = (groups[g] as GroupSpan).start;
  // Strays of a complete call are pushed after their tool_call group but lie inside its span, one
  // orphan group each: walk back over them (a stray's neighbour does not overlap it) to the group
  // whose span holds them.
  for (let k = g - 1; k >= 0; k -= 1) {
    const span = groups[k] as GroupSpan;
    if (span.end > start) start = Math.min(start, span.start);
    else if (span.kind !== "orphan") break;
  }
  return start;
}

function protectedCandidate(groups: readonly GroupSpan[], candidates: readonly number[]): number {
  for (let c = candidates.length - 1; c >= 0; c -= 1) if ((groups[candidates[c] as number] as GroupSpan).kind === "user") return c;
  return candidates.length === 0 ? 0 : candidates.length - 1;
}

/**
 * Per-thread indexes of the stored thread (issue 16), shared by the middlewares of one process so
 * each hook works on the messages that are new since the last call instead of the whole thread.
 *
 * Each call validates the kept index against the new array: same or greater length and the same
 * message (by id, else type and text length, and by shape: type, tool call ids, content length and
 * three characters) at the last indexed position, the first, and O(log n) others.
 * More messages extend it (O(new)); fewer with the rest unchanged (resuming from an older
 * checkpoint) cut it back; anything else (a deletion, persistTrim, `RemoveMessage`, a rewrite)
 * rebuilds it (O(n), once), as does a thread begun again under the same id with reused message
 * ids. A message edited in place under its own id at an unchecked position is not detected
 * (LangGraph's `messages` reducer does that only when a caller sends a message with an existing
 * id); after such an edit, `forget(threadId)` makes the next call index the thread again.
 *
 * Bound: at most `maxThreads` threads (default {@link VIEW_MEMO_THREADS}), least recently used out
 * first; per thread about 70 bytes per message plus 8 per group and cost key
 * ({@link ThreadIndex.estimatedBytes}; measured by `bench/view-memo.ts`).
 *
 * @example
 * const memo = new ViewMemo();
 * const index = memo.index(threadId, request.state.messages);
 * const tokens = index.costPrefix("tokens", (group) => counter.countMessages(group.messages));
 */
export class ViewMemo {
  readonly #threads = new Map<string, Index>();
  readonly #maxThreads: number;

  constructor(options: ViewMemoOptions = {}) {
    this.#maxThreads = Math.max(1, options.maxThreads ?? VIEW_MEMO_THREADS);
  }

  /** Threads currently held. */
  get size(): number {
    return this.#threads.size;
  }

  /** Estimated bytes held over all threads. */
  get estimatedBytes(): number {
    let bytes = 0;
    for (const index of this.#threads.values()) bytes += index.estimatedBytes;
    return bytes;
  }

  /** Forgets a thread (e.g. after it was deleted). */
  forget(threadId: string): void {
    this.#threads.delete(threadId);
  }

  /**
   * The index of `messages`, the stored thread of `threadId`, reusing what the previous call on
   * that thread indexed. Without a thread id the index is built from scratch and not kept.
   */
  index(threadId: string | undefined, messages: readonly BaseMessage[]): ThreadIndex {
    if (threadId === undefined || threadId === "") return fresh(messages);
    let index = this.#threads.get(threadId);
    if (index) this.#threads.delete(threadId);
    else index = new Index();
    this.#threads.set(threadId, index); // most recently used last
    if (this.#threads.size > this.#maxThreads) this.#threads.delete(this.#threads.keys().next().value as string);
    update(index, messages);
    return index;
  }
}

/**
 * The index of `messages` built from scratch and kept nowhere (O(n)): what {@link ViewMemo.index}
 * gives without a thread id.
 */
export function indexThread(messages: readonly BaseMessage[]): ThreadIndex {
  return fresh(messages);
}

function fresh(messages: readonly BaseMessage[]): ThreadIndex {
  const index = new Index();
  update(index, messages);
  return index;
}

function update(index: Index, messages: readonly BaseMessage[]): void {
  const known = index.length;
  index.messages = messages;
  if (known === 0) {
    index.reuse = "new";
    index.newFrom = 0;
    index.extend(messages, 0);
    return;
  }
  if (messages.length >= known && index.matches(messages, known)) {
    index.reuse = "extended";
    index.newFrom = known;
    const from = index.stableEnd;
    index.truncate(from);
    index.extend(messages, from);
    return;
  }
  // A shorter thread is a deletion or a resume from an older checkpoint, which may be another
  // branch (a deletion made after it, or before it and not in it) whose messages differ at positions
  // the sample skips: rare, so checked at every position.
  if (messages.length < known && messages.length > 0 && index.matches(messages, messages.length, true)) {
    index.reuse = "truncated";
    index.newFrom = messages.length;
    // Cut back to the start of the unit holding the new last message (it may have lost results),
    // then regroup from there.
    const from = unitBoundaryBefore(index.groups, messages.length - 1);
    index.truncate(from);
    index.extend(messages, from);
    return;
  }
  index.reuse = "rebuilt";
  index.newFrom = 0;
  index.truncate(0);
  index.costs.clear();
  index.extend(messages, 0);
}

/** Largest unit start at or before `end` (so regrouping from it reproduces the whole-thread groups). */
function unitBoundaryBefore(groups: readonly GroupSpan[], end: number): number {
  let boundary = 0;
  for (let g = 0; g < groups.length; g += 1) {
    const start = unitStart(groups, g);
    if (start <= end) boundary = start;
    else break;
  }
  return boundary;
}

/** Options of {@link selectIndexedView}: those of `selectView`, plus the key its costs are cached under. */
export interface IndexedViewOptions extends SelectViewOptions {
  /** Cache key of `cost` in the index (one per cost function, e.g. `messages` or `tokens:o200k_base`). */
  costKey: string;
}

/**
 * `selectView` over an indexed stored thread: the same selection (same view, cost, kept groups),
 * from the index's prefix sums. O(log n) for the cut plus O(view) to build it, and `cost` is
 * called only for groups the index has not costed before under `costKey` (and for stored system
 * messages). `groups` is built on first read (O(n)).
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
  const prefix = index.costPrefix(options.costKey, options.cost);
  const candidates = index.candidates;
  const n = candidates.length;
  const fixed = options.fixedCost ?? 0;
  const systems = withSystems ? index.systemPositions.map((p) => index.group(groupOfSystem(index, p))) : [];
  let systemCost = 0;
  for (const group of systems) systemCost += options.cost(group);
  const budget = options.limit - fixed - systemCost;
  // The newest user candidate, when it is in the view; else the view's newest candidate.
  const protectedFrom = index.protectedFrom >= from ? index.protectedFrom : Math.max(from, n - 1);
  let first: number;
  if ((options.eviction ?? "sliding") === "chunked") {
    first = index.chunkedStart(prefix, budget, options.lowWatermark ?? Math.floor(options.limit / 2), options.limit, from);
  } else {
    // Smallest g whose suffix fits: prefix[g] >= prefix[n] - budget (prefix sums never decrease).
    const need = (prefix[n] as number) - budget;
    let lo = from;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((prefix[mid] as number) >= need) hi = mid;
      else lo = mid + 1;
    }
    first = lo;
  }
  first = Math.min(first, protectedFrom);
  if (options.startOn === "human") {
    while (first < protectedFrom && (index.groups[candidates[first] as number] as GroupSpan).kind !== "user") first += 1;
  }
  const cost = fixed + systemCost + (prefix[n] as number) - (prefix[first] as number);
  // The kept groups and messages are built on first read (O(view)); the cut itself is O(log n).
  let kept: MessageGroup[] | undefined;
  let messages: BaseMessage[] | undefined;
  let all: MessageGroup[] | undefined;
  const keptGroups = (): MessageGroup[] => {
    kept ??= candidates.slice(first).map((g) => index.group(g));
    return kept;
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
    cost,
    overLimit: cost > options.limit,
    droppedGroups: first - from,
    orphanGroups: withSystems ? index.groups.length - n - systems.length : 0,
    get groups() {
      all ??= withSystems ? index.groups.map((_, g) => index.group(g)) : candidates.slice(from).map((g) => index.group(g));
      return all;
    },
  };
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

let shared: ViewMemo | undefined;

/**
 * The process-wide {@link ViewMemo} the threadwise middlewares share (bound: {@link VIEW_MEMO_THREADS}
 * threads). Index only a stored thread with it (e.g. `threadMessages(request)`), keyed by its
 * `thread_id`, so every middleware of a step reuses the same index.
 */
export function sharedViewMemo(): ViewMemo {
  shared ??= new ViewMemo();
  return shared;
}
