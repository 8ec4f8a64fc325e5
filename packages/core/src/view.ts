import type { BaseMessage } from "@langchain/core/messages";
import { groupMessages, groupsEndingAt, type MessageGroup, protectedTailStart } from "./groups.js";
import { messageType } from "./message-kinds.js";

/**
 * How old groups leave the view.
 * - `sliding`: drop just enough of the oldest groups to fit. The view's first message moves on
 *   almost every turn, so no prompt prefix survives from one call to the next.
 * - `chunked`: when over the limit, drop older groups in steps of `limit - lowWatermark`. The
 *   cut points are a step function of the thread's cost measured from its first group (no stored
 *   state, the same in every replica), so the view's start moves once per step and the prefix is
 *   reusable in between. The view's cost stays above the low watermark and within the limit;
 *   selection looks up every group's cost (linear in the thread), where sliding stops at the view.
 */
export type EvictionMode = "sliding" | "chunked";

/** Accepted values of {@link EvictionMode}. */
export const EVICTION_MODES: readonly EvictionMode[] = ["sliding", "chunked"];

/** Options of {@link selectView}. Costs and limits are in one unit: messages or tokens. */
export interface SelectViewOptions {
  /** Cost of one group (e.g. its message count, or its tokens). */
  cost: (group: MessageGroup) => number;
  /** Most total cost the view may have, `fixedCost` included. */
  limit: number;
  /** Cost always paid besides the messages (system prompt, tool schemas). @default 0 */
  fixedCost?: number;
  /** @default "sliding" */
  eviction?: EvictionMode;
  /** With `chunked`: the total to cut back to when over `limit`. @default half of `limit` */
  lowWatermark?: number;
  /** `"human"`: the view starts on a user message (for providers that require it). @default "any" */
  startOn?: "human" | "any";
  /**
   * With `chunked`: the cost of the thread before `messages` (an archived part: memory's
   * `messageArchive` stores it, core's `ArchivedWindow`), counted from where the whole thread's
   * count starts. The step's cut points are then counted from that cost at the first group of
   * `messages`, so the cut is the one over the whole thread. @default undefined (counted from 0 at
   * the first group of `messages`)
   */
  costBefore?: number;
}

/** What {@link selectView} decided. */
export interface ViewSelection {
  /** The view: kept stored system messages, then the kept groups, in thread order. No orphans. */
  messages: BaseMessage[];
  /** All groups of the input (with `sliding`, computed on first read). */
  groups: MessageGroup[];
  /** Groups kept, in order. */
  kept: MessageGroup[];
  /**
   * The first message of the first kept group (stored system messages aside), `null` when none is
   * kept: the `firstKept` of a cut decision. Cheaper than `kept[0]` on a lazily built selection.
   */
  firstKept: BaseMessage | null;
  /** Non-orphan groups dropped from the view. */
  droppedGroups: number;
  /** Orphan groups left out (spec R4). */
  orphanGroups: number;
  /** Total cost of the view including `fixedCost`. */
  cost: number;
  /** `true` when the groups that must stay are alone over the limit. */
  overLimit: boolean;
}

/**
 * Chooses which whole groups of a thread go into the view (spec R2, R3, R4).
 *
 * Rules, in order: orphans never go in; stored system messages always do; the newest user turn
 * and the tool loop after it (the run in progress) always do, even over the limit (`overLimit`
 * then says so); older groups are dropped oldest first, as one contiguous prefix, so the view is
 * always a suffix of the thread. The input is not mutated; the result is a new array.
 *
 * Cost: `sliding` groups the thread from its end and stops at the first group that does not fit
 * (O(view) groups and `cost` calls, plus one type check per message for stored system messages);
 * `groups`, `droppedGroups` and `orphanGroups` then group the whole thread on first read.
 * `chunked` groups the whole thread and calls `cost` for every group.
 */
export function selectView(messages: readonly BaseMessage[], options: SelectViewOptions): ViewSelection {
  if ((options.eviction ?? "sliding") === "sliding") {
    const fromEnd = selectSlidingFromEnd(messages, options);
    if (fromEnd) return fromEnd;
  }
  return selectWholeThread(messages, options);
}

/**
 * Sliding selection that walks the thread backwards, grouping only the units it visits and
 * stopping at the first group that does not fit: O(view) groups and cost lookups, plus one type
 * check per message to find stored system messages. `groups`, `droppedGroups` and `orphanGroups`
 * are computed on first read. Returns `undefined` when the thread has no user message (the
 * protected tail is then the newest group alone; the whole-thread path decides).
 */
