import type { BaseMessage, ToolMessage } from "@langchain/core/messages";
import {
  blockCallIdsOf,
  hasCalls,
  holdsMoreThanResults,
  isEmptyContent,
  isResultMessage,
  isResultOnly,
  isUserMessage,
  messageType,
  type ToolResultBlock,
  toolCallsOf,
  toolResultBlocksOf,
} from "./message-kinds.js";
import { storedOriginal } from "./portable-call-ids.js";
import { portable, resultsFirst, sendable, userMessageSent, withoutBlankText, withoutResults } from "./sent-copies.js";
import { contentText } from "./token-counter.js";

/**
 * What a group holds (spec R2).
 * - `system`: a stored `SystemMessage`.
 * - `user`: one `HumanMessage`.
 * - `assistant`: an AI message without tool calls.
 * - `tool_call`: an AI message with `tool_calls` and the ToolMessages that answer every call. When
 *   some calls of a parallel call were answered and others never were (rejected in a
 *   human-in-the-loop review, interrupted), the group holds the answered results and, in place of
 *   the stored AI message, a copy of it without the unanswered calls ({@link MessageGroup.unanswered}).
 *   A call id some provider refuses (`functions.lookup:0`) is sent as a portable one, in the call
 *   and its results alike: copies again (`portable-call-ids.ts`).
 * - `orphan`: messages that may never be sent (R4): a ToolMessage whose call is not right before
 *   it, an AI message none of whose calls has a result and that has no text besides its calls (one
 *   that has is an `assistant` group: a copy of it without the calls; reasoning is no text), a second result for the same call, an
 *   empty user message ({@link isEmptyContent}) that is not the newest user message of the list
 *   (Anthropic, Gemini and Bedrock refuse it; the newest is the user's current input and is sent
 *   as typed), a `RemoveMessage` stored as a message (no provider has a role for it; every
 *   converter refuses it). LangGraph's `messages` reducer stores one when an update's tail after
 *   `REMOVE_ALL_MESSAGES` holds a removal: it keeps that tail as given (langgraph#8423).
 */
export type GroupKind = "system" | "user" | "assistant" | "tool_call" | "orphan";

/** One unit that is kept or dropped whole. */
export interface MessageGroup {
  kind: GroupKind;
  /** The messages of the group, in thread order. */
  messages: BaseMessage[];
  /** Index of the group's first message in the list it was split from. */
  start: number;
  /** Index after the group's last message (exclusive). */
  end: number;
  /**
   * Ids of the calls of a `tool_call` group's AI message that have no result in the thread: its
   * `messages[0]` is then a copy of the stored AI message without them (same id; see
   * {@link withoutCalls}), so what was answered is kept (R37). Absent when every call is answered.
   * On an `assistant` group: every call of its AI message, none answered, sent as a copy without
   * them because the message says something besides its calls.
   */
  unanswered?: string[];
  /**
   * How many messages of the span came between the call's results (added by a tool's `Command`
   * next to its ToolMessage): `messages` holds them after all the results, so the group is sent in
   * another order than stored. Absent when the results follow the call directly.
   */
  deferred?: number;
}

/**
 * Takes the results `blocks` answer from `open` (counted per id): the positions of the blocks that
 * answer no open call (strays) come back, and nothing is taken when none answers.
 */
function takeResults(open: Map<string, number>, blocks: readonly ToolResultBlock[]): { hits: number; strays: number[] } {
  const left = new Map(open);
  let hits = 0;
  const strays: number[] = [];
  for (const block of blocks) {
    const n = left.get(block.id);
    if (n === undefined) strays.push(block.at);
    else {
      hits += 1;
      if (n <= 1) left.delete(block.id);
      else left.set(block.id, n - 1);
    }
  }
  if (hits > 0) {
    open.clear();
    for (const [id, n] of left) open.set(id, n);
  }
  return { hits, strays };
}

/**
 * What a call's run of results takes from the user message `m` of `tool_result` blocks, `open` the
 * calls still open (counted per id; the answered ones are taken out of it): the message as sent
 * (without the blocks that answer nothing open, results first, no blank text) and whether it holds
 * words of the user's own (then it is the run's last message); `"stray"` when no block answers an
 * open call; `"ends"` when none does and the user's words ride with them (the run ends before it:
 * sent apart, its results would answer nothing, and left out, the user's words would be lost).
 * `"ends"` too for a message of no `tool_result` block.
 */
