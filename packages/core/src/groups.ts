import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { isContextMessage } from "./placement.js";
import { storedOriginal, viewCopy, withPortableCallIds } from "./portable-call-ids.js";
import {
  type CalledTool,
  responseMetadataAsCalled,
  responseMetadataFor,
  responsesCallsMatch,
  responsesItemAgrees,
  responsesOutputOf,
  sameArguments,
} from "./responses-output.js";

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
 *   it, an AI message none of whose calls has a result, a second result for the same call, an
 *   empty user message ({@link isEmptyContent}) that is not the newest user message of the list
 *   (Anthropic, Gemini and Bedrock refuse it; the newest is the user's current input and is sent
 *   as typed).
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
   */
  unanswered?: string[];
  /**
   * How many messages of the span came between the call's results (added by a tool's `Command`
   * next to its ToolMessage): `messages` holds them after all the results, so the group is sent in
   * another order than stored. Absent when the results follow the call directly.
   */
  deferred?: number;
}

/** The message type as `getType()` reports it, without depending on class identity. */
export function messageType(message: BaseMessage): string {
  const m = message as BaseMessage & { _getType?: () => string; type?: string };
  // `getType()` is `_getType()` is `this.type` in @langchain/core 1.x; reading the field skips two
  // calls per message on paths that scan a whole thread (measured in bench/overhead.ts).
  if (typeof m.type === "string" && m.type !== "") return m.type;
  if (typeof m.getType === "function") return m.getType();
  if (typeof m._getType === "function") return m._getType();
  return String(m.type ?? "");
}

/** Tool calls of an AI message (empty for any other message). */
export function toolCallsOf(message: BaseMessage): NonNullable<AIMessage["tool_calls"]> {
  if (messageType(message) !== "ai") return [];
  return (message as AIMessage).tool_calls ?? [];
}

/**
 * `true` for a user turn: a `HumanMessage` that holds the user's words (or is empty: the user's
 * input as typed). Not a user turn: a user message of nothing but `tool_result` blocks (and blank
 * text), which is how Anthropic's native format carries a tool's results (the run's tool loop, not
 * something the user said), and a stable_tail context message threadwise renders
 * (`isContextMessage`). A user message with `tool_result` blocks and words of its own is the
 * user's (as {@link groupMessages} sends it). What "the newest user message" means everywhere: a
 * summary's turn, the recall query, the stable_tail context's place, the protected tail's start.
 */
export function isUserMessage(message: BaseMessage): boolean {
  if (messageType(message) !== "human" || isContextMessage(message)) return false;
  return toolResultBlocksOf(message).length === 0 || holdsMoreThanResults(message);
}

/**
 * Ids of the `tool_use` content blocks of an AI message that its `tool_calls` lack, one per block
 * (empty for any other message). Anthropic's native format: an imported Anthropic transcript, or
 * an answer of an older `@langchain/anthropic`, holds its calls only as
 * `{ type: "tool_use", id, name, input }` blocks, with `tool_calls` `[]` or missing some of them;
 * `@langchain/anthropic` sends these blocks as calls. A v1 message (`output_version: "v1"`) is
 * sent from its standard blocks, where calls are `tool_calls`: none for it.
 */
export function blockCallIdsOf(message: BaseMessage): string[] {
  if (messageType(message) !== "ai" || !Array.isArray(message.content)) return [];
  if ((message as AIMessage).response_metadata?.output_version === "v1") return [];
  let own: Set<string> | undefined;
  const out: string[] = [];
  for (const block of message.content as Array<ContentBlock | string>) {
    if (typeof block === "string" || block?.type !== "tool_use") continue;
    own ??= new Set(toolCallsOf(message).map((call) => call.id ?? ""));
    const id = String(block.id ?? "");
    if (!own.has(id)) out.push(id);
  }
  return out;
}

/**
 * Every call an AI message makes, as ids: its `tool_calls`, then the `tool_use` blocks they lack
 * ({@link blockCallIdsOf}). Empty for any other message.
 */