function selectSlidingFromEnd(messages: readonly BaseMessage[], options: SelectViewOptions): ViewSelection | undefined {
  const fixed = options.fixedCost ?? 0;
  const systems: MessageGroup[] = [];
  for (let i = 0; i < messages.length; i += 1) {
    const message = messages[i] as BaseMessage;
    if (messageType(message) === "system") systems.push({ kind: "system", messages: [message], start: i, end: i + 1 });
  }
  let systemCost = 0;
  for (const group of systems) systemCost += options.cost(group);
  const budget = options.limit - fixed - systemCost;
  const keptReversed: MessageGroup[] = [];
  const costsReversed: number[] = [];
  let total = 0;
  let protectedReached = false;
  let end = messages.length;
  walk: while (end > 0) {
    const unit = groupsEndingAt(messages, end);
    for (let k = unit.groups.length - 1; k >= 0; k -= 1) {
      const group = unit.groups[k] as MessageGroup;
      if (group.kind === "system" || group.kind === "orphan") continue;
      const cost = options.cost(group);
      if (protectedReached && total + cost > budget) break walk;
      total += cost;
      keptReversed.push(group);
      costsReversed.push(cost);
      if (group.kind === "user") protectedReached = true;
    }
    end = unit.start;
  }
  if (!protectedReached) return undefined;
  let kept = keptReversed.reverse();
  const costs = costsReversed.reverse();
  let protectedFrom = kept.length - 1;
  while (protectedFrom > 0 && (kept[protectedFrom] as MessageGroup).kind !== "user") protectedFrom -= 1;
  let first = 0;
  if (options.startOn === "human") {
    while (first < protectedFrom && (kept[first] as MessageGroup).kind !== "user") first += 1;
  }
  kept = kept.slice(first);
  let cost = fixed + systemCost;
  for (let g = first; g < costs.length; g += 1) cost += costs[g] as number;
  const out: BaseMessage[] = [];
  let s = 0;
  for (const group of kept) {
    while (s < systems.length && (systems[s] as MessageGroup).start < group.start) out.push(...(systems[s++] as MessageGroup).messages);
    out.push(...group.messages);
  }
  while (s < systems.length) out.push(...(systems[s++] as MessageGroup).messages);
  let all: MessageGroup[] | undefined;
  const groups = () => {
    all ??= groupMessages(messages);
    return all;
  };
  return {
    messages: out,
    kept,
    firstKept: kept[0]?.messages[0] ?? null,
    cost,
    overLimit: cost > options.limit,
    get groups() {
      return groups();
    },
    get droppedGroups() {
      return groups().filter((g) => g.kind !== "system" && g.kind !== "orphan").length - kept.length;
    },
    get orphanGroups() {
      return groups().filter((g) => g.kind === "orphan").length;
    },
  };
}

/** Selection over the whole grouped thread: chunked eviction, and threads without a user message. */
function selectWholeThread(messages: readonly BaseMessage[], options: SelectViewOptions): ViewSelection {
  const groups = groupMessages(messages);
  const fixed = options.fixedCost ?? 0;
  const systems = groups.filter((g) => g.kind === "system");
  const candidates = groups.filter((g) => g.kind !== "system" && g.kind !== "orphan");
  const orphanGroups = groups.length - systems.length - candidates.length;
  const protectedFrom = protectedTailStart(candidates);
  // Costs are computed on demand: the sliding walk stops at the first group that does not fit,
  // so a long thread costs O(view), not O(thread), in cost lookups.
  const costs: Array<number | undefined> = new Array(candidates.length);
  const costOf = (g: number): number => {
    let cost = costs[g];
    if (cost === undefined) {
      cost = options.cost(candidates[g] as MessageGroup);
      costs[g] = cost;
    }
    return cost;
  };
  const systemCost = systems.reduce((sum, g) => sum + options.cost(g), 0);
  const budget = options.limit - fixed - systemCost;

  let first: number;
  if ((options.eviction ?? "sliding") === "chunked") {
    const all = candidates.map((_, g) => costOf(g));
    first = chunkedStart(all, budget, options.lowWatermark ?? Math.floor(options.limit / 2), options.limit, options.costBefore ?? 0);
  } else {
    first = candidates.length;
    let total = 0;
    for (let g = candidates.length - 1; g >= 0; g -= 1) {
      const next = total + costOf(g);
      if (g < protectedFrom && next > budget) break;
      total = next;
      first = g;
    }
  }
  first = Math.min(first, protectedFrom);
  if (options.startOn === "human") {
    while (first < protectedFrom && (candidates[first] as MessageGroup).kind !== "user") first += 1;
  }
  const kept = candidates.slice(first);
  const keptSet = new Set<MessageGroup>([...systems, ...kept]);
  const ordered = groups.filter((g) => keptSet.has(g));
  const out: BaseMessage[] = [];
  for (const group of ordered) out.push(...group.messages);
  let cost = fixed + systemCost;
  for (let g = first; g < candidates.length; g += 1) cost += costOf(g);
  return {
    messages: out,
    groups,
    kept,
    firstKept: kept[0]?.messages[0] ?? null,
    droppedGroups: first,
    orphanGroups,
    cost,
    overLimit: cost > options.limit,
  };
}

/**
 * Start index for chunked eviction: evict a prefix whose cost is the smallest multiple of the
 * step (`limit - lowWatermark`) that brings the rest under `budget`. Depends only on the groups'
 * costs, which do not change as the thread grows, so the start stays put between steps.
 * `before`: cost counted before the first group (`SelectViewOptions.costBefore`), part of the
 * prefix that is evicted first.
 */
function chunkedStart(costs: number[], budget: number, lowWatermark: number, limit: number, before: number): number {
  const total = before + costs.reduce((a, b) => a + b, 0);
  if (total <= budget) return 0;
  const step = Math.max(1, limit - Math.min(lowWatermark, limit - 1));
  const mustEvict = total - budget;
  const evict = Math.ceil(mustEvict / step) * step;
  let acc = before;
  for (let g = 0; g < costs.length; g += 1) {
    if (acc >= evict) return g;
    acc += costs[g] as number;
  }
  return costs.length;
}