function takeResultMessage(m: BaseMessage, open: Map<string, number>): { sent: BaseMessage; more: boolean } | "stray" | "ends" {
  const blocks = toolResultBlocksOf(m);
  if (blocks.length === 0) return "ends";
  const more = holdsMoreThanResults(m);
  const taken = takeResults(open, blocks);
  if (taken.hits === 0) return more ? "ends" : "stray";
  return { sent: withoutBlankText(resultsFirst(withoutResults(m, taken.strays))), more };
}

/**
 * Splits a message list into groups (spec R2, R4).
 *
 * Results are paired with their call by position, not by a global id lookup: an AI message with
 * `tool_calls` takes the ToolMessages that directly follow it and answer one of its still-open
 * calls. A `tool_call_id` may therefore repeat later in the thread (the tau-bench airline data
 * does) without confusing the pairing. Anything that cannot be sent as-is becomes an `orphan`
 * group, so that a view built from non-orphan groups is always valid for the provider.
 *
 * Cost: O(n) in the number of messages. The input is never mutated.
 */
export function groupMessages(messages: readonly BaseMessage[]): MessageGroup[] {
  const groups: MessageGroup[] = [];
  const newest = newestUserAt(messages);
  let i = 0;
  while (i < messages.length) i = groupUnit(messages, i, messages.length, groups, newest);
  return groups;
}

/**
 * The largest position at most `end` that no group of `groups` (a thread's, {@link groupMessages})
 * spans across: no group starts before it and ends after it. A call whose span holds an orphan of
 * its own (a result whose call id was edited in place: grouped after the call's group) is cut
 * before, never between it and the orphan. O(groups) per step back; a step back happens only at a
 * group with an orphan of its own inside its span. Used where a thread's start is cut away
 * (persistTrim's `messagesToDelete`, memory's `messagesToArchive`).
 */
export function groupCut(groups: readonly MessageGroup[], end: number): number {
  let cut = end;
  for (let moved = true; moved && cut > 0; ) {
    moved = false;
    for (const group of groups)
      if (group.start < cut && group.end > cut) {
        cut = group.start;
        moved = true;
      }
  }
  return cut;
}

/**
 * Position of the newest user message ({@link isUserMessage}) in `messages`, `-1` when none: the
 * user's current input, sent even when empty. A user message of only `tool_result` blocks after it
 * (Anthropic's native format) is the run's tool loop, as ToolMessages are: the input stays the
 * newest through the loop. O(distance from the end), nothing kept: an array changed in place gets
 * what a fresh scan gives.
 */
export function newestUserAt(messages: readonly BaseMessage[]): number {
  let at = messages.length - 1;
  while (at >= 0 && !isUserMessage(messages[at] as BaseMessage)) at -= 1;
  return at;
}

/**
 * Whether `message` at position `i` is an empty user message a view leaves out: a `HumanMessage`
 * whose content is empty (`""`, `[]`, only blank text blocks; {@link isEmptyContent}) and that is
 * not the newest user message (`newest`). OpenAI answers such a message, so it may be stored;
 * Anthropic, Gemini and Bedrock refuse it, so a thread that goes on with one of them failed on
 * every later turn (langchain-ai/langchain#35081).
 */
function isDroppedEmptyUser(message: BaseMessage, type: string, i: number, newest: number): boolean {
  return type === "human" && i !== newest && isEmptyContent(message.content);
}

/**
 * Groups the unit that starts at `i` (one message; or an AI message with calls and the run of
 * results after it, read up to `stop`), appends them to `out` and returns the unit's end.
 *
 * Calls are the AI message's `tool_calls` and its `tool_use` blocks they lack ({@link callIdsOf});
 * results are ToolMessages and the `tool_result` blocks of user messages (Anthropic's native
 * format), paired by the same rules. A user message of results and words of the user's own (as
 * Anthropic's wire puts them) is the last message of the run and stays in the group: sent apart,
 * its results would answer nothing, and left out, the user's words would be lost. A `tool_use`
 * block that is no `tool_calls` entry and that nothing answers is left out of the sent copy (a
 * call the agent never ran: an `invalid_tool_calls` entry, a call edited out of `tool_calls`).
 */