export function callIdsOf(message: BaseMessage): string[] {
  const calls = toolCallsOf(message);
  const blocks = blockCallIdsOf(message);
  if (calls.length === 0) return blocks;
  const ids = calls.map((call) => call.id ?? "");
  return blocks.length === 0 ? ids : [...ids, ...blocks];
}

/** One `tool_result` block of a user message: the call it answers and its position in the content. */
interface ToolResultBlock {
  id: string;
  at: number;
}

/**
 * The `{ type: "tool_result", tool_use_id, content }` blocks of a user message (Anthropic's native
 * format for tool results, in place of ToolMessages), in content order. Empty for any other message.
 */
function toolResultBlocksOf(message: BaseMessage): ToolResultBlock[] {
  if (messageType(message) !== "human" || !Array.isArray(message.content)) return [];
  const out: ToolResultBlock[] = [];
  (message.content as Array<ContentBlock | string>).forEach((block, at) => {
    if (typeof block !== "string" && block?.type === "tool_result") out.push({ id: String(block.tool_use_id ?? ""), at });
  });
  return out;
}

/** The `tool_use_id`s of a user message's `tool_result` blocks, in content order (Anthropic's native format). */
export function toolResultIdsOf(message: BaseMessage): string[] {
  return toolResultBlocksOf(message).map((block) => block.id);
}

/** Whether an AI message makes any call ({@link callIdsOf}). */
function hasCalls(message: BaseMessage): boolean {
  return toolCallsOf(message).length > 0 || blockCallIdsOf(message).length > 0;
}

/** Whether a user message holds something besides `tool_result` blocks and blank text: the user's own words. */
function holdsMoreThanResults(message: BaseMessage): boolean {
  return blocksOf(message.content).some((block) => block.type !== "tool_result" && !isBlankText(block));
}

/** A tool result: a ToolMessage, or a user message holding `tool_result` blocks. */
function isResultMessage(message: BaseMessage): boolean {
  return messageType(message) === "tool" || toolResultBlocksOf(message).length > 0;
}

/** A message that is a tool result and nothing else: a ToolMessage, or a user message of only `tool_result` blocks (Anthropic's native format). */
export function isResultOnly(message: BaseMessage): boolean {
  return messageType(message) === "tool" || (toolResultBlocksOf(message).length > 0 && !holdsMoreThanResults(message));
}

/**
 * A copy of the user message `message` without the `tool_result` blocks at the content positions
 * `at` (same id, name and metadata): what a view sends for a user message whose results answer no
 * call right before it (a cut, a duplicate) beside words of the user's own. The stored message is
 * not changed; one copy per message and positions.
 */
function withoutResults(message: BaseMessage, at: readonly number[]): BaseMessage {
  if (at.length === 0) return message;
  return viewCopy(message, `results:${at.join(",")}`, () => {
    const left = new Set(at);
    return userMessageWith(
      message,
      (message.content as unknown[]).filter((_, k) => !left.has(k)),
    );
  });
}

/**
 * The user message `message` with its `tool_result` blocks first: `message` itself when no other
 * block comes before one, else a copy (same id, name and metadata) with the results first and the
 * other blocks after them, each in stored order. Anthropic refuses text before a turn's results
 * (`tool_use ids were found without tool_result blocks immediately after`; its tool-use guide: the
 * results come first in the content, any text after them), and an import may store the user's
 * words first. The stored message is not changed.
 */
function resultsFirst(message: BaseMessage): BaseMessage {
  const content = message.content as unknown[];
  const isResult = (block: unknown) => (block as ContentBlock | null)?.type === "tool_result";
  const firstOther = content.findIndex((block) => !isResult(block));
  if (firstOther === -1 || !content.slice(firstOther).some(isResult)) return message;
  return viewCopy(message, "results-first", () =>
    userMessageWith(message, [...content.filter(isResult), ...content.filter((block) => !isResult(block))]),
  );
}