function groupUnit(messages: readonly BaseMessage[], i: number, stop: number, out: MessageGroup[], newest: number): number {
  const message = messages[i] as BaseMessage;
  const type = messageType(message);
  if (type === "ai") {
    const calls = toolCallsOf(message);
    const blockCalls = blockCallIdsOf(message);
    if (calls.length === 0 && blockCalls.length === 0) {
      out.push({ kind: "assistant", messages: [sendable(message, [])], start: i, end: i + 1 });
      return i + 1;
    }
    const ids = calls.length === 0 ? blockCalls : [...calls.map((call) => call.id ?? ""), ...blockCalls];
    // Open calls counted per id: one AI message may (wrongly, but it happens) repeat an id, and
    // each repeat needs its own result.
    const open = new Map<string, number>();
    for (const id of ids) open.set(id, (open.get(id) ?? 0) + 1);
    const answered: BaseMessage[] = [];
    const strays: number[] = [];
    // Whether the run ended with a user message of results and words of the user's own: nothing after it is the call's.
    let closed = false;
    let j = i + 1;
    while (j < stop) {
      const m = messages[j] as BaseMessage;
      if (messageType(m) === "tool") {
        const id = (m as ToolMessage).tool_call_id ?? "";
        const left = open.get(id);
        if (left !== undefined) {
          if (left <= 1) open.delete(id);
          else open.set(id, left - 1);
          answered.push(withoutBlankText(m));
        } else strays.push(j);
        j += 1;
        continue;
      }
      const took = takeResultMessage(m, open);
      if (took === "ends") break;
      if (took === "stray") {
        strays.push(j);
        j += 1;
        continue;
      }
      answered.push(took.sent);
      j += 1;
      if (took.more) {
        closed = true;
        break;
      }
    }
    // Results a tool's Command put after messages of its own (a parallel call), or after user
    // messages written before any result (a review resumed with `Command({ resume, update })`, a
    // note stored before an Anthropic-native `tool_result` message): taken across them, the
    // messages sent after all the results (see `deferredResults`).
    const found =
      !closed && strays.length === 0 && open.size > 0
        ? deferredResults(messages, j, stop, open, answered.length === 0, new Set(ids))
        : undefined;
    const later = found && partlyAnswerable(ids, found.open) ? found : undefined;
    const left = later?.open ?? open;
    // A tool_use block no result answers and tool_calls lacks is no call the agent ran: left out
    // of the sent copy, as callsOnlyProviderCopiesName leaves out other provider copies.
    const stale: string[] = [];
    for (const id of new Set(blockCalls))
      if (left.get(id) === ids.filter((x) => x === id).length) {
        left.delete(id);
        stale.push(id);
      }
    if (later) {
      const group: MessageGroup = { kind: "tool_call", messages: [], start: i, end: later.end, deferred: later.between.length };
      const unanswered = [...left.keys(), ...stale];
      if (unanswered.length > 0) group.unanswered = unanswered;
      group.messages = portable([sendable(message, unanswered), ...answered, ...later.results, ...later.between]);
      out.push(group);
      for (const s of later.duplicates) out.push({ kind: "orphan", messages: [messages[s] as BaseMessage], start: s, end: s + 1 });
      return later.end;
    }
    if (calls.length === 0 && answered.length === 0) {
      out.push({ kind: "assistant", messages: [sendable(message, stale)], start: i, end: i + 1 });
      return i + 1;
    }
    if (open.size === 0 || (answered.length > 0 && partlyAnswerable(ids, open))) {
      // Complete call, plus results that answer nothing open (duplicates, foreign ids): keep the
      // call and its answers together, and report the strays as orphans of their own. A partly
      // answered parallel call keeps its answers too, its AI message without the unanswered calls.
      const unanswered = [...open.keys(), ...stale];
      const group: MessageGroup = { kind: "tool_call", messages: [], start: i, end: j };
      if (unanswered.length > 0) group.unanswered = unanswered;
      group.messages = portable([sendable(message, unanswered), ...answered]);
      out.push(group);
      for (const s of strays) out.push({ kind: "orphan", messages: [messages[s] as BaseMessage], start: s, end: s + 1 });
    } else {
      // No call of the message has a result (a run interrupted or stopped before its tools, a
      // turn sent instead of the resume): what the model said beside its calls was shown to the
      // user, so it is sent, without the calls; the message is an orphan when it has no text: its
      // reasoning alone (Anthropic's signed thinking, a Responses reasoning item) was never shown.
      const unanswered = [...open.keys(), ...stale];
      const words = answered.length === 0 ? sendable(message, unanswered) : undefined;
      let from = i;
      if (words !== undefined && contentText(words.content).trim() !== "") {
        out.push({ kind: "assistant", messages: [words], start: i, end: i + 1, unanswered });
        from = i + 1;
      }
      const last = messages[j - 1] as BaseMessage;
      if (j - 1 > i && messageType(last) === "human" && holdsMoreThanResults(last)) {
        // The user's words beside results of a call that cannot be sent: the words go on alone.
        if (j - 1 > from) out.push({ kind: "orphan", messages: messages.slice(from, j - 1), start: from, end: j - 1 });
        out.push({ kind: "user", messages: [userMessageSent(last)], start: j - 1, end: j });
      } else if (j > from) out.push({ kind: "orphan", messages: messages.slice(from, j), start: from, end: j });
    }
    return j;
  }
  if (type === "human" && toolResultBlocksOf(message).length > 0) {
    // Results with no call right before them (a cut, a stray): never sent; the user's words beside them are.
    if (holdsMoreThanResults(message)) out.push({ kind: "user", messages: [userMessageSent(message)], start: i, end: i + 1 });
    else out.push({ kind: "orphan", messages: [message], start: i, end: i + 1 });
    return i + 1;
  }
  const kind: GroupKind =
    type === "human"
      ? isDroppedEmptyUser(message, type, i, newest)
        ? "orphan"
        : "user"
      : type === "system"
        ? "system"
        : type === "tool" || type === "remove"
          ? "orphan"
          : "assistant";
  out.push({ kind, messages: [kind === "user" ? withoutBlankText(message) : message], start: i, end: i + 1 });
  return i + 1;
}

/** Most messages a tool's `Command` may put between the results of one parallel call for them to still be paired (see {@link deferredResults}). */
const MAX_BETWEEN_RESULTS = 8;

/**
 * A message a tool's `Command` may add next to its ToolMessage: a user message with content or an
 * AI message without tool calls. `usersOnly`: a user message only (before the first result).
 */
function mayComeBetweenResults(message: BaseMessage, usersOnly = false): boolean {
  const type = messageType(message);
  if (type === "human") return !isEmptyContent(message.content) && toolResultBlocksOf(message).length === 0;
  return !usersOnly && type === "ai" && !hasCalls(message);
}

/**
 * The results of a parallel call that come after messages a tool's `Command` added next to its
 * own ToolMessage. LangGraph's ToolNode writes each call's output in call order, so
 * `Command({ update: { messages: [result, note] } })` from the first of two calls stores
 * `[AI(a, b), result a, note, result b]`: result b still answers its call, but pairing by position
 * stopped at the note and left call b out (R37). Only after at least one result right after the
 * call (the Command's own), or `firstUsersOnly`: right after the call, user messages only (an
 * update written with the resume of a human-in-the-loop review, `Command({ resume, update })`,
 * which LangGraph applies before the reviewed tools run: `[AI(a, b), note, result a, result b]`;
 * no model call came between, or its answer would be there; or a note a hand-built thread or an
 * import stores before an Anthropic-native `tool_result` message: `[AI(tool_use a), note,
 * user(tool_result a)]`). From `j` (the end of the results right after the call), runs of at most
 * {@link MAX_BETWEEN_RESULTS} such messages each followed by results (ToolMessages, user messages
 * of `tool_result` blocks taken by {@link takeResultMessage}) that answer calls still `open` are
 * taken, up to the last such result, stopping before a run that holds a result answering no open
 * call (a stray) other than a second ToolMessage for one of the message's calls (a duplicate: left
 * out alone, an orphan, as right after the call), and after a result message with the user's words. `undefined` when there is none
 * (the positional grouping stands). `between` are
 * the messages between, sent after all the results (Anthropic, Gemini and Bedrock refuse anything
 * between a call and its results; OpenAI requires the results right after the call).
 */