/**
 * A new user message with `message`'s id, name, `additional_kwargs` and `response_metadata` and
 * the given content: how a view's copy of a stored user message is made (results left out or
 * moved first, call ids renamed, roles merged). `message` is not changed.
 */
export function userMessageWith(message: BaseMessage, content: unknown): HumanMessage {
  return new HumanMessage({
    id: message.id,
    name: message.name,
    content: content as never,
    additional_kwargs: message.additional_kwargs,
    response_metadata: message.response_metadata,
  });
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

/** Position of the newest user message of `messages` per array (an array is never mutated), so a walk from the end scans once. */
const newestUsers = new WeakMap<readonly BaseMessage[], { length: number; at: number }>();

/**
 * Position of the newest user message ({@link isUserMessage}) in `messages`, `-1` when none: the
 * user's current input, sent even when empty. A user message of only `tool_result` blocks after it
 * (Anthropic's native format) is the run's tool loop, as ToolMessages are: the input stays the
 * newest through the loop. O(distance from the end), kept per array.
 */
export function newestUserAt(messages: readonly BaseMessage[]): number {
  const known = newestUsers.get(messages);
  if (known && known.length === messages.length) return known.at;
  let at = messages.length - 1;
  while (at >= 0 && !isUserMessage(messages[at] as BaseMessage)) at -= 1;
  newestUsers.set(messages, { length: messages.length, at });
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
      const blocks = toolResultBlocksOf(m);
      if (blocks.length === 0) break;
      const more = holdsMoreThanResults(m);
      const taken = takeResults(open, blocks);
      if (taken.hits === 0) {
        // Results that answer nothing open: a stray, unless the user's own words ride with them.
        if (more) break;
        strays.push(j);
        j += 1;
        continue;
      }
      answered.push(withoutBlankText(resultsFirst(withoutResults(m, taken.strays))));
      j += 1;
      if (more) break;
    }
    // A tool_use block no result answers and tool_calls lacks is no call the agent ran: left out
    // of the sent copy, as callsOnlyProviderCopiesName leaves out other provider copies.
    const stale: string[] = [];
    for (const id of new Set(blockCalls))
      if (open.get(id) === ids.filter((x) => x === id).length) {
        open.delete(id);
        stale.push(id);
      }
    if (calls.length === 0 && answered.length === 0) {
      out.push({ kind: "assistant", messages: [sendable(message, stale)], start: i, end: i + 1 });
      return i + 1;
    }
    // Results a tool's Command put after messages of its own (a parallel call): taken across them,
    // the messages sent after all the results (see `deferredResults`).
    const later = answered.length > 0 && strays.length === 0 && open.size > 0 ? deferredResults(messages, j, stop, open) : undefined;
    if (later && (later.open.size === 0 || partlyAnswerable(ids, later.open))) {
      const group: MessageGroup = { kind: "tool_call", messages: [], start: i, end: later.end, deferred: later.between.length };
      const unanswered = [...later.open.keys(), ...stale];
      if (unanswered.length > 0) group.unanswered = unanswered;
      group.messages = portable([sendable(message, unanswered), ...answered, ...later.results, ...later.between]);
      out.push(group);
      return later.end;
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
      const last = messages[j - 1] as BaseMessage;
      if (j - 1 > i && messageType(last) === "human" && holdsMoreThanResults(last)) {
        // The user's words beside results of a call that cannot be sent: the words go on alone.
        out.push({ kind: "orphan", messages: messages.slice(i, j - 1), start: i, end: j - 1 });
        out.push({ kind: "user", messages: [userMessageSent(last)], start: j - 1, end: j });
      } else out.push({ kind: "orphan", messages: messages.slice(i, j), start: i, end: j });
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
        : type === "tool"
          ? "orphan"
          : "assistant";
  out.push({ kind, messages: [kind === "user" ? withoutBlankText(message) : message], start: i, end: i + 1 });
  return i + 1;
}

/** What a view sends for a user message outside any call's run: without its `tool_result` blocks and blank text. */
function userMessageSent(message: BaseMessage): BaseMessage {
  return withoutBlankText(
    withoutResults(
      message,
      toolResultBlocksOf(message).map((block) => block.at),
    ),
  );
}

/** `true` for a text block (or a string part) whose text is blank. */
function isBlankText(block: unknown): boolean {
  if (typeof block === "string") return block.trim() === "";
  const b = block as ContentBlock | null;
  return b !== null && typeof b === "object" && b.type === "text" && String(b.text ?? "").trim() === "";
}

/**
 * The message a view sends for `message`: `message` itself unless its content holds blank text
 * beside something else to send; then a copy without the blank text (same id, name, calls, call
 * id and metadata). A user message's blocks: a picture sent without a caption, as a chat UI sends
 * `[{ type: "text", text: "" }, { type: "image_url", ... }]`. An AI message's blocks beside other
 * blocks or its tool calls (an answer that carries an empty text block next to `tool_use`, a
 * client that stores `[{ type: "text", text: "" }]` with the calls); an AI message with calls
 * whose content is nothing but blank text (a blank string or blank blocks) is sent with `""`,
 * which every converter sends as the calls alone. A tool result's blocks (`@langchain/anthropic`
 * sends them inside its `tool_result`); a result of nothing but blank blocks is sent as `""`.
 * Anthropic (`text content blocks must contain non-whitespace text`, `text content blocks must be
 * non-empty`; its converter sends an AI message's non-empty string beside its calls as a text
 * block), Gemini (`empty text parameter`) and Bedrock Converse (`The text field in the
 * ContentBlock object ... is blank`, for a user message: `@langchain/aws` merges an AI message's
 * blank blocks away) refuse such a block; OpenAI accepts it. The stored message is not changed.
 * A user message with nothing but blank text is empty ({@link isEmptyContent}) and is sent as it
 * is when it is the newest user message (left out otherwise); an AI message with neither text nor
 * calls is left out by the view's role step.
 */
function withoutBlankText(message: BaseMessage): BaseMessage {
  const content = message.content as unknown;
  const type = messageType(message);
  if (type !== "human" && type !== "ai" && type !== "tool") return message;
  // Content that is nothing but blank text may be sent as "" (instead of a blank block) when the
  // message holds something else: an AI message's calls, a tool result's call id.
  const emptyAllowed = type === "tool" || toolCallsOf(message).length > 0;
  const blankString = emptyAllowed && type === "ai" && typeof content === "string" && content !== "" && content.trim() === "";
  if (!blankString && (!Array.isArray(content) || !content.some(isBlankText) || (content.every(isBlankText) && !emptyAllowed)))
    return message;
  // One copy per stored message, so every hook of a call shares one object.
  return viewCopy(message, "blank", () => {
    const kept = Array.isArray(content) ? content.filter((block) => !isBlankText(block)) : [];
    const fields = {
      id: message.id,
      name: message.name,
      content: (kept.length === 0 ? "" : kept) as never,
      additional_kwargs: message.additional_kwargs,
      response_metadata: message.response_metadata,
    };
    let copy: BaseMessage;
    if (type === "ai") {
      const from = message as AIMessage;
      copy = new AIMessage({
        ...fields,
        tool_calls: from.tool_calls,
        invalid_tool_calls: from.invalid_tool_calls,
        ...(from.usage_metadata ? { usage_metadata: from.usage_metadata } : {}),
      });
    } else if (type === "tool") {
      const from = message as ToolMessage;
      copy = new ToolMessage({
        ...fields,
        tool_call_id: from.tool_call_id,
        ...(from.status ? { status: from.status } : {}),
        ...(from.artifact !== undefined ? { artifact: from.artifact } : {}),
      });
    } else copy = new HumanMessage(fields);
    return copy;
  });
}

/** Most messages a tool's `Command` may put between the results of one parallel call for them to still be paired (see {@link deferredResults}). */
const MAX_BETWEEN_RESULTS = 8;

/**
 * A message a tool's `Command` may add next to its ToolMessage: a user message with content or an
 * AI message without tool calls.
 */
function mayComeBetweenResults(message: BaseMessage): boolean {
  const type = messageType(message);
  if (type === "human") return !isEmptyContent(message.content) && toolResultBlocksOf(message).length === 0;
  return type === "ai" && !hasCalls(message);
}

/**
 * The results of a parallel call that come after messages a tool's `Command` added next to its
 * own ToolMessage. LangGraph's ToolNode writes each call's output in call order, so
 * `Command({ update: { messages: [result, note] } })` from the first of two calls stores
 * `[AI(a, b), result a, note, result b]`: result b still answers its call, but pairing by position
 * stopped at the note and left call b out (R37). Only after at least one result right after the
 * call (the Command's own). From `j` (the end of the results right after the call), runs of at most {@link MAX_BETWEEN_RESULTS} such messages each followed by results that
 * answer calls still `open` are taken, up to the last such result. `undefined` when there is none
 * or a result there answers no open call (a stray: the positional grouping stands). `between` are
 * the messages between, sent after all the results (Anthropic, Gemini and Bedrock refuse anything
 * between a call and its results; OpenAI requires the results right after the call).
 */
function deferredResults(
  messages: readonly BaseMessage[],
  j: number,
  stop: number,
  open: ReadonlyMap<string, number>,
): { end: number; results: BaseMessage[]; between: BaseMessage[]; open: Map<string, number> } | undefined {
  const left = new Map(open);
  const results: BaseMessage[] = [];
  const between: BaseMessage[] = [];
  let end = j;
  let k = j;
  while (left.size > 0) {
    let g = k;
    while (g < stop && g - k < MAX_BETWEEN_RESULTS && mayComeBetweenResults(messages[g] as BaseMessage)) g += 1;
    if (g === k || g >= stop || messageType(messages[g] as BaseMessage) !== "tool") break;
    let h = g;
    const taken: BaseMessage[] = [];
    while (h < stop && messageType(messages[h] as BaseMessage) === "tool") {
      const id = (messages[h] as ToolMessage).tool_call_id ?? "";
      const n = left.get(id);
      if (n === undefined) return undefined;
      if (n <= 1) left.delete(id);
      else left.set(id, n - 1);
      taken.push(withoutBlankText(messages[h] as BaseMessage));
      h += 1;
    }
    for (let b = k; b < g; b += 1) between.push(withoutBlankText(messages[b] as BaseMessage));
    results.push(...taken);
    end = h;
    k = h;
  }
  return end === j ? undefined : { end, results, between, open: left };
}

/**
 * A tool_call group's messages with every tool call id one all providers accept
 * (`portable-call-ids.ts`): the array itself when every id already is.
 */
function portable(members: BaseMessage[]): BaseMessage[] {
  let out: BaseMessage[] | undefined;
  for (let k = 0; k < members.length; k += 1) {
    const m = members[k] as BaseMessage;
    const sent = withPortableCallIds(m);
    if (sent !== m) {
      out ??= members.slice();
      out[k] = sent;
    }
  }
  return out ?? members;
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
 * The AI message a view sends for `message` with the calls `unanswered` left out: `message`
 * itself when there are none and its provider output items (OpenAI Responses, kept in
 * `response_metadata.output` and sent in place of the message's fields) call exactly its
 * `tool_calls`; otherwise {@link withoutCalls}'s copy, whose items match the calls it keeps. So an
 * AI message whose stored items name calls its `tool_calls` do not (langchain's HITL middleware
 * rewrites `tool_calls` in place; an edit by id that kept the metadata) is sent without them.
 * Either way without blank text beside other content ({@link withoutBlankText}).
 */
function sendable(message: BaseMessage, unanswered: readonly string[]): BaseMessage {
  const stale = callsOnlyProviderCopiesName(message);
  if (stale.length > 0) return withoutBlankText(withoutCalls(message, [...unanswered, ...stale]));
  if (unanswered.length > 0) return withoutBlankText(withoutCalls(message, unanswered));
  const items = responsesOutputOf(message);
  if (
    (items === undefined ||
      responsesCallsMatch(
        items,
        toolCallsOf(message).map((call) => call.id ?? ""),
      )) &&
    !providerCopiesDisagree(message)
  )
    return withoutBlankText(message);
  return withoutBlankText(withoutCalls(message, []));
}

/**
 * Whether a provider copy of one of the AI message's `tool_calls` (the same id) names another tool
 * or holds other arguments: an `additional_kwargs.tool_calls` entry, a `tool_use` / `tool_call` /
 * `function_call` content block, an OpenAI Responses `function_call` item. langchain's
 * human-in-the-loop middleware writes an edited call (`edit` decision) into `tool_calls` only;
 * `@langchain/anthropic` sends the `tool_use` blocks and `@langchain/openai` the Responses items,
 * so the model was shown the call it made answered by the result of the edited one, and called
 * again (https://github.com/langchain-ai/langchain/issues/33787). False at once for a message
 * without calls.
 */
function providerCopiesDisagree(message: BaseMessage): boolean {
  const calls = toolCallsOf(message);
  if (calls.length === 0) return false;
  const byId = new Map(calls.map((call) => [call.id ?? "", call]));
  const ai = message as AIMessage;
  const raw = ai.additional_kwargs?.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }> | undefined;
  if (Array.isArray(raw))
    for (const entry of raw) {
      const call = byId.get(String(entry?.id ?? ""));
      if (call && (entry.function?.name !== call.name || !sameArguments(entry.function?.arguments, call.args))) return true;
    }
  if (Array.isArray(ai.content))
    for (const block of ai.content as Array<Record<string, unknown> | string>) {
      if (typeof block === "string") continue;
      const call = callOfBlock(block, byId);
      if (call && !blockAgrees(block, call)) return true;
    }
  const items = responsesOutputOf(message);
  if (items)
    for (const item of items) {
      const call = item.type === "function_call" ? byId.get(String(item.call_id ?? "")) : undefined;
      if (call && !responsesItemAgrees(item, call)) return true;
    }
  return false;
}

/** The call of `calls` a `tool_use` / `tool_call` / `function_call` content block copies, by id (a Responses block: its `call_id`). */
function callOfBlock(block: Record<string, unknown>, calls: ReadonlyMap<string, CalledTool>): CalledTool | undefined {
  const type = String(block.type);
  if (type === "function_call") return calls.get(String(block.call_id ?? "")) ?? calls.get(String(block.id ?? ""));
  return type === "tool_use" || type === "tool_call" ? calls.get(String(block.id ?? "")) : undefined;
}

/** Whether a content block copy of `call` names its tool and holds its arguments (`input`, `args` or `arguments` JSON). */
function blockAgrees(block: Record<string, unknown>, call: CalledTool): boolean {
  const raw = block.type === "tool_use" ? block.input : block.type === "tool_call" ? block.args : block.arguments;
  // A streamed tool_use block may hold its input as partial JSON text; only a name or value that differs is an edit.
  return block.name === call.name && sameArguments(raw, call.args);
}

/** `block` saying what `call` says: its tool name and its arguments, in the block's own field. */
function blockAsCalled(block: Record<string, unknown>, call: CalledTool): Record<string, unknown> {
  if (block.type === "tool_use") return { ...block, name: call.name, input: call.args ?? {} };
  if (block.type === "tool_call") return { ...block, name: call.name, args: call.args ?? {} };
  return { ...block, name: call.name, arguments: JSON.stringify(call.args ?? {}) };
}

/**
 * Ids of calls the provider's copies of an AI message's calls name and its `tool_calls` do not:
 * `additional_kwargs.tool_calls` and `tool_use` / `tool_call` / `function_call` content blocks.
 * `@langchain/openai` stores a call whose arguments are not valid JSON (a small model, an answer
 * cut by `max_tokens`) in `invalid_tool_calls`, not `tool_calls`, and keeps the raw call in
 * `additional_kwargs.tool_calls`; the agent runs no tool for it, and when `tool_calls` is empty
 * the converter sends `additional_kwargs.tool_calls`, so every later request had a call without
 * its result (`400 An assistant message with 'tool_calls' must be followed by tool messages`).
 * Empty (one property read) for the usual message.
 */
function callsOnlyProviderCopiesName(message: BaseMessage): string[] {
  const ai = message as AIMessage;
  const raw = ai.additional_kwargs?.tool_calls as Array<{ id?: unknown }> | undefined;
  const blocks = Array.isArray(ai.content) ? (ai.content as Array<Record<string, unknown> | string>) : undefined;
  if (!Array.isArray(raw) && !blocks) return [];
  // A `tool_use` block tool_calls lack is a call of its own (Anthropic's native format): the grouping decides on it.
  const own = new Set(callIdsOf(message));
  const stale = new Set<string>();
  if (Array.isArray(raw)) for (const call of raw) if (!own.has(String(call?.id ?? ""))) stale.add(String(call?.id ?? ""));
  if (blocks)
    for (const block of blocks) {
      if (typeof block === "string" || !["tool_use", "tool_call", "function_call"].includes(String(block.type))) continue;
      // A Responses `function_call` block has its item id (`fc_...`) and the call's `call_id`.
      if (own.has(String(block.call_id ?? "")) || own.has(String(block.id ?? ""))) continue;
      stale.add(String(block.id ?? block.call_id ?? ""));
    }
  return [...stale];
}

/**
 * A copy of the AI message `message` without the tool calls whose ids are in `ids`: its
 * `tool_calls`, `invalid_tool_calls`, the provider's copies of them (`additional_kwargs.tool_calls`,
 * OpenAI Responses output items in `response_metadata.output`: `responseMetadataFor`) and their
 * content blocks (`tool_use`, `tool_call`, `function_call` with that id) left out; id, text and
 * other metadata kept. What a view sends for a parallel call that was partly answered (R37):
 * every provider refuses an unanswered call, and dropping the whole call would drop its answers.
 * With `ids` empty: a copy whose output items call exactly its `tool_calls`. Either way the
 * provider's copies of the calls it keeps say what `tool_calls` says (tool name, arguments): a
 * call edited in `tool_calls` alone (langchain's human-in-the-loop `edit` decision) is sent as
 * edited. The same object for the same message and ids. The stored message is not changed.
 */
export function withoutCalls(message: BaseMessage, ids: readonly string[]): AIMessage {
  return viewCopy(message, `calls:${ids.join("\u0000")}`, () => {
    const left = new Set(ids);
    const ai = message as AIMessage;
    const kwargs = { ...(ai.additional_kwargs ?? {}) } as Record<string, unknown>;
    if (Array.isArray(kwargs.tool_calls)) {
      kwargs.tool_calls = (kwargs.tool_calls as Array<{ id?: unknown }>).filter((call) => !left.has(String(call?.id ?? "")));
      if ((kwargs.tool_calls as unknown[]).length === 0) delete kwargs.tool_calls;
    }
    const calls = (ai.tool_calls ?? []).filter((call) => !left.has(call.id ?? ""));
    const byId = new Map<string, CalledTool>(calls.map((call) => [call.id ?? "", call]));
    if (Array.isArray(kwargs.tool_calls))
      kwargs.tool_calls = (kwargs.tool_calls as Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>).map(
        (entry) => {
          const call = byId.get(String(entry?.id ?? ""));
          if (!call || (entry.function?.name === call.name && sameArguments(entry.function?.arguments, call.args))) return entry;
          return { ...entry, function: { ...entry.function, name: call.name, arguments: JSON.stringify(call.args ?? {}) } };
        },
      );
    const content = Array.isArray(ai.content)
      ? (ai.content as Array<Record<string, unknown> | string>)
          .filter(
            (block) =>
              typeof block === "string" ||
              !(
                ["tool_use", "tool_call", "function_call"].includes(String(block.type)) && left.has(String(block.id ?? block.call_id ?? ""))
              ),
          )
          .map((block) => {
            if (typeof block === "string") return block;
            const call = callOfBlock(block, byId);
            return call && !blockAgrees(block, call) ? blockAsCalled(block, call) : block;
          })
      : ai.content;
    const copy = new AIMessage({
      id: ai.id,
      name: ai.name,
      content: content as never,
      tool_calls: calls,
      invalid_tool_calls: ai.invalid_tool_calls,
      additional_kwargs: kwargs,
      response_metadata: responseMetadataAsCalled(
        responseMetadataFor(
          ai,
          calls.map((call) => call.id ?? ""),
        ),
        calls,
      ) as never,
      ...(ai.usage_metadata ? { usage_metadata: ai.usage_metadata } : {}),
    });
    return copy;
  });
}

/**
 * The groups of the unit that ends right before `end`, in thread order, and where that unit
 * starts: what {@link groupMessages} gives for that span, found from the end. A run of results
 * (ToolMessages, user messages of `tool_result` blocks) belongs to the AI message with calls right
 * before the run when that message's unit takes it, or else is one orphan per message (a user
 * message with words beside its results: a user group). Lets a caller walk a long thread
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
  if (messageType(lastMessage) === "human") {
    // Results that no call's unit took: a unit of their own (an orphan, or the user's words beside them).
    groupUnit(messages, last, end, out, newest);
    return { start: last, groups: out };
  }
  let s = last;
  while (s > 0 && messageType(messages[s - 1] as BaseMessage) === "tool") s -= 1;
  // Results stored after messages a tool's Command added (`deferredResults`): back over such
  // messages and runs of results to the call whose group ends here, if there is one.
  let b = s;
  for (;;) {
    if (b === s && b > 0 && hasCalls(messages[b - 1] as BaseMessage)) break;
    let g = b;
    while (g > 0 && b - g < MAX_BETWEEN_RESULTS && mayComeBetweenResults(messages[g - 1] as BaseMessage)) g -= 1;
    let t = g;
    while (t > 0 && messageType(messages[t - 1] as BaseMessage) === "tool") t -= 1;
    if (g === b || t === g || t === 0) break;
    if (hasCalls(messages[t - 1] as BaseMessage)) {
      const unit: MessageGroup[] = [];
      if (groupUnit(messages, t - 1, end, unit, newest) === end) return { start: t - 1, groups: unit };
      break;
    }
    b = t;
  }
  for (let k = s; k < end; k += 1) out.push({ kind: "orphan", messages: [messages[k] as BaseMessage], start: k, end: k + 1 });
  return { start: s, groups: out };
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

/** A content block as LangChain messages hold it. */
export type ContentBlock = Record<string, unknown>;

/** Content as a list of blocks: a string is one text block (none when empty). */
export function blocksOf(content: unknown): ContentBlock[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((block) => (typeof block === "string" ? { type: "text", text: block } : (block as ContentBlock)));
}

/**
 * `true` when content holds no block other than blank text and `reasoning` blocks (spec R33: such
 * an AI message is not sent; such a user message is empty). A `reasoning` block (LangChain's
 * standard block, from an OpenAI Responses answer) is no answer on its own: an answer whose output
 * ran out during its reasoning holds nothing else. `@langchain/anthropic` does not send reasoning
 * blocks, so the message reached Anthropic with no content (`all messages must have non-empty
 * content`), and OpenAI refuses its reasoning item without an item of its own; the same answer
 * stored as `""` (content without standard blocks) was already left out. Anthropic's signed
 * `thinking` blocks count as content.
 */
export function isEmptyContent(content: unknown): boolean {
  if (typeof content === "string") return content.trim() === "";
  return blocksOf(content).every(
    (block) => (block.type === "text" && String(block.text ?? "").trim() === "") || block.type === "reasoning",
  );
}