function deferredResults(
  messages: readonly BaseMessage[],
  j: number,
  stop: number,
  open: ReadonlyMap<string, number>,
  firstUsersOnly: boolean,
  callIds: ReadonlySet<string>,
): { end: number; results: BaseMessage[]; between: BaseMessage[]; open: Map<string, number>; duplicates: number[] } | undefined {
  let left = new Map(open);
  const results: BaseMessage[] = [];
  /** Positions of ToolMessages that answer a call of the message already answered (left out, orphans). */
  const duplicates: number[] = [];
  const between: BaseMessage[] = [];
  let end = j;
  let k = j;
  while (left.size > 0) {
    let g = k;
    const usersOnly = firstUsersOnly && k === j;
    while (g < stop && g - k < MAX_BETWEEN_RESULTS && mayComeBetweenResults(messages[g] as BaseMessage, usersOnly)) g += 1;
    if (g === k || g >= stop || !isResultMessage(messages[g] as BaseMessage)) break;
    let h = g;
    const taken: BaseMessage[] = [];
    const runLeft = new Map(left);
    let stray = false;
    let closed = false;
    const runDuplicates: number[] = [];
    while (h < stop && isResultMessage(messages[h] as BaseMessage)) {
      const m = messages[h] as BaseMessage;
      if (messageType(m) === "tool") {
        const id = (m as ToolMessage).tool_call_id ?? "";
        const n = runLeft.get(id);
        if (n === undefined && callIds.has(id)) {
          runDuplicates.push(h);
          h += 1;
          continue;
        }
        if (n === undefined) {
          stray = true;
          break;
        }
        if (n <= 1) runLeft.delete(id);
        else runLeft.set(id, n - 1);
        taken.push(withoutBlankText(m));
        h += 1;
        continue;
      }
      // A user message of `tool_result` blocks (Anthropic's native format), by the rules right
      // after the call: one with the user's words beside its results ends the unit.
      const took = takeResultMessage(m, runLeft);
      if (took === "ends") break;
      if (took === "stray") {
        stray = true;
        break;
      }
      taken.push(took.sent);
      h += 1;
      if (took.more) {
        closed = true;
        break;
      }
    }
    // A run holding a result that answers no open call ends the unit before it (its messages are
    // grouped on their own), so what is taken never depends on messages after the unit: the walk
    // from the end (`groupsEndingAt`) finds the same unit.
    if (stray || taken.length === 0) break;
    left = runLeft;
    duplicates.push(...runDuplicates);
    for (let b = k; b < g; b += 1) between.push(withoutBlankText(messages[b] as BaseMessage));
    results.push(...taken);
    end = h;
    k = h;
    if (closed) break;
  }
  return end === j ? undefined : { end, results, between, open: left, duplicates };
}

/**
 * Whether the calls left `open` can be taken out of the AI message by id: none of them shares its
 * id with an answered call (an AI message that repeats an id is sent whole or not at all).
 */
function partlyAnswerable(ids: readonly string[], open: ReadonlyMap<string, number>): boolean {
  for (const [id, left] of open) if (ids.filter((x) => x === id).length !== left) return false;
  return true;
}

/**
 * The groups of the unit that ends right before `end`, in thread order, and where that unit
 * starts: what {@link groupMessages} gives for that span, found from the end. A run of results
 * (ToolMessages, user messages of `tool_result` blocks) belongs to the AI message with calls right
 * before the run, or before the messages a `deferredResults` unit takes across, when that
 * message's unit takes it, or else is one orphan per message (a user message with words beside its
 * results: a user group). Lets a caller walk a long thread
 * backwards and stop early. Requires `0 < end <= messages.length` and `end` at a unit boundary.
 */
export function groupsEndingAt(messages: readonly BaseMessage[], end: number): { start: number; groups: MessageGroup[] } {
  const out: MessageGroup[] = [];
  const last = end - 1;
  const newest = newestUserAt(messages);
  const lastMessage = messages[last] as BaseMessage;
  if (!isResultMessage(lastMessage)) {
    groupUnit(messages, last, end, out, newest);
    return { start: last, groups: out };
  }
  let r = last;
  while (r > 0 && isResultOnly(messages[r - 1] as BaseMessage)) r -= 1;
  if (r > 0 && hasCalls(messages[r - 1] as BaseMessage)) {
    if (groupUnit(messages, r - 1, end, out, newest) === end) return { start: r - 1, groups: out };
    out.length = 0;
  }
  // Results stored after messages a tool's Command added or a note written before them
  // (`deferredResults`): back over such messages and runs of results to the call whose group ends
  // here, if there is one.
  let b = r;
  for (;;) {
    if (b === r && b > 0 && hasCalls(messages[b - 1] as BaseMessage)) break;
    let g = b;
    while (g > 0 && b - g < MAX_BETWEEN_RESULTS && mayComeBetweenResults(messages[g - 1] as BaseMessage)) g -= 1;
    let t = g;
    while (t > 0 && isResultOnly(messages[t - 1] as BaseMessage)) t -= 1;
    if (g !== b && t === g && g > 0 && hasCalls(messages[g - 1] as BaseMessage)) {
      // User messages written right after the call, before any result (`deferredResults`).
      const unit: MessageGroup[] = [];
      if (groupUnit(messages, g - 1, end, unit, newest) === end) return { start: g - 1, groups: unit };
      break;
    }
    if (g === b || t === g || t === 0) break;
    if (hasCalls(messages[t - 1] as BaseMessage)) {
      const unit: MessageGroup[] = [];
      if (groupUnit(messages, t - 1, end, unit, newest) === end) return { start: t - 1, groups: unit };
      break;
    }
    b = t;
  }
  if (!isResultOnly(lastMessage)) {
    // The user's words beside results that no call's unit took: a unit of its own.
    groupUnit(messages, last, end, out, newest);
    return { start: last, groups: out };
  }
  // Results that no call's unit took (a call's unit takes a run of results whole or not at all):
  // each a unit of its own, an orphan.
  for (let k = r; k < end; k += 1) groupUnit(messages, k, k + 1, out, newest);
  return { start: r, groups: out };
}

/** Flattens groups back into a message list, leaving out orphans (spec R4). */
export function flattenGroups(groups: readonly MessageGroup[]): BaseMessage[] {
  const out: BaseMessage[] = [];
  for (const group of groups) if (group.kind !== "orphan") out.push(...group.messages);
  return out;
}

/**
 * Returns a new list without orphans (spec R4): no ToolMessage whose call is not directly before
 * it, no AI message whose `tool_calls` lack a result. The input is not mutated.
 */
export function dropOrphans(messages: readonly BaseMessage[]): BaseMessage[] {
  return flattenGroups(groupMessages(messages));
}

/**
 * Index (into `groups`) of the first group that must stay in every view: the newest user turn and
 * everything after it, which is the tool loop of the run in progress (spec R2). When the list holds
 * no user message, the newest non-orphan group is protected. Returns `groups.length` for an empty
 * or all-orphan list.
 */
export function protectedTailStart(groups: readonly MessageGroup[]): number {
  for (let g = groups.length - 1; g >= 0; g -= 1) if ((groups[g] as MessageGroup).kind === "user") return g;
  for (let g = groups.length - 1; g >= 0; g -= 1) if ((groups[g] as MessageGroup).kind !== "orphan") return g;
  return groups.length;
}

/**
 * Checks a list against R4 as it is, to be sent; returns a description of each orphan found
 * (empty when valid). A partly answered parallel call is one: as stored it cannot be sent.
 */
export function findOrphans(messages: readonly BaseMessage[]): string[] {
  const found: string[] = [];
  for (const group of groupMessages(messages)) {
    if (group.kind === "orphan") found.push(`orphan at ${group.start}..${group.end - 1}: ${group.messages.map(messageType).join(",")}`);
    if (group.unanswered !== undefined) found.push(`unanswered call at ${group.start}: ${group.unanswered.join(",")}`);
    if (group.deferred !== undefined) found.push(`results after other messages at ${group.start}..${group.end - 1}`);
    if (group.kind === "orphan") continue;
    // A user message sent as a copy without results that answer no call right before them.
    for (const m of group.messages) {
      if (messageType(m) !== "human") continue;
      const from = messages.slice(group.start, group.end).find((x) => x !== m && storedOriginal(x) === storedOriginal(m));
      if (from && toolResultBlocksOf(m).length < toolResultBlocksOf(from).length)
        found.push(`tool_result blocks that answer no call in user message ${m.id ?? ""} at ${group.start}..${group.end - 1}`);
    }
  }
  return found;
}
